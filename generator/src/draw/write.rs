//! The writer of draw-rule table files (`docs/FORMAT.md`, "Draw-rule tables"), and the reader
//! of one already written, which a rerun keeps.

use bitvec::order::Lsb0;
use bitvec::slice::BitSlice;
use bitvec::vec::BitVec;
use dprobe::draw::PlaneKind;
use dprobe::format::draw::{corner_parts, fresh_symbol, FamilySection, NO_CORNER};
use dprobe::format::{draw_table_path, AloneImplied, DrawFile, SectionRole, TableKind};
use dprobe::index::Signature;
use dprobe::rules::MoveRules;
use dprobe::{DrawRules, DrawWdl, Wdl};
use rayon::prelude::*;
use std::path::Path;

use crate::draw::results::{pure_wdl, FreshResults};
use crate::draw::solve::DrawTable;
use crate::draw::tables::corrupt;
use crate::error::Error;
use crate::pure::tableset::TableSet;
use crate::pure::write::{encode, encode_with_symbol_table, Compression, Fill, Layout};

/// A section's symbols and which of them are don't-care.
type Section = (Vec<u16>, BitVec<u64>);

/// The compressed sections of a rule table file so far, each with its role.
pub struct Sections {
    signature: Signature,
    images: Vec<(SectionRole, Vec<u8>)>,
}

/// Positions per block of a section of one result a position (the fresh results, the results
/// alone): nearly all of their entries are 0, and a block of 8 192 positions costs about 17
/// bytes of frame and block table even then, as much as the entries it is there for
/// (`docs/DRAW_RULES.md` §9.5). Four times the `.dtw` block, as the `.wdl` files.
const RESULT_BLOCK: u32 = Layout::WDL.positions_per_block;

/// Positions per block of a family of one budget or none (one byte a position): twice the
/// `.dtw` block made these sections 6 % smaller, four times no smaller still
/// (`docs/DRAW_RULES.md` §9.12).
const ONE_BUDGET_BLOCK: u32 = 2 * Layout::DTW.positions_per_block;

/// Positions per block of a family's first corners: those of the `.dtw` files (twice as many
/// through a symbol table).
const FIRST_CORNER_BLOCK: u32 = Layout::DTW.positions_per_block;

/// Positions per block of a family's further corners: nearly every entry is don't-care, so a
/// block's frame and place in the block table are most of its cost, and a probe reads one only
/// for the few positions with more than one corner.
const FURTHER_CORNER_BLOCK: u32 = 4 * Layout::DTW.positions_per_block;

/// One section compressed like the `.dtw` files, in blocks of `positions_per_block`; the
/// corners of a family of layers (`corners`) through a symbol table where they allow it.
fn compress(
    rules: &MoveRules,
    signature: Signature,
    zstd_level: i32,
    positions_per_block: u32,
    corners: bool,
    (symbols, dont_care): Section,
) -> std::io::Result<Vec<u8>> {
    let layout = Layout {
        compression: Compression::Level(zstd_level),
        positions_per_block,
    };
    if corners {
        let entries = (symbols, dont_care.as_bitslice());
        encode_with_symbol_table(rules.id, signature, entries, layout, &[Fill::CHOSEN])
    } else {
        let entries = (symbols.as_slice(), dont_care.as_bitslice());
        encode(
            rules.id,
            signature,
            TableKind::Dtw,
            entries,
            layout,
            &[Fill::CHOSEN],
        )
    }
}

/// A section of one symbol a position, none of them don't-care.
fn wide(symbols: Vec<u16>) -> Section {
    let len = symbols.len();
    (symbols, bitvec::bitvec![u64, Lsb0; 0; len])
}

/// The fresh section of the results `fresh` ([`DrawWdl`] codes): per position whether the rules
/// turn its pure result into a draw ([`fresh_symbol`]); the pure result is the `.wdl` file's, so
/// pure draws are don't-care.
fn fresh_section(fresh: &[u8]) -> Section {
    let (symbols, draws): (Vec<u16>, Vec<bool>) = fresh
        .par_iter()
        .map(|&code| match DrawWdl::from_code(code) {
            Some(result) => (u16::from(fresh_symbol(result)), result.pure() == Wdl::Draw),
            None => (0, true),
        })
        .unzip();
    (symbols, draws.into_iter().collect())
}

