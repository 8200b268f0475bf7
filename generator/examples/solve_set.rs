//! Times the solver alone over every pair up to N pieces, writing nothing: the smaller tables are
//! read from a finished set, so each pair sees exactly what it would see in a build.
//!
//! `cargo run --release -p draughts-generator --example solve_set -- DIR VARIANT PIECES [SIG...]`
//! (with signatures: only their pairs, each timed).

use std::path::Path;
use std::time::Instant;

use dprobe::Variant;
use draughts_generator::pure::build::plan;
use draughts_generator::pure::solve::{solve_pair, Silent};
use draughts_generator::pure::tableset::TableSet;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, variant, pieces, only @ ..] = args.as_slice() else {
        return Err(
            "usage: solve_set DIR VARIANT PIECES [SIG...] (DIR holds a finished set)".into(),
        );
    };
    let only: Vec<dprobe::index::Signature> =
        only.iter().map(|s| s.parse()).collect::<Result<_, _>>()?;
    let variant: Variant = variant.parse()?;
    let pieces: u32 = pieces.parse()?;
    let tables = TableSet::new(Path::new(dir), variant.moves);
    let started = Instant::now();
    let mut positions = 0u64;
    for planned in plan(pieces) {
        let sig = planned.signature;
        if !only.is_empty() && !only.iter().any(|&s| s == sig || s == sig.flipped()) {
            continue;
        }
        let pair_started = Instant::now();
        let solved = solve_pair(&variant.moves, &tables, sig, &Silent)?;
        positions += solved.iter().map(|s| s.values.len() as u64).sum::<u64>();
        if !only.is_empty() {
            println!("{sig}: {:.2} s", pair_started.elapsed().as_secs_f64());
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "solved {positions} positions in {seconds:.1} s ({:.1} M positions/s)",
        positions as f64 / seconds / 1e6,
    );
    Ok(())
}
