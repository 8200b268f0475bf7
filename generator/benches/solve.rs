//! Solver speed: one 5-piece pair (three kings against two and its flip, 4 million positions)
//! whose smaller tables are built once beforehand.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dprobe::{
    index::{Signature, TableIndex},
    Variant,
};
use draughts_generator::pure::build::generate;
use draughts_generator::pure::solve::{solve_pair, Silent};
use draughts_generator::pure::tableset::TableSet;

fn solve(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let rules = Variant::RUSSIAN.moves;
    generate(dir.path(), &rules, 4, &Silent).expect("tables up to 4 pieces");
    let tables = TableSet::new(dir.path(), rules);
    let signature: Signature = "KKKvKK".parse().expect("signature");
    let positions = 2 * TableIndex::new(signature).size();
    let mut group = c.benchmark_group("solve");
    group.sample_size(10);
    group.throughput(Throughput::Elements(positions));
    group.bench_function("KKKvKK+KKvKKK", |b| {
        b.iter(|| solve_pair(&rules, &tables, signature, &Silent).expect("solved"))
    });
    group.finish();
}

criterion_group!(benches, solve);
criterion_main!(benches);
