//! Builds every missing table of a rule set up to a number of pieces, in dependency order.

use std::fs;
use std::path::Path;
use std::time::Instant;

use dprobe::{
    format::{raw_table_path, rule_set_dir, table_path, TableKind},
    index::Signature,
    rules::MoveRules,
};

use crate::error::io_error;
use crate::pure::parts::{generate_part, parse_part_id};
use crate::pure::solve::{solve_pair, Progress, Solved};
use crate::pure::store::{value_checksum, write_table, Table, TableStats};
use crate::pure::tableset::{move_targets, TableSet};
use crate::pure::units::cpu_seconds_per_position;
use crate::pure::unpack::{is_published, unpack};
use crate::pure::write::{capture_flags, remove_partial_files, write_compressed, Compression};
use crate::Error;

/// The signatures with up to `pieces` pieces in an order in which each is solved after every
/// table its captures (fewer pieces) and crownings (fewer men) lead to, a signature next to its
/// colour flip.
pub fn build_order(pieces: u32) -> Vec<Signature> {
    let mut order: Vec<Signature> = (2..=pieces).flat_map(Signature::with_pieces).collect();
    order.sort_by_key(|s| {
        let men = s.mover_men + s.opp_men;
        // Sort a pair by its smaller member so that both sit together.
        let pair = (*s).min(s.flipped());
        (s.pieces(), men, pair, *s != pair)
    });
    order
}

/// One table's place in a build.
pub struct Planned {
    /// The signature solved (with its flip).
    pub signature: Signature,
    /// Positions in the pair.
    pub positions: u64,
}

impl Planned {
    /// The CPU seconds the pair is expected to take (a model of the cost per position by piece
    /// count and men, [`crate::pure::units`]): what a build's time estimate weighs its pairs by.
    pub fn estimated_cpu_seconds(&self) -> f64 {
        self.positions as f64 * cpu_seconds_per_position(self.signature)
    }
}

/// A table this build solved and wrote.
#[derive(Clone, Copy, Debug)]
pub struct FinishedTable {
    /// Its signature.
    pub signature: Signature,
    /// Its statistics.
    pub stats: TableStats,
    /// The checksum of its values ([`Table::checksum`]), what `tables/manifest.json` records.
    pub checksum: u64,
}

/// How long a pair took: solving it, and writing its files.
#[derive(Clone, Copy, Debug, Default)]
pub struct PairTimes {
    /// Seconds spent solving.
    pub solving: f64,
    /// Seconds spent writing its raw and compressed files.
    pub writing: f64,
}

/// Reports what `generate` does, table by table.
pub trait BuildObserver: Progress {
    /// A pair of tables starts.
    fn pair_started(&self, _planned: &Planned) {}
    /// A pair of tables is solved; writing its files starts.
    fn pair_solved(&self, _planned: &Planned) {}
    /// A pair of tables is written.
    fn pair_finished(&self, _planned: &Planned, _tables: &[FinishedTable], _times: PairTimes) {}
    /// A pair was already complete on disk.
    fn pair_skipped(&self, _planned: &Planned) {}
}

impl BuildObserver for crate::pure::solve::Silent {}

/// Whether a complete, intact table file exists.
fn is_complete(dir: &Path, rules: &MoveRules, signature: Signature) -> bool {
    Table::open(dir, rules.id, signature, true).is_ok()
}

/// Writes the compressed files of a table already solved (its raw file, or its published files
/// rebuilt in memory, read through `tables`).
fn publish_again(
    tables: &TableSet,
    signature: Signature,
    options: &BuildOptions,
) -> Result<(), Error> {
    let table = tables.table(signature)?;
    let values: Vec<u16> = (0..table.index.size()).map(|i| table.packed(i)).collect();
    let captures = capture_flags(tables.rules(), &table.index);
    write_compressed(
        tables.dir(),
        tables.rules(),
        signature,
        (&values, &captures),
        options.compression,
    )?;
    Ok(())
}

