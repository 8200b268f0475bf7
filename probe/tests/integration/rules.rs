//! Hand-worked positions for every rule of RULES.md §1–§2: for each, the full list of legal
//! moves, worked out from the rules (not copied from the generator), in every variant where the
//! rule matters.
//!
//! Positions are written with algebraic squares (a1 a dark square, White at the bottom) and
//! turned into a PDN FEN in each variant's own numbering with the tables of RULES.md §4, typed
//! in here by hand. Expected moves are written as Russian moves (`c3-d4`, `c3:e5:g7`) and turned
//! into each variant's notation the same way (Brazilian `22-18`, `22:15:8`; Portuguese and
//! Spanish `10-14`, `10x19x28`). A trailing ` K` marks a move that crowns a man; every move
//! without it must not crown.

use std::collections::BTreeSet;

use dprobe::{rules::count_legal_moves, Color, Move, Position, Variant};

const RUSSIAN: Variant = Variant::RUSSIAN;
const BRAZILIAN: Variant = Variant::BRAZILIAN;
const PORTUGUESE: Variant = Variant::PORTUGUESE;
const SPANISH: Variant = Variant::SPANISH;
const ALL: [Variant; 4] = Variant::ALL;
/// Russian and Brazilian: men capture backward.
const BACKWARD: [Variant; 2] = [RUSSIAN, BRAZILIAN];
/// Portuguese and Spanish: identical move rules.
const IBERIAN: [Variant; 2] = [PORTUGUESE, SPANISH];
/// The variants with a majority rule.
const MAJORITY: [Variant; 3] = [BRAZILIAN, PORTUGUESE, SPANISH];

/// RULES.md §4, Russian and Brazilian numbering: square `n` is `FROM_BLACK_LEFT[n - 1]`.
const FROM_BLACK_LEFT: [&str; 32] = [
    "b8", "d8", "f8", "h8", "a7", "c7", "e7", "g7", "b6", "d6", "f6", "h6", "a5", "c5", "e5", "g5",
    "b4", "d4", "f4", "h4", "a3", "c3", "e3", "g3", "b2", "d2", "f2", "h2", "a1", "c1", "e1", "g1",
];

/// RULES.md §4, Portuguese and Spanish numbering mapped onto the internal geometry.
const FROM_WHITE_RIGHT: [&str; 32] = [
    "a1", "c1", "e1", "g1", "b2", "d2", "f2", "h2", "a3", "c3", "e3", "g3", "b4", "d4", "f4", "h4",
    "a5", "c5", "e5", "g5", "b6", "d6", "f6", "h6", "a7", "c7", "e7", "g7", "b8", "d8", "f8", "h8",
];

fn is_iberian(variant: &Variant) -> bool {
    variant.name == "portuguese" || variant.name == "spanish"
}

/// The square number of an algebraic square in the variant's numbering.
fn number(variant: &Variant, square: &str) -> u32 {
    let table = if is_iberian(variant) {
        &FROM_WHITE_RIGHT
    } else {
        &FROM_BLACK_LEFT
    };
    let index = table
        .iter()
        .position(|s| *s == square)
        .unwrap_or_else(|| panic!("{square} is not a dark square"));
    index as u32 + 1
}

/// The internal square (`rank * 4 + file / 2`, see `dprobe::rules::geometry`) of an algebraic square.
fn sq(name: &str) -> u8 {
    let b = name.as_bytes();
    let (file, rank) = (b[0] - b'a', b[1] - b'1');
    assert_eq!((file + rank) % 2, 0, "{name} is a light square");
    rank * 4 + file / 2
}

/// The set of internal squares of space-separated algebraic squares.
fn set(names: &str) -> u32 {
    names.split_whitespace().map(|n| 1u32 << sq(n)).sum()
}

