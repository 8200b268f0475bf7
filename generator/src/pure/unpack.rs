//! A table's raw values rebuilt from its published `.wdl` and `.dtw` files: what a set that
//! holds only the published files (a finished build, or a downloaded set) gives the solver of
//! larger tables, `dtb verify` and `dtb stats`.
//!
//! The published files store every position without a capture (the `.dtw` file all but the
//! draws, which the `.wdl` file tells); a position with a capture takes the best of its
//! captures' values, read from the smaller tables (themselves raw or rebuilt), as the solver
//! does. The result is the raw table byte for byte, its statistics and checksum included
//! (tested against the raw files a build writes).

use std::path::Path;

use dprobe::{
    format::{dtw_value, table_path, TableFile, TableKind},
    index::Signature,
    rules::{capture_moves, has_capture, MoveRules},
    ProbeError, Value, Wdl,
};
use rayon::prelude::*;

use crate::error::Error;
use crate::pure::store::{store_value, Table, TableStats};
use crate::pure::tableset::{move_targets, TableSet};

/// Whether both published files of a table are there, with headers of the right table.
pub fn is_published(dir: &Path, rules: &MoveRules, signature: Signature) -> bool {
    [TableKind::Wdl, TableKind::Dtw].iter().all(|&kind| {
        TableFile::open(&table_path(dir, rules.id, signature, kind)).is_ok_and(|file| {
            let header = file.header();
            header.kind == kind && header.rules == rules.id && header.signature == signature
        })
    })
}

/// The raw table of `signature` rebuilt in memory from its published files in the folder of
/// `smaller`, which gives the smaller tables its captures lead to (opened here).
///
/// # Errors
///
/// [`Error::MissingPublished`] if a published file of the table is not there, [`Error::Missing`]
/// if a smaller table is, what is wrong with a damaged file, [`Error::Invariant`] if the two
/// files disagree.
pub fn unpack(smaller: &TableSet, signature: Signature) -> Result<Table, Error> {
    let (dir, rules) = (smaller.dir(), smaller.rules());
    let wdl = open(dir, rules, signature, TableKind::Wdl)?;
    let dtw = open(dir, rules, signature, TableKind::Dtw)?;
    // Open what captures reach before the parallel pass, which reads only open tables.
    for target in move_targets(signature) {
        if target.pieces() < signature.pieces() {
            smaller.table(target)?;
        }
    }
    Table::in_memory(rules.id, signature, |bytes, width| {
        let index = dprobe::index::TableIndex::new(signature);
        let per_block = wdl.header().positions_per_block as usize;
        let stats = bytes
            .par_chunks_mut(width * per_block)
            .enumerate()
            .map_init(
                || (Vec::new(), DtwBlock::default(), Vec::new()),
                |(wdl_symbols, dtw_block, moves), (block, out)| {
                    let first = wdl.block_symbols(block as u32, wdl_symbols)?;
                    let range = first..first + wdl_symbols.len() as u64;
                    let mut stats = TableStats::default();
                    for ((i, board), slot) in range
                        .clone()
                        .zip(index.boards(range))
                        .zip(out.chunks_exact_mut(width))
                    {
                        let capture = has_capture(&board, rules);
                        let value = if capture {
                            moves.clear();
                            capture_moves(&board, rules, moves);
                            best_capture(smaller, &board, moves).ok_or_else(|| {
                                Error::Invariant(format!(
                                    "a capture of {signature} position {i} leads to a table \
                                     that is not open or holds an invalid value"
                                ))
                            })?
                        } else {
                            let symbol = wdl_symbols[(i - first) as usize];
                            match TableKind::Wdl.wdl_of(symbol) {
                                Some(Wdl::Draw) => Value::Draw,
                                wdl_value => {
                                    let value = dtw_value(dtw_block.symbol(&dtw, i)?);
                                    if Some(value.wdl()) != wdl_value {
                                        return Err(Error::Invariant(format!(
                                            "{} and {} disagree at position {i}",
                                            wdl.path().display(),
                                            dtw.path().display()
                                        )));
                                    }
                                    value
                                }
                            }
                        };
                        if !store_value(slot, value.pack()) {
                            return Ok(None);
                        }
                        stats.count(i, value, capture);
                    }
                    Ok(Some(stats))
                },
            )
            .collect::<Result<Option<Vec<TableStats>>, Error>>()?;
        // Merged in index order: the longest win's position is the first with that distance,
        // as in the solver's statistics.
        Ok(stats.map(|stats| {
            stats
                .into_iter()
                .fold(TableStats::default(), TableStats::merge)
        }))
    })
}

/// The decoded `.dtw` block a thread reads from: `.dtw` blocks hold fewer positions than `.wdl`
/// blocks, so one `.wdl` block's positions span several.
#[derive(Default)]
struct DtwBlock {
    /// The index of its first position.
    first: u64,
    /// Its symbols (none before the first read).
    symbols: Vec<u16>,
}

impl DtwBlock {
    /// The symbol of position `index`, decoding its block if it is not this one.
    fn symbol(&mut self, dtw: &TableFile, index: u64) -> Result<u16, Error> {
        if !(self.first..self.first + self.symbols.len() as u64).contains(&index) {
            let per_block = u64::from(dtw.header().positions_per_block);
            self.first = dtw.block_symbols((index / per_block) as u32, &mut self.symbols)?;
        }
        Ok(self.symbols[(index - self.first) as usize])
    }
}

/// The best value among the moves (captures) of `board` for the side that plays them, from the
/// tables they lead to; `None` if one cannot be read.
fn best_capture(
    tables: &TableSet,
    board: &dprobe::rules::Board,
    moves: &[dprobe::rules::Move],
) -> Option<Value> {
    let mut best: Option<Value> = None;
    for mv in moves {
        let value = tables.value_of(&board.play(mv))?.one_ply_earlier();
        if best.is_none_or(|b| value.is_better_than(b)) {
            best = Some(value);
        }
    }
    best
}

/// A published file of the table, checked to be the table's.
pub(crate) fn open(
    dir: &Path,
    rules: &MoveRules,
    signature: Signature,
    kind: TableKind,
) -> Result<TableFile, Error> {
    let path = table_path(dir, rules.id, signature, kind);
    let file = TableFile::open(&path).map_err(|e| match e {
        ProbeError::Io { .. } if !path.exists() => Error::MissingPublished { path: path.clone() },
        e => Error::from(e),
    })?;
    let header = file.header();
    if header.kind != kind
        || header.rules != rules.id
        || header.signature != signature
        || header.positions != dprobe::index::TableIndex::new(signature).size()
    {
        return Err(Error::ForeignPublished { path });
    }
    Ok(file)
}
