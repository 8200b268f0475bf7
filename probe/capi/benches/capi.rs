//! The C entry points' cost over the Rust API: the warm WDL probe and the cache-only probe,
//! each through `dprobe_probe_wdl` / `dprobe_probe_wdl_cached` (called from Rust as a C
//! program calls them: bitboards in the variant's numbering, results through pointers) and
//! through `Tablebase::probe_wdl` / `probe_wdl_cached`, on the same positions, blocks cached.
//!
//! It builds the Russian tables up to 4 pieces in a temporary folder; set `DTB_BENCH_DIR` to a
//! folder `dtb generate` wrote to measure on other tables.

use std::ffi::{c_int, CString};
use std::path::PathBuf;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dprobe::index::{Signature, TableIndex};
use dprobe::{Color, Position, Tablebase, Variant, Wdl};
use dprobe_c::{dprobe_close, dprobe_open, dprobe_probe_wdl, dprobe_probe_wdl_cached};
use draughts_generator::pure::build::generate;
use draughts_generator::pure::solve::Silent;

const VARIANT: Variant = Variant::RUSSIAN;

fn tables_dir() -> (PathBuf, Option<tempfile::TempDir>) {
    if let Some(dir) = std::env::var_os("DTB_BENCH_DIR") {
        return (PathBuf::from(dir), None);
    }
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), &VARIANT.moves, 4, &Silent).unwrap();
    (dir.path().to_path_buf(), Some(dir))
}

/// `count` positions spread over the tables of `pieces` pieces, both colours to move.
fn positions(pieces: u32, count: usize) -> Vec<Position> {
    let signatures = Signature::with_pieces(pieces);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    (0..count)
        .map(|i| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let signature = signatures[(state >> 33) as usize % signatures.len()];
            let index = TableIndex::new(signature);
            let color = if i % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            Position::from_board(&index.board((state >> 7) % index.size()), color)
        })
        .collect()
}

/// A position as a C engine passes it.
fn numbered(position: &Position) -> [u32; 5] {
    let n = VARIANT.notation.numbering;
    [
        n.numbered(position.white_men),
        n.numbered(position.white_kings),
        n.numbered(position.black_men),
        n.numbered(position.black_kings),
        u32::from(position.side_to_move == Color::White),
    ]
}

fn wdl_code(wdl: Wdl) -> c_int {
    wdl as c_int - 1
}

fn capi(c: &mut Criterion) {
    let (dir, _keep) = tables_dir();
    let mut tables = Tablebase::new(VARIANT);
    tables.add_directory(&dir).unwrap();
    let pieces = tables.max_pieces();
    let name = CString::new(VARIANT.name).unwrap();
    let folder = CString::new(dir.to_str().unwrap()).unwrap();
    // SAFETY: two NUL-terminated strings.
    let tb = unsafe { dprobe_open(name.as_ptr(), folder.as_ptr(), 0) };
    assert!(!tb.is_null());

    let few = positions(pieces, 16);
    let boards: Vec<[u32; 5]> = few.iter().map(numbered).collect();
    // Called directly, as a C engine links them.
    let c_wdl = |b: &[u32; 5]| {
        let mut wdl = 0;
        // SAFETY: a live handle and a pointer to a local.
        let rc = unsafe { dprobe_probe_wdl(tb, b[0], b[1], b[2], b[3], b[4] as c_int, &mut wdl) };
        assert_eq!(rc, 0);
        wdl
    };
    let c_cached = |b: &[u32; 5]| {
        let mut wdl = 0;
        // SAFETY: a live handle and a pointer to a local.
        let rc =
            unsafe { dprobe_probe_wdl_cached(tb, b[0], b[1], b[2], b[3], b[4] as c_int, &mut wdl) };
        assert_eq!(rc, 0);
        wdl
    };
    // Warm both caches, and check that both ways agree.
    for (p, b) in few.iter().zip(&boards) {
        let rust = wdl_code(tables.probe_wdl(p).unwrap());
        assert_eq!(c_wdl(b), rust);
        assert_eq!(c_cached(b), rust);
    }

    // Alternating rounds of each way, so that a machine whose speed drifts (other work, clock)
    // affects both alike: the median time per probe of each.
    let rounds = 41;
    let per_round = 20_000 / few.len();
    let mut times: [Vec<f64>; 4] = Default::default();
    for _ in 0..rounds {
        for (way, times) in times.iter_mut().enumerate() {
            let started = Instant::now();
            let mut sum = 0;
            for _ in 0..per_round {
                for (p, b) in few.iter().zip(&boards) {
                    let (p, b) = std::hint::black_box((p, b));
                    sum += match way {
                        0 => tables.probe_wdl(p).unwrap() as i32,
                        1 => c_wdl(b),
                        2 => tables.probe_wdl_cached(p).unwrap() as i32,
                        _ => c_cached(b),
                    };
                }
            }
            std::hint::black_box(sum);
            times.push(started.elapsed().as_nanos() as f64 / (per_round * few.len()) as f64);
        }
    }
    let median = |t: &mut Vec<f64>| {
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
    };
    let [rust, c_call, rust_cached, c_cached_call] = times.map(|mut t| median(&mut t));
    eprintln!(
        "alternating rounds, median ns per probe: probe_wdl {rust:.1}, dprobe_probe_wdl \
         {c_call:.1} (+{:.1}); probe_wdl_cached {rust_cached:.1}, dprobe_probe_wdl_cached \
         {c_cached_call:.1} (+{:.1})",
        c_call - rust,
        c_cached_call - rust_cached
    );

    let mut group = c.benchmark_group(format!("capi/{pieces}pieces"));
    group.throughput(Throughput::Elements(few.len() as u64));
    group.bench_function("rust_wdl_warm", |b| {
        b.iter(|| {
            few.iter()
                .map(|p| tables.probe_wdl(std::hint::black_box(p)).unwrap() as i32)
                .sum::<i32>()
        })
    });
    group.bench_function("c_wdl_warm", |b| {
        b.iter(|| {
            boards
                .iter()
                .map(|p| c_wdl(std::hint::black_box(p)))
                .sum::<i32>()
        })
    });
    group.bench_function("rust_wdl_cached_hit", |b| {
        b.iter(|| {
            few.iter()
                .map(|p| tables.probe_wdl_cached(std::hint::black_box(p)).unwrap() as i32)
                .sum::<i32>()
        })
    });
    group.bench_function("c_wdl_cached_hit", |b| {
        b.iter(|| {
            boards
                .iter()
                .map(|p| c_cached(std::hint::black_box(p)))
                .sum::<i32>()
        })
    });
    group.finish();
    // SAFETY: the handle is no longer used.
    unsafe { dprobe_close(tb) };
}

criterion_group!(benches, capi);
criterion_main!(benches);
