//! Probe speed: warm (block cached) and cold (file just opened) latency, cache-only probes (a hit
//! and a miss), and probes per second with 1 and 2 threads (each its share of many positions, or
//! all the same positions), over positions drawn evenly from the largest tables present.
//!
//! By default it builds the Russian tables (and their rule tables) up to 4 pieces in a temporary
//! folder; set `DTB_BENCH_DIR` to a folder built by `dtb generate` (for instance up to 5 pieces)
//! to measure on bigger tables.

use std::path::PathBuf;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use dprobe::{
    index::{Signature, TableIndex},
    rules::has_capture,
    Color, DrawCounts, Position, ProbeError, Tablebase, Variant,
};
use draughts_generator::draw::build::generate_draw_tables;
use draughts_generator::pure::build::generate;
use draughts_generator::pure::solve::Silent;

const VARIANT: Variant = Variant::RUSSIAN;
/// Positions per block of a `.wdl` file in the writer's default layout: a stride that reaches
/// another block of the same table.
const BLOCK_POSITIONS: u64 = 32_768;

fn tables_dir() -> (PathBuf, Option<tempfile::TempDir>) {
    if let Some(dir) = std::env::var_os("DTB_BENCH_DIR") {
        return (PathBuf::from(dir), None);
    }
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), &VARIANT.moves, 4, &Silent).unwrap();
    generate_draw_tables(
        dir.path(),
        &VARIANT.moves,
        &VARIANT.draw_rules(),
        4,
        3,
        true,
        &Silent,
    )
    .unwrap();
    (dir.path().to_path_buf(), Some(dir))
}

/// The tables of `dir` (and the rule tables of the variant's own draw rules), and how many
/// files that is.
fn tablebase_counting(dir: &PathBuf) -> (Tablebase, usize) {
    let mut tables = Tablebase::new(VARIANT);
    let files = tables.add_directory(dir).unwrap();
    (tables, files)
}

fn tablebase(dir: &PathBuf) -> Tablebase {
    tablebase_counting(dir).0
}

/// `count` positions spread over the tables with the most pieces, with or without a capture.
fn positions(pieces: u32, count: usize, captures: bool) -> Vec<Position> {
    let signatures = Signature::with_pieces(pieces);
    let mut found = Vec::new();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    while found.len() < count {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let signature = signatures[(state >> 33) as usize % signatures.len()];
        let index = TableIndex::new(signature);
        let board = index.board((state >> 7) % index.size());
        if has_capture(&board, &VARIANT.moves) == captures {
            found.push(Position::from_board(&board, Color::White));
        }
    }
    found
}

