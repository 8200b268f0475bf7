//! A pair built in parts, for tables too large for one process's memory: the pair's levels of
//! slices cut into ranges of at most a number of positions, each range solved by a process of
//! its own (a unit of `dtb plan`, [`crate::pure::units`]).
//!
//! A part holds the slices of its own levels and the values of the level just above, read from
//! the file of the part before it (a man's step leads one level further on, and every other
//! move out of the pair into a smaller table). It writes the values and capture flags of its
//! slices to a part file. The part that solves level 0 then assembles the pair's tables from
//! every part file, one table at a time, writes them as a whole build does (the same bytes),
//! and deletes the part files.

use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use bitvec::vec::BitVec;
use dprobe::format::rule_set_dir;
use dprobe::index::{Signature, TableIndex};
use dprobe::rules::MoveRules;
use xxhash_rust::xxh3::Xxh3;

use crate::error::io_error;
use crate::pure::build::{
    build_pair, pair_of, write_pair, BuildObserver, BuildOptions, FinishedTable, PairTimes, Planned,
};
use crate::pure::slices::Slices;
use crate::pure::solve::{pair_sides, solve_levels, solved_table, Pages, Side, Solved, SolverMode};
use crate::pure::tableset::TableSet;
use crate::pure::unpack::is_published;
use crate::pure::write::temporary_path;
use crate::Error;

/// Positions of a pair above which `dtb plan` builds it in parts, and the most a part holds
/// (a level at least): 2³², about 21 GB of solver memory a part.
pub const DEFAULT_PART_POSITIONS: u64 = 1 << 32;

/// The first bytes of a part file.
const MAGIC: &[u8; 8] = b"DTBPART1";

/// A range of levels of a pair's slices (the number of ranks its men have advanced in all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Levels {
    /// The lowest level, solved last.
    pub low: usize,
    /// The highest level, solved first.
    pub high: usize,
}

/// One part of a pair, as [`cut`] makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// Its levels.
    pub levels: Levels,
    /// Positions of its slices.
    pub positions: u64,
    /// Positions of the level just above, whose values it reads.
    pub above: u64,
}

/// The unit id of a part of the pair of `signature`: `KKMMvKKMM.levels-3-7`.
pub fn part_id(signature: Signature, levels: Levels) -> String {
    format!("{signature}.levels-{}-{}", levels.low, levels.high)
}

/// The pair's name and the levels of a part's unit id, if `id` is one.
pub fn parse_part_id(id: &str) -> Option<(&str, Levels)> {
    let (pair, levels) = id.split_once(".levels-")?;
    let (low, high) = levels.split_once('-')?;
    let levels = Levels {
        low: low.parse().ok()?,
        high: high.parse().ok()?,
    };
    // One spelling per part (no `+1`, no `01`): ids name files and jobs.
    (format!("{pair}.levels-{}-{}", levels.low, levels.high) == id).then_some((pair, levels))
}

/// The parts of the pair of `signature`: its levels, the most advanced first, cut into ranges
/// of at most `limit` positions (a level at least, whatever its size). A single part means the
/// pair is built whole.
pub fn cut(signature: Signature, limit: u64) -> Vec<Part> {
    let slices = Slices::of(signature);
    let sides = pair_of(signature).len();
    let mut parts: Vec<Part> = Vec::new();
    let mut current: Option<Part> = None;
    for level in (0..slices.by_level.len()).rev() {
        let positions = slices.level_positions(level, sides);
        match &mut current {
            // An empty level (more men than its ranks hold) joins the part above whatever
            // the limit.
            Some(part) if part.positions + positions <= limit || positions == 0 => {
                part.levels.low = level;
                part.positions += positions;
            }
            _ => {
                let above = current.map_or(0, |_| slices.level_positions(level + 1, sides));
                parts.extend(current.take());
                current = Some(Part {
                    levels: Levels {
                        low: level,
                        high: level,
                    },
                    positions,
                    above,
                });
            }
        }
    }
    parts.extend(current);
    parts
}

