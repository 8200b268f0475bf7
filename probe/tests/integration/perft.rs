//! Perft against reference figures: the initial position (RULES.md §3) and the suite of random
//! positions with kings and captures in `data/perft-suite.jsonl` (a copy of
//! `shared/testdata/perft-suite.jsonl`, counted by an independent implementation).

use dprobe::{rules::Perft, Position, Variant};

/// Published perft figures from the initial position, depths 1–10 (RULES.md §3).
const INITIAL: [(Variant, [u64; 10]); 3] = [
    (
        Variant::RUSSIAN,
        [
            7, 49, 302, 1469, 7482, 37986, 190146, 929899, 4570586, 22444032,
        ],
    ),
    (
        Variant::BRAZILIAN,
        [
            7, 49, 302, 1469, 7473, 37628, 187302, 907830, 4431766, 21560022,
        ],
    ),
    (
        Variant::PORTUGUESE,
        [
            7, 49, 302, 1469, 7361, 36473, 177532, 828783, 3860866, 17743464,
        ],
    ),
];

fn check_initial(max_depth: u32) {
    let variants = INITIAL
        .iter()
        .chain(std::iter::once(&(Variant::SPANISH, INITIAL[2].1)));
    for (variant, expected) in variants {
        let mut perft = Perft::new();
        for depth in 1..=max_depth {
            let count = perft.count(&Position::INITIAL.board(), &variant.moves, depth);
            assert_eq!(
                count,
                expected[depth as usize - 1],
                "{variant} depth {depth}"
            );
        }
    }
}

#[test]
fn initial_position_to_depth_9() {
    check_initial(9);
}

#[test]
#[ignore = "depth 10: a few seconds in release"]
fn initial_position_to_depth_10() {
    check_initial(10);
}

#[test]
fn random_positions_with_kings_and_captures() {
    let suite = include_str!("../data/perft-suite.jsonl");
    let mut failures = Vec::new();
    let mut checked = 0;
    for (line_no, line) in suite.lines().enumerate() {
        let entry: serde_json::Value = serde_json::from_str(line).expect("valid JSON line");
        let variant: Variant = entry["variant"].as_str().unwrap().parse().unwrap();
        let fen = entry["fen"].as_str().unwrap();
        let position = Position::from_fen(fen, &variant)
            .unwrap_or_else(|e| panic!("line {}: {fen}: {e}", line_no + 1));
        let mut perft = Perft::new();
        for (i, expected) in entry["perft"].as_array().unwrap().iter().enumerate() {
            let depth = i as u32 + 1;
            let count = perft.count(&position.board(), &variant.moves, depth);
            if count != expected.as_u64().unwrap() {
                failures.push(format!(
                    "line {}: {variant} {fen} depth {depth}: got {count}, expected {expected}",
                    line_no + 1
                ));
                break;
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 1000);
    assert!(
        failures.is_empty(),
        "{} positions disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