/// Makes the raw file of a published table what the build leaves: with `keep_raw`, written
/// from the published files if it is missing or damaged; without, deleted if damaged (the
/// tables that read it then read the published files).
fn mend_raw_file(tables: &TableSet, signature: Signature, keep_raw: bool) -> Result<(), Error> {
    let (dir, rules) = (tables.dir(), tables.rules());
    if is_complete(dir, rules, signature) {
        return Ok(());
    }
    let path = raw_table_path(dir, rules.id, signature);
    if keep_raw {
        let table = unpack(tables, signature)?;
        let values = (0..table.index.size()).map(|i| table.packed(i));
        write_table(dir, rules.id, signature, values, &table.stats)?;
    } else if path.exists() {
        fs::remove_file(&path).map_err(io_error(&path))?;
    }
    Ok(())
}

/// The signatures of a pair: a table and its colour flip (one table if it is its own flip).
pub fn pair_of(signature: Signature) -> Vec<Signature> {
    let mut pair = vec![signature];
    if signature.flipped() != signature {
        pair.push(signature.flipped());
    }
    pair
}

/// Which tables the pairs of `ahead` read: their own and every table one move leads to.
fn read_by(ahead: &[Planned]) -> Vec<bool> {
    let mut needed = vec![false; Signature::SLOTS];
    for planned in ahead {
        for signature in pair_of(planned.signature) {
            needed[signature.slot()] = true;
            for target in move_targets(signature) {
                needed[target.slot()] = true;
            }
        }
    }
    needed
}

/// Deletes the raw working file of each table of `done` that no pair of `ahead` reads and whose
/// published files are in place (a table without them keeps its raw file, the only copy of
/// its values).
pub(crate) fn remove_raw_files(
    dir: &Path,
    rules: &MoveRules,
    done: &[Planned],
    ahead: &[Planned],
) -> Result<(), Error> {
    let needed = read_by(ahead);
    for signature in done.iter().flat_map(|p| pair_of(p.signature)) {
        let path = raw_table_path(dir, rules.id, signature);
        if !needed[signature.slot()] && path.exists() && is_published(dir, rules, signature) {
            fs::remove_file(&path).map_err(io_error(&path))?;
        }
    }
    Ok(())
}

/// The pairs to solve for `pieces`, each named by its first signature.
pub fn plan(pieces: u32) -> Vec<Planned> {
    let mut planned: Vec<Planned> = Vec::new();
    for signature in build_order(pieces) {
        let flip = signature.flipped();
        if planned.iter().any(|p| p.signature == flip) {
            continue;
        }
        let mut positions = dprobe::index::TableIndex::new(signature).size();
        if flip != signature {
            positions += dprobe::index::TableIndex::new(flip).size();
        }
        planned.push(Planned {
            signature,
            positions,
        });
    }
    planned
}

/// Builds every missing table up to `pieces` pieces under `dir`: the raw file the solver works
/// from, then the compressed `.wdl` and `.dtw` files the probe reads. Tables already complete
/// are kept (their compressed files are written if missing); an interrupted build resumes with
/// the first table not written.
pub fn generate(
    dir: &Path,
    rules: &MoveRules,
    pieces: u32,
    observer: &dyn BuildObserver,
) -> Result<(), Error> {
    generate_with(dir, rules, pieces, &BuildOptions::default(), observer)
}

/// How a build writes its files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// How the compressed files are compressed ([`Compression::Quick`] unless told otherwise;
    /// docs/PERFORMANCE.md, "Writer and compression", weighs the choices).
    pub compression: Compression,
    /// Whether the compressed files of tables already built are written again (with
    /// `compression`), not only those missing.
    pub recompress: bool,
    /// Whether the raw working files are kept when the build is done. Without it, a table's raw
    /// file is deleted as soon as no pair still to be solved reads it (and not written at all
    /// if none does), so that a finished build leaves only the published files.
    pub keep_raw: bool,
    /// Whether a rule build follows that reads the raw files (cheaper than the published ones,
    /// [`crate::draw::results::pure_wdl`]): every pair's raw files are written and left in
    /// place, for that build to delete pair by pair once its rule tables are written.
    pub raw_for_rules: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            compression: Compression::Quick,
            recompress: false,
            keep_raw: false,
            raw_for_rules: false,
        }
    }
}

