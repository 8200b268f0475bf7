//! The writer of draw-rule table files (`docs/FORMAT.md`, "Draw-rule tables"), and the reader
//! of one already written, which a rerun keeps.

use std::path::Path;

use dprobe::format::{draw_table_path, DrawFile, SectionRole, TableKind};
use dprobe::index::{Signature, TableIndex};
use dprobe::rules::MoveRules;
use dprobe::DrawRules;
use rayon::prelude::*;

use crate::draw::solve::DrawTable;
use crate::pure::write::{encode, Compression, Fill, Layout};

/// The bytes of a rule table file: `table`, and the fresh results under each counter alone
/// (`alone`, in the counters' order; empty if `draw` has one counter). Sections are compressed
/// in parallel.
pub fn encode_draw_table(
    rules: &MoveRules,
    draw: &DrawRules,
    table: &DrawTable,
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
                TableKind::Dtw,
                (&symbols, &no_captures),
                layout,
                &[Fill::CHOSEN],
            )
        })
        .collect::<std::io::Result<Vec<_>>>()?;
    let listed: Vec<(SectionRole, u64)> = sections
        .iter()
        .zip(&images)
        .map(|((role, _), image)| (*role, image.len() as u64))
        .collect();
    let mut out = dprobe::format::draw::encode_header(
        rules.id,
        draw.preset,
        draw.fingerprint(),
        table.signature,
        &listed,
    );
    for image in images {
        out.extend_from_slice(&image);
    }
    Ok(out)
}

/// A signature's fresh results under all the rules, and under each counter alone.
pub(crate) type FreshAndAlone = (Vec<u8>, Vec<Vec<u8>>);

/// The fresh results of an intact rule table file built under `draw`, if there is one.
pub(crate) fn existing_fresh(
    dir: &Path,
    rules: &MoveRules,
    draw: &DrawRules,
    signature: Signature,
) -> Option<FreshAndAlone> {
    let file = DrawFile::open(&draw_table_path(dir, rules.id, draw, signature)).ok()?;
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
pub(crate) fn counters_alone(draw: &DrawRules) -> usize {
    if draw.counters.len() > 1 {
        draw.counters.len()
    } else {
        0
    }
}
