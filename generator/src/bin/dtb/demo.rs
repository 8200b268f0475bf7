//! `dtb demo`: a first run in one command — builds the Russian tables up to 4 pieces where
//! missing and probes a well-known ending with its winning line.

use std::path::Path;

use dprobe::Variant;
use draughts_generator::pure::build::BuildOptions;

use crate::error::CliError;
use crate::generate::{generate, Request, RULES_ZSTD_LEVEL};
use crate::probe::{probe, Counts, DrawRequest};

/// The ending `dtb demo` shows: three kings against one, the lone king off the long diagonal
/// (Petrov's triangle wins it); this is the longest such win, 25 plies.
pub const DEMO_FEN: &str = "W:WK21,K26,K30:BK31";

pub fn demo(dir: &Path) -> Result<(), CliError> {
    let variant = Variant::RUSSIAN;
    generate(&Request {
        variant: &variant,
        pieces: 4,
        dir,
        options: BuildOptions::default(),
        draw: variant.draw_rules(),
        rules_zstd_level: RULES_ZSTD_LEVEL,
        json: false,
    })?;
    out!(
        "Three kings against one (Russian rules), from the tables in {}:",
        dir.display()
    );
    out!("");
    let request = DrawRequest {
        rules: variant.draw_rules(),
        counts: Counts::default(),
    };
    probe(&variant, dir, DEMO_FEN, false, true, &request)
}
