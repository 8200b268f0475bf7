//! Index speed: decoding an index to a board (`board`), a run of consecutive boards (`boards`)
//! and encoding a board (`index`), on a 6-piece signature with men and kings (the solver's
//! hottest signatures look like it).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dprobe::index::{MenRun, Signature, TableIndex};

/// Indices spread over the whole table, in a scrambled order, as the solver's queues meet them.
fn spread_indices(table: &TableIndex, count: u64) -> Vec<u64> {
    let size = table.size();
    (0..count)
        .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) % size)
        .collect()
}

fn index(c: &mut Criterion) {
    let mut group = c.benchmark_group("index");
    for name in ["KKMvKKM", "KMMvKMM", "KKKvKKK"] {
        let signature: Signature = name.parse().expect("signature");
        let table = TableIndex::new(signature);
        let indices = spread_indices(&table, 4096);
        let boards: Vec<_> = indices.iter().map(|&i| table.board(i)).collect();
        group.throughput(Throughput::Elements(indices.len() as u64));
        group.bench_function(format!("board/{name}"), |b| {
            b.iter(|| {
                indices
                    .iter()
                    .map(|&i| table.board(i).kings)
                    .fold(0u32, |acc, k| acc ^ k)
            })
        });
        // The solver's queues: indices in increasing order, a few per run of shared men.
        let mut sorted = spread_indices(&table, 4096 * 8);
        sorted.sort_unstable();
        sorted.truncate(4096);
        group.bench_function(format!("board_sharing_men/{name}"), |b| {
            b.iter(|| {
                let mut run = MenRun::default();
                sorted
                    .iter()
                    .map(|&i| table.board_sharing_men(i, &mut run).kings)
                    .fold(0u32, |acc, k| acc ^ k)
            })
        });
        group.bench_function(format!("index/{name}"), |b| {
            b.iter(|| boards.iter().map(|board| table.index(board)).sum::<u64>())
        });
        group.bench_function(format!("boards/{name}"), |b| {
            let start = table.size() / 3;
            b.iter(|| {
                table
                    .boards(start..start + 4096)
                    .fold(0u32, |acc, board| acc ^ board.opp_kings)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, index);
criterion_main!(benches);
