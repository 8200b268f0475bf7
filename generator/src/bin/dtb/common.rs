//! Helpers several commands share: the worker pool, which tables a folder holds, and how a
//! table position is shown.

use std::path::Path;

use dprobe::format::{raw_table_path, table_path, TableKind};
use dprobe::index::{Signature, TableIndex};
use dprobe::{Color, Position, Variant};
use draughts_generator::pure::build::build_order;
use draughts_generator::pure::store::TableStats;

use crate::error::CliError;

/// The most pieces a build may ask for: 8 is the cluster-scale goal; more has no use here.
pub const MAX_PIECES: u32 = 8;

/// Sizes rayon's global pool; it can be sized only once, before any parallel work.
pub fn set_threads(threads: Option<usize>) -> Result<(), CliError> {
    if let Some(threads) = threads {
        if threads == 0 {
            return Err(CliError::Message("--threads must be at least 1".into()));
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .map_err(|source| CliError::Threads { threads, source })?;
    }
    Ok(())
}

/// The tables of a variant present in `dir` (a raw working file or a published file), in build
/// order.
pub fn present_tables(variant: &Variant, dir: &Path) -> Vec<Signature> {
    let id = variant.moves.id;
    build_order(MAX_PIECES)
        .into_iter()
        .filter(|&s| {
            raw_table_path(dir, id, s).exists()
                || [TableKind::Wdl, TableKind::Dtw]
                    .iter()
                    .any(|&kind| table_path(dir, id, s, kind).exists())
        })
        .collect()
}

/// A table's entry of `dtb stats --json` (and `tables/manifest.json`): its statistics and the
/// checksum of its values.
pub fn table_entry(
    variant: &Variant,
    signature: Signature,
    stats: &TableStats,
    checksum: u64,
) -> serde_json::Value {
    let fen = (stats.max_dtw > 0).then(|| fen_of(variant, &signature, stats.max_dtw_index));
    serde_json::json!({
        "rule_set": variant.moves.id.name(),
        "table": signature.to_string(),
        "pieces": signature.pieces(),
        "positions": stats.positions,
        "wins": stats.wins,
        "draws": stats.draws,
        "losses": stats.losses,
        "captures": stats.captures,
        "max_dtw": stats.max_dtw,
        "max_dtw_fen": fen,
        "checksum": format!("{checksum:016x}"),
    })
}

/// The position at `index` of `signature`'s table, White to move.
pub fn fen_of(variant: &Variant, signature: &Signature, index: u64) -> String {
    let board = TableIndex::new(*signature).board(index);
    Position::from_board(&board, Color::White).to_fen(variant)
}
