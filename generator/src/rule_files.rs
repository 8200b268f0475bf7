//! Writes rule table files (`docs/FORMAT.md`, "Rule tables") and builds every missing rule table
//! of a rule set up to a number of pieces, after the pure tables.

use std::path::{Path, PathBuf};
use std::time::Instant;

use dprobe::{DrawRules, MoveRules, RuleFile, RuleWdl, SectionRole, Signature, TableIndex, Wdl};
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use crate::compress::{encode, write_atomically, Compression, Fill, Kind, Layout};
use crate::generate::{plan, BuildObserver, PairTimes};
use crate::rule_solve::{solve_rule_pair, Overlay, RuleResults, RuleTable};
use crate::store::StoreError;
use crate::tableset::TableSet;

/// The rule table file of `signature` under `draw` in `dir`.
pub fn rule_table_path(
    dir: &Path,
    rules: &MoveRules,
    draw: &DrawRules,
    signature: Signature,
) -> PathBuf {
    dir.join(rules.id.name())
        .join(draw.directory_name())
        .join(format!("{signature}.rules"))
}

/// The bytes of a rule table file: `table`, and the fresh results under each counter alone
/// (`alone`, in the counters' order; empty if `draw` has one counter). Sections are compressed
/// in parallel.
pub fn encode_rule_table(
    rules: &MoveRules,
    draw: &DrawRules,
    table: &RuleTable,
    alone: &[&[u8]],
    zstd_level: i32,
) -> std::io::Result<Vec<u8>> {
    let mut sections: Vec<(SectionRole, &[u8])> = vec![(SectionRole::Fresh, &table.fresh)];
    for family in &table.families {
        for (plane, values) in family.planes.iter().enumerate() {
            let role = if family.post {
                SectionRole::Post(family.kind, plane as u16)
            } else {
                SectionRole::Pre(family.kind, plane as u16)
            };
            sections.push((role, values));
        }
    }
    for (counter, fresh) in alone.iter().enumerate() {
        sections.push((SectionRole::Alone(counter as u16), fresh));
    }
    let layout = Layout {
        compression: Compression::Level(zstd_level),
        ..Layout::DTW
    };
    let images = sections
        .par_iter()
        .map(|(_, values)| {
            let symbols: Vec<u16> = values.iter().map(|&v| u16::from(v)).collect();
            let no_captures = bitvec::bitvec![u64, bitvec::order::Lsb0; 0; symbols.len()];
            encode(
                rules.id,
                table.signature,
                Kind::Dtw,
                (&symbols, &no_captures),
                layout,
                &[Fill::CHOSEN],
            )
        })
        .collect::<std::io::Result<Vec<_>>>()?;
    let mut out = vec![0u8; dprobe::RULE_HEADER_LEN];
    out[0..8].copy_from_slice(dprobe::RULE_MAGIC);
    out[8..10].copy_from_slice(&dprobe::RULE_FORMAT_VERSION.to_le_bytes());
    out[10] = rules.id.code();
    out[11] = draw.preset.code();
    out[12..16].copy_from_slice(&table.signature.counts());
    out[16..24].copy_from_slice(&draw.fingerprint().to_le_bytes());
    out[24..26].copy_from_slice(&(sections.len() as u16).to_le_bytes());
    for ((role, _), image) in sections.iter().zip(&images) {
        let mut entry = [0u8; dprobe::RULE_SECTION_LEN];
        entry[0..4].copy_from_slice(&role.encode());
        entry[8..16].copy_from_slice(&(image.len() as u64).to_le_bytes());
        out.extend_from_slice(&entry);
    }
    let checksum = xxh3_64(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    for image in images {
        out.extend_from_slice(&image);
    }
    Ok(out)
}

/// A signature's fresh results under all the rules, and under each counter alone.
type FreshAndAlone = (Vec<u8>, Vec<Vec<u8>>);

/// The fresh results of an intact rule table file built under `draw`, if there is one.
fn existing_fresh(
    dir: &Path,
    rules: &MoveRules,
    draw: &DrawRules,
    signature: Signature,
) -> Option<FreshAndAlone> {
    let file = RuleFile::open(&rule_table_path(dir, rules, draw, signature)).ok()?;
    let size = TableIndex::new(signature).size();
    let matches = file.rules == rules.id
        && file.fingerprint == draw.fingerprint()
        && file.signature == signature
        && file.counters_alone() == counters_alone(draw);
    let fresh = file.fresh_results().ok()?;
    let alone = (0..file.counters_alone())
        .map(|k| file.fresh_results_alone(k)?.ok())
        .collect::<Option<Vec<_>>>()?;
    let complete = std::iter::once(&fresh)
        .chain(&alone)
        .all(|f| f.len() as u64 == size);
    (matches && complete).then_some((fresh, alone))
}

/// How many counters a rule table file keeps results alone for.
fn counters_alone(draw: &DrawRules) -> usize {
    if draw.counters.len() > 1 {
        draw.counters.len()
    } else {
        0
    }
}

/// Whether fresh results hold a cursed win or a blessed loss: some rule changed a value.
fn rules_change(fresh: &[u8]) -> bool {
    fresh.iter().any(|&c| {
        matches!(
            RuleWdl::from_code(c),
            Some(RuleWdl::CursedWin | RuleWdl::BlessedLoss)
        )
    })
}

/// The pure game's results in the codes of rule results.
fn pure_results(fresh: &[u8]) -> Vec<u8> {
    fresh
        .iter()
        .map(|&c| {
            let pure = RuleWdl::from_code(c).map_or(RuleWdl::Draw, |r| match r.pure() {
                Wdl::Win => RuleWdl::Win,
                Wdl::Draw => RuleWdl::Draw,
                Wdl::Loss => RuleWdl::Loss,
            });
            pure.code()
        })
        .collect()
}

/// Whether a game in `from` (either side to move) may reach `to` (either side to move): no
/// side ever gains a piece or a man.
fn may_reach(from: Signature, to: Signature) -> bool {
    let within = |t: Signature| {
        t.mover_men <= from.mover_men
            && t.mover_men + t.mover_kings <= from.mover_men + from.mover_kings
            && t.opp_men <= from.opp_men
            && t.opp_men + t.opp_kings <= from.opp_men + from.opp_kings
    };
    within(to) || within(to.flipped())
}

/// The results under one counter alone, built beside those under all the rules.
struct Alone {
    draw: DrawRules,
    /// The results alone of the signatures where they differ from those under all the rules
    /// (read through an [`Overlay`] over those).
    results: RuleResults,
    /// The signatures where this counter alone changes some value.
    changed: Vec<Signature>,
}

impl Alone {
    /// Whether the results of the pair of `signature` under this counter alone are the pure
    /// game's: it applies to neither side, and no material it changes can be reached.
    fn is_pure(&self, signature: Signature) -> bool {
        let applies = |s: Signature| self.draw.active(&s).next().is_some();
        !applies(signature)
            && !applies(signature.flipped())
            && !self.changed.iter().any(|&t| may_reach(signature, t))
    }

    /// Keeps the results alone of `signature`, whose results under all the rules are `all`.
    fn insert(&mut self, signature: Signature, fresh: Vec<u8>, all: &[u8]) {
        if rules_change(&fresh) {
            self.changed.push(signature);
        }
        if fresh != all {
            self.results.insert(signature, fresh);
        }
    }
}

/// Builds every missing rule table under `draw` up to `pieces` pieces in `dir`, whose pure
/// tables must be built. Intact tables are kept (and read for the exits of larger ones).
///
/// Each file also holds the fresh results under each counter alone (what `dtb stats` reports per
/// rule). Removing counters only brings results closer to the pure game's: a strategy that wins
/// in time under every counter wins under some of them, and one that holds a draw under some
/// holds it under all. So where no value changes under all the rules, none changes under one
/// counter, and a pair is solved again under a counter only if it changes some value under all
/// the rules and the counter applies to it or to a material it may reach that the counter
/// changes; otherwise its results alone are the pure game's.
pub fn generate_rule_tables(
    dir: &Path,
    rules: &MoveRules,
    draw: &DrawRules,
    pieces: u32,
    zstd_level: i32,
    observer: &dyn BuildObserver,
) -> Result<(), StoreError> {
    let pure = TableSet::new(dir, *rules);
    let results = RuleResults::default();
    let mut alone: Vec<Alone> = (0..counters_alone(draw))
        .map(|k| Alone {
            draw: draw.only_counter(k),
            results: RuleResults::default(),
            changed: Vec::new(),
        })
        .collect();
    for planned in plan(pieces) {
        let mut signatures = vec![planned.signature];
        if planned.signature.flipped() != planned.signature {
            signatures.push(planned.signature.flipped());
        }
        let existing: Vec<Option<FreshAndAlone>> = signatures
            .iter()
            .map(|&s| existing_fresh(dir, rules, draw, s))
            .collect();
        if existing.iter().all(Option::is_some) {
            for (s, (fresh, fresh_alone)) in signatures.iter().zip(existing.into_iter().flatten()) {
                for (counter, fresh_alone) in alone.iter_mut().zip(fresh_alone) {
                    counter.insert(*s, fresh_alone, &fresh);
                }
                results.insert(*s, fresh);
            }
            observer.pair_skipped(&planned);
            continue;
        }
        observer.pair_started(&planned);
        let started = Instant::now();
        let tables = solve_rule_pair(rules, draw, &pure, &results, planned.signature)?;
        let changed = tables.iter().any(|t| rules_change(&t.fresh));
        // Per counter, the pair's results alone, in the order of `tables`.
        let mut pair_alone: Vec<Vec<Vec<u8>>> = Vec::with_capacity(alone.len());
        for counter in &alone {
            pair_alone.push(if changed && !counter.is_pure(planned.signature) {
                let overlay = Overlay {
                    top: &counter.results,
                    base: &results,
                };
                solve_rule_pair(rules, &counter.draw, &pure, &overlay, planned.signature)?
                    .into_iter()
                    .map(|t| t.fresh)
                    .collect()
            } else {
                tables.iter().map(|t| pure_results(&t.fresh)).collect()
            });
        }
        let solving = started.elapsed().as_secs_f64();
        let solved_at = Instant::now();
        observer.pair_solved(&planned);
        for (side, table) in tables.into_iter().enumerate() {
            let path = rule_table_path(dir, rules, draw, table.signature);
            let table_alone: Vec<&[u8]> = pair_alone.iter().map(|a| a[side].as_slice()).collect();
            let bytes = encode_rule_table(rules, draw, &table, &table_alone, zstd_level).map_err(
                |source| StoreError::Io {
                    path: path.clone(),
                    source,
                },
            )?;
            write_atomically(&path, &bytes)?;
            for (counter, fresh) in alone.iter_mut().zip(&mut pair_alone) {
                counter.insert(
                    table.signature,
                    std::mem::take(&mut fresh[side]),
                    &table.fresh,
                );
            }
            results.insert(table.signature, table.fresh);
        }
        let times = PairTimes {
            solving,
            writing: solved_at.elapsed().as_secs_f64(),
        };
        observer.pair_finished(&planned, &[], times);
    }
    Ok(())
}
