//! `dtb perft`: counts the leaves of the move tree to a depth, the standard check of a move
//! generator against published figures; `--divide` splits the count by first move to find
//! where two generators disagree.

use std::time::Instant;

use dprobe::rules::Perft;
use dprobe::{Position, Variant};

use crate::error::CliError;

pub fn perft(
    variant: &Variant,
    depth: u32,
    fen: Option<&str>,
    divide: bool,
) -> Result<(), CliError> {
    let position = match fen {
        Some(fen) => Position::from_fen(fen, variant)?,
        None => Position::INITIAL,
    };
    let board = position.board();
    let mut counter = Perft::new();
    let started = Instant::now();
    let total = if divide {
        let mut total = 0;
        for (relative, count) in counter.divide(&board, &variant.moves, depth) {
            let mv = position.orient_move(&relative);
            out!("{:<24} {count}", position.move_to_string(variant, &mv));
            total += count;
        }
        total
    } else {
        counter.count(&board, &variant.moves, depth)
    };
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "{variant} depth {depth}: {total} leaves in {seconds:.3} s ({:.1} M leaves/s)",
        total as f64 / seconds.max(1e-9) / 1e6
    );
    // The count goes last on standard output, alone on its line, for scripts.
    out!("{total}");
    Ok(())
}
