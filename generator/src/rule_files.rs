//! Writes rule table files (`docs/FORMAT.md`, "Rule tables") and builds every missing rule table
//! of a rule set up to a number of pieces, after the pure tables.

use std::path::{Path, PathBuf};

use dprobe::{DrawRules, MoveRules, RuleFile, SectionRole, Signature, TableIndex};
use xxhash_rust::xxh3::xxh3_64;

use crate::compress::{encode, write_atomically, Fill, Kind, Layout};
use crate::generate::{plan, BuildObserver};
use crate::rule_solve::{solve_rule_pair, RuleResults, RuleTable};
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

/// The bytes of a rule table file.
pub fn encode_rule_table(
    rules: &MoveRules,
    draw: &DrawRules,
    table: &RuleTable,
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
    let layout = Layout {
        level: zstd_level,
        ..Layout::DTW
    };
    let mut images = Vec::with_capacity(sections.len());
    for (_, values) in &sections {
        let symbols: Vec<u16> = values.iter().map(|&v| u16::from(v)).collect();
        let no_captures = vec![false; symbols.len()];
        images.push(encode(
            rules.id,
            table.signature,
            Kind::Dtw,
            (&symbols, &no_captures),
            layout,
            &[Fill::CHOSEN],
        )?);
    }
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

/// The fresh results of an intact rule table file built under `draw`, if there is one.
fn existing_fresh(
    dir: &Path,
    rules: &MoveRules,
    draw: &DrawRules,
    signature: Signature,
) -> Option<Vec<u8>> {
    let file = RuleFile::open(&rule_table_path(dir, rules, draw, signature)).ok()?;
    let matches = file.rules == rules.id
        && file.fingerprint == draw.fingerprint()
        && file.signature == signature;
    let fresh = file.fresh_results().ok()?;
    (matches && fresh.len() as u64 == TableIndex::new(signature).size()).then_some(fresh)
}

/// Builds every missing rule table under `draw` up to `pieces` pieces in `dir`, whose pure
/// tables must be built. Intact tables are kept (and read for the exits of larger ones).
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
    for planned in plan(pieces) {
        let mut signatures = vec![planned.signature];
        if planned.signature.flipped() != planned.signature {
            signatures.push(planned.signature.flipped());
        }
        let existing: Vec<Option<Vec<u8>>> = signatures
            .iter()
            .map(|&s| existing_fresh(dir, rules, draw, s))
            .collect();
        if existing.iter().all(Option::is_some) {
            for (s, fresh) in signatures.iter().zip(existing) {
                results.insert(*s, fresh.unwrap_or_default());
            }
            observer.pair_skipped(&planned);
            continue;
        }
        observer.pair_started(&planned);
        for table in solve_rule_pair(rules, draw, &pure, &results, planned.signature)? {
            let path = rule_table_path(dir, rules, draw, table.signature);
            let bytes = encode_rule_table(rules, draw, &table, zstd_level).map_err(|source| {
                StoreError::Io {
                    path: path.clone(),
                    source,
                }
            })?;
            write_atomically(&path, &bytes)?;
            results.insert(table.signature, table.fresh);
        }
        observer.pair_finished(&planned, &[]);
    }
    Ok(())
}
