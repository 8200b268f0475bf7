//! Property tests over random valid positions, with men and kings of both colours, in all four
//! variants: moves lead to valid positions and change the material by exactly what they capture;
//! turning the board and swapping colours turns the moves; moves are distinct; captures exclude
//! quiet moves; counting agrees with listing; position strings and move strings round-trip.

use std::collections::BTreeSet;

use dprobe::rules::geometry::{BACK_ROW, PROMOTION_ROW};
use dprobe::{
    rules::{count_legal_moves, has_capture, king_moves_unless_capture},
    Color, Position, Variant,
};
use proptest::prelude::*;

/// A random valid position: each square is empty or holds a White or Black man or king, with a
/// density chosen per case (from sparse to crowded); a man that would stand on its own far row is
/// made a king; squares are filled in a random order and a side's pieces beyond 12 are left out.
fn arb_position() -> impl Strategy<Value = Position> {
    (6u8..=40)
        .prop_flat_map(|spread| {
            (
                prop::collection::vec(0..spread, 32),
                Just((0..32u8).collect::<Vec<u8>>()).prop_shuffle(),
                any::<bool>(),
            )
        })
        .prop_map(|(cells, order, black_to_move)| {
            let mut pos = Position {
                white_men: 0,
                white_kings: 0,
                black_men: 0,
                black_kings: 0,
                side_to_move: if black_to_move {
                    Color::Black
                } else {
                    Color::White
                },
            };
            for square in order {
                let bit = 1u32 << square;
                let (white_count, black_count) = (
                    pos.pieces(Color::White).count_ones(),
                    pos.pieces(Color::Black).count_ones(),
                );
                match cells[square as usize] {
                    0 | 1 if white_count < 12 => {
                        if PROMOTION_ROW & bit != 0 {
                            pos.white_kings |= bit
                        } else {
                            pos.white_men |= bit
                        }
                    }
                    2 if white_count < 12 => pos.white_kings |= bit,
                    3 | 4 if black_count < 12 => {
                        if BACK_ROW & bit != 0 {
                            pos.black_kings |= bit
                        } else {
                            pos.black_men |= bit
                        }
                    }
                    5 if black_count < 12 => pos.black_kings |= bit,
                    _ => {}
                }
            }
            pos
        })
}

fn arb_variant() -> impl Strategy<Value = Variant> {
    prop::sample::select(Variant::ALL.to_vec())
}

