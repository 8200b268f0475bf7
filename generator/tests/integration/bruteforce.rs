//! The solver against a brute-force solver written separately here: forward iteration to a
//! fixpoint over every position, in a hash map, with its own enumeration of positions (no index,
//! no un-moves, no counters; the boards placed square by square, as the draw rules' brute force
//! places them). Every position of every signature up to 3 pieces is compared, and
//! a closed set of 4-piece king endings; so are the longest wins and mutual zugzwangs `dtb find`
//! reports there.

use std::collections::HashMap;

use dprobe::{
    index::Signature,
    rules::{has_capture, legal_moves, Board, MoveRules},
    Value, Variant,
};
use draughts_generator::pure::build::generate;
use draughts_generator::pure::find::{longest_wins, zugzwangs as zugzwangs_of};
use draughts_generator::pure::solve::Silent;
use draughts_generator::pure::tableset::TableSet;
use draughts_generator::pure::verify::verify_table;
use draughts_generator::pure::write::capture_flags;

use crate::full_state::enumerate_boards;

/// Values of every position in `universe` (which must be closed under moves, apart from
/// positions where the side to move has no pieces), by rounds: in round `d` a position becomes
/// a win in `d` if a move leads to a loss in `d - 1`, a loss in `d` if every move leads to a
/// win (the longest being `d - 1`). What is never decided is a draw.
fn brute_force(universe: &[Board], rules: &MoveRules) -> HashMap<Board, Value> {
    let children: Vec<Vec<Board>> = universe
        .iter()
        .map(|board| {
            let mut moves = Vec::new();
            legal_moves(board, rules, &mut moves);
            moves.iter().map(|mv| board.play(mv)).collect()
        })
        .collect();
    let mut known: HashMap<Board, Value> = HashMap::new();
    let value_of = |known: &HashMap<Board, Value>, child: &Board| -> Option<Value> {
        if child.own() == 0 {
            Some(Value::Loss(0))
        } else {
            known.get(child).copied()
        }
    };
    let mut round: u16 = 0;
    let mut quiet_rounds = 0;
    while quiet_rounds < 2 {
        let mut decided = Vec::new();
        for (board, kids) in universe.iter().zip(&children) {
            if known.contains_key(board) {
                continue;
            }
            let values: Vec<Option<Value>> = kids.iter().map(|c| value_of(&known, c)).collect();
            if round % 2 == 1 && values.contains(&Some(Value::Loss(round - 1))) {
                decided.push((*board, Value::Win(round)));
            } else if round % 2 == 0 && values.iter().all(|v| matches!(v, Some(Value::Win(_)))) {
                let longest = values
                    .iter()
                    .map(|v| v.and_then(Value::distance).unwrap_or(0) + 1)
                    .max()
                    .unwrap_or(0);
                assert_eq!(
                    longest, round,
                    "a loss is decided in the round of its distance"
                );
                decided.push((*board, Value::Loss(round)));
            }
        }
        quiet_rounds = if decided.is_empty() {
            quiet_rounds + 1
        } else {
            0
        };
        known.extend(decided);
        round += 1;
    }
    universe
        .iter()
        .map(|b| (*b, known.get(b).copied().unwrap_or(Value::Draw)))
        .collect()
}

fn names(list: &[&str]) -> Vec<Signature> {
    list.iter().map(|n| n.parse().unwrap()).collect()
}