/// A PDN FEN in the variant's numbering; pieces are space-separated algebraic squares, `K` marks
/// kings (`"c3 Kh2"`).
fn fen(variant: &Variant, side: Color, white: &str, black: &str) -> String {
    let list = |pieces: &str| {
        pieces
            .split_whitespace()
            .map(|p| match p.strip_prefix('K') {
                Some(square) => format!("K{}", number(variant, square)),
                None => number(variant, p).to_string(),
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let side = match side {
        Color::White => 'W',
        Color::Black => 'B',
    };
    format!("{side}:W{}:B{}", list(white), list(black))
}

fn position(variant: &Variant, side: Color, white: &str, black: &str) -> Position {
    let text = fen(variant, side, white, black);
    Position::from_fen(&text, variant).unwrap_or_else(|e| panic!("{variant} {text}: {e}"))
}

/// A move written as in Russian (`c3:e5:g7`, `g7-h8 K`) in the variant's notation.
fn notation(variant: &Variant, text: &str) -> String {
    if variant.name == "russian" {
        return text.to_string();
    }
    let (body, crowned) = match text.strip_suffix(" K") {
        Some(body) => (body, true),
        None => (text, false),
    };
    let separator = match (body.contains(':'), is_iberian(variant)) {
        (false, _) => "-",
        (true, false) => ":",
        (true, true) => "x",
    };
    let mut out = body
        .split([':', '-'])
        .map(|s| number(variant, s).to_string())
        .collect::<Vec<_>>()
        .join(separator);
    if crowned {
        out.push_str(" K");
    }
    out
}

/// The legal moves as printed by the library, sorted, ` K` added to crowning moves.
fn listed(pos: &Position, variant: &Variant) -> Vec<String> {
    let mut list: Vec<String> = pos
        .legal_moves(variant)
        .iter()
        .map(|mv| {
            let mut text = pos.move_to_string(variant, mv);
            if mv.crowned {
                text.push_str(" K");
            }
            text
        })
        .collect();
    list.sort();
    list
}

/// Asserts the full list of legal moves of a position in each of `variants`, and that each move
/// has exactly one path (so the printed string says everything about it).
fn assert_moves(variants: &[Variant], side: Color, white: &str, black: &str, expected: &[&str]) {
    for variant in variants {
        let pos = position(variant, side, white, black);
        let mut want: Vec<String> = expected.iter().map(|m| notation(variant, m)).collect();
        want.sort();
        let text = pos.to_fen(variant);
        assert_eq!(listed(&pos, variant), want, "{variant} {text}");
        let mut scratch = Vec::new();
        assert_eq!(
            count_legal_moves(&pos.board(), &variant.moves, &mut scratch),
            expected.len() as u64,
            "{variant} {text}: count_legal_moves"
        );
        for mv in pos.legal_moves(variant) {
            assert_eq!(
                pos.move_paths(variant, &mv).len(),
                1,
                "{variant} {text}: {mv:?} has more than one path"
            );
        }
    }
}

/// The legal move of `pos` written `text` (as printed by the library).
fn find(pos: &Position, variant: &Variant, text: &str) -> Move {
    let text = notation(variant, text);
    pos.legal_moves(variant)
        .into_iter()
        .find(|mv| pos.move_to_string(variant, mv) == text)
        .unwrap_or_else(|| panic!("{variant}: no move {text}"))
}

use Color::{Black, White};

// ---------------------------------------------------------------------------------------------
// The helpers' tables against the library's numbering.

/// The tables typed in above agree with the library's numbering, so every FEN the tests build
/// means the position the comments describe. A lone king avoids any far-row restriction.
#[test]
fn helper_tables_match_library_numbering() {
    for variant in ALL {
        for n in 1..=32u32 {
            let table = if is_iberian(&variant) {
                FROM_WHITE_RIGHT
            } else {
                FROM_BLACK_LEFT
            };
            let pos = Position::from_fen(&format!("W:WK{n}:B"), &variant).unwrap();
            assert_eq!(
                pos.white_kings,
                1 << sq(table[n as usize - 1]),
                "{variant} {n}"
            );
        }
    }
    // Literal FENs in each numbering for the same position (White man c3, Black b4 d4 f6).
    let bra = Position::from_fen("W:W22:B17,18,11", &BRAZILIAN).unwrap();
    let por = Position::from_fen("W:W10:B13,14,23", &PORTUGUESE).unwrap();
    let rus = Position::from_fen("W:Wc3:Bb4,d4,f6", &RUSSIAN).unwrap();
    assert_eq!(bra, por);
    assert_eq!(bra, rus);
    assert_eq!(bra, position(&BRAZILIAN, White, "c3", "b4 d4 f6"));
}

// ---------------------------------------------------------------------------------------------
// §1: quiet moves.

/// Men move one square diagonally forward only (never backward, never two squares); a flying king
/// moves any number of empty squares along a diagonal and stops before any piece, own or enemy.
/// White: man c3 goes to b4 or d4 (not b2/d2). King a1 has only the long diagonal, where its
/// own man on c3 stops it after b2. King h2 goes to g1, or up-left g3…b8 (the diagonal is empty
/// to the edge). Black's man b6 and king e7 are on none of these lines and no piece touches an
/// enemy, so nobody can capture. Black to move: the man b6 goes down to a5 or c5; the king e7
/// flies to d8, f8, d6 c5 b4 a3 and f6 g5 h4. The rules are the same in every variant.
#[test]
fn quiet_moves_men_one_step_forward_kings_fly() {
    let (white, black) = ("Ka1 c3 Kh2", "b6 Ke7");
    assert_moves(
        &ALL,
        White,
        white,
        black,
        &[
            "a1-b2", "c3-b4", "c3-d4", "h2-g1", "h2-g3", "h2-f4", "h2-e5", "h2-d6", "h2-c7",
            "h2-b8",
        ],
    );
    assert_moves(
        &ALL,
        Black,
        white,
        black,
        &[
            "b6-a5", "b6-c5", "e7-d8", "e7-f8", "e7-d6", "e7-c5", "e7-b4", "e7-a3", "e7-f6",
            "e7-g5", "e7-h4",
        ],
    );
}

/// A man captures only an adjacent piece; a king captures at a distance, but not two pieces
/// standing next to each other (nothing empty directly behind the first). White king h2 looks
/// up-left over g3, f4 to e5, but d6 behind it is occupied: no capture. Man c3 does not touch
/// e5 or d6. So White has only quiet moves: h2-g1, h2-g3, h2-f4 (the king stops before e5) and
/// c3-b4, c3-d4.
#[test]
fn king_cannot_jump_two_pieces_in_a_row() {
    assert_moves(
        &ALL,
        White,
        "c3 Kh2",
        "e5 d6",
        &["h2-g1", "h2-g3", "h2-f4", "c3-b4", "c3-d4"],
    );
}

/// A flying king captures at a distance and, with no continuation anywhere, may land on any empty
/// square behind the captured piece up to the next piece: a1 over c3 (b2 empty) lands on d4,
/// e5 or f6; White's own man on g7 ends the landing squares. None of d4/e5/f6 sees another Black
/// piece (looking back, the taken c3 cannot be taken twice though b2 and a1 behind it are empty),
/// and the man g7 has no capture. Three separate moves, in every variant. Black to move
/// in the position turned by 180° (king h8, White man f6, Black man b2) gives the turned moves.
#[test]
fn flying_king_lands_anywhere_behind_when_nothing_follows() {
    assert_moves(&ALL, White, "Ka1 g7", "c3", &["a1:d4", "a1:e5", "a1:f6"]);
    assert_moves(&ALL, Black, "f6", "Kh8 b2", &["h8:e5", "h8:d4", "h8:c3"]);
}

/// A man that reaches the far row with a quiet move is crowned. White men: g7 to f8 or h8
/// (both crowning), c3 to b4 or d4 (not). Black men: f2 to e1 or g1 (crowning, rank 1 is Black's
/// far row), a5 to b4. No piece touches an enemy. The position after g7-h8 has a White king on
/// h8 and Black to move; after f2-e1 a Black king on e1 and White to move.
#[test]
fn man_reaching_far_row_by_quiet_move_is_crowned() {
    let (white, black) = ("g7 c3", "a5 f2");
    assert_moves(
        &ALL,
        White,
        white,
        black,
        &["g7-f8 K", "g7-h8 K", "c3-b4", "c3-d4"],
    );
    assert_moves(&ALL, Black, white, black, &["f2-e1 K", "f2-g1 K", "a5-b4"]);

    for variant in ALL {
        let pos = position(&variant, White, white, black);
        let mv = find(&pos, &variant, "g7-h8");
        assert!(mv.crowned);
        let after = pos.play(&mv);
        assert_eq!(after, position(&variant, Black, "c3 Kh8", "a5 f2"));
        let pos = position(&variant, Black, white, black);
        let mv = find(&pos, &variant, "f2-e1");
        assert!(mv.crowned);
        assert_eq!(pos.play(&mv), position(&variant, White, "g7 c3", "a5 Ke1"));
    }
    // The same checks on the FEN strings, written out in each numbering.
    let pos = position(&BRAZILIAN, White, white, black);
    let after = pos.play(&find(&pos, &BRAZILIAN, "g7-h8"));
    assert_eq!(after.to_fen(&BRAZILIAN), "B:WK4,22:B13,27");
    let pos = position(&PORTUGUESE, White, white, black);
    let after = pos.play(&find(&pos, &PORTUGUESE, "g7-h8"));
    assert_eq!(after.to_fen(&PORTUGUESE), "B:W10,K32:B7,17");
    let pos = position(&RUSSIAN, Black, white, black);
    let after = pos.play(&find(&pos, &RUSSIAN, "f2-e1"));
    assert_eq!(after.to_fen(&RUSSIAN), "W:W8,22:B13,K31");
    let pos = position(&SPANISH, Black, white, black);
    let after = pos.play(&find(&pos, &SPANISH, "f2-e1"));
    assert_eq!(after.to_fen(&SPANISH), "W:W10,28:BK3,17");
}

// ---------------------------------------------------------------------------------------------
// §1: capture is compulsory; no move at all.

/// Capturing is compulsory: White man c3 takes d4 landing on e5 (nothing follows: d6, f6, f4
/// are empty), and the quiet moves of the man g3 and of the king h8 (whose diagonal ends at d4
/// with White's own c3 behind it, so it has no capture) are not allowed. With Black to move the
/// man d4 must take c3 (forward for Black), landing on b2.
#[test]
fn capture_is_compulsory() {
    let (white, black) = ("c3 g3 Kh8", "d4");
    assert_moves(&ALL, White, white, black, &["c3:e5"]);
    assert_moves(&ALL, Black, white, black, &["d4:b2"]);
}

/// A side with no pieces has no move (and loses). With White to move: no White piece.
/// With Black to move: no Black piece.
#[test]
fn no_pieces_no_moves() {
    assert_moves(&ALL, White, "", "b8 Kd4", &[]);
    assert_moves(&ALL, Black, "c3 Kh2", "", &[]);
}

/// All blocked: White king a1 sees b2 (Black) with c3 occupied behind it, so no capture and no
/// quiet move; White man h2 has only g3 ahead (Black), with f4 occupied behind it. Backward (for
/// Russian and Brazilian) the man sees g1, empty, and nothing to capture. No legal move in any
/// variant. The same position turned by 180° with Black to move (king h8, man a7 against White
/// g7 f6 b6 c5) is blocked too.
#[test]
fn blocked_side_has_no_moves() {
    assert_moves(&ALL, White, "Ka1 h2", "b2 c3 g3 f4", &[]);
    assert_moves(&ALL, Black, "g7 f6 b6 c5", "Kh8 a7", &[]);
}

// ---------------------------------------------------------------------------------------------
// §2: choice between captures.

/// Majority rule. White man c3 can take b4 (landing a5; b6 is empty, so nothing follows) or take
/// d4 landing on e5 and then f6 landing on g7 (two pieces). Russian: free choice, both. Brazilian,
/// Portuguese, Spanish: the most pieces, so only c3:e5:g7. The same position turned by 180° with
/// Black to move: Black man f6 takes g5 (to h4) or e5 then c3 (to d4, then b2).
#[test]
fn majority_rule_takes_the_longer_capture() {
    let (white, black) = ("c3", "b4 d4 f6");
    assert_moves(&[RUSSIAN], White, white, black, &["c3:a5", "c3:e5:g7"]);
    assert_moves(&MAJORITY, White, white, black, &["c3:e5:g7"]);

    let (white, black) = ("g5 e5 c3", "f6");
    assert_moves(&[RUSSIAN], Black, white, black, &["f6:h4", "f6:d4:b2"]);
    assert_moves(&MAJORITY, Black, white, black, &["f6:d4:b2"]);
}

/// Quality rule. White man c3 can take the king b4 (to a5) or the man d4 (to e5); either way
/// nothing follows (b6, d6, f6 and, backward, f4 are empty). One piece each: Russian (free) and
/// Brazilian (a king counts as one) allow both; Portuguese and Spanish must take the king.
/// Turned by 180°, Black to move: Black man f6 takes king g5 (to h4) or man e5 (to d4).
#[test]
fn quality_rule_takes_more_kings() {
    let (white, black) = ("c3", "Kb4 d4");
    assert_moves(&BACKWARD, White, white, black, &["c3:a5", "c3:e5"]);
    assert_moves(&IBERIAN, White, white, black, &["c3:a5"]);

    let (white, black) = ("Kg5 e5", "f6");
    assert_moves(&BACKWARD, Black, white, black, &["f6:h4", "f6:d4"]);
    assert_moves(&IBERIAN, Black, white, black, &["f6:h4"]);
}

/// The number of pieces comes before the number of kings: c3 can take the king b4 (one piece,
/// to a5) or the men d4 and f6 (two pieces, c3:e5:g7). Brazilian, Portuguese and Spanish must
/// take two men; Russian may do either.
#[test]
fn quality_rule_counts_pieces_before_kings() {
    let (white, black) = ("c3", "Kb4 d4 f6");
    assert_moves(&[RUSSIAN], White, white, black, &["c3:a5", "c3:e5:g7"]);
    assert_moves(&MAJORITY, White, white, black, &["c3:e5:g7"]);
}

/// The quality rule counts what is captured, not what captures. White king a1 can take the man
/// e5 (b2, c3, d4 empty) landing f6, g7 or h8 (no continuation from any: f6 sees e7 d8 and g5
/// h4, g7 sees f8 and h6, all empty); White man a3 can take the king b4 landing on c5 (nothing
/// follows: b6, d6, d4 empty). All capture one piece: Russian and Brazilian allow all four;
/// Portuguese and Spanish only the man's capture of the king.
#[test]
fn quality_rule_counts_captured_kings_not_the_capturer() {
    let (white, black) = ("Ka1 a3", "e5 Kb4");
    assert_moves(
        &BACKWARD,
        White,
        white,
        black,
        &["a1:f6", "a1:g7", "a1:h8", "a3:c5"],
    );
    assert_moves(&IBERIAN, White, white, black, &["a3:c5"]);
}

// ---------------------------------------------------------------------------------------------
// §2: men capture backward or not.

/// Backward captures. White man d4 has Black men behind it on c3 (b2 empty) and e3 (f2 empty)
/// and nothing ahead. Russian and Brazilian men capture backward: d4:b2, d4:f2 (nothing follows
/// from b2 or f2). Portuguese and Spanish men cannot, so there is no capture and the man moves
/// forward quietly: d4-c5, d4-e5. Turned by 180°, Black to move: Black man e5 with White men
/// behind it on f6 and d6.
#[test]
fn iberian_men_do_not_capture_backward() {
    let (white, black) = ("d4", "c3 e3");
    assert_moves(&BACKWARD, White, white, black, &["d4:b2", "d4:f2"]);
    assert_moves(&IBERIAN, White, white, black, &["d4-c5", "d4-e5"]);

    let (white, black) = ("f6 d6", "e5");
    assert_moves(&BACKWARD, Black, white, black, &["e5:g7", "e5:c7"]);
    assert_moves(&IBERIAN, Black, white, black, &["e5-d4", "e5-f4"]);
}

/// With a forward capture (c5, to b6) and two backward ones (c3 to b2, e3 to f2), all of one
/// piece: Russian and Brazilian may play any of the three; Portuguese and Spanish only the
/// forward one.
#[test]
fn iberian_men_capture_forward_only() {
    let (white, black) = ("d4", "c5 c3 e3");
    assert_moves(&BACKWARD, White, white, black, &["d4:b6", "d4:b2", "d4:f2"]);
    assert_moves(&IBERIAN, White, white, black, &["d4:b6"]);
}

// ---------------------------------------------------------------------------------------------
// §2: a man reaching the far row during a capture.

/// Russian: a man crowned in the middle of a capture goes on as a king. White man f6 takes e7
/// landing on d8 (the far row). As a king it sees, down-left, c7 empty then b6 (Black) with a5
/// empty: it takes b6 landing a5, and the whole move f6:d8:a5 crowns. A man could not take b6
/// (not adjacent to d8). Brazilian: at d8 the man cannot go on as a man (c7 is empty, e7 already
/// taken), so the move ends there and it is crowned even though a king could go on: f6:d8.
/// Portuguese/Spanish: the move ends on the far row: f6:d8. Turned by 180°, Black to move.
#[test]
fn man_crowned_mid_capture() {
    let (white, black) = ("f6", "e7 b6");
    assert_moves(&[RUSSIAN], White, white, black, &["f6:d8:a5 K"]);
    assert_moves(&MAJORITY, White, white, black, &["f6:d8 K"]);

    let (white, black) = ("d2 g3", "c3");
    assert_moves(&[RUSSIAN], Black, white, black, &["c3:e1:h4 K"]);
    assert_moves(&MAJORITY, Black, white, black, &["c3:e1 K"]);

    // The resulting positions: a White king on a5 (Russian), on d8 (the others).
    let pos = position(&RUSSIAN, White, "f6", "e7 b6");
    let after = pos.play(&find(&pos, &RUSSIAN, "f6:d8:a5"));
    assert_eq!(after.to_fen(&RUSSIAN), "B:WK13:B");
    let pos = position(&BRAZILIAN, White, "f6", "e7 b6");
    let after = pos.play(&find(&pos, &BRAZILIAN, "f6:d8"));
    assert_eq!(after.to_fen(&BRAZILIAN), "B:WK2:B9");
}

/// Brazilian: a man on the far row in the middle of a capture that can go on as a man must, and
/// stays a man. White man b6 takes c7 landing d8, then (backward, as a man) e7 landing f6, where
/// nothing follows for a man (e5, g5, g7 empty): b6:d8:f6, not crowned. As a king it could have
/// taken more, but that is not its choice.
/// Russian: crowned at d8, it goes on as a king over e7; of the landing squares f6, g5, h4 only
/// f6 leads on (down-left e5, d4 empty, c3 Black, b2 empty), so it lands on f6 and takes c3,
/// landing b2 or a1: b6:d8:f6:b2 and b6:d8:f6:a1, crowned.
/// Portuguese/Spanish: the move ends on d8: b6:d8, crowned.
/// Turned by 180°, Black to move (Black man g3 against White f2 d2 f6).
#[test]
fn brazilian_man_passes_through_far_row_as_a_man() {
    let (white, black) = ("b6", "c7 e7 c3");
    assert_moves(&[BRAZILIAN], White, white, black, &["b6:d8:f6"]);
    assert_moves(
        &[RUSSIAN],
        White,
        white,
        black,
        &["b6:d8:f6:b2 K", "b6:d8:f6:a1 K"],
    );
    assert_moves(&IBERIAN, White, white, black, &["b6:d8 K"]);

    let (white, black) = ("f2 d2 f6", "g3");
    assert_moves(&[BRAZILIAN], Black, white, black, &["g3:e1:c3"]);
    assert_moves(
        &[RUSSIAN],
        Black,
        white,
        black,
        &["g3:e1:c3:g7 K", "g3:e1:c3:h8 K"],
    );
    assert_moves(&IBERIAN, Black, white, black, &["g3:e1 K"]);

    // The Brazilian man ends on f6 as a man: the position has a White man (11) there.
    let pos = position(&BRAZILIAN, White, "b6", "c7 e7 c3");
    let after = pos.play(&find(&pos, &BRAZILIAN, "b6:d8:f6"));
    assert_eq!(after.to_fen(&BRAZILIAN), "B:W11:B22");
}

/// Without the piece on c3, the Russian king has three landing squares after e7 and none leads
/// on: b6:d8:f6, b6:d8:g5, b6:d8:h4, all crowned. Brazilian still b6:d8:f6 as a man.
#[test]
fn russian_crowned_king_lands_anywhere_when_nothing_follows() {
    let (white, black) = ("b6", "c7 e7");
    assert_moves(
        &[RUSSIAN],
        White,
        white,
        black,
        &["b6:d8:f6 K", "b6:d8:g5 K", "b6:d8:h4 K"],
    );
    assert_moves(&[BRAZILIAN], White, white, black, &["b6:d8:f6"]);
    assert_moves(&IBERIAN, White, white, black, &["b6:d8 K"]);
}

/// Portuguese and Spanish: a man reaching the far row in the middle of a capture stops there and
/// is crowned. White man d4 takes e5 (to f6), then e7 landing d8 on the far row: the move ends,
/// d4xf6xd8 crowned (14x23x30 in Portuguese numbering). Russian goes on as a king from d8 over c7
/// (empty) to b6, landing a5: d4:f6:d8:a5. Brazilian: no man capture from d8 (c7 empty, e7
/// taken), so it ends on d8 crowned too.
#[test]
fn iberian_man_stops_on_far_row() {
    let (white, black) = ("d4", "e5 e7 b6");
    assert_moves(&IBERIAN, White, white, black, &["d4:f6:d8 K"]);
    assert_moves(&[BRAZILIAN], White, white, black, &["d4:f6:d8 K"]);
    assert_moves(&[RUSSIAN], White, white, black, &["d4:f6:d8:a5 K"]);
    for variant in IBERIAN {
        let pos = position(&variant, White, white, black);
        let moves = pos.legal_moves(&variant);
        assert_eq!(pos.move_to_string(&variant, &moves[0]), "14x23x30");
        assert_eq!(
            pos.play(&moves[0]).to_fen(&variant),
            "B:WK30:B21",
            "{variant}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// §1: flying kings in captures, Turkish strike, one move per result.

/// A king that can go on capturing from some landing squares must land on one of those. White
/// king a1 takes c3; behind it d4, e5, f6, g7, h8 are empty. From d4 it can take f2 (e3 empty,
/// g1 empty behind); from e5 it can take c7 (d6 empty, b8 behind); from f6, g7, h8 nothing. So it
/// must land on d4 or e5 and go on: a1:d4:g1 and a1:e5:b8. Stopping on d4..h8 is not allowed
/// (that would be the free choice of a shorter capture, which even Russian does not give).
/// Turned by 180°, Black to move: Black king h8 against White men f6, c7, f2.
#[test]
fn flying_king_must_land_where_capture_continues() {
    assert_moves(&ALL, White, "Ka1", "c3 f2 c7", &["a1:d4:g1", "a1:e5:b8"]);
    assert_moves(&ALL, Black, "f6 c7 f2", "Kh8", &["h8:e5:b8", "h8:d4:g1"]);
}

/// Turkish strike: captured pieces stay on the board until the move ends and block. White king
/// a1 takes d4 and may land e5 or f6 (g7, h8 lead nowhere).
/// - From e5 it takes c7 (d6 empty) landing b8; from b8 nothing (c7 is taken): a1:e5:b8.
/// - From f6 it takes e7 landing d8, then c7 landing b6 or a5. From b6, looking down-right, the
///   already-taken d4 stands on the diagonal (b6 c5 d4 e3 f2): were it removed, the king would
///   go on over e3 to f2 or g1; it is not, so it stops, and from a5 (b4 c3 d2 e1 empty) nothing
///   follows either: a1:f6:d8:b6 and a1:f6:d8:a5, three pieces each, the man e3 untouched.
///
/// Russian (free): all three. Brazilian, Portuguese, Spanish: the two three-piece moves.
/// Turned by 180°, Black to move.
#[test]
fn turkish_strike_blocks_a_later_capture() {
    let (white, black) = ("Ka1", "d4 e7 c7 e3");
    assert_moves(
        &[RUSSIAN],
        White,
        white,
        black,
        &["a1:e5:b8", "a1:f6:d8:b6", "a1:f6:d8:a5"],
    );
    assert_moves(
        &MAJORITY,
        White,
        white,
        black,
        &["a1:f6:d8:b6", "a1:f6:d8:a5"],
    );

    let (white, black) = ("e5 d2 f2 d6", "Kh8");
    assert_moves(
        &[RUSSIAN],
        Black,
        white,
        black,
        &["h8:d4:g1", "h8:c3:e1:g3", "h8:c3:e1:h4"],
    );
    assert_moves(
        &MAJORITY,
        Black,
        white,
        black,
        &["h8:c3:e1:g3", "h8:c3:e1:h4"],
    );
}

/// A king's landing squares end at the next piece, and the capture may branch after a landing.
/// White king a1, Black men c3, e5, c5: a1 over c3 can land only on d4 (e5 is occupied). From d4 it takes e5 (up-right, f6 g7 h8 behind) or c5 (up-left,
/// b6 a7 behind). After e5, from f6/g7/h8: f6 sees e7 d8, g5 h4; g7 sees f8, h6; nothing. After
/// c5, from b6: a5, c7 d8; from a7: b8; nothing. Down-left from d4 is the taken c3: blocked.
/// So: a1:d4:f6, a1:d4:g7, a1:d4:h8, a1:d4:b6, a1:d4:a7.
#[test]
fn king_branches_after_a_forced_landing() {
    assert_moves(
        &ALL,
        White,
        "Ka1",
        "c3 e5 c5",
        &["a1:d4:f6", "a1:d4:g7", "a1:d4:h8", "a1:d4:b6", "a1:d4:a7"],
    );
}

/// The Move value of a capture, for comparisons that do not go through a printed path.
fn capture(from: &str, to: &str, captured: &str, crowned: bool) -> Move {
    Move {
        from: sq(from),
        to: sq(to),
        crowned,
        captured: set(captured),
    }
}

/// Every path of every legal move, as algebraic strings, sorted.
fn all_paths(pos: &Position, variant: &Variant) -> BTreeSet<String> {
    pos.legal_moves(variant)
        .iter()
        .flat_map(|mv| pos.move_paths(variant, mv))
        .map(|path| {
            path.iter()
                .map(|&s| dprobe::notation::algebraic(s))
                .collect::<Vec<_>>()
                .join(":")
        })
        .collect()
}

/// Two paths to one result are one move (RULES.md §3). White king c3 in a ring of Black men d4,
/// d6, b6, b4 (the four sides of the rectangle c3-e5-c7-a5), with White men on b2 and d2 so the
/// king cannot land beyond c3 at the end. Each step has one landing square from which the
/// capture goes on (over d4: e5, not f6..h8; over d6: c7, not b8; over b6: a5; and the other way
/// round: over b4: a5; over b6: c7, not d8; over d6: e5, not f4..h2), so the king goes round
/// clockwise or anticlockwise, takes all four and ends on its start square (empty while it
/// moves). One move, c3 to c3 with four captures, with two paths; in every variant.
#[test]
fn king_ring_both_ways_is_one_move() {
    for variant in ALL {
        let pos = position(&variant, White, "Kc3 b2 d2", "d4 d6 b6 b4");
        let moves = pos.legal_moves(&variant);
        assert_eq!(
            moves,
            vec![capture("c3", "c3", "d4 d6 b6 b4", false)],
            "{variant}"
        );
        let mut scratch = Vec::new();
        assert_eq!(
            count_legal_moves(&pos.board(), &variant.moves, &mut scratch),
            1
        );
        let paths: BTreeSet<String> = all_paths(&pos, &variant);
        let want: BTreeSet<String> = ["c3:e5:c7:a5:c3", "c3:a5:c7:e5:c3"]
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(paths, want, "{variant}");
        // Either path, and the bare start and end, read back as that one move.
        for text in ["c3:e5:c7:a5:c3", "c3:a5:c7:e5:c3", "c3:c3"] {
            let text = notation(&variant, text);
            assert_eq!(pos.parse_move(&variant, &text), Ok(moves[0]), "{text}");
        }
    }
}

/// The same ring without the White men on b2 and d2: the last capture may now land beyond c3 too,
/// crossing the empty start square. Clockwise, the last leg (a5 over b4) lands c3, d2 or e1;
/// anticlockwise (e5 over d4) c3, b2 or a1; nothing follows anywhere. Five moves, all taking the
/// four men: the one ending on c3 has two paths, the others one each.
#[test]
fn king_ring_may_cross_its_start_square() {
    let captured = "d4 d6 b6 b4";
    for variant in ALL {
        let pos = position(&variant, White, "Kc3", "d4 d6 b6 b4");
        let got: BTreeSet<Move> = pos.legal_moves(&variant).into_iter().collect();
        let want: BTreeSet<Move> = ["c3", "d2", "e1", "b2", "a1"]
            .into_iter()
            .map(|to| capture("c3", to, captured, false))
            .collect();
        assert_eq!(got, want, "{variant}");
        assert_eq!(pos.legal_moves(&variant).len(), 5, "{variant}");
        let paths = all_paths(&pos, &variant);
        let want: BTreeSet<String> = [
            "c3:e5:c7:a5:c3",
            "c3:a5:c7:e5:c3",
            "c3:e5:c7:a5:d2",
            "c3:e5:c7:a5:e1",
            "c3:a5:c7:e5:b2",
            "c3:a5:c7:e5:a1",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        assert_eq!(paths, want, "{variant}");
    }
}

/// A man going round the same ring: Russian and Brazilian men capture backward, so man c3 goes
/// c3:e5:c7:a5:c3 or c3:a5:c7:e5:c3 (each jump to the adjacent square behind; c7 is on rank 7,
/// no crowning): one move with two paths. Portuguese and Spanish men only capture forward: c3
/// over d4 to e5 then over d6 to c7, or over b4 to a5 then over b6 to c7, and from c7 nothing
/// lies ahead (b8, d8 empty). Two different moves from c3 to c7, two men each (a tie, so both
/// are legal), with different captured pieces.
#[test]
fn man_ring() {
    for variant in BACKWARD {
        let pos = position(&variant, White, "c3", "d4 d6 b6 b4");
        assert_eq!(
            pos.legal_moves(&variant),
            vec![capture("c3", "c3", "d4 d6 b6 b4", false)],
            "{variant}"
        );
        let want: BTreeSet<String> = ["c3:e5:c7:a5:c3", "c3:a5:c7:e5:c3"]
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(all_paths(&pos, &variant), want, "{variant}");
    }
    assert_moves(
        &IBERIAN,
        White,
        "c3",
        "d4 d6 b6 b4",
        &["c3:e5:c7", "c3:a5:c7"],
    );
}