/// Gives every entry no reader reads (`unread`: capture positions and pure draws) the most
/// common symbol of the block's other entries (the smallest on a tie) among those that say no
/// further corner follows, so that they cost next to nothing compressed and no decoder reads a
/// further corner for them; [`NO_CORNER`] in a block of unread entries alone. Blocks of
/// `block` positions.
fn fill_unread(symbols: &mut [u16], unread: &BitSlice<u64>, block: usize) {
    symbols
        .par_chunks_mut(block)
        .enumerate()
        .for_each(|(b, symbols)| {
            let unread = &unread[b * block..b * block + symbols.len()];
            let mut read: Vec<u16> = symbols
                .iter()
                .zip(unread.iter().by_vals())
                .filter(|&(&code, unread)| !unread && !corner_parts(code).2)
                .map(|(&code, _)| code)
                .collect();
            read.sort_unstable();
            let most = read
                .chunk_by(|a, b| a == b)
                .max_by_key(|run| (run.len(), std::cmp::Reverse(run[0])))
                .map_or(NO_CORNER, |run| run[0]);
            for (symbol, unread) in symbols.iter_mut().zip(unread.iter().by_vals()) {
                if unread {
                    *symbol = most;
                }
            }
        });
}

/// The sections of `table`, the results under all the rules: its fresh results and its
/// families. Built one at a time, each compressed in parallel blocks. The family entries of
/// the positions no reader reads (`table.unread`) are filled to compress best
/// ([`fill_unread`]).
pub fn encode_sections(
    rules: &MoveRules,
    table: &DrawTable,
    zstd_level: i32,
) -> std::io::Result<Sections> {
    let mut images: Vec<(SectionRole, Vec<u8>)> = Vec::new();
    let mut add = |role: SectionRole, block: u32, section: Section| -> std::io::Result<()> {
        let corners = matches!(role, SectionRole::Pre(f) | SectionRole::Post(f)
            if f.kind == PlaneKind::LayersAz);
        images.push((
            role,
            compress(rules, table.signature, zstd_level, block, corners, section)?,
        ));
        Ok(())
    };
    add(
        SectionRole::Fresh,
        RESULT_BLOCK,
        fresh_section(&table.fresh),
    )?;
    for family in &table.families {
        let layers = family.stairs.layers() as u16;
        let ranks = if family.kind == PlaneKind::LayersAz {
            family.stairs.ranks()
        } else {
            1
        };
        for rank in 0..ranks {
            let block = match (family.kind, rank) {
                (PlaneKind::LayersAz, 0) => FIRST_CORNER_BLOCK,
                (PlaneKind::LayersAz, _) => FURTHER_CORNER_BLOCK,
                _ => ONE_BUDGET_BLOCK,
            };
            let section = if family.kind == PlaneKind::LayersAz {
                // Unread positions have one corner at most, so past rank 0 they are don't-care
                // already (`Stairs::section`).
                let (mut symbols, dont_care) = family.stairs.section(rank);
                if rank == 0 {
                    fill_unread(&mut symbols, &table.unread, block as usize);
                }
                (symbols, dont_care)
            } else {
                let mut symbols: Vec<u16> = family
                    .stairs
                    .single_values()
                    .iter()
                    .map(|&v| u16::from(v))
                    .collect();
                fill_unread(&mut symbols, &table.unread, block as usize);
                wide(symbols)
            };
            let place = FamilySection {
                kind: family.kind,
                layers,
                rank: rank as u16,
            };
            let role = if family.post {
                SectionRole::Post(place)
            } else {
                SectionRole::Pre(place)
            };
            add(role, block, section)?;
        }
    }
    Ok(Sections {
        signature: table.signature,
        images,
    })
}

/// The bytes of a rule table file: its `sections` ([`encode_sections`]), then where each counter
/// alone turns the pure result into a draw (`alone`, in the counters' order; empty if `draw`
/// has one counter), named without being stored where that follows from the fresh results
/// under all the rules (`fresh`, [`DrawWdl`] codes; [`AloneImplied`]).
pub fn finish_draw_table(
    rules: &MoveRules,
    draw: &DrawRules,
    sections: Sections,
    fresh: &[u8],
    alone: &[&BitSlice<u64>],
    zstd_level: i32,
) -> std::io::Result<Vec<u8>> {
    let Sections {
        signature,
        mut images,
    } = sections;
    for (counter, turned) in (0..).zip(alone) {
        if let Some(implied) = AloneImplied::of(turned.iter().by_vals(), fresh) {
            images.push((SectionRole::AloneImplied(counter, implied), Vec::new()));
            continue;
        }
        let section = wide(turned.iter().by_vals().map(u16::from).collect());
        images.push((
            SectionRole::Alone(counter),
            compress(rules, signature, zstd_level, RESULT_BLOCK, false, section)?,
        ));
    }
    let listed: Vec<(SectionRole, u64)> = images
        .iter()
        .map(|(role, image)| (*role, image.len() as u64))
        .collect();
    let mut out = dprobe::format::draw::encode_header(
        rules.id,
        draw.preset,
        draw.fingerprint(),
        signature,
        &listed,
    );
    for (_, image) in images {
        out.extend_from_slice(&image);
    }
    Ok(out)
}