fn check_rule_set(variant: Variant, pieces: u32, extra: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), &variant.moves, pieces, &Silent).unwrap();
    let tables = TableSet::new(dir.path(), variant.moves);

    // The independent check over every table built, beyond those brute force can reach.
    for signature in (2..=pieces).flat_map(Signature::with_pieces) {
        let found = verify_table(&tables, &variant, signature, 5).unwrap();
        let captures = capture_flags(&variant.moves, &dprobe::index::TableIndex::new(signature));
        assert_eq!(found.captures, captures, "{variant} {signature}");
        let found = found.inconsistencies;
        assert!(found.is_empty(), "{variant} {signature}: {found:?}");
    }

    let mut signatures: Vec<Signature> = (2..=3).flat_map(Signature::with_pieces).collect();
    signatures.extend(names(extra));

    let universe: Vec<Board> = signatures
        .iter()
        .flat_map(|&s| enumerate_boards(s))
        .collect();
    let expected = brute_force(&universe, &variant.moves);
    let mut mismatches = Vec::new();
    for board in &universe {
        let table = tables.table(Signature::of(board)).unwrap();
        let solved = table.value(table.index.index(board));
        if solved != Some(expected[board]) {
            mismatches.push(format!(
                "{}: solver {solved:?}, brute force {:?}",
                dprobe::Position::from_board(board, dprobe::Color::White).to_fen(&variant),
                expected[board]
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{variant}: {} of {} positions differ, first: {:?}",
        mismatches.len(),
        universe.len(),
        &mismatches[..mismatches.len().min(10)]
    );
    check_theory(&variant, &tables, &signatures, &expected);
}

/// The longest wins and the mutual zugzwangs `dtb find` reports, against the same facts read
/// off the brute-force values.
fn check_theory(
    variant: &Variant,
    tables: &TableSet,
    signatures: &[Signature],
    expected: &HashMap<Board, Value>,
) {
    let rules = &variant.moves;
    for &signature in signatures {
        let boards = enumerate_boards(signature);
        let index = dprobe::index::TableIndex::new(signature);
        // Longest wins: the same length, and the same positions at that length.
        let longest = boards
            .iter()
            .filter_map(|b| match expected[b] {
                Value::Win(plies) => Some(plies),
                _ => None,
            })
            .max();
        let found = longest_wins(tables, signature, usize::MAX).unwrap();
        assert_eq!(
            found.first().map(|w| w.plies),
            longest,
            "{variant} {signature}"
        );
        let mut at_most: Vec<u64> = boards
            .iter()
            .filter(|b| Some(expected[b]) == longest.map(Value::Win))
            .map(|b| index.index(b))
            .collect();
        let mut reported: Vec<u64> = found
            .iter()
            .filter(|w| Some(w.plies) == longest)
            .map(|w| w.index)
            .collect();
        at_most.sort_unstable();
        reported.sort_unstable();
        assert_eq!(reported, at_most, "{variant} {signature}");

        // Mutual zugzwangs: both sides to move quiet, the mover worse off with the move.
        let mut zugzwangs: Vec<u64> = boards
            .iter()
            .filter(|b| !has_capture(b, rules) && !has_capture(&b.flipped(), rules))
            .filter(|b| expected[*b].wdl() < -expected[&b.flipped()].wdl())
            .map(|b| index.index(b))
            .collect();
        zugzwangs.sort_unstable();
        let found = zugzwangs_of(tables, signature, usize::MAX).unwrap();
        let listed: Vec<u64> = found.first.iter().map(|z| z.index).collect();
        assert_eq!(listed, zugzwangs, "{variant} {signature}");
        let counted: u64 = found.counts.iter().map(|(_, n)| n).sum();
        assert_eq!(counted, zugzwangs.len() as u64, "{variant} {signature}");
    }
}

/// Four-piece signatures closed under moves apart from smaller tables: kings only, and a man
/// whose crowning leads into the kings-only tables.
const FOUR_PIECES: [&str; 5] = ["KKKvK", "KvKKK", "KKvKK", "KKMvK", "KvKKM"];

#[test]
fn russian_matches_brute_force() {
    check_rule_set(Variant::RUSSIAN, 4, &FOUR_PIECES);
}

#[test]
fn brazilian_matches_brute_force() {
    check_rule_set(Variant::BRAZILIAN, 4, &FOUR_PIECES);
}

#[test]
fn portuguese_and_spanish_match_brute_force() {
    check_rule_set(Variant::PORTUGUESE, 4, &FOUR_PIECES);
}
