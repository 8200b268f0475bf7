//! Builds every missing table of a rule set up to a number of pieces, in dependency order.

use std::path::Path;
use std::time::Instant;

use dprobe::{
    format::{table_path, TableFile, TableKind},
    index::Signature,
    rules::MoveRules,
};

use crate::pure::solve::{solve_pair, Progress, Solved};
use crate::pure::store::{write_table, Table, TableStats};
use crate::pure::tableset::TableSet;
use crate::pure::write::{capture_flags, write_compressed, Compression};
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
    fn pair_finished(
        &self,
        _planned: &Planned,
        _stats: &[(Signature, TableStats)],
        _times: PairTimes,
    ) {
    }
    /// A pair was already complete on disk.
    fn pair_skipped(&self, _planned: &Planned) {}
}

impl BuildObserver for crate::pure::solve::Silent {}

/// Whether a complete, intact table file exists.
fn is_complete(dir: &Path, rules: &MoveRules, signature: Signature) -> bool {
    Table::open(dir, rules.id, signature, true).is_ok()
}

/// Whether both compressed files of a table exist with intact headers and block tables.
fn is_published(dir: &Path, rules: &MoveRules, signature: Signature) -> bool {
    [
        (TableKind::Wdl, TableKind::Wdl),
        (TableKind::Dtw, TableKind::Dtw),
    ]
    .iter()
    .all(|&(kind, table_kind)| {
        TableFile::open(&table_path(dir, rules.id, signature, kind)).is_ok_and(|file| {
            let header = file.header();
            header.kind == table_kind && header.rules == rules.id && header.signature == signature
        })
    })
}

/// Writes the compressed files of a raw table already on disk that lacks them (or every time,
/// if `options.recompress`).
fn publish_existing(
    dir: &Path,
    rules: &MoveRules,
    signature: Signature,
    options: &BuildOptions,
) -> Result<(), Error> {
    if !options.recompress && is_published(dir, rules, signature) {
        return Ok(());
    }
    let table = Table::open(dir, rules.id, signature, true)?;
    let values: Vec<u16> = (0..table.index.size()).map(|i| table.packed(i)).collect();
    let captures = capture_flags(rules, &table.index);
    write_compressed(
        dir,
        rules,
        signature,
        (&values, &captures),
        options.compression,
    )?;
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
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            compression: Compression::Quick,
            recompress: false,
        }
    }
}

/// Writes a solved pair's files: the raw files the pairs after it read, and the compressed files
/// the probe reads.
///
/// The raw files are written on a thread of their own while the rayon workers compress: writing
/// them is mostly waiting for the disk (a 6-piece pair's are 0.4 GB, each fsynced), which on
/// the rayon pool would hold a worker idle. (Compressing beside the next pair's solving, CPU
/// against CPU, was measured slower: docs/PERFORMANCE.md.)
fn write_pair(
    dir: &Path,
    rules: &MoveRules,
    solved: &[Solved],
    options: &BuildOptions,
) -> Result<(), Error> {
    std::thread::scope(|scope| {
        let raw = scope.spawn(|| {
            solved.iter().try_for_each(|table| {
                write_table(
                    dir,
                    rules.id,
                    table.signature,
                    table.values.iter().copied(),
                    &table.stats,
                )
                .map(drop)
            })
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
        raw.and(compressed)
    })
}

/// [`generate`] with explicit options.
///
/// Each pair's files are written as soon as it is solved, before the next pair starts.
/// (Compressing on a thread of its own while the next pair was solved was measured slower:
/// the two shared the cores and the caches, docs/PERFORMANCE.md.)
pub fn generate_with(
    dir: &Path,
    rules: &MoveRules,
    pieces: u32,
    options: &BuildOptions,
    observer: &dyn BuildObserver,
) -> Result<(), Error> {
    let mut tables = TableSet::new(dir, *rules);
    let planned_pairs = plan(pieces);
    for (step, planned) in planned_pairs.iter().enumerate() {
        let signature = planned.signature;
        // Unmap what no pair left reads: the smaller tables would otherwise stay resident.
        tables.close_all_but(
            planned_pairs[step..]
                .iter()
                .flat_map(|p| [p.signature, p.signature.flipped()]),
        );
        if is_complete(dir, rules, signature) && is_complete(dir, rules, signature.flipped()) {
            publish_existing(dir, rules, signature, options)?;
            publish_existing(dir, rules, signature.flipped(), options)?;
            observer.pair_skipped(planned);
            continue;
        }
        observer.pair_started(planned);
        let started = Instant::now();
        let solved = solve_pair(rules, &tables, signature, observer)?;
        let solving = started.elapsed().as_secs_f64();
        let solved_at = Instant::now();
        observer.pair_solved(planned);
        write_pair(dir, rules, &solved, options)?;
        let stats: Vec<_> = solved.iter().map(|t| (t.signature, t.stats)).collect();
        let writing = solved_at.elapsed().as_secs_f64();
        observer.pair_finished(planned, &stats, PairTimes { solving, writing });
    }
    Ok(())
}
