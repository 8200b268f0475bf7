//! Self-tests of the brute-force checker of the counted draw rules (`support/full_state.rs`):
//! hand-made positions whose values under RULES.md §5 are derived by hand in the comments, and
//! properties every solution must have (rules never create wins; fewer remaining plies never
//! help the side that wins; every value satisfies the rule equations with the literal one-ply
//! `step`). Squares are written as seen by the side to move, which moves up the board (a1 is its
//! bottom-left corner); the long diagonal is a1–h8.

use crate::full_state;

use std::sync::OnceLock;
use std::time::Instant;

use dprobe::rules::geometry::square_at;
use dprobe::{
    draw::{DrawPreset, Interpretation},
    index::Signature,
    rules::{legal_moves, Board, MoveRules},
    DrawRules, Variant, Wdl,
};
use full_state::{fresh_counts, step, strong_moves_made, terminal, Counts, FullStateSolution};
use rayon::prelude::*;

fn sq(name: &str) -> u8 {
    let b = name.as_bytes();
    square_at(i32::from(b[0] - b'a'), i32::from(b[1] - b'1')).expect("a dark square")
}

fn set(names: &[&str]) -> u32 {
    names.iter().fold(0, |m, n| m | 1 << sq(n))
}

/// A board from the side to move's view: its kings and men, then the opponent's.
fn board(kings: &[&str], men: &[&str], opp_kings: &[&str], opp_men: &[&str]) -> Board {
    let b = Board {
        men: set(men),
        kings: set(kings),
        opp_men: set(opp_men),
        opp_kings: set(opp_kings),
    };
    assert!(b.is_valid());
    b
}

fn counts(list: &[(&'static str, Option<u16>)]) -> Counts {
    list.to_vec()
}

fn signatures(names: &[&str]) -> Vec<Signature> {
    names.iter().map(|n| n.parse().unwrap()).collect()
}

fn up_to_three() -> Vec<Signature> {
    (2..=3).flat_map(Signature::with_pieces).collect()
}

const KINGS_FOUR: [&str; 3] = ["KKKvK", "KvKKK", "KKvKK"];

fn rules(preset: DrawPreset) -> DrawRules {
    DrawRules::new(preset, Interpretation::default())
}

/// The presets with the move rules they are played with (Brazilian with both of its sets).
fn presets() -> [(&'static str, MoveRules, DrawPreset); 5] {
    [
        ("russian", Variant::RUSSIAN.moves, DrawPreset::Fmjd64),
        (
            "brazilian-fmjd64",
            Variant::BRAZILIAN.moves,
            DrawPreset::Fmjd64,
        ),
        ("brazilian-cbd", Variant::BRAZILIAN.moves, DrawPreset::Cbd),
        ("portuguese", Variant::PORTUGUESE.moves, DrawPreset::Fpd),
        ("spanish", Variant::SPANISH.moves, DrawPreset::Spanish),
    ]
}

fn solve(moves: &MoveRules, preset: DrawPreset, sigs: &[Signature]) -> FullStateSolution {
    FullStateSolution::solve(moves, &rules(preset), sigs)
}

/// Russian rules, every signature up to three pieces.
fn russian_three() -> &'static FullStateSolution {
    static S: OnceLock<FullStateSolution> = OnceLock::new();
    S.get_or_init(|| solve(&Variant::RUSSIAN.moves, DrawPreset::Fmjd64, &up_to_three()))
}

/// Russian rules, three kings against one (both sides to move).
fn russian_three_kings() -> &'static FullStateSolution {
    static S: OnceLock<FullStateSolution> = OnceLock::new();
    S.get_or_init(|| {
        solve(
            &Variant::RUSSIAN.moves,
            DrawPreset::Fmjd64,
            &signatures(&["KKKvK", "KvKKK"]),
        )
    })
}

/// Portuguese rules, three kings against one.
fn portuguese_three_kings() -> &'static FullStateSolution {
    static S: OnceLock<FullStateSolution> = OnceLock::new();
    S.get_or_init(|| {
        solve(
            &Variant::PORTUGUESE.moves,
            DrawPreset::Fpd,
            &signatures(&["KKKvK", "KvKKK"]),
        )
    })
}

