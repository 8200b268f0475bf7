//! `dtb generate`: builds every missing table of a variant's move rules up to a number of
//! pieces, then the rule tables of its counted draw rules, which are solved from the pure ones.
//! Progress and timings go to standard error so that a long build can be watched.

use std::path::Path;
use std::time::Instant;

use dprobe::draw::DrawPreset;
use dprobe::{DrawRules, Variant};
use draughts_generator::draw::build::generate_draw_tables;
use draughts_generator::progress::Bars;
use draughts_generator::pure::build::{
    build_order, generate_unit as generate_unit_pair, generate_with, plan, BuildObserver,
    BuildOptions, FinishedTable, PairTimes, Planned,
};
use draughts_generator::pure::parts::parse_part_id;
use draughts_generator::pure::solve::Progress;
use draughts_generator::pure::units::RULE_TABLES_UNIT;

use crate::common::{table_entry, MAX_PIECES};
use crate::error::CliError;

/// The default zstd level of rule tables: level 7 writes files 0.6 % larger than level 9 in
/// an eighth less of the build's time (docs/DRAW_RULES.md §9.4).
pub const RULES_ZSTD_LEVEL: i32 = 7;

/// What `dtb generate` is asked to build.
pub struct Request<'a> {
    pub variant: &'a Variant,
    pub pieces: u32,
    pub dir: &'a Path,
    pub options: BuildOptions,
    /// The counted draw rules of the rule tables.
    pub draw: DrawRules,
    pub rules_zstd_level: i32,
    /// Each table solved printed on standard output as a line of JSON.
    pub json: bool,
}

/// Up to this many pieces the pure build leaves its raw files for the rule build that follows,
/// which deletes them pair by pair: one byte a position, 2.6 GB at 6 pieces. At 7 pieces they
/// would be 37 GB, past a 7-piece build's disk budget, and the 7-piece rule tables need a
/// cluster's memory anyway (docs/DRAW_RULES.md §9.3).
const RAW_FOR_RULES_MAX_PIECES: u32 = 6;

/// The pure tables, then the rule tables under `draw`.
pub fn generate(request: &Request) -> Result<(), CliError> {
    let Request {
        variant,
        pieces,
        dir,
        ..
    } = *request;
    let options = BuildOptions {
        raw_for_rules: request.draw.preset != DrawPreset::None
            && pieces <= RAW_FOR_RULES_MAX_PIECES,
        ..request.options
    };
    build(variant, pieces, dir, &options, request.json)?;
    build_rules(
        variant,
        &request.draw,
        pieces,
        dir,
        request.rules_zstd_level,
        options.keep_raw,
    )
}

/// Builds one unit of the plan up to `pieces`: a pair of pure tables, or the rule tables.
pub fn generate_unit(request: &Request, unit: &str) -> Result<(), CliError> {
    let Request {
        variant,
        pieces,
        dir,
        ..
    } = *request;
    check_pieces(pieces)?;
    if unit == RULE_TABLES_UNIT {
        // Every pure table must be there; the rule build names the first one missing.
        return build_rules(
            variant,
            &request.draw,
            pieces,
            dir,
            request.rules_zstd_level,
            request.options.keep_raw,
        );
    }
    let started = Instant::now();
    // A part's bar counts the whole pair's positions: what the part solves is the pair's share.
    let pair = parse_part_id(unit).map_or(unit, |(pair, _)| pair);
    let positions = plan(pieces)
        .iter()
        .find(|p| p.signature.to_string() == pair)
        .map_or(0, |p| p.positions);
    let bars = Bars::new(positions);
    let observer = Observer::new(&bars, variant, request.json);
    let result = generate_unit_pair(
        dir,
        &variant.moves,
        pieces,
        unit,
        &request.options,
        &observer,
    );
    bars.finish();
    result?;
    eprintln!(
        "unit {unit} ({} rules, up to {pieces} pieces) done in {:.1} s",
        variant.moves.id.name(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The progress bars, and with `--json` each table solved as a line of JSON on standard output
/// (the entry `dtb stats --json` gives it, from the values just solved).
struct Observer<'a> {
    bars: &'a Bars,
    json_of: Option<&'a Variant>,
}

impl<'a> Observer<'a> {
    fn new(bars: &'a Bars, variant: &'a Variant, json: bool) -> Observer<'a> {
        Observer {
            bars,
            json_of: json.then_some(variant),
        }
    }
}

impl Progress for Observer<'_> {
    fn advance(&self, positions: u64) {
        self.bars.advance(positions);
    }

    fn phase(&self, name: &str, total: u64) {
        self.bars.phase(name, total);
    }
}

