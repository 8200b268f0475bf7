//! Warm probes allocate nothing: an engine calls them at every node. A counting allocator
//! (this test binary's global allocator, counting per thread) checks the probes once their
//! blocks are cached.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use dprobe::{DrawCounts, Position, Variant};
use draughts_generator::draw::build::generate_draw_tables;
use draughts_generator::pure::solve::Silent;

use crate::tablebase::{built, tablebase};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: an allocation while the thread's locals are torn down is not counted.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: every call is passed on to the system allocator unchanged; counting touches only a
// thread-local `Cell` that needs no allocation.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The allocations `f` makes on this thread.
fn allocations(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn warm_probes_allocate_nothing() {
    let variant = Variant::RUSSIAN;
    let dir = built(&variant);
    let draw = variant.draw_rules();
    generate_draw_tables(dir, &variant.moves, &draw, 4, 3, true, &Silent).unwrap();
    let tables = tablebase(&variant, dir);
    // Quiet positions and positions where the mover must capture (followed into smaller
    // tables), won, drawn and lost.
    let fens = [
        "W:WK1,K2,K3:BK32",
        "B:WK1,K2,K3:BK32",
        "W:WK1,K2,K3:BK6",
        "W:W21,K30:BK5",
        "B:W21,K30:BK5,K6",
        "W:WK1:BK32",
    ];
    let positions: Vec<Position> = fens
        .iter()
        .map(|fen| Position::from_fen(fen, &variant).unwrap())
        .collect();
    // Running counts where three kings face one, else every count at its start (counts that
    // do not fit are an error, whose message may allocate).
    let mut running = DrawCounts::new();
    for id in ["r1-three-kings", "r2-kings-only", "r3-kings-4-5-pieces"] {
        running.set(tables.draw_rules(), id, Some(6)).unwrap();
    }
    let counts: Vec<DrawCounts> = positions
        .iter()
        .map(|p| match tables.probe_draw(p, &running) {
            Ok(_) => running,
            Err(_) => DrawCounts::new(),
        })
        .collect();
    let probe_all = || {
        for (position, counts) in positions.iter().zip(&counts) {
            tables.probe_wdl(position).unwrap();
            tables.probe_dtw(position).unwrap();
            tables.probe_draw(position, counts).unwrap();
        }
    };
    assert!(
        counts.contains(&running),
        "some position probed with running counts"
    );
    // Cold: files opened, blocks decompressed, per-thread buffers grown.
    probe_all();
    assert_eq!(allocations(probe_all), 0, "warm probes allocated");
}