/// The bytes of a rule table file: `table`, and where each counter alone turns the pure result
/// into a draw ([`finish_draw_table`]).
pub fn encode_draw_table(
    rules: &MoveRules,
    draw: &DrawRules,
    table: &DrawTable,
    alone: &[&BitSlice<u64>],
    zstd_level: i32,
) -> std::io::Result<Vec<u8>> {
    let sections = encode_sections(rules, table, zstd_level)?;
    finish_draw_table(rules, draw, sections, &table.fresh, alone, zstd_level)
}

/// A signature's fresh results under all the rules, and under each counter alone.
pub(crate) type FreshAndAlone = (Vec<u8>, Vec<Vec<u8>>);

/// The rule table of `signature` in `dir`, if one is in place: written under these move and
/// draw rules for this signature, with the checksums of its header and of every section intact.
/// What a later build takes as built without reading its results (as the pure build takes an
/// intact published file).
pub(crate) fn rule_file_in_place(
    dir: &Path,
    rules: &MoveRules,
    draw: &DrawRules,
    signature: Signature,
) -> Option<DrawFile> {
    let file = DrawFile::open(&draw_table_path(dir, rules.id, draw, signature)).ok()?;
    let matches = file.rules == rules.id
        && file.fingerprint == draw.fingerprint()
        && file.signature == signature
        && file.counters_alone() == counters_alone(draw);
    let intact = file
        .sections()
        .iter()
        .all(|(_, section)| section.verify_file_checksum().is_ok());
    (matches && intact).then_some(file)
}

/// The fresh results of `file`, a rule table in place ([`rule_file_in_place`]) over the tables
/// of `pure`, under all the rules and under each counter alone; `smaller` holds the fresh
/// results of the materials its captures lead to.
///
/// # Errors
///
/// A pure table that cannot be read, or a section whose blocks do not hold one valid result a
/// position.
pub(crate) fn existing_fresh(
    file: &DrawFile,
    pure: &TableSet,
    smaller: &dyn FreshResults,
) -> Result<FreshAndAlone, Error> {
    // Both check that they hold a result for each of the pure results' positions.
    let fresh = file
        .fresh_results(&pure_wdl(pure, smaller, file.signature)?)
        .map_err(corrupt)?;
    let alone = (0..file.counters_alone())
        .map(|k| match file.fresh_results_alone(k, &fresh) {
            Some(alone) => alone.map_err(corrupt),
            None => Err(Error::Invariant(format!(
                "{}: no results under counter {k} alone",
                file.signature
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((fresh, alone))
}

/// How many counters a rule table file keeps results alone for.
pub(crate) fn counters_alone(draw: &DrawRules) -> usize {
    if draw.counters.len() > 1 {
        draw.counters.len()
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dprobe::format::draw::corner_code;

    #[test]
    fn unread_entries_take_the_commonest_code_without_a_further_corner() {
        let block = Layout::DTW.positions_per_block as usize;
        let flagged = corner_code(3, 7, true);
        let plain = corner_code(5, 2, false);
        let rare = corner_code(1, 1, false);
        // First block: the flagged code is the commonest, then `plain`; the last positions
        // are unread. Second block: unread alone.
        let mut symbols = vec![flagged; 2 * block];
        symbols[..block / 4].fill(plain);
        symbols[block / 4] = rare;
        let mut unread: BitVec<u64> = BitVec::repeat(false, 2 * block);
        unread[block - 10..].fill(true);
        fill_unread(&mut symbols, &unread, block);
        assert!(symbols[block - 10..block].iter().all(|&s| s == plain));
        assert!(symbols[block..].iter().all(|&s| s == NO_CORNER));
        assert_eq!(symbols[block - 11], flagged, "read entries are kept");
        assert_eq!(symbols[block / 4], rare);
    }
}
