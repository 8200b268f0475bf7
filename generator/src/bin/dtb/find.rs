//! `dtb find`: facts of one table for people who check endgame theory: its longest wins with
//! their lines, its mutual zugzwangs, and the positions the counted draw rules change. The
//! explorer's theory page asks the same questions through [`search`].

use std::io::ErrorKind;
use std::path::Path;

use dprobe::format::{draw_table_path, DrawFile};
use dprobe::{index::Signature, Color, DrawRules, Position, ProbeError, Tablebase, Variant, Wdl};
use draughts_generator::draw::stats::{rule_changes, RuleChanges};
use draughts_generator::draw::tables::pure_results;
use draughts_generator::pure::find::{longest_wins, zugzwangs, Zugzwangs};
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

/// A longest win: its position (White to move), its length and its line.
pub struct LongWin {
    fen: String,
    plies: u16,
    line: Vec<String>,
}

/// What a query found in one table.
pub enum Found {
    Longest {
        signature: Signature,
        wins: Vec<LongWin>,
    },
    Zugzwangs {
        signature: Signature,
        found: Zugzwangs,
        /// The positions of `found.first`.
        fens: Vec<String>,
    },
    RuleChanges {
        signature: Signature,
        rules: DrawRules,
        changes: RuleChanges,
        /// The positions of `changes.first`.
        fens: Vec<String>,
    },
}

/// Reads a table name such as `KKMvK`.
pub fn parse_table(table: &str) -> Result<Signature, CliError> {
    table.parse().map_err(|_| {
        CliError::Message(format!(
            "{table:?} is not a table name: kings and men of the side to move, `v`, then the \
             other side's (for example KKMvK)"
        ))
    })
}

/// Runs `query` on the table `signature` of `variant` in `dir`.
pub fn search(
    variant: &Variant,
    dir: &Path,
    signature: Signature,
    query: Query,
) -> Result<Found, CliError> {
    let tables = TableSet::new(dir, variant.moves);
    let fen = |index| fen_of(variant, &signature, index);
    Ok(match query {
        Query::Longest(count) => {
            let found = longest_wins(&tables, signature, count)?;
            let mut probe = Tablebase::new(*variant);
            probe.add_directory(dir)?;
            let mut wins = Vec::new();
            for win in &found {
                let mut at = Position::from_board(
                    &dprobe::index::TableIndex::new(signature).board(win.index),
                    Color::White,
                );
                let mut line = Vec::new();
                for mv in probe.principal_variation(&at)? {
                    line.push(at.move_to_string(variant, &mv));
                    at = at.play(&mv);
                }
                wins.push(LongWin {
                    fen: fen(win.index),
                    plies: win.plies,
                    line,
                });
            }
            Found::Longest { signature, wins }
        }
        Query::Zugzwangs(limit) => {
            let found = zugzwangs(&tables, signature, limit)?;
            let fens = found.first.iter().map(|z| fen(z.index)).collect();
            Found::Zugzwangs {
                signature,
                found,
                fens,
            }
        }
        Query::RuleChanges(limit, rules) => {
            let path = draw_table_path(dir, variant.moves.id, &rules, signature);
            let file = DrawFile::open(&path).map_err(|e| match e {
                ProbeError::Io { source, .. } if source.kind() == ErrorKind::NotFound => {
                    CliError::Probe(ProbeError::MissingDrawTable {
                        signature,
                        rules: variant.moves.id.name(),
                        draw_rules: rules.directory_name(),
                        pieces: signature.pieces(),
                    })
                }
                e => CliError::Message(format!(
                    "{e}; build the rule tables with `dtb generate --variant {variant} --pieces {} --dir {}`",
                    signature.pieces(),
                    dir.display()
                )),
            })?;
            let pure = pure_results(&tables, signature)?;
            let changes = rule_changes(&file, &rules, &pure, limit)?;
            let fens = changes.first.iter().map(|c| fen(c.index)).collect();
            Found::RuleChanges {
                signature,
                rules,
                changes,
                fens,
            }
        }
    })
}