/// Writes a solved pair's files: the raw files the pairs after it read (if `raw`), and the
/// compressed files the probe reads. Returns each table's checksum ([`Table::checksum`]).
///
/// The raw files are written on a thread of their own while the rayon workers compress: writing
/// them is mostly waiting for the disk (a 6-piece pair's are 0.4 GB, each fsynced), which on
/// the rayon pool would hold a worker idle. (Compressing beside the next pair's solving, CPU
/// against CPU, was measured slower: docs/PERFORMANCE.md.)
pub(super) fn write_pair(
    dir: &Path,
    rules: &MoveRules,
    solved: &[Solved],
    options: &BuildOptions,
    raw: bool,
) -> Result<Vec<u64>, Error> {
    std::thread::scope(|scope| {
        let raw = scope.spawn(|| {
            solved
                .iter()
                .map(|table| {
                    let values = table.values.iter().copied();
                    let (id, signature, stats) = (rules.id, table.signature, &table.stats);
                    if raw {
                        write_table(dir, id, signature, values, stats)
                    } else {
                        Ok(value_checksum(id, signature, stats, values))
                    }
                })
                .collect::<Result<Vec<u64>, Error>>()
        });
        let compressed = solved.iter().try_for_each(|table| {
            write_compressed(
                dir,
                rules,
                table.signature,
                (&table.values, &table.captures),
                options.compression,
            )
            .map(drop)
        });
        let raw = raw
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        compressed.and(raw)
    })
}

/// [`generate`] with explicit options.
///
/// A pair is done when both its tables' published files are in place: it is skipped (its
/// files written again first with `options.recompress`, from its raw files or from the
/// published ones). A pair with raw files but no published files has them written. Every other
/// pair is solved, its files written before the next pair starts. (Compressing on a thread of
/// its own while the next pair was solved was measured slower: the two shared the cores and the
/// caches, docs/PERFORMANCE.md.) The smaller tables a pair reads come from their raw files or,
/// where those are gone, from their published files ([`TableSet::table`]), so a set that holds
/// only published files (a downloaded one) is extended without solving them again.
pub fn generate_with(
    dir: &Path,
    rules: &MoveRules,
    pieces: u32,
    options: &BuildOptions,
    observer: &dyn BuildObserver,
) -> Result<(), Error> {
    // This build owns the folder: what a killed run was writing is of no use.
    remove_partial_files(&rule_set_dir(dir, rules.id), None)?;
    let mut tables = TableSet::new(dir, *rules);
    let planned_pairs = plan(pieces);
    for (step, planned) in planned_pairs.iter().enumerate() {
        let ahead = &planned_pairs[step + 1..];
        // Unmap what this pair does not read: the smaller tables would otherwise stay resident.
        tables.close_all_but(
            pair_of(planned.signature),
            ahead.iter().flat_map(|p| pair_of(p.signature)),
        );
        let read_later = read_by(ahead);
        let raw_read_later = options.raw_for_rules
            || pair_of(planned.signature)
                .iter()
                .any(|s| read_later[s.slot()]);
        build_pair(&tables, planned, raw_read_later, options, observer)?;
        if !options.keep_raw && !options.raw_for_rules {
            remove_raw_files(dir, rules, &planned_pairs[..=step], ahead)?;
        }
    }
    Ok(())
}

