//! `dtb stats`: each table's counts of wins, draws, losses and captures and its longest win
//! with a position reaching it, as a table or JSON, to compare sets and check them against
//! published figures; where rule tables are built, also what the counted draw rules change.

use std::path::Path;

use dprobe::{DrawRules, Variant};
use draughts_generator::draw::stats::DrawStats;
use draughts_generator::draw::tables::DrawTables;
use draughts_generator::pure::tableset::TableSet;

use crate::common::{fen_of, present_tables, table_entry};
use crate::error::CliError;

pub fn stats(variant: &Variant, dir: &Path, json: bool, draw: &DrawRules) -> Result<(), CliError> {
    let signatures = present_tables(variant, dir);
    if signatures.is_empty() {
        return Err(CliError::Message(format!(
            "no {} tables in {}; run `dtb generate --variant {variant} --pieces N --dir {}` first",
            variant.moves.id.name(),
            dir.display(),
            dir.display()
        )));
    }
    let mut rows = Vec::new();
    // Results under the counted draw rules, where their tables are built.
    let mut rule_counts: Vec<Option<DrawStats>> = Vec::new();
    // Tables without raw files are rebuilt from their published files, and those of more
    // pieces read the smaller ones: each is kept while a table ahead reads it.
    let mut tables = TableSet::new(dir, variant.moves);
    let rule_tables = DrawTables::new(dir, variant.moves, draw.clone());
    for (step, &signature) in signatures.iter().enumerate() {
        tables.close_all_but([signature], signatures[step..].iter().copied());
        let table = tables.table(signature)?;
        rows.push((signature, table.stats, table.checksum()));
        // A rule table's fresh results are read against the pure results. A table without
        // its rule file has no rule statistics; a rule file that cannot be read is an error
        // that names it, not a row silently left out.
        let rule = if rule_tables.path(signature).exists() {
            let file = rule_tables.open(signature)?;
            let pure = table.results().ok_or_else(|| {
                CliError::Message(format!(
                    "{signature}: a stored value is not a valid one; run `dtb verify --variant \
                     {variant} --dir {}` to find the damaged file",
                    dir.display()
                ))
            })?;
            Some(DrawStats::of(&file, &variant.moves, draw, &pure)?)
        } else {
            None
        };
        rule_counts.push(rule);
    }
    let mut out = String::new();
    if json {
        let array: Vec<serde_json::Value> = rows
            .iter()
            .zip(&rule_counts)
            .map(|((signature, s, checksum), rule)| {
                let mut object = table_entry(variant, *signature, s, *checksum);
                if let Some(rule) = rule {
                    let [loss, blessed, _, cursed, win] = rule.all;
                    // Counted over every position, captures included (fresh counts).
                    object["draw_rules"] = serde_json::json!(draw.directory_name());
                    object["rule_wins"] = serde_json::json!(win);
                    object["cursed_wins"] = serde_json::json!(cursed);
                    object["blessed_losses"] = serde_json::json!(blessed);
                    object["rule_losses"] = serde_json::json!(loss);
                    let turned_by: serde_json::Map<String, serde_json::Value> = rule
                        .alone
                        .iter()
                        .map(|(id, [_, blessed, _, cursed, _])| {
                            (
                                id.to_string(),
                                serde_json::json!({
                                    "cursed_wins": cursed,
                                    "blessed_losses": blessed,
                                }),
                            )
                        })
                        .collect();
                    object["turned_by"] = serde_json::Value::Object(turned_by);
                    let (plies, fen) = match rule.longest_win {
                        Some((plies, index)) => {
                            (Some(plies), Some(fen_of(variant, signature, index)))
                        }
                        None => (None, None),
                    };
                    object["longest_rule_win"] = serde_json::json!(plies);
                    object["longest_rule_win_fen"] = serde_json::json!(fen);
                    object["rules_leave_pure"] = serde_json::json!(rule.leaves_pure);
                }
                object
            })
            .collect();
        out = serde_json::to_string_pretty(&array)? + "\n";
    } else {
        out.push_str(&format!(
            "{:<10} {:>6} {:>12} {:>12} {:>12} {:>12} {:>12} {:>7}  longest win (White to move)\n",
            "table", "pieces", "positions", "wins", "draws", "losses", "captures", "max_dtw"
        ));
        for (signature, s, _) in &rows {
            let fen = (s.max_dtw > 0).then(|| fen_of(variant, signature, s.max_dtw_index));
            out.push_str(&format!(
                "{:<10} {:>6} {:>12} {:>12} {:>12} {:>12} {:>12} {:>7}  {}\n",
                signature.to_string(),
                signature.pieces(),
                s.positions,
                s.wins,
                s.draws,
                s.losses,
                s.captures,
                s.max_dtw,
                fen.as_deref().unwrap_or("-"),
            ));
        }
        if rule_counts.iter().any(Option::is_some) {
            out.push_str(&format!(
                "\nunder the {} draw rules, every count at its start (mover's view):\n{:<10} {:>12} \
                 {:>12} {:>12} {:>12} {:>9}  turned to draws by a rule alone (cursed wins/blessed \
                 losses)\n",
                draw.directory_name(),
                "table",
                "wins",
                "cursed wins",
                "blessed",
                "losses",
                "rule_win"
            ));
            for ((signature, ..), rule) in rows.iter().zip(&rule_counts) {
                if let Some(rule) = rule {
                    let [loss, blessed, _, cursed, win] = rule.all;
                    let turned_by: Vec<String> = rule
                        .alone
                        .iter()
                        .filter(|(_, c)| c[1] + c[3] > 0)
                        .map(|(id, c)| format!("{id} {}/{}", c[3], c[1]))
                        .collect();
                    let longest = rule
                        .longest_win
                        .map_or("-".to_string(), |(plies, _)| plies.to_string());
                    out.push_str(&format!(
                        "{:<10} {win:>12} {cursed:>12} {blessed:>12} {loss:>12} {longest:>9}  {}\n",
                        signature.to_string(),
                        turned_by.join(", ")
                    ));
                }
            }
        }
    }
    out!("{}", out.trim_end());
    Ok(())
}