/// The counters that change a position on their own, as text.
fn changed_by(by: &[&str]) -> String {
    if by.is_empty() {
        "only several counters together".to_string()
    } else {
        by.join(", ")
    }
}

impl Found {
    /// As `dtb find --json` prints it and the explorer's API returns it.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Found::Longest { wins, .. } => wins
                .iter()
                .map(|w| serde_json::json!({"fen": w.fen, "plies": w.plies, "line": w.line}))
                .collect(),
            Found::Zugzwangs {
                signature,
                found,
                fens,
            } => {
                let counts: Vec<serde_json::Value> = found
                    .counts
                    .iter()
                    .map(|((with, without), n)| {
                        serde_json::json!({"with_the_move": with.name(), "without_the_move": without.name(), "positions": n})
                    })
                    .collect();
                let first: Vec<serde_json::Value> = found
                    .first
                    .iter()
                    .zip(fens)
                    .map(|(z, fen)| {
                        serde_json::json!({
                            "fen": fen,
                            "with_the_move": z.with_the_move.name(),
                            "without_the_move": z.without_the_move.name(),
                        })
                    })
                    .collect();
                serde_json::json!({
                    "table": signature.to_string(),
                    "quiet_positions": found.quiet,
                    "zugzwangs": counts,
                    "first": first,
                })
            }
            Found::RuleChanges {
                signature,
                rules,
                changes,
                fens,
            } => {
                let first: Vec<serde_json::Value> = changes
                    .first
                    .iter()
                    .zip(fens)
                    .map(|(c, fen)| {
                        serde_json::json!({"fen": fen, "result": c.result.name(), "by": c.by})
                    })
                    .collect();
                serde_json::json!({
                    "table": signature.to_string(),
                    "draw_rules": rules.directory_name(),
                    "cursed_wins": changes.cursed_wins,
                    "blessed_losses": changes.blessed_losses,
                    "first": first,
                })
            }
        }
    }

    /// Prints what was found as text.
    fn print(&self) {
        match self {
            Found::Longest { signature, wins } => {
                out!(
                    "{signature}: the {} longest wins, White to move",
                    wins.len()
                );
                for w in wins {
                    out!("{:>4} plies  {}  {}", w.plies, w.fen, w.line.join(" "));
                }
            }
            Found::Zugzwangs {
                signature,
                found,
                fens,
            } => {
                let total: u64 = found.counts.iter().map(|(_, n)| n).sum();
                out!(
                    "{signature}: {total} mutual zugzwangs among {} positions where neither side to move can capture",
                    found.quiet
                );
                for ((with, without), n) in &found.counts {
                    out!(
                        "{n:>12}  White to move: {}, Black to move: White {}",
                        with.name(),
                        without.name()
                    );
                }
                for (z, fen) in found.first.iter().zip(fens) {
                    out!(
                        "  {fen}  White to move {}, were Black to move White would {}",
                        z.with_the_move.name(),
                        match z.without_the_move {
                            Wdl::Win => "win",
                            Wdl::Draw => "draw",
                            Wdl::Loss => "lose",
                        }
                    );
                }
            }
            Found::RuleChanges {
                signature,
                rules,
                changes,
                fens,
            } => {
                out!(
                    "{signature} under the {} draw rules: {} cursed wins, {} blessed losses (White to move)",
                    rules.directory_name(),
                    changes.cursed_wins,
                    changes.blessed_losses
                );
                for (c, fen) in changes.first.iter().zip(fens) {
                    out!("  {fen}  {}  by {}", c.result.name(), changed_by(&c.by));
                }
            }
        }
    }
}

pub fn find(
    variant: &Variant,
    dir: &Path,
    table: &str,
    query: Query,
    json: bool,
) -> Result<(), CliError> {
    let found = search(variant, dir, parse_table(table)?, query)?;
    if json {
        out!("{}", serde_json::to_string_pretty(&found.to_json())?);
    } else {
        found.print();
    }
    Ok(())
}