fn value(s: &FullStateSolution, b: &Board, c: &[(&'static str, Option<u16>)]) -> Wdl {
    s.value(b, &counts(c))
        .unwrap_or_else(|| panic!("not a solved state: {b:?} {c:?}"))
}

// ---------------------------------------------------------------------------------------------
// The arithmetic and the one-ply step.

#[test]
fn strong_moves_are_counted_from_plies_and_the_side_to_move() {
    use dprobe::draw::Strong::{Mover, Opponent};
    // Started with the strong side to move: plies 1, 3, 5 are its moves. After 3 plies the weak
    // side is to move and the strong side has made 2 moves; after 4 plies, strong to move, 2.
    assert_eq!(strong_moves_made(3, Opponent), 2);
    assert_eq!(strong_moves_made(4, Mover), 2);
    // Started with the weak side to move: plies 2, 4 are the strong side's. After 3 plies the
    // strong side is to move and has made 1 move; after 4 plies, weak to move, 2.
    assert_eq!(strong_moves_made(3, Mover), 1);
    assert_eq!(strong_moves_made(4, Opponent), 2);
    assert_eq!(strong_moves_made(0, Mover), 0);
    assert_eq!(strong_moves_made(0, Opponent), 0);
}

#[test]
fn counts_follow_the_rules_ply_by_ply() {
    let draw = rules(DrawPreset::Fmjd64);
    let rules = Variant::RUSSIAN.moves;
    // Three kings against a lone king off the long diagonal: R4 has not started.
    let b = board(&["c1", "e1", "g1"], &[], &["b6"], &[]);
    let fresh = fresh_counts(&draw, &b);
    assert_eq!(
        fresh,
        counts(&[
            ("r1-three-kings", Some(0)),
            ("r2-kings-only", Some(0)),
            ("r3-kings-4-5-pieces", Some(0)),
            ("r4-long-diagonal", None),
        ])
    );
    // A strong move: every running count adds a ply; R4 still waits.
    let mv = dprobe::Move {
        from: sq("c1"),
        to: sq("a3"),
        crowned: false,
        captured: 0,
    };
    let (child, c) = step(&draw, &b, &fresh, &mv);
    assert_eq!(child, b.play(&mv));
    assert_eq!(
        c,
        counts(&[
            ("r1-three-kings", Some(1)),
            ("r2-kings-only", Some(1)),
            ("r3-kings-4-5-pieces", Some(1)),
            ("r4-long-diagonal", None),
        ])
    );
    // The lone king (now to move, at g3 in its own view) steps onto the long diagonal: R4 starts
    // at 0 after that move; the strong side is now the opponent of the side to move.
    let lone = sq("g3");
    assert_eq!(child.kings, 1 << lone);
    let mut moves = Vec::new();
    legal_moves(&child, &rules, &mut moves);
    let onto = moves
        .iter()
        .find(|m| (1u32 << m.to) & dprobe::rules::geometry::LONG_DIAGONAL != 0)
        .expect("a move onto the long diagonal");
    let (grandchild, c2) = step(&draw, &child, &c, onto);
    assert_eq!(c2[3], ("r4-long-diagonal", Some(0)));
    assert_eq!(c2[0], ("r1-three-kings", Some(2)));
    // A capture changes the material: fresh counts of the new one (or no counts at all when the
    // side to move has no piece left).
    let capture_board = board(&["c3"], &[], &["d4"], &[]);
    let mut moves = Vec::new();
    legal_moves(&capture_board, &rules, &mut moves);
    assert!(moves[0].is_capture());
    let some = counts(&[("r2-kings-only", Some(7)), ("r5-king-v-king", Some(7))]);
    let (after, c3) = step(&draw, &capture_board, &some, &moves[0]);
    assert_eq!(after.own(), 0);
    assert!(c3.is_empty());
    assert_eq!(
        terminal(&draw, &rules, &after, &c3),
        Some(Wdl::Loss),
        "no piece: lost"
    );
    let _ = grandchild;

    // A man move resets the kings-only count and no other.
    let b = board(&["h8"], &["c5"], &["a1"], &[]);
    let c = counts(&[("r2-kings-only", Some(4)), ("r5-small", Some(6))]);
    let man = dprobe::Move {
        from: sq("c5"),
        to: sq("d6"),
        crowned: false,
        captured: 0,
    };
    let (_, after) = step(&draw, &b, &c, &man);
    assert_eq!(
        after,
        counts(&[("r2-kings-only", Some(0)), ("r5-small", Some(7))])
    );

    // The Forçada: a move that puts no strong king on the river keeps the count waiting; one that
    // does starts it at 0 (that move is not counted); leaving the river does not stop it.
    let fpd = crate::draw_rules_bruteforce::rules(DrawPreset::Fpd);
    let quiet = |from: &str, to: &str| dprobe::Move {
        from: sq(from),
        to: sq(to),
        crowned: false,
        captured: 0,
    };
    let b = board(&["c1", "e1", "g1"], &[], &["b6"], &[]);
    let waiting = counts(&[("p1-forcada", None)]);
    assert_eq!(fresh_counts(&fpd, &b), waiting);
    let (_, c) = step(&fpd, &b, &waiting, &quiet("e1", "d2"));
    assert_eq!(c, waiting);
    let (onto_river, c) = step(&fpd, &b, &waiting, &quiet("c1", "b2"));
    assert_eq!(c, counts(&[("p1-forcada", Some(0))]));
    // The lone king (to move) moves; then the strong king leaves the river: 2 plies counted.
    let mut moves = Vec::new();
    legal_moves(&onto_river, &Variant::PORTUGUESE.moves, &mut moves);
    assert!(!moves[0].is_capture());
    let (back, c) = step(&fpd, &onto_river, &c, &moves[0]);
    assert_eq!(c, counts(&[("p1-forcada", Some(1))]));
    assert_eq!(back.kings & set(&["b2"]), set(&["b2"]));
    let (left, c) = step(&fpd, &back, &c, &quiet("b2", "c1"));
    assert_eq!(left.opp_kings & dprobe::rules::geometry::LONG_DIAGONAL, 0);
    assert_eq!(c, counts(&[("p1-forcada", Some(2))]));
}

// ---------------------------------------------------------------------------------------------
// Hand-made positions.

/// Russian king against king (R2 kings-only, which equals the material clock without men, and R5
/// "5 moves each": drawn after 10 plies).
#[test]
fn russian_king_against_king() {
    let s = russian_three();
    let at = |p: u16| [("r2-kings-only", Some(p)), ("r5-king-v-king", Some(p))];

    // No capture now or ever: each king can always step to an edge square, where it cannot be
    // captured (no square behind it), so nobody can force anything. Draw, with any counts.
    let quiet = board(&["c1"], &[], &["h6"], &[]);
    assert_eq!(s.fresh_value(&quiet), Some(Wdl::Draw));
    assert_eq!(value(s, &quiet, &at(5)), Wdl::Draw);

    // A capture now (c3 takes d4, landing on e5..h8) wins, even on the last allowed ply: with 9
    // plies counted the capture is ply 10 and leaves the opponent without a piece. With 10 plies
    // counted the limit is reached before it: a draw (the side to move has a move).
    let capture = board(&["c3"], &[], &["d4"], &[]);
    assert_eq!(s.fresh_value(&capture), Some(Wdl::Win));
    assert_eq!(value(s, &capture, &at(9)), Wdl::Win);
    assert_eq!(value(s, &capture, &at(10)), Wdl::Draw);

    // Shut in the a1 corner by a king on h8: the a1 king can only go up the long diagonal, and h8
    // takes it wherever it stops (a1 is empty behind it). Lost in 2 plies. With 8 plies counted
    // the capture is ply 10, the last allowed: still lost. With 9 counted, the a1 king's move is
    // ply 10 and the limit is reached with h8 to move: a draw.
    let corner = board(&["a1"], &[], &["h8"], &[]);
    assert_eq!(s.fresh_value(&corner), Some(Wdl::Loss));
    assert_eq!(value(s, &corner, &at(8)), Wdl::Loss);
    assert_eq!(value(s, &corner, &at(9)), Wdl::Draw);
    assert_eq!(value(s, &corner, &at(10)), Wdl::Draw);

    // The other side of it: e5 goes to h8 and the a1 king must walk into the capture: a win in 3
    // plies. With 7 counted the capture is ply 10: a win; with 8 it would be ply 11: a draw (no
    // other move wins: no capture is possible now, and a1 captures a king that stops anywhere
    // else on the long diagonal).
    let shut = board(&["e5"], &[], &["a1"], &[]);
    assert_eq!(s.fresh_value(&shut), Some(Wdl::Win));
    assert_eq!(value(s, &shut, &at(7)), Wdl::Win);
    assert_eq!(value(s, &shut, &at(8)), Wdl::Draw);
}

/// Russian R5 (two kings, or a king and a man, against a lone king: 5 strong moves) and the end of
/// the game at a limit.
#[test]
fn russian_limit_positions_crowning_and_no_moves() {
    let s = russian_three();
    let at = |p: u16| [("r2-kings-only", Some(p)), ("r5-small", Some(p))];

    // A crowning on the last allowed move escapes the limit. King h8, man c7 against a1, the
    // strong side to move with 9 plies counted: floor(9/2) = 4 strong moves made, this is the
    // 5th. A move of the h8 king lets the a1 king out of the corner (and no move captures), so
    // only the man's moves can win: c7-b8 and c7-d8 crown: the material changes to two kings
    // against one, its counts start at 0, and a1 must walk into h8's capture: a win (the
    // position after the crowning: `russian_crowning_gives_fresh_counts`).
    let crown = board(&["h8"], &["c7"], &["a1"], &[]);
    assert_eq!(value(s, &crown, &at(9)), Wdl::Win);
    // The same with the man on c5: its move does not crown, so after it the strong side has made
    // 5 moves (10 plies, the weak side to move: ceil(10/2) = 5): drawn before the capture.
    let no_crown = board(&["h8"], &["c5"], &["a1"], &[]);
    assert_eq!(value(s, &no_crown, &at(9)), Wdl::Draw);
    // With fresh counts both win (man move, a1 walks into the capture, 3 plies).
    assert_eq!(s.fresh_value(&crown), Some(Wdl::Win));
    assert_eq!(s.fresh_value(&no_crown), Some(Wdl::Win));

    // A side with no legal move has lost, even in a limit position. The lone king on a1 with
    // kings on b2 and c3: it cannot move (b2 is taken, and c3 behind it is taken too). With 10
    // plies counted (the strong side has made ceil(10/2) = 5 moves: the limit) it is still lost.
    let stuck = board(&["a1"], &[], &["b2", "c3"], &[]);
    assert_eq!(value(s, &stuck, &at(10)), Wdl::Loss);
    assert_eq!(value(s, &stuck, &at(9)), Wdl::Loss);
    assert_eq!(s.fresh_value(&stuck), Some(Wdl::Loss));
    // And the move that makes it: kings b2 and e5 against a1, 9 plies counted (4 strong moves):
    // e5-c3 is the 5th, the limit is reached after it, but a1 has no move: a win.
    let shut_in = board(&["b2", "e5"], &[], &["a1"], &[]);
    assert_eq!(value(s, &shut_in, &at(9)), Wdl::Win);
    // With kings b2 and h6 nothing reaches c3 in one move and nothing captures: a draw at 9.
    let cannot = board(&["b2", "h6"], &[], &["a1"], &[]);
    assert_eq!(value(s, &cannot, &at(9)), Wdl::Draw);
}

/// The position after the crowning c7-b8 in `russian_limit_positions_crowning_and_no_moves`,
/// checked through the literal step: fresh counts of the new material, and a loss for the lone
/// king.
#[test]
fn russian_crowning_gives_fresh_counts() {
    let s = russian_three();
    let draw = rules(DrawPreset::Fmjd64);
    let crown = board(&["h8"], &["c7"], &["a1"], &[]);
    let c = counts(&[("r2-kings-only", Some(9)), ("r5-small", Some(9))]);
    let mv = dprobe::Move {
        from: sq("c7"),
        to: sq("b8"),
        crowned: true,
        captured: 0,
    };
    let (child, cc) = step(&draw, &crown, &c, &mv);
    assert_eq!(Signature::of(&child).to_string(), "KvKK");
    assert_eq!(
        cc,
        counts(&[("r2-kings-only", Some(0)), ("r5-small", Some(0))])
    );
    assert_eq!(s.value(&child, &cc), Some(Wdl::Loss));
}

/// Russian three kings against one: R1 (15 strong moves), R2 and R3 (equal to the material clock:
/// no men), R4 (5 strong moves once the lone king is on the long diagonal).
#[test]
fn russian_three_kings_against_one() {
    let s = russian_three_kings();
    let at = |p: u16, r4: Option<u16>| {
        [
            ("r1-three-kings", Some(p)),
            ("r2-kings-only", Some(p)),
            ("r3-kings-4-5-pieces", Some(p)),
            ("r4-long-diagonal", r4),
        ]
    };

    // The lone king to move on a1, a strong king on h8 (two more on g1 and h2, out of the way):
    // it must go up the long diagonal and h8 captures it. Lost in 2 plies with fresh counts
    // (R4 starts at once: the lone king stands on the long diagonal).
    let weak = board(&["a1"], &[], &["h8", "g1", "h2"], &[]);
    assert_eq!(s.fresh_value(&weak), Some(Wdl::Loss));
    assert_eq!(
        fresh_counts(&rules(DrawPreset::Fmjd64), &weak),
        counts(&at(0, Some(0)))
    );
    // 28 plies counted (weak to move: ceil(28/2) = 14 strong moves made): the capture is the
    // 15th, allowed: lost. 29 counted: ceil(29/2) = 15 strong moves made, R1's limit is reached
    // (R2 is at 29 of 30): drawn.
    assert_eq!(value(s, &weak, &at(28, Some(0))), Wdl::Loss);
    assert_eq!(value(s, &weak, &at(29, Some(0))), Wdl::Draw);
    // R4 alone: 8 plies since the lone king reached the diagonal (4 strong moves): the capture is
    // the 5th: lost. 9 plies: ceil(9/2) = 5, drawn.
    assert_eq!(value(s, &weak, &at(8, Some(8))), Wdl::Loss);
    assert_eq!(value(s, &weak, &at(9, Some(9))), Wdl::Draw);

    // The strong side to move: kings e5, g1, h2 against a1. e5-h8 shuts the a1 king in (g1 and
    // h2 cannot reach b2 or c3, so nothing else stops it moving), and the capture follows at ply
    // 3. No capture is possible now (a1 is a corner), so nothing is faster.
    let strong = board(&["e5", "g1", "h2"], &[], &["a1"], &[]);
    assert_eq!(s.fresh_value(&strong), Some(Wdl::Win));
    // 27 counted: e5-h8 (ply 28, ceil(28/2) = 14 strong moves), reply (ply 29, floor(29/2) =
    // 14), capture (the 15th): a win. 28 counted: after e5-h8 (ply 29, weak to move) the strong
    // side has made ceil(29/2) = 15 moves: drawn before the capture.
    assert_eq!(value(s, &strong, &at(27, Some(0))), Wdl::Win);
    assert_eq!(value(s, &strong, &at(28, Some(0))), Wdl::Draw);
    // R4 at 7 (floor(7/2) = 3 strong moves made): e5-h8 is the 4th, the capture the 5th: a win.
    // At 8 (4 made): e5-h8 is the 5th, the limit comes before the capture: drawn.
    assert_eq!(value(s, &strong, &at(7, Some(7))), Wdl::Win);
    assert_eq!(value(s, &strong, &at(8, Some(8))), Wdl::Draw);

    // No move at a limit: a1 shut in by b2 and c3 (and h8) with every count at its limit: lost.
    let stuck = board(&["a1"], &[], &["b2", "c3", "h8"], &[]);
    assert_eq!(value(s, &stuck, &at(30, Some(10))), Wdl::Loss);
}

/// The Portuguese Forçada (three kings against one, 12 strong moves) only counts once a strong
/// king occupies the river (the long diagonal).
#[test]
fn portuguese_forcada_waits_for_the_river() {
    let s = portuguese_three_kings();
    let fpd = rules(DrawPreset::Fpd);
    // Kings e1, f4, g1 against h2, none on the long diagonal: the count has not started. e1-g3
    // leaves the h2 king without a move (g1 is an edge square, g3 is covered by f4): a win with
    // the count waiting, and with any count (the move that wins needs no time).
    let b = board(&["e1", "f4", "g1"], &[], &["h2"], &[]);
    assert_eq!(fresh_counts(&fpd, &b), counts(&[("p1-forcada", None)]));
    assert_eq!(value(s, &b, &[("p1-forcada", None)]), Wdl::Win);
    assert_eq!(value(s, &b, &[("p1-forcada", Some(23))]), Wdl::Win);
    // A waiting count does not run: however long the strong side has manoeuvred off the river,
    // it keeps its 12 moves. Compare the same counter made to start when the material arises
    // (unconditional): after 23 plies (strong to move, floor(23/2) = 11 moves made) it allows one
    // more move. Measured over the table: boards without a strong king on the river that are won
    // with the count waiting but drawn 23 plies into the unconditional count. (Were the count
    // started before the river is occupied, the waiting states would be such late states.)
    let mut unconditional = fpd.clone();
    unconditional.counters[0].condition = None;
    let started = FullStateSolution::solve(
        &Variant::PORTUGUESE.moves,
        &unconditional,
        &signatures(&["KKKvK"]),
    );
    let mut waiting_wins = 0;
    let mut late_draws = 0;
    let mut fresh_draws = 0;
    for (board, c, w) in s.start_states() {
        if Signature::of(&board).to_string() != "KKKvK" || c[0].1.is_some() || w != Wdl::Win {
            continue;
        }
        waiting_wins += 1;
        let late = counts(&[("p1-forcada", Some(23))]);
        if started.value(&board, &late) == Some(Wdl::Draw) {
            late_draws += 1;
        }
        if started.fresh_value(&board) == Some(Wdl::Draw) {
            fresh_draws += 1;
        }
    }
    println!(
        "Portuguese KKKvK, no strong king on the river: {waiting_wins} won with the count \
         waiting; of them {late_draws} drawn 23 plies into a count started with the material, \
         {fresh_draws} drawn at its start"
    );
    assert!(late_draws > 0);
}

/// The other reading of the Forçada (`forcada_restart_on_leave`): a move off the river stops
/// the count, which waits for the river again, unless that move was the last one the count
/// allowed (it is counted, and the game is drawn). RULES.md's reading counts on.
#[test]
fn forcada_restarted_by_leaving_the_river() {
    let fpd = rules(DrawPreset::Fpd);
    let restart = DrawRules::new(
        DrawPreset::Fpd,
        Interpretation {
            forcada_restart_on_leave: true,
            ..Interpretation::default()
        },
    );
    // Kings d4 (on the river), e1, g1 against h4: no capture.
    let b = board(&["d4", "e1", "g1"], &[], &["h4"], &[]);
    let mut moves = Vec::new();
    legal_moves(&b, &Variant::PORTUGUESE.moves, &mut moves);
    let by = |to: &str| {
        *moves
            .iter()
            .find(|m| m.from == sq("d4") && m.to == sq(to))
            .unwrap_or_else(|| panic!("d4-{to}"))
    };
    let (off, along) = (by("e3"), by("c3"));
    let after = |draw: &DrawRules, plies: u16, mv: &dprobe::Move| {
        step(draw, &b, &counts(&[("p1-forcada", Some(plies))]), mv).1
    };
    assert_eq!(after(&restart, 4, &off), counts(&[("p1-forcada", None)]));
    assert_eq!(after(&fpd, 4, &off), counts(&[("p1-forcada", Some(5))]));
    assert_eq!(
        after(&restart, 4, &along),
        counts(&[("p1-forcada", Some(5))])
    );
    // 22 plies with the strong side to move: 11 moves made, so d4-e3 is the 12th and last.
    let (child, last) = step(&restart, &b, &counts(&[("p1-forcada", Some(22))]), &off);
    assert_eq!(last, counts(&[("p1-forcada", Some(23))]));
    assert_eq!(
        terminal(&restart, &Variant::PORTUGUESE.moves, &child, &last),
        Some(Wdl::Draw)
    );
}

/// Russian rule 4 read as "reach a winning position" (`r4_limit_outcome = pure-value`): at the
/// limit (the strong side's 5th move made, the lone king to move) a board the strong side wins
/// in the pure game is no end of the game — play goes on, and the strong side still wins on many
/// of them — while every other board is drawn there, as under RULES.md's reading.
#[test]
fn russian_rule_4_passes_won_positions() {
    let reading = Interpretation {
        r4_limit_outcome: dprobe::draw::LimitOutcome::PureValue,
        ..Interpretation::default()
    };
    let draw = DrawRules::new(DrawPreset::Fmjd64, reading);
    let kvkkk = signatures(&["KvKKK"]);
    let s = FullStateSolution::solve(&Variant::RUSSIAN.moves, &draw, &kvkkk);
    let pure = solve(&Variant::RUSSIAN.moves, DrawPreset::None, &kvkkk);
    let at_limit = counts(&[
        ("r1-three-kings", Some(10)),
        ("r2-kings-only", Some(10)),
        ("r3-kings-4-5-pieces", Some(10)),
        ("r4-long-diagonal", Some(10)),
    ]);
    let (mut won, mut drawn) = (0, 0);
    for board in s.boards(&kvkkk[0]).unwrap() {
        let Some(value) = s.value(board, &at_limit) else {
            continue;
        };
        let mut moves = Vec::new();
        legal_moves(board, &Variant::RUSSIAN.moves, &mut moves);
        if moves.is_empty() {
            continue;
        }
        if pure.fresh_value(board) == Some(Wdl::Loss) {
            assert_eq!(s.terminal(board, &at_limit), None);
            won += usize::from(value == Wdl::Loss);
        } else {
            assert_eq!(s.terminal(board, &at_limit), Some(Wdl::Draw));
            assert_eq!(value, Wdl::Draw);
            drawn += 1;
        }
    }
    println!("Russian KvKKK at rule 4's limit: {won} boards still won, {drawn} drawn");
    assert!(won > 0 && drawn > 0);
    // Under RULES.md's reading every one of them is drawn.
    let rules_md = russian_three_kings();
    assert!(s
        .boards(&kvkkk[0])
        .unwrap()
        .iter()
        .all(|b| { rules_md.terminal(b, &at_limit).is_some() }));
}

// ---------------------------------------------------------------------------------------------
// Properties.

/// Rules never create wins: for every state, a win under the rules is a win in the pure game and
/// a loss under the rules is a loss in the pure game (pure: the same engine with no counters).
/// Returns how many fresh-count states the rules turn from a win or a loss into a draw.
fn check_never_better_than_pure(
    s: &FullStateSolution,
    pure: &FullStateSolution,
    draw: &DrawRules,
) -> (usize, usize) {
    let bad: Vec<String> = s
        .start_states()
        .par_bridge()
        .filter_map(|(b, c, w)| {
            let p = pure.value(&b, &Vec::new()).expect("pure value");
            (w != Wdl::Draw && w != p).then(|| format!("{b:?} {c:?}: rules {w}, pure {p}"))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} states: {:?}",
        bad.len(),
        &bad[..bad.len().min(5)]
    );
    let fresh: Vec<(Wdl, Wdl)> = s
        .start_states()
        .par_bridge()
        .filter(|(b, c, _)| *c == fresh_counts(draw, b))
        .map(|(b, _, w)| (w, pure.value(&b, &Vec::new()).unwrap()))
        .collect();
    let cursed = fresh
        .iter()
        .filter(|(w, p)| *w == Wdl::Draw && *p == Wdl::Win)
        .count();
    let blessed = fresh
        .iter()
        .filter(|(w, p)| *w == Wdl::Draw && *p == Wdl::Loss)
        .count();
    (cursed, blessed)
}

/// Fewer remaining plies never help the winner. For a start state (B, c) and a count vector c'
/// that is "later" than c — one running count one ply higher, or every running count one ply
/// higher, or a waiting count started at 0 — where (B, c') is also a start state: if (B, c') is a
/// win then (B, c) is a win, and if (B, c') is a loss then (B, c) is a loss. (Along any line of
/// play the counts from c' stay at or above those from c, counter by counter, so every limit
/// position of the line from c is one from c'.) Returns the number of pairs checked.
fn check_monotone(s: &FullStateSolution, signatures: &[Signature]) -> usize {
    let mut checked = 0;
    for signature in signatures {
        let Some(vectors) = s.count_vectors(signature) else {
            continue;
        };
        let boards = s.boards(signature).unwrap().len();
        for (i, c) in vectors.iter().enumerate() {
            let mut later: Vec<Counts> = Vec::new();
            for j in 0..c.len() {
                let mut l = c.clone();
                l[j].1 = Some(c[j].1.map_or(0, |p| p + 1));
                later.push(l);
            }
            let mut all = c.clone();
            for entry in &mut all {
                entry.1 = entry.1.map(|p| p + 1);
            }
            later.push(all);
            for l in &later {
                let Some(k) = vectors.iter().position(|v| v == l) else {
                    continue;
                };
                if k == i {
                    continue;
                }
                let (n, bad) = (0..boards)
                    .into_par_iter()
                    .filter_map(|b| {
                        let now = s.value_at(signature, i, b)?;
                        let after = s.value_at(signature, k, b)?;
                        let ok = match after {
                            Wdl::Win => now == Wdl::Win,
                            Wdl::Loss => now == Wdl::Loss,
                            Wdl::Draw => true,
                        };
                        Some((1usize, usize::from(!ok)))
                    })
                    .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
                assert_eq!(bad, 0, "{signature}: {c:?} vs later {l:?} on {bad} boards");
                checked += n;
            }
        }
    }
    checked
}

/// Every `stride`-th start state satisfies the rule equations computed with the literal `step`
/// and `terminal` (not the engine's memoised transitions): no move → loss; a limit → draw; else a
/// win iff some child is lost for its mover, a loss iff every child is won, otherwise a draw.
/// Every child must itself be a solved state (the consistent states are closed under moves).
fn check_equations(s: &FullStateSolution, stride: usize) -> usize {
    let (rules, draw) = s.rules();
    let bad: Vec<String> = s
        .start_states()
        .step_by(stride)
        .par_bridge()
        .filter_map(|(b, c, w)| {
            let expected = s.terminal(&b, &c).unwrap_or_else(|| {
                let mut moves = Vec::new();
                legal_moves(&b, rules, &mut moves);
                let children: Vec<Wdl> = moves
                    .iter()
                    .map(|mv| {
                        let (child, cc) = step(draw, &b, &c, mv);
                        if child.own() == 0 {
                            Wdl::Loss
                        } else {
                            s.value(&child, &cc).unwrap_or_else(|| {
                                panic!("child {child:?} {cc:?} of {b:?} {c:?} is not solved")
                            })
                        }
                    })
                    .collect();
                if children.contains(&Wdl::Loss) {
                    Wdl::Win
                } else if children.iter().all(|&v| v == Wdl::Win) {
                    Wdl::Loss
                } else {
                    Wdl::Draw
                }
            });
            (expected != w).then(|| format!("{b:?} {c:?}: solved {w}, equations {expected}"))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} states: {:?}",
        bad.len(),
        &bad[..bad.len().min(5)]
    );
    s.states() / stride
}

fn check_preset(
    name: &str,
    moves: &MoveRules,
    preset: DrawPreset,
    sigs: &[Signature],
    stride: usize,
) {
    let draw = rules(preset);
    let start = Instant::now();
    let s = FullStateSolution::solve(moves, &draw, sigs);
    let solved = start.elapsed();
    let pure = FullStateSolution::solve(moves, &rules(DrawPreset::None), sigs);
    let (cursed, blessed) = check_never_better_than_pure(&s, &pure, &draw);
    let pairs = check_monotone(&s, sigs);
    let equations = check_equations(&s, stride);
    println!(
        "{name}: {} states ({} start states) solved in {solved:.2?}, {} passes; fresh counts: \
         {cursed} pure wins and {blessed} pure losses drawn; {pairs} monotone pairs, \
         {equations} equations checked; all in {:.2?}",
        s.states(),
        s.start_states().count(),
        s.passes(),
        start.elapsed()
    );
}

#[test]
fn every_preset_up_to_three_pieces() {
    for (name, moves, preset) in presets() {
        check_preset(name, &moves, preset, &up_to_three(), 7);
    }
}

/// The king-only four-piece signatures in every preset (about a minute on two cores, most of it
/// the checks; the solve alone is 5–20 s per preset).
#[test]
#[ignore]
fn every_preset_kings_only_four_pieces() {
    for (name, moves, preset) in presets() {
        check_preset(name, &moves, preset, &signatures(&KINGS_FOUR), 97);
    }
}