/// The file a part writes: `<pair>.levels-<low>-<high>.part` in the rule set's folder.
fn part_path(dir: &Path, rules: &MoveRules, signature: Signature, levels: Levels) -> PathBuf {
    rule_set_dir(dir, rules.id).join(format!("{}.part", part_id(signature, levels)))
}

/// The part files of the pair of `signature` in the folder, with their levels (only levels
/// the pair has: a stray file of other levels is not one of its parts).
fn part_files(
    dir: &Path,
    rules: &MoveRules,
    signature: Signature,
    top: usize,
) -> Vec<(Levels, PathBuf)> {
    let Ok(entries) = fs::read_dir(rule_set_dir(dir, rules.id)) else {
        return Vec::new();
    };
    let pair = signature.to_string();
    entries
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let id = path.file_name()?.to_str()?.strip_suffix(".part")?;
            let (name, levels) = parse_part_id(id)?;
            let fits = levels.low <= levels.high && levels.high <= top;
            (name == pair && fits).then_some((levels, path))
        })
        .collect()
}

/// The part files of the levels above `low` up to the pair's top level, the nearest first, or
/// the first level above `low` that no part file holds.
fn chain_above(
    files: &[(Levels, PathBuf)],
    low: usize,
    top: usize,
) -> Result<Vec<(Levels, PathBuf)>, usize> {
    let mut chain = Vec::new();
    let mut next = low;
    while next < top {
        let found = files.iter().find(|(levels, _)| levels.low == next + 1);
        let (levels, path) = found.ok_or(next + 1)?;
        chain.push((*levels, path.clone()));
        next = levels.high;
    }
    Ok(chain)
}

/// Builds one part of a pair: solves its levels from the part file of the level above and
/// writes its own part file (unless it is there from an earlier run); the part of level 0 then
/// writes the pair's tables and deletes the pair's part files. A pair already published is
/// handled as a whole pair's unit would be (skipped, or its files written again).
pub(super) fn generate_part(
    tables: TableSet,
    planned: &Planned,
    (pieces, unit, levels): (u32, &str, Levels),
    options: &BuildOptions,
    observer: &dyn BuildObserver,
) -> Result<(), Error> {
    let (dir, rules) = (tables.dir().to_path_buf(), *tables.rules());
    let dir = dir.as_path();
    let signature = planned.signature;
    let pair = pair_of(signature);
    let slices = Slices::of(signature);
    let top = slices.by_level.len() - 1;
    if levels.low > levels.high || levels.high > top {
        return Err(Error::UnknownUnit {
            unit: unit.to_string(),
            pieces,
        });
    }
    if pair.iter().all(|&s| is_published(dir, &rules, s)) {
        // Done: only part files left by a run killed as it finished may remain.
        remove_part_files(&part_files(dir, &rules, signature, top))?;
        return build_pair(&tables, planned, false, options, observer);
    }
    let not_ready = |level: usize| Error::PartNotReady {
        unit: unit.to_string(),
        pair: signature,
        level,
        folder: rule_set_dir(dir, rules.id),
    };
    let files = part_files(dir, &rules, signature, top);
    let above = chain_above(&files, levels.high, top).map_err(not_ready)?;
    let own = part_path(dir, &rules, signature, levels);
    observer.pair_started(planned);
    let started = Instant::now();
    if !own.exists() {
        let sides = pair_sides(signature);
        for side in &sides {
            side.advise(Pages::Small);
        }
        if let Some((_, path)) = above.first() {
            let level_above = levels.high + 1;
            read_part_file(path, signature, &slices, |level, side, start, values, _| {
                if level == level_above {
                    let slots = &sides[side].values[start as usize..][..values.len()];
                    for (slot, &value) in slots.iter().zip(values) {
                        slot.store(value, Ordering::Relaxed);
                    }
                }
            })?;
        }
        let positions = (levels.low..=levels.high)
            .map(|level| slices.level_positions(level, sides.len()))
            .sum();
        observer.phase("solve", positions);
        let range = levels.low..=levels.high;
        let mode = SolverMode::of(signature);
        solve_levels(&rules, &tables, &sides, &slices, range, observer, mode)?;
        write_part_file(&own, signature, levels, &sides, &slices)?;
    }
    if levels.low > 0 {
        return Ok(());
    }
    // The smaller tables are not read again: their memory goes before the pair's tables are
    // assembled.
    drop(tables);
    let solving = started.elapsed().as_secs_f64();
    let assembling = Instant::now();
    observer.pair_solved(planned);
    let mut chain = vec![(levels, own)];
    chain.extend(above);
    let mut finished = Vec::new();
    for (side, &table) in pair.iter().enumerate() {
        let solved = assemble(dir, &rules, (signature, table, side), &slices, &chain)?;
        let stats = solved.stats;
        let checksum = write_pair(dir, &rules, &[solved], options, options.keep_raw)?;
        finished.push(FinishedTable {
            signature: table,
            stats,
            checksum: checksum[0],
        });
    }
    // Every part file of the pair: those of another cut (an earlier plan's) as well.
    remove_part_files(&part_files(dir, &rules, signature, top))?;
    let writing = assembling.elapsed().as_secs_f64();
    observer.pair_finished(planned, &finished, PairTimes { solving, writing });
    Ok(())
}