impl BuildObserver for Observer<'_> {
    fn pair_started(&self, planned: &Planned) {
        self.bars.pair_started(planned);
    }

    fn pair_solved(&self, planned: &Planned) {
        self.bars.pair_solved(planned);
    }

    fn pair_finished(&self, planned: &Planned, tables: &[FinishedTable], times: PairTimes) {
        self.bars.pair_finished(planned, tables, times);
        if let Some(variant) = self.json_of {
            for table in tables {
                let entry = table_entry(variant, table.signature, &table.stats, table.checksum);
                out!("{entry}");
            }
        }
    }

    fn pair_skipped(&self, planned: &Planned) {
        self.bars.pair_skipped(planned);
    }
}

pub fn check_pieces(pieces: u32) -> Result<(), CliError> {
    if !(2..=MAX_PIECES).contains(&pieces) {
        return Err(CliError::Message(format!(
            "--pieces must be between 2 and {MAX_PIECES} (got {pieces})"
        )));
    }
    Ok(())
}

/// Builds the pure tables missing from `dir`, up to `pieces` (with `json`, each table solved
/// printed as a line of JSON).
pub fn build(
    variant: &Variant,
    pieces: u32,
    dir: &Path,
    options: &BuildOptions,
    json: bool,
) -> Result<(), CliError> {
    check_pieces(pieces)?;
    let total: u64 = plan(pieces).iter().map(|p| p.positions).sum();
    eprintln!(
        "{} rules ({}), up to {pieces} pieces: {} tables, {total} positions, {} threads, into {}",
        variant,
        variant.moves.id.name(),
        build_order(pieces).len(),
        rayon::current_num_threads(),
        dir.display()
    );
    let started = Instant::now();
    let bars = Bars::new(total).with_estimate(&plan(pieces));
    let observer = Observer::new(&bars, variant, json);
    let result = generate_with(dir, &variant.moves, pieces, options, &observer);
    // Finished before the result is looked at: an error must not leave a live bar behind.
    bars.finish();
    result?;
    let seconds = started.elapsed().as_secs_f64();
    let (solving, writing) = bars.solving_and_writing();
    eprintln!(
        "done in {seconds:.1} s ({:.1} M positions/s): solving {solving:.1} s, writing files {writing:.1} s",
        total as f64 / seconds.max(1e-9) / 1e6
    );
    Ok(())
}

/// Builds the rule tables under `draw` missing from `dir`, up to `pieces`; none for `none`.
/// Without `keep_raw`, the raw files of the pure tables are deleted as their rule tables are
/// written.
pub fn build_rules(
    variant: &Variant,
    draw: &DrawRules,
    pieces: u32,
    dir: &Path,
    zstd_level: i32,
    keep_raw: bool,
) -> Result<(), CliError> {
    if draw.preset == DrawPreset::None {
        return Ok(());
    }
    let total: u64 = plan(pieces).iter().map(|p| p.positions).sum();
    eprintln!(
        "rule tables under the {} draw rules, up to {pieces} pieces",
        draw.directory_name()
    );
    let started = Instant::now();
    let bars = Bars::new(total);
    let result = generate_draw_tables(
        dir,
        &variant.moves,
        draw,
        pieces,
        zstd_level,
        keep_raw,
        &bars,
    );
    bars.finish();
    result?;
    eprintln!("done in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}
