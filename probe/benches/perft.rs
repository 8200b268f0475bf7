//! Move generation speed: perft leaves per second from the initial position, one thread.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dprobe::{rules::Perft, Position, Variant};

fn perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for variant in [Variant::RUSSIAN, Variant::BRAZILIAN, Variant::PORTUGUESE] {
        let depth = 8;
        let board = Position::INITIAL.board();
        let leaves = Perft::new().count(&board, &variant.moves, depth);
        group.throughput(Throughput::Elements(leaves));
        group.bench_function(format!("{}/depth{depth}", variant.name), |b| {
            let mut counter = Perft::new();
            b.iter(|| counter.count(&board, &variant.moves, depth))
        });
    }
    group.finish();
}

criterion_group!(benches, perft);
criterion_main!(benches);
