//! The writer of draw-rule table files (`docs/FORMAT.md`, "Draw-rule tables"), and the reader
//! of one already written, which a rerun keeps.

use std::path::Path;

use bitvec::vec::BitVec;
use dprobe::draw::PlaneKind;
use dprobe::format::draw::{alone_symbol, FamilySection};
use dprobe::format::{draw_table_path, DrawFile, SectionRole, TableKind};
use dprobe::index::{Signature, TableIndex};
use dprobe::rules::MoveRules;
use dprobe::{DrawRules, DrawWdl};
use rayon::prelude::*;

use crate::draw::solve::DrawTable;
use crate::pure::write::{encode, Compression, Fill, Layout};

/// A section's symbols and which of them are don't-care.
type Section = (Vec<u16>, BitVec<u64>);

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
    let wide = |values: &[u8]| -> Section {
        let symbols = values.iter().map(|&v| u16::from(v)).collect();
        (
            symbols,
            bitvec::bitvec![u64, bitvec::order::Lsb0; 0; values.len()],
        )
    };
    let mut sections: Vec<(SectionRole, Section)> = vec![(SectionRole::Fresh, wide(&table.fresh))];
    for family in &table.families {
        let layers = family.stairs.layers() as u16;
        let ranked = if family.kind == PlaneKind::LayersAz {
            family.stairs.sections()
        } else {
            vec![wide(&family.stairs.single_values())]
        };
        for (rank, section) in ranked.into_iter().enumerate() {
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
            sections.push((role, section));
        }
    }
    for (counter, results) in alone.iter().enumerate() {
        let turned = table
            .fresh
            .iter()
            .zip(results.iter())
            .map(|(&all, &alone)| {
                DrawWdl::from_code(all)
                    .zip(DrawWdl::from_code(alone))
                    .and_then(|(all, alone)| alone_symbol(all, alone))
                    .ok_or_else(|| {
                        std::io::Error::new(
                            std::io::ErrorKind::InvalidData,
                            format!(
                                "{}: a result under one counter alone that is not the pure \
                                 game's or a draw",
                                table.signature
                            ),
                        )
                    })
            })
            .collect::<std::io::Result<Vec<u8>>>()?;
        sections.push((SectionRole::Alone(counter as u16), wide(&turned)));
    }
    let layout = Layout {
        compression: Compression::Level(zstd_level),
        ..Layout::DTW
    };
    let images = sections
        .par_iter()
        .map(|(_, (symbols, dont_care))| {
            encode(
                rules.id,
                table.signature,
                TableKind::Dtw,
                (symbols, dont_care),
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