/// Builds one unit of `dtb plan` (a pair of tables, named by its first table, or a part of a
/// pair built in parts, [`crate::pure::parts`]) from the tables already under `dir`: what a
/// cluster job runs. It writes the pair's published files, and its raw files only with
/// `options.keep_raw` (the units after it read the published files). A unit already done is
/// left as it is.
///
/// # Errors
///
/// [`Error::UnknownUnit`] for an id not in the plan of `pieces` pieces; [`Error::UnitNotReady`]
/// naming a table the unit reads that is not there (its unit has not run), and
/// [`Error::PartNotReady`] naming the part of the level above; what stops a build.
pub fn generate_unit(
    dir: &Path,
    rules: &MoveRules,
    pieces: u32,
    unit: &str,
    options: &BuildOptions,
    observer: &dyn BuildObserver,
) -> Result<(), Error> {
    // A part of a pair built in parts (`<pair>.levels-<low>-<high>`), or a whole pair.
    let part = parse_part_id(unit);
    let pair_name = part.map_or(unit, |(pair, _)| pair);
    let planned_pairs = plan(pieces);
    let planned = planned_pairs
        .iter()
        .find(|p| p.signature.to_string() == pair_name)
        .ok_or_else(|| Error::UnknownUnit {
            unit: unit.to_string(),
            pieces,
        })?;
    let pair = pair_of(planned.signature);
    for target in pair.iter().flat_map(|&s| move_targets(s)) {
        let there = is_published(dir, rules, target) || is_complete(dir, rules, target);
        if !pair.contains(&target) && !there {
            return Err(Error::UnitNotReady {
                unit: unit.to_string(),
                table: target,
                path: table_path(dir, rules.id, target, TableKind::Wdl),
            });
        }
    }
    // Other units may be writing beside this one: only this unit's leftovers go.
    remove_partial_files(&rule_set_dir(dir, rules.id), Some(&pair))?;
    let tables = TableSet::new(dir, *rules);
    match part {
        Some((_, levels)) => {
            generate_part(tables, planned, (pieces, unit, levels), options, observer)
        }
        None => build_pair(&tables, planned, false, options, observer),
    }
}

/// Builds one pair unless it is done: done pairs are skipped (their raw files mended, or their
/// files written again with `options.recompress`), a pair with raw files gets its published
/// files, any other is solved and written, with raw files if `raw_read_later` or
/// `options.keep_raw`.
pub(super) fn build_pair(
    tables: &TableSet,
    planned: &Planned,
    raw_read_later: bool,
    options: &BuildOptions,
    observer: &dyn BuildObserver,
) -> Result<(), Error> {
    let (dir, rules) = (tables.dir(), tables.rules());
    let pair = pair_of(planned.signature);
    let published = pair.iter().all(|&s| is_published(dir, rules, s));
    let solved_before = pair
        .iter()
        .all(|&s| is_published(dir, rules, s) || is_complete(dir, rules, s));
    if published && !options.recompress {
        for &signature in &pair {
            mend_raw_file(tables, signature, options.keep_raw)?;
        }
        observer.pair_skipped(planned);
    } else if solved_before {
        for &signature in &pair {
            publish_again(tables, signature, options)?;
        }
        observer.pair_skipped(planned);
    } else {
        observer.pair_started(planned);
        let started = Instant::now();
        let solved = solve_pair(rules, tables, planned.signature, observer)?;
        let solving = started.elapsed().as_secs_f64();
        let solved_at = Instant::now();
        observer.pair_solved(planned);
        let checksums = write_pair(
            dir,
            rules,
            &solved,
            options,
            options.keep_raw || raw_read_later,
        )?;
        let finished: Vec<_> = solved
            .iter()
            .zip(checksums)
            .map(|(t, checksum)| FinishedTable {
                signature: t.signature,
                stats: t.stats,
                checksum,
            })
            .collect();
        let writing = solved_at.elapsed().as_secs_f64();
        observer.pair_finished(planned, &finished, PairTimes { solving, writing });
    }
    Ok(())
}