/// One table of the pair of `pair` (`table`, its `side` 0 or 1), from the part files that
/// together hold every level.
fn assemble(
    dir: &Path,
    rules: &MoveRules,
    (pair, table, side): (Signature, Signature, usize),
    slices: &Slices,
    chain: &[(Levels, PathBuf)],
) -> Result<Solved, Error> {
    let size = TableIndex::new(table).size() as usize;
    let mut values = vec![0u16; size];
    let mut captures = vec![0u64; size.div_ceil(64)];
    for (_, path) in chain {
        read_part_file(path, pair, slices, |_, of, start, run, flags| {
            if of != side {
                return;
            }
            values[start as usize..][..run.len()].copy_from_slice(run);
            for (word, &bits) in flags.iter().enumerate() {
                let mut bits = bits;
                while bits != 0 {
                    let at = start as usize + word * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    captures[at / 64] |= 1 << (at % 64);
                }
            }
        })?;
    }
    if let Some(index) = values.iter().position(|&v| v == 0) {
        return Err(Error::Corrupt {
            path: rule_set_dir(dir, rules.id),
            reason: format!(
                "the part files of {pair} do not hold position {index} of {table}: a part file was replaced"
            ),
        });
    }
    Ok(solved_table(table, values, BitVec::from_vec(captures)))
}

/// Deletes part files; one already gone (a duplicate job removed it) is no error.
fn remove_part_files(files: &[(Levels, PathBuf)]) -> Result<(), Error> {
    for (_, path) in files {
        match fs::remove_file(path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                return Err(io_error(path)(error))
            }
            _ => {}
        }
    }
    Ok(())
}

/// A writer that hashes what it writes: the part file's checksum, its last eight bytes.
struct Hashed<W> {
    out: W,
    hash: Xxh3,
}

impl<W: Write> Hashed<W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.hash.update(bytes);
        self.out.write_all(bytes)
    }
}

/// The header of a part file: magic, the pair's name, the levels.
fn header(signature: Signature, levels: Levels) -> Vec<u8> {
    let name = signature.to_string();
    let mut bytes = MAGIC.to_vec();
    bytes.push(name.len() as u8);
    bytes.extend_from_slice(name.as_bytes());
    bytes.extend_from_slice(&(levels.low as u32).to_le_bytes());
    bytes.extend_from_slice(&(levels.high as u32).to_le_bytes());
    bytes
}

/// Bytes of one run in a part file: its values, then its capture flags by word of 64.
fn run_bytes(run: u64) -> u64 {
    run * 2 + run.div_ceil(64) * 8
}