/// Whether a position (seen from White) is one the rules allow.
fn position_is_valid(pos: &Position) -> bool {
    let white = pos.white_men | pos.white_kings;
    let black = pos.black_men | pos.black_kings;
    pos.white_men & pos.white_kings == 0
        && pos.black_men & pos.black_kings == 0
        && white & black == 0
        && pos.white_men & PROMOTION_ROW == 0
        && pos.black_men & BACK_ROW == 0
        && white.count_ones() <= 12
        && black.count_ones() <= 12
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10000))]

    /// The generator of random positions makes valid ones.
    #[test]
    fn random_positions_are_valid(pos in arb_position()) {
        prop_assert!(position_is_valid(&pos));
        prop_assert!(pos.board().is_valid());
    }

    /// (a) Every move leads to a valid position; the mover keeps its pieces (one moved, a man
    /// perhaps crowned), the opponent loses exactly the captured ones.
    #[test]
    fn moves_lead_to_valid_positions(pos in arb_position(), variant in arb_variant()) {
        let mover = pos.side_to_move;
        let own = pos.pieces(mover);
        let opp = pos.pieces(mover.other());
        let (own_men, own_kings) = match mover {
            Color::White => (pos.white_men, pos.white_kings),
            Color::Black => (pos.black_men, pos.black_kings),
        };
        for mv in pos.legal_moves(&variant) {
            let from = 1u32 << mv.from;
            let to = 1u32 << mv.to;
            prop_assert!(own & from != 0, "{mv:?} does not start on an own piece");
            prop_assert!(mv.from == mv.to || (own | opp) & to == 0, "{mv:?} ends on a piece");
            prop_assert_eq!(mv.captured & !opp, 0, "{:?} captures a non-enemy", mv);
            prop_assert!(!mv.crowned || own_men & from != 0, "{mv:?}: a king is crowned");
            if !mv.is_capture() {
                let far = if mover == Color::White { PROMOTION_ROW } else { BACK_ROW };
                prop_assert_eq!(mv.crowned, own_men & from != 0 && far & to != 0);
            }

            let after = pos.play(&mv);
            prop_assert!(position_is_valid(&after), "{mv:?} -> {after:?}");
            prop_assert!(after.board().is_valid());
            prop_assert_eq!(after.side_to_move, mover.other());
            prop_assert_eq!(after.pieces(mover), own & !from | to);
            prop_assert_eq!(after.pieces(mover.other()), opp & !mv.captured);
            prop_assert_eq!(
                after.pieces(mover.other()).count_ones(),
                opp.count_ones() - mv.captured.count_ones()
            );
            let (men_after, kings_after) = match mover {
                Color::White => (after.white_men, after.white_kings),
                Color::Black => (after.black_men, after.black_kings),
            };
            let was_king = own_kings & from != 0;
            let is_king = kings_after & to != 0;
            prop_assert_eq!(is_king, was_king || mv.crowned);
            prop_assert_eq!(kings_after.count_ones(), own_kings.count_ones() + u32::from(mv.crowned));
            prop_assert_eq!(men_after.count_ones(), own_men.count_ones() - u32::from(mv.crowned));
            // Through the Board view as well.
            prop_assert!(pos.board().play(&pos.orient_move(&mv)).is_valid());
        }
    }

    /// (b) The position with colours swapped and the board turned by 180° has the same moves,
    /// turned.
    #[test]
    fn colour_flip_mirrors_moves(pos in arb_position(), variant in arb_variant()) {
        let flipped = pos.color_flipped();
        prop_assert_eq!(flipped.color_flipped(), pos);
        let moves: BTreeSet<_> = pos.legal_moves(&variant).iter().map(|mv| mv.rotated()).collect();
        let flipped_moves: BTreeSet<_> = flipped.legal_moves(&variant).into_iter().collect();
        prop_assert_eq!(&flipped_moves, &moves);
        prop_assert_eq!(flipped.legal_moves(&variant).len(), pos.legal_moves(&variant).len());
        prop_assert_eq!(flipped.board(), pos.board());
    }

    /// (c) No move is listed twice; (d) if any move captures, every move captures, and
    /// `has_capture` says so; (e) `count_legal_moves` counts the listed moves, and
    /// `king_moves_unless_capture` the kings' quiet moves when nothing captures.
    #[test]
    fn moves_distinct_captures_compulsory_count_agrees(
        pos in arb_position(),
        variant in arb_variant(),
    ) {
        let moves = pos.legal_moves(&variant);
        let distinct: BTreeSet<_> = moves.iter().copied().collect();
        prop_assert_eq!(distinct.len(), moves.len(), "duplicates in {:?}", moves);
        let any_capture = moves.iter().any(|mv| mv.is_capture());
        if any_capture {
            prop_assert!(moves.iter().all(|mv| mv.is_capture()), "{moves:?}");
        }
        prop_assert_eq!(has_capture(&pos.board(), &variant.moves), any_capture);
        let king_moves = moves
            .iter()
            .filter(|mv| pos.board().kings & (1 << pos.orient_move(mv).from) != 0)
            .count() as u32;
        prop_assert_eq!(
            king_moves_unless_capture(&pos.board(), &variant.moves),
            (!any_capture).then_some(king_moves)
        );
        let mut scratch = Vec::new();
        prop_assert_eq!(
            count_legal_moves(&pos.board(), &variant.moves, &mut scratch),
            moves.len() as u64
        );
        // The Board-level list is the same set, in the mover's orientation.
        let mut board_moves = Vec::new();
        dprobe::rules::legal_moves(&pos.board(), &variant.moves, &mut board_moves);
        let oriented: BTreeSet<_> = board_moves.iter().map(|mv| pos.orient_move(mv)).collect();
        prop_assert_eq!(oriented, distinct);
    }

    /// Precedence: under the majority rule (Brazilian) every capture takes the same number of
    /// pieces, and under the quality rule (Portuguese, Spanish) also the same number of kings;
    /// Portuguese and Spanish move alike; Russian and Brazilian men capture in the same
    /// directions, so one has a capture exactly when the other does.
    #[test]
    fn precedence_rules_hold(pos in arb_position()) {
        let opp_kings = match pos.side_to_move {
            Color::White => pos.black_kings,
            Color::Black => pos.white_kings,
        };
        let counts = |variant: &Variant| -> BTreeSet<(u32, u32)> {
            pos.legal_moves(variant)
                .iter()
                .filter(|mv| mv.is_capture())
                .map(|mv| (mv.captured.count_ones(), (mv.captured & opp_kings).count_ones()))
                .collect()
        };
        let pieces: BTreeSet<u32> = counts(&Variant::BRAZILIAN).iter().map(|c| c.0).collect();
        prop_assert!(pieces.len() <= 1);
        prop_assert!(counts(&Variant::PORTUGUESE).len() <= 1);
        prop_assert_eq!(
            pos.legal_moves(&Variant::PORTUGUESE),
            pos.legal_moves(&Variant::SPANISH)
        );
        let russian_max = counts(&Variant::RUSSIAN).iter().map(|c| c.0).max();
        let brazilian_max = pieces.iter().copied().max();
        prop_assert_eq!(russian_max.is_some(), brazilian_max.is_some());
    }

    /// Every legal move has at least one path; each path starts on the move's start square,
    /// ends on its end square and has one landing per captured piece; the printed move reads
    /// back as the same move.
    #[test]
    fn paths_and_move_strings(pos in arb_position(), variant in arb_variant()) {
        for mv in pos.legal_moves(&variant) {
            let paths = pos.move_paths(&variant, &mv);
            prop_assert!(!paths.is_empty(), "{mv:?} has no path");
            for path in &paths {
                prop_assert_eq!(path[0], mv.from);
                prop_assert_eq!(*path.last().unwrap(), mv.to);
                let landings = path.len() as u32 - 1;
                prop_assert_eq!(landings, mv.captured.count_ones().max(1));
            }
            let text = pos.move_to_string(&variant, &mv);
            prop_assert_eq!(pos.parse_move(&variant, &text), Ok(mv), "{}", text);
        }
    }

    /// (f) A position printed as FEN reads back as the same position, in every variant; and the
    /// same position printed in each numbering means the same thing.
    #[test]
    fn fen_round_trip(pos in arb_position()) {
        for variant in Variant::ALL {
            let fen = pos.to_fen(&variant);
            prop_assert_eq!(Position::from_fen(&fen, &variant), Ok(pos), "{} {}", variant, fen);
        }
    }
}