fn probe(c: &mut Criterion) {
    let (dir, _keep) = tables_dir();
    let tables = tablebase(&dir);
    let pieces = tables.max_pieces();
    let quiet = positions(pieces, 4096, false);
    let capturing = positions(pieces, 1024, true);
    let mut group = c.benchmark_group(format!("probe/{pieces}pieces"));

    // Warm: the same few positions, their blocks cached.
    let few = &quiet[..16];
    for p in few {
        tables.probe_wdl(p).unwrap();
        tables.probe_dtw(p).unwrap();
    }
    group.throughput(Throughput::Elements(few.len() as u64));
    group.bench_function("wdl_warm", |b| {
        b.iter(|| {
            few.iter()
                .map(|p| tables.probe_wdl(p).unwrap() as u32)
                .sum::<u32>()
        })
    });
    group.bench_function("dtw_warm", |b| {
        b.iter(|| {
            few.iter()
                .map(|p| u32::from(tables.probe_dtw(p).unwrap().distance().unwrap_or(0)))
                .sum::<u32>()
        })
    });
    let few_capturing = &capturing[..16];
    for p in few_capturing {
        tables.probe_wdl(p).unwrap();
    }
    group.bench_function("wdl_warm_with_capture", |b| {
        b.iter(|| {
            few_capturing
                .iter()
                .map(|p| tables.probe_wdl(p).unwrap() as u32)
                .sum::<u32>()
        })
    });

    // Under the counted rules, every count at its start and with a running count.
    let fresh = DrawCounts::new();
    for p in few {
        tables.probe_draw(p, &fresh).unwrap();
    }
    group.bench_function("rules_warm_fresh_counts", |b| {
        b.iter(|| {
            few.iter()
                .map(|p| tables.probe_draw(p, &fresh).unwrap().now as u32)
                .sum::<u32>()
        })
    });
    let running = DrawCounts::from_ids(
        tables.draw_rules(),
        &[
            ("r2-kings-only", Some(6)),
            ("r3-kings-4-5-pieces", Some(10)),
        ],
    )
    .unwrap();
    let few_running: Vec<Position> = quiet
        .iter()
        .filter(|p| tables.probe_draw(p, &running).is_ok())
        .take(16)
        .copied()
        .collect();
    group.throughput(Throughput::Elements(few_running.len() as u64));
    group.bench_function("rules_warm_running_counts", |b| {
        b.iter(|| {
            few_running
                .iter()
                .map(|p| tables.probe_draw(p, &running).unwrap().now as u32)
                .sum::<u32>()
        })
    });

    // Cache-only probes: a hit (the warm positions above); a miss in a table some of whose
    // pages are cached, but not the position's (the index is computed and the cache searched);
    // and a miss in a table none of whose pages is cached (known before the index).
    group.throughput(Throughput::Elements(few.len() as u64));
    group.bench_function("wdl_cached_hit", |b| {
        b.iter(|| {
            few.iter()
                .map(|p| tables.probe_wdl_cached(p).unwrap() as u32)
                .sum::<u32>()
        })
    });
    let partly = tablebase(&dir);
    let absent: Vec<Position> = quiet
        .iter()
        .filter(|p| {
            // Another block of the position's table, loaded by an ordinary probe.
            let board = p.board();
            let index = TableIndex::new(Signature::of(&board));
            let here = index.index(&board);
            let elsewhere = (0..index.size())
                .step_by(BLOCK_POSITIONS as usize)
                .map(|i| index.board((here + i) % index.size()))
                .skip(1)
                .find(|b| !has_capture(b, &VARIANT.moves));
            elsewhere.is_some_and(|b| {
                partly
                    .probe_wdl(&Position::from_board(&b, Color::White))
                    .is_ok()
            }) && matches!(partly.probe_wdl_cached(p), Err(ProbeError::NotInCache))
        })
        .take(16)
        .copied()
        .collect();
    assert_eq!(absent.len(), 16);
    group.bench_function("wdl_cached_miss", |b| {
        b.iter(|| {
            absent
                .iter()
                .filter(|p| partly.probe_wdl_cached(p).is_err())
                .count()
        })
    });
    let untouched = tablebase(&dir);
    group.bench_function("wdl_cached_miss_table_not_cached", |b| {
        b.iter(|| {
            few.iter()
                .filter(|p| untouched.probe_wdl_cached(p).is_err())
                .count()
        })
    });

    // Cold: the position's block not in the cache, so the probe reads, checks and decompresses
    // it and stores it. A tablebase in use, with a cache of 8 pages cycled through by positions
    // spread over every table: nearly every probe reads a block (the share is printed).
    let mut cycling = tablebase(&dir);
    cycling.set_cache_size(0);
    let mut reads = 0;
    for p in &quiet {
        reads += usize::from(cycling.probe_wdl_cached(p).is_err());
        cycling.probe_wdl(p).unwrap();
    }
    eprintln!(
        "wdl_cold: {reads} of {} probes read a block, the rest found it cached",
        quiet.len()
    );
    group.throughput(Throughput::Elements(quiet.len() as u64));
    group.bench_function("wdl_cold", |b| {
        b.iter(|| {
            quiet
                .iter()
                .map(|p| cycling.probe_wdl(p).unwrap() as u32)
                .sum::<u32>()
        })
    });

    // The first probe after opening: a tablebase just created (its files opened, mapped and
    // checked by `add_directory`), so the probe also touches the file's mapped page and the
    // cache's memory for the first time.
    group.throughput(Throughput::Elements(1));
    let mut next = 0;
    group.bench_function("wdl_first_after_open", |b| {
        // Setting up and dropping the tablebase is not timed.
        b.iter_batched_ref(
            || {
                next = (next + 1) % quiet.len();
                (tablebase(&dir), quiet[next])
            },
            |(tables, p)| tables.probe_wdl(p).unwrap(),
            BatchSize::PerIteration,
        )
    });

    // Opening: registering, opening, mapping and checking every file of the folder.
    let files = tablebase_counting(&dir).1;
    group.throughput(Throughput::Elements(files as u64));
    group.bench_function("add_directory_per_file", |b| b.iter(|| tablebase(&dir)));

    // Probes per second, 1 and 2 threads: each thread probing its share of many positions, and
    // every thread probing the same positions (the same blocks, read at once).
    let mixed: Vec<Position> = quiet.iter().chain(&capturing).copied().collect();
    for p in &mixed {
        tables.probe_wdl(p).unwrap();
    }
    for threads in [1usize, 2] {
        group.throughput(Throughput::Elements(mixed.len() as u64));
        group.bench_function(format!("wdl_many_{threads}_threads"), |b| {
            b.iter_custom(|iterations| {
                let started = Instant::now();
                std::thread::scope(|scope| {
                    for t in 0..threads {
                        let (tables, mixed) = (&tables, &mixed);
                        scope.spawn(move || {
                            for _ in 0..iterations {
                                for p in mixed.iter().skip(t).step_by(threads) {
                                    tables.probe_wdl(p).unwrap();
                                }
                            }
                        });
                    }
                });
                started.elapsed()
            })
        });
    }
    let same = &quiet[..256];
    for threads in [1usize, 2] {
        group.throughput(Throughput::Elements((same.len() * threads) as u64));
        group.bench_function(format!("wdl_same_{threads}_threads"), |b| {
            b.iter_custom(|iterations| {
                let started = Instant::now();
                std::thread::scope(|scope| {
                    for _ in 0..threads {
                        let tables = &tables;
                        scope.spawn(move || {
                            for _ in 0..iterations {
                                for p in same {
                                    std::hint::black_box(tables.probe_wdl(p).unwrap());
                                }
                            }
                        });
                    }
                });
                started.elapsed()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, probe);
criterion_main!(benches);