/// Writes the values and capture flags of the slices of `levels`, level by level from the
/// lowest, each slice's runs in [`Slices::runs_of`] order, then a checksum: atomically, as
/// every file of a build.
fn write_part_file(
    path: &Path,
    signature: Signature,
    levels: Levels,
    sides: &[Side],
    slices: &Slices,
) -> Result<(), Error> {
    let temporary = temporary_path(path);
    let write = || -> std::io::Result<File> {
        let file = File::create(&temporary)?;
        let mut out = Hashed {
            out: BufWriter::with_capacity(1 << 20, file),
            hash: Xxh3::new(),
        };
        out.put(&header(signature, levels))?;
        let run = slices.run as usize;
        let mut bytes = Vec::with_capacity(run_bytes(slices.run) as usize);
        for level in levels.low..=levels.high {
            for slice in &slices.by_level[level] {
                for (side, start) in slices.runs_of(slice, sides.len()) {
                    let start = start as usize;
                    let this = &sides[side];
                    bytes.clear();
                    for value in &this.values[start..start + run] {
                        bytes.extend_from_slice(&value.load(Ordering::Relaxed).to_le_bytes());
                    }
                    let flag =
                        |at: usize| this.captures[at / 64].load(Ordering::Relaxed) >> (at % 64) & 1;
                    for word in (start..start + run).step_by(64) {
                        let bits = (word..(word + 64).min(start + run))
                            .fold(0u64, |bits, at| bits | flag(at) << (at - word));
                        bytes.extend_from_slice(&bits.to_le_bytes());
                    }
                    out.put(&bytes)?;
                }
            }
        }
        let checksum = out.hash.digest();
        let mut file = out.out;
        file.write_all(&checksum.to_le_bytes())?;
        let file = file.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        Ok(file)
    };
    write().map_err(io_error(&temporary))?;
    fs::rename(&temporary, path).map_err(io_error(path))?;
    if let Some(Ok(folder)) = path.parent().map(File::open) {
        let _ = folder.sync_all();
    }
    Ok(())
}