/// The random positions cover what the properties are about: both sides to move, men and kings
/// of both colours, captures, multi-captures, and men crowned by a move.
#[test]
fn random_positions_cover_interesting_cases() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = arb_position();
    let (mut black, mut kings, mut men, mut captures, mut multi, mut crowned, mut empty) =
        (0, 0, 0, 0, 0, 0, 0);
    let samples = 2000;
    for i in 0..samples {
        let pos = strategy.new_tree(&mut runner).unwrap().current();
        let variant = Variant::ALL[i % 4];
        black += usize::from(pos.side_to_move == Color::Black);
        kings += usize::from(pos.white_kings != 0 && pos.black_kings != 0);
        men += usize::from(pos.white_men != 0 && pos.black_men != 0);
        let moves = pos.legal_moves(&variant);
        empty += usize::from(moves.is_empty());
        captures += usize::from(moves.iter().any(|mv| mv.is_capture()));
        multi += usize::from(moves.iter().any(|mv| mv.captured.count_ones() >= 2));
        crowned += usize::from(moves.iter().any(|mv| mv.crowned));
    }
    let stats = format!(
        "black {black}, kings {kings}, men {men}, captures {captures}, multi {multi}, \
         crowned {crowned}, no move {empty} of {samples}"
    );
    assert!(black > samples / 3, "{stats}");
    assert!(kings > samples / 3, "{stats}");
    assert!(men > samples / 3, "{stats}");
    assert!(captures > samples / 4, "{stats}");
    assert!(multi > samples / 20, "{stats}");
    assert!(crowned > samples / 20, "{stats}");
    assert!(empty > 0, "{stats}");
    eprintln!("{stats}");
}
