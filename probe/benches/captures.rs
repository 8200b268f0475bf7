//! Capture generation speed on the solver's workload: `has_capture`,
//! `king_moves_unless_capture` (what the solver asks of each position) and `capture_moves` over
//! every position of a stretch of a king-heavy table, where the flying kings' capture search is
//! the solver's largest single cost, and of tables with men.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dprobe::index::{Signature, TableIndex};
use dprobe::rules::{capture_moves, has_capture, king_moves_unless_capture};
use dprobe::Variant;

fn captures(c: &mut Criterion) {
    let mut group = c.benchmark_group("captures");
    let rules = &Variant::RUSSIAN.moves;
    for name in ["KKKvKKM", "KMvKKMM", "KKMMvKM"] {
        let signature: Signature = name.parse().expect("signature");
        let table = TableIndex::new(signature);
        let start = table.size() / 3;
        let boards: Vec<_> = table.boards(start..start + (1 << 16)).collect();
        group.throughput(Throughput::Elements(boards.len() as u64));
        group.bench_function(format!("has_capture/{name}"), |b| {
            b.iter(|| {
                boards
                    .iter()
                    .filter(|board| has_capture(board, rules))
                    .count()
            })
        });
        group.bench_function(format!("king_moves_unless_capture/{name}"), |b| {
            b.iter(|| {
                boards
                    .iter()
                    .filter_map(|board| king_moves_unless_capture(board, rules))
                    .sum::<u32>()
            })
        });
        let capturing: Vec<_> = boards
            .iter()
            .filter(|board| has_capture(board, rules))
            .copied()
            .collect();
        group.throughput(Throughput::Elements(capturing.len() as u64));
        group.bench_function(format!("capture_moves/{name}"), |b| {
            let mut moves = Vec::new();
            b.iter(|| {
                capturing
                    .iter()
                    .map(|board| {
                        moves.clear();
                        capture_moves(board, rules, &mut moves);
                        moves.len()
                    })
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, captures);
criterion_main!(benches);
