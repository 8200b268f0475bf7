//! Endgame theory of RULES.md §6 that pure 4-piece tables can speak to, checked against the
//! tables built here. Each test prints what it measured.

use dprobe::rules::geometry::LONG_DIAGONAL;
use dprobe::{
    index::Signature,
    rules::{has_capture, legal_moves, Board},
    Color, Position, Value, Variant,
};
use draughts_generator::pure::build::generate;
use draughts_generator::pure::solve::Silent;
use draughts_generator::pure::tableset::TableSet;

/// Three kings (side to move) against a lone king, counted by where the kings stand.
#[derive(Debug, Default)]
struct Census {
    positions: u64,
    wins: u64,
    draws: u64,
    longest_win: u16,
}

fn three_kings_census(
    variant: Variant,
    select: impl Fn(u32, u32, bool) -> bool,
) -> (Census, TableSet, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), &variant.moves, 4, &Silent).unwrap();
    let tables = TableSet::new(dir.path(), variant.moves);
    for signature in (2..=4).flat_map(Signature::with_pieces) {
        tables.table(signature).unwrap();
    }
    let signature: Signature = "KKKvK".parse().unwrap();
    let table = tables.table(signature).unwrap();
    let mut census = Census::default();
    for index in 0..table.index.size() {
        let board = table.index.board(index);
        let strong_on_diagonal = (board.kings & LONG_DIAGONAL).count_ones();
        let lone_on_diagonal = (board.opp_kings & LONG_DIAGONAL).count_ones();
        if !select(
            strong_on_diagonal,
            lone_on_diagonal,
            has_capture(&board, &variant.moves),
        ) {
            continue;
        }
        census.positions += 1;
        match table.value(index).unwrap() {
            Value::Win(d) => {
                census.wins += 1;
                census.longest_win = census.longest_win.max(d);
            }
            Value::Draw => census.draws += 1,
            Value::Loss(_) => panic!("three kings cannot lose to one"),
        }
    }
    (census, tables, dir)
}

/// Whether every move of the strong side lets the lone king capture (a fork: the claim of the
/// theory is about kings that are safe).
fn every_move_allows_a_capture(board: &Board, rules: &dprobe::rules::MoveRules) -> bool {
    let mut moves = Vec::new();
    legal_moves(board, rules, &mut moves);
    moves.iter().all(|mv| has_capture(&board.play(mv), rules))
}

/// Whether a best move of a won position forces the opponent to capture (a sacrifice).
fn wins_by_sacrifice(board: &Board, tables: &TableSet) -> bool {
    let mut moves = Vec::new();
    legal_moves(board, tables.rules(), &mut moves);
    let values: Vec<(Value, Board)> = moves
        .iter()
        .map(|mv| {
            let child = board.play(mv);
            (tables.value_of(&child).unwrap().one_ply_earlier(), child)
        })
        .collect();
    let best = Value::best(values.iter().map(|(v, _)| *v));
    values
        .iter()
        .any(|(v, child)| *v == best && has_capture(child, tables.rules()))
}

#[test]
fn three_kings_holding_the_long_diagonal_win_unless_forked() {
    // A strong king on the long diagonal, the lone king off it, no capture pending: a win,
    // except where every move of the strong side lets the lone king capture a king.
    for variant in [Variant::RUSSIAN, Variant::PORTUGUESE] {
        let (census, tables, _dir) = three_kings_census(variant, |strong, lone, capture| {
            strong >= 1 && lone == 0 && !capture
        });
        println!("{variant}, three kings on the long diagonal: {census:?}");
        assert!(census.wins > 40_000, "{census:?}");
        let table = tables.table("KKKvK".parse().unwrap()).unwrap();
        for index in 0..table.index.size() {
            let board = table.index.board(index);
            let held = board.kings & LONG_DIAGONAL != 0 && board.opp_kings & LONG_DIAGONAL == 0;
            if held
                && !has_capture(&board, &variant.moves)
                && table.value(index) == Some(Value::Draw)
            {
                assert!(
                    every_move_allows_a_capture(&board, &variant.moves),
                    "{variant}: a draw with the long diagonal held and a safe move: {}",
                    Position::from_board(&board, Color::White).to_fen(&variant)
                );
            }
        }
    }
}

#[test]
fn russian_lone_king_on_the_long_diagonal_draws_unless_sacrificed_off() {
    // The lone king holds the long diagonal, the strong side has no king on it and nothing to
    // capture. The theory says it draws; the tables agree but for short tactical wins, each
    // begun by a sacrifice that forces the lone king to capture (capturing is compulsory).
    let (census, tables, _dir) = three_kings_census(Variant::RUSSIAN, |strong, lone, capture| {
        strong == 0 && lone == 1 && !capture
    });
    println!("Russian, lone king holding the long diagonal: {census:?}");
    assert!(census.draws > 10 * census.wins, "{census:?}");
    assert!(census.longest_win <= 9, "{census:?}");
    let table = tables.table("KKKvK".parse().unwrap()).unwrap();
    for index in 0..table.index.size() {
        let board = table.index.board(index);
        let holding = board.kings & LONG_DIAGONAL == 0 && board.opp_kings & LONG_DIAGONAL != 0;
        if holding
            && !has_capture(&board, &Variant::RUSSIAN.moves)
            && matches!(table.value(index), Some(Value::Win(_)))
        {
            assert!(
                wins_by_sacrifice(&board, &tables),
                "a win against the long diagonal without a sacrifice: {}",
                Position::from_board(&board, Color::White).to_fen(&Variant::RUSSIAN)
            );
        }
    }
}

#[test]
fn russian_three_kings_win_within_13_moves() {
    let (census, _, _dir) = three_kings_census(Variant::RUSSIAN, |_, _, _| true);
    println!("Russian, all three-kings-against-one positions: {census:?}");
    // Sources say the win takes at most 12 to 13 moves: 13 moves of the strong side are
    // 25 plies (the last one captures).
    assert!(
        census.longest_win <= 25,
        "longest win {} plies",
        census.longest_win
    );
    assert!(
        census.longest_win >= 23,
        "longest win {} plies",
        census.longest_win
    );
}