/// Reads a part file of the pair of `signature`, calling `each(level, side, start, values,
/// capture words)` for every run it holds; checks its header, its length and its checksum.
fn read_part_file(
    path: &Path,
    signature: Signature,
    slices: &Slices,
    mut each: impl FnMut(usize, usize, u64, &[u16], &[u64]),
) -> Result<(), Error> {
    let corrupt = |reason: String| Error::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    let id = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".part"))
        .and_then(parse_part_id);
    let Some((_, levels)) = id else {
        return Err(corrupt("not the name of a part file".into()));
    };
    if levels.low > levels.high || levels.high >= slices.by_level.len() {
        return Err(corrupt(format!(
            "{signature} has no levels {}-{}",
            levels.low, levels.high
        )));
    }
    let sides = pair_of(signature).len();
    let runs: u64 = (levels.low..=levels.high)
        .filter_map(|level| slices.by_level.get(level))
        .flat_map(|level| {
            level
                .iter()
                .map(|s| slices.runs_of(s, sides).count() as u64)
        })
        .sum();
    let expected_header = header(signature, levels);
    let expected = expected_header.len() as u64 + runs * run_bytes(slices.run) + 8;
    let file = File::open(path).map_err(io_error(path))?;
    let length = file.metadata().map_err(io_error(path))?.len();
    if length != expected {
        return Err(corrupt(format!(
            "{length} bytes where the part of levels {}-{} of {signature} has {expected}: truncated or of another pair",
            levels.low, levels.high
        )));
    }
    let mut input = BufReader::with_capacity(1 << 20, file);
    let mut hash = Xxh3::new();
    let mut read = |bytes: &mut [u8], hash: &mut Xxh3| -> Result<(), Error> {
        input.read_exact(bytes).map_err(io_error(path))?;
        hash.update(bytes);
        Ok(())
    };
    let mut found_header = vec![0; expected_header.len()];
    read(&mut found_header, &mut hash)?;
    if found_header != expected_header {
        return Err(corrupt(format!(
            "does not start as the part of levels {}-{} of {signature}",
            levels.low, levels.high
        )));
    }
    let run = slices.run as usize;
    let mut bytes = vec![0u8; run_bytes(slices.run) as usize];
    let mut values = vec![0u16; run];
    let mut words = vec![0u64; run.div_ceil(64)];
    for level in levels.low..=levels.high {
        for slice in &slices.by_level[level] {
            for (side, start) in slices.runs_of(slice, sides) {
                read(&mut bytes, &mut hash)?;
                let (value_bytes, word_bytes) = bytes.split_at(run * 2);
                for (value, pair) in values.iter_mut().zip(value_bytes.chunks_exact(2)) {
                    *value = u16::from_le_bytes([pair[0], pair[1]]);
                }
                for (word, eight) in words.iter_mut().zip(word_bytes.chunks_exact(8)) {
                    *word = u64::from_le_bytes(eight.try_into().unwrap_or_default());
                }
                each(level, side, start, &values, &words);
            }
        }
    }
    let mut checksum = [0u8; 8];
    input.read_exact(&mut checksum).map_err(io_error(path))?;
    if u64::from_le_bytes(checksum) != hash.digest() {
        return Err(corrupt("checksum mismatch: the file is damaged".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_ids_name_the_pair_and_levels() {
        let signature: Signature = "KKMMvKKM".parse().unwrap();
        let levels = Levels { low: 3, high: 7 };
        let id = part_id(signature, levels);
        assert_eq!(id, "KKMMvKKM.levels-3-7");
        assert_eq!(parse_part_id(&id), Some(("KKMMvKKM", levels)));
        let not_parts = [
            "KKMMvKKM",
            "KKMMvKKM.levels-3",
            "KKMMvKKM.levels-a-7",
            "KKMMvKKM.levels-03-7",
            "KKMMvKKM.levels-+3-7",
            "",
        ];
        for not_a_part in not_parts {
            assert_eq!(parse_part_id(not_a_part), None, "{not_a_part}");
        }
    }

    #[test]
    fn parts_cover_every_level_once_within_the_limit() {
        // MMMMMvK has no position at level 0 (five men cannot all stand on the first rank).
        let pairs = [
            ("KMMvKM", 20_000),
            ("MMMvMM", 5_000),
            ("KKvKK", 1),
            ("MMMMMvK", 1_000),
        ];
        for (name, limit) in pairs {
            let signature: Signature = name.parse().unwrap();
            let slices = Slices::of(signature);
            let sides = pair_of(signature).len();
            let parts = cut(signature, limit);
            // The most advanced first, adjacent, from the top level down to 0.
            let mut next = slices.by_level.len();
            for part in &parts {
                assert_eq!(part.levels.high + 1, next, "{name}: {parts:?}");
                let levels = part.levels.low..=part.levels.high;
                let positions: u64 = levels
                    .map(|level| slices.level_positions(level, sides))
                    .sum();
                assert_eq!(part.positions, positions);
                let one_level = part.levels.low == part.levels.high;
                assert!(part.positions <= limit || one_level, "{name}: {part:?}");
                assert!(part.positions > 0, "{name}: {part:?}");
                next = part.levels.low;
            }
            assert_eq!(next, 0, "{name}");
            let total: u64 = parts.iter().map(|p| p.positions).sum();
            let size: u64 = pair_of(signature)
                .iter()
                .map(|&s| TableIndex::new(s).size())
                .sum();
            assert_eq!(total, size, "{name}");
        }
        // Kings only: one level, one part whatever the limit.
        assert_eq!(cut("KKvKK".parse().unwrap(), 1).len(), 1);
        assert!(cut("KMMvKM".parse().unwrap(), 20_000).len() > 2);
    }
}
