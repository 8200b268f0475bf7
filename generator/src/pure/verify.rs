//! The independent consistency check of solved tables: every stored value must be the best of
//! its moves' values (captures and crownings through the smaller tables, quiet moves through the
//! partner table), a loss in 0 exactly when there is no move, and every distance one more than
//! the chosen move's. Because distances are well-founded, a table that passes is exact.
//!
//! It shares nothing with the solver but the move generator, the index and the table files: it
//! plays every legal move forward where the solver works backward from decided positions. In a
//! table rebuilt from its published files, the positions with a capture got their values from
//! their captures as it was rebuilt; there only the positions the files hold are played.

use std::path::Path;

use bitvec::{slice::BitSlice, vec::BitVec};
use dprobe::{
    format::{table_path, TableFile, TableKind},
    index::Signature,
    rules::{capture_moves, has_capture, quiet_moves, MoveRules},
    Position, Value, Variant,
};
use rayon::prelude::*;

use crate::pure::solve::bits_from_words;
use crate::pure::store::Table;
use crate::pure::tableset::{move_targets, TableSet};
use crate::Error;

/// One position whose stored value is not what its moves give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inconsistency {
    /// Its table.
    pub signature: Signature,
    /// Its index.
    pub index: u64,
    /// The position, White to move, in the variant's notation.
    pub fen: String,
    /// What the table holds.
    pub stored: Option<Value>,
    /// What its moves give.
    pub expected: Option<Value>,
}

/// What [`verify_table`] found in a table.
pub struct Checked {
    /// Up to the limit asked for, in index order; none if the table is exact.
    pub inconsistencies: Vec<Inconsistency>,
    /// Whether the mover has a capture, in index order: the entries of the published files
    /// that [`check_published`] leaves out.
    pub captures: BitVec<u64>,
}

/// Checks every position of one table; returns up to `limit` inconsistencies, and which
/// positions have a capture (what their moves showed).
pub fn verify_table(
    tables: &TableSet,
    variant: &Variant,
    signature: Signature,
    limit: usize,
) -> Result<Checked, Error> {
    let table: &Table = tables.table(signature)?;
    // Open every table a move can lead to before the parallel pass. Should a move reach
    // another table, its value reads as missing and the position is reported.
    for target in move_targets(signature) {
        tables.table(target)?;
    }
    // A king's quiet move leads to the colour flip with the men where they were.
    let flip = tables.table(signature.flipped())?;
    let rules = tables.rules();
    // A table rebuilt from its published files holds, at each position with a capture, the
    // best of its captures' values, worked out through these same tables when it was rebuilt
    // (`crate::pure::unpack`): the check would repeat that computation to the bit. Only its
    // other positions, the entries read from the files, are checked from their moves.
    let captures_rebuilt = table.is_in_memory();
    let chunks: Vec<(Vec<Inconsistency>, Vec<u64>)> =
        crate::pure::solve::chunks(table.index.size())
            .map_init(Vec::new, |moves, range| {
                let mut found = Vec::new();
                let mut captures = vec![0u64; (range.end - range.start).div_ceil(64) as usize];
                for (offset, (index, board)) in
                    range.clone().zip(table.index.boards(range)).enumerate()
                {
                    let capture = has_capture(&board, rules);
                    captures[offset / 64] |= u64::from(capture) << (offset % 64);
                    moves.clear();
                    match capture {
                        true if captures_rebuilt => continue,
                        true => capture_moves(&board, rules, moves),
                        false => quiet_moves(&board, moves),
                    }
                    // The best of the moves' values; `None` if one of them cannot be read.
                    let mut expected = Some(Value::Loss(0));
                    // The men's share of the index of every king move's result: computed once.
                    let mut men_after = None;
                    for (i, mv) in moves.iter().enumerate() {
                        let after = board.play(mv);
                        let value = if !mv.is_capture() && board.kings & (1 << mv.from) != 0 {
                            let men = men_after.get_or_insert_with(|| flip.index.men_rank(&after));
                            flip.value(flip.index.index_with_men(men, after.kings, after.opp_kings))
                        } else {
                            tables.value_of(&after)
                        }
                        .map(Value::one_ply_earlier);
                        expected = match (expected, value) {
                            (Some(_), Some(v)) if i == 0 => Some(v),
                            (Some(best), Some(v)) => {
                                Some(if v.is_better_than(best) { v } else { best })
                            }
                            _ => None,
                        };
                    }
                    let stored = table.value(index);
                    if (stored != expected || stored.is_none()) && found.len() < limit {
                        found.push(Inconsistency {
                            signature,
                            index,
                            fen: Position::from_board(&board, dprobe::Color::White).to_fen(variant),
                            stored,
                            expected,
                        });
                    }
                }
                (found, captures)
            })
            .collect();
    // Chunks are a multiple of 64 positions long: their words join without shifting.
    let mut inconsistencies = Vec::new();
    let mut words = Vec::new();
    for (found, chunk_words) in chunks {
        inconsistencies.extend(found);
        words.extend(chunk_words);
    }
    inconsistencies.truncate(limit);
    let captures = bits_from_words(words, table.index.size() as usize);
    Ok(Checked {
        inconsistencies,
        captures,
    })
}

/// Checks the published `.wdl` and `.dtw` files of `table`: present, of the right table, every
/// checksum intact and every symbol valid ([`TableFile::verify`]), and every entry the probe
/// reads (positions without a capture, `captures` telling which have one; in the `.dtw` file,
/// those not drawn) the symbol of the raw value.
///
/// # Errors
///
/// What is wrong, naming the file and, for a wrong entry, the first position that disagrees.
pub fn check_published(
    dir: &Path,
    rules: &MoveRules,
    table: &Table,
    captures: &BitSlice<u64>,
) -> Result<(), Error> {
    let signature = table.index.signature();
    for kind in [TableKind::Wdl, TableKind::Dtw] {
        let path = table_path(dir, rules.id, signature, kind);
        let file = TableFile::open(&path).map_err(|e| match e {
            dprobe::ProbeError::Io { .. } if !path.exists() => {
                Error::MissingPublished { path: path.clone() }
            }
            e => Error::from(e),
        })?;
        file.verify_file_checksum()?;
        let header = file.header();
        if header.rules != rules.id
            || header.signature != signature
            || header.positions != table.index.size()
        {
            return Err(Error::ForeignPublished { path });
        }
        // Every block checked as `TableFile::verify` does, and the first position that
        // disagrees, over every block in parallel.
        let first_wrong = (0..header.blocks)
            .into_par_iter()
            .map_init(Vec::new, |symbols, block| -> Result<Option<u64>, Error> {
                let first = file.verify_block(block, symbols)?;
                Ok(symbols.iter().zip(first..).find_map(|(&stored, index)| {
                    let value = table.value(index);
                    let read = !captures[index as usize]
                        && (kind == TableKind::Wdl || value != Some(Value::Draw));
                    let expected = value.and_then(|v| kind.symbol(v));
                    (read && expected != Some(stored)).then_some(index)
                }))
            })
            .collect::<Result<Vec<_>, Error>>()?
            .into_iter()
            .flatten()
            .min();
        if let Some(index) = first_wrong {
            return Err(Error::WrongPublished {
                path,
                index,
                value: table.value(index),
            });
        }
    }
    Ok(())
}
