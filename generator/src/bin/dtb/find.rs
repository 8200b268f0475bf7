//! `dtb find`: facts of one table for people who check endgame theory: its longest wins with
//! their lines, its mutual zugzwangs, and the positions the counted draw rules change.

use std::path::Path;

use dprobe::format::{draw_table_path, DrawFile};
use dprobe::{index::Signature, Color, DrawRules, Position, Tablebase, Variant};
use draughts_generator::draw::stats::rule_changes;
use draughts_generator::pure::find::{longest_wins, zugzwangs};
use draughts_generator::pure::tableset::TableSet;

use crate::common::fen_of;
use crate::error::CliError;

/// What to look for.
pub enum Query {
    /// The N longest wins.
    Longest(usize),
    /// The mutual zugzwangs, the first N listed.
    Zugzwangs(usize),
    /// The positions the counted rules change, the first N listed.
    RuleChanges(usize, DrawRules),
}

pub fn find(
    variant: &Variant,
    dir: &Path,
    table: &str,
    query: Query,
    json: bool,
) -> Result<(), CliError> {
    let signature: Signature = table.parse().map_err(|_| {
        CliError::Message(format!(
            "{table:?} is not a table name: kings and men of the side to move, `v`, then the \
             other side's (for example KKMvK)"
        ))
    })?;
    let tables = TableSet::new(dir, variant.moves);
    match query {
        Query::Longest(count) => {
            let wins = longest_wins(&tables, signature, count)?;
            let mut probe = Tablebase::new(*variant);
            probe.add_directory(dir)?;
            let mut rows = Vec::new();
            for win in &wins {
                let fen = fen_of(variant, &signature, win.index);
                let mut at = Position::from_board(
                    &dprobe::index::TableIndex::new(signature).board(win.index),
                    Color::White,
                );
                let mut line = Vec::new();
                for mv in probe.principal_variation(&at)? {
                    line.push(at.move_to_string(variant, &mv));
                    at = at.play(&mv);
                }
                rows.push((fen, win.plies, line));
            }
            if json {
                let array: Vec<serde_json::Value> = rows
                    .iter()
                    .map(|(fen, plies, line)| {
                        serde_json::json!({"fen": fen, "plies": plies, "line": line})
                    })
                    .collect();
                out!("{}", serde_json::to_string_pretty(&array)?);
            } else {
                out!(
                    "{signature}: the {} longest wins, White to move",
                    rows.len()
                );
                for (fen, plies, line) in rows {
                    out!("{plies:>4} plies  {fen}  {}", line.join(" "));
                }
            }
        }
        Query::Zugzwangs(limit) => {
            let found = zugzwangs(&tables, signature, limit)?;
            let name = |w: dprobe::Wdl| w.name();
            if json {
                let counts: Vec<serde_json::Value> = found
                    .counts
                    .iter()
                    .map(|((with, without), n)| {
                        serde_json::json!({"with_the_move": name(*with), "without_the_move": name(*without), "positions": n})
                    })
                    .collect();
                let first: Vec<serde_json::Value> = found
                    .first
                    .iter()
                    .map(|z| {
                        serde_json::json!({
                            "fen": fen_of(variant, &signature, z.index),
                            "with_the_move": name(z.with_the_move),
                            "without_the_move": name(z.without_the_move),
                        })
                    })
                    .collect();
                let object = serde_json::json!({
                    "table": signature.to_string(),
                    "quiet_positions": found.quiet,
                    "zugzwangs": counts,
                    "first": first,
                });
                out!("{}", serde_json::to_string_pretty(&object)?);
            } else {
                let total: u64 = found.counts.iter().map(|(_, n)| n).sum();
                out!(
                    "{signature}: {total} mutual zugzwangs among {} positions where neither side to move can capture",
                    found.quiet
                );
                for ((with, without), n) in &found.counts {
                    out!(
                        "{n:>12}  White to move: {}, Black to move: White {}",
                        name(*with),
                        name(*without)
                    );
                }
                for z in &found.first {
                    out!(
                        "  {}  White to move {}, were Black to move White would {}",
                        fen_of(variant, &signature, z.index),
                        name(z.with_the_move),
                        match z.without_the_move {
                            dprobe::Wdl::Win => "win",
                            dprobe::Wdl::Draw => "draw",
                            dprobe::Wdl::Loss => "lose",
                        }
                    );
                }
            }
        }
        Query::RuleChanges(limit, draw) => {
            let path = draw_table_path(dir, variant.moves.id, &draw, signature);
            let file = DrawFile::open(&path).map_err(|e| {
                CliError::Message(format!(
                    "{e}; build the rule tables with `dtb generate --variant {variant} --pieces {} --dir {}`",
                    signature.pieces(),
                    dir.display()
                ))
            })?;
            let changes = rule_changes(&file, &draw, limit)?;
            let rows: Vec<(String, &str, String)> = changes
                .first
                .iter()
                .map(|c| {
                    let by = if c.by.is_empty() {
                        "only several counters together".to_string()
                    } else {
                        c.by.join(", ")
                    };
                    (fen_of(variant, &signature, c.index), c.result.name(), by)
                })
                .collect();
            if json {
                let first: Vec<serde_json::Value> = changes
                    .first
                    .iter()
                    .zip(&rows)
                    .map(|(c, (fen, result, _))| {
                        serde_json::json!({"fen": fen, "result": result, "by": c.by})
                    })
                    .collect();
                let object = serde_json::json!({
                    "table": signature.to_string(),
                    "draw_rules": draw.directory_name(),
                    "cursed_wins": changes.cursed_wins,
                    "blessed_losses": changes.blessed_losses,
                    "first": first,
                });
                out!("{}", serde_json::to_string_pretty(&object)?);
            } else {
                out!(
                    "{signature} under the {} draw rules: {} cursed wins, {} blessed losses (White to move)",
                    draw.directory_name(),
                    changes.cursed_wins,
                    changes.blessed_losses
                );
                for (fen, result, by) in rows {
                    out!("  {fen}  {result}  by {by}");
                }
            }
        }
    }
    Ok(())
}
