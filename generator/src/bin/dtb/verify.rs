//! `dtb verify`: checks every table independently of how it was built — each value must follow
//! from its moves' values — and every compressed file's checksums, then the same for the rule
//! tables; a damaged table is reported and the others are still checked.

use std::path::Path;
use std::process::ExitCode;

use dprobe::draw::DrawPreset;
use dprobe::format::draw_table_path;
use dprobe::index::Signature;
use dprobe::{DrawRules, Variant};
use draughts_generator::draw::tables::DrawTables;
use draughts_generator::draw::verify::verify_draw_table;
use draughts_generator::pure::build::build_order;
use draughts_generator::pure::tableset::TableSet;
use draughts_generator::pure::verify::{check_published, verify_table, Checked};

use crate::common::{present_tables, MAX_PIECES};
use crate::error::CliError;

/// Fails (exit code 1) if any table is inconsistent or cannot be checked; the error is only for
/// a folder without tables.
pub fn verify(
    variant: &Variant,
    dir: &Path,
    draw: &DrawRules,
    rules_required: bool,
) -> Result<ExitCode, CliError> {
    let signatures = present_tables(variant, dir);
    if signatures.is_empty() {
        return Err(CliError::Message(format!(
            "no {} tables in {} to verify",
            variant.moves.id.name(),
            dir.display()
        )));
    }
    let mut tables = TableSet::new(dir, variant.moves);
    let mut bad = 0;
    for (step, signature) in signatures.iter().enumerate() {
        tables.close_all_but([*signature], signatures[step..].iter().copied());
        // A damaged or missing table is reported, and the check goes on with the others.
        let Checked {
            inconsistencies: found,
            captures,
        } = match verify_table(&tables, variant, *signature, 10) {
            Ok(checked) => checked,
            Err(problem) => {
                bad += 1;
                out!("{signature:>10}: cannot check: {problem}");
                continue;
            }
        };
        // Only shown, never returned: each problem is reported under its table.
        let files = tables
            .table(*signature)
            .and_then(|table| check_published(dir, &variant.moves, table, &captures));
        if found.is_empty() && files.is_ok() {
            out!("{signature:>10}: ok");
            continue;
        }
        bad += 1;
        if !found.is_empty() {
            out!("{signature:>10}: INCONSISTENT");
            for f in found {
                out!(
                    "    index {} {}: stored {:?}, its moves give {:?}",
                    f.index,
                    f.fen,
                    f.stored,
                    f.expected
                );
            }
        }
        if let Err(problem) = &files {
            out!("{signature:>10}: {problem}");
        }
    }
    out!("{} tables checked, {} inconsistent", signatures.len(), bad);
    if draw.preset != DrawPreset::None {
        bad += verify_rules(variant, dir, draw, rules_required, &mut tables, bad == 0);
    }
    Ok(if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Checks the rule tables under `draw` in build order; returns how many are not consistent
/// (a directory of required rules that is missing counts as one).
fn verify_rules(
    variant: &Variant,
    dir: &Path,
    draw: &DrawRules,
    required: bool,
    pure: &mut TableSet,
    pure_consistent: bool,
) -> usize {
    let rule_dir = dprobe::format::draw_dir(dir, variant.moves.id, draw);
    let name = draw.directory_name();
    let signatures: Vec<Signature> = build_order(MAX_PIECES)
        .into_iter()
        .filter(|&s| draw_table_path(dir, variant.moves.id, draw, s).exists())
        .collect();
    if signatures.is_empty() {
        out!(
            "no rule tables under the {name} draw rules in {}",
            rule_dir.display()
        );
        return usize::from(required);
    }
    if !pure_consistent {
        // The rule tables are checked against the pure values: not meaningful without them.
        out!("rule tables ({name}) not checked: the pure tables are not consistent");
        return 1;
    }
    let tables = DrawTables::new(dir, variant.moves, draw.clone());
    let mut bad = 0;
    for (step, signature) in signatures.iter().enumerate() {
        // As in the pure check: keep only the pure tables this one reads, and those rebuilt in
        // memory that a table ahead reads.
        pure.close_all_but([*signature], signatures[step..].iter().copied());
        match verify_draw_table(pure, &tables, variant, *signature, 10) {
            Ok(found) if found.is_empty() => out!("{signature:>10}: ok ({name})"),
            Ok(found) => {
                bad += 1;
                out!("{signature:>10}: INCONSISTENT ({name})");
                for f in found {
                    out!(
                        "    index {} {}: {}: stored {}, its moves give {}",
                        f.index,
                        f.fen,
                        f.quantity,
                        f.stored,
                        f.expected
                    );
                }
            }
            Err(problem) => {
                bad += 1;
                out!("{signature:>10}: cannot check ({name}): {problem}");
            }
        }
    }
    out!(
        "{} rule tables checked ({name}), {bad} inconsistent",
        signatures.len()
    );
    bad
}
