//! `dtb probe`: the value of one position and of each of its moves, read from the compressed
//! tables as a program using the probe library would read them; under counted draw rules also
//! the result those rules give, so that both can be compared.

use std::path::Path;

use dprobe::draw::{CountsError, DrawPreset};
use dprobe::index::Signature;
use dprobe::{
    Color, DrawCounts, DrawProbe, DrawRules, DrawWdl, Move, Position, ProbeError, Tablebase, Value,
    Variant, Wdl,
};

use crate::error::CliError;

/// Running counts given on the command line: counter id and plies (`None`: not started).
#[derive(Clone, Debug, Default)]
pub struct Counts(Vec<(String, Option<u16>)>);

/// Reads `--counts`; clap prints the error after the argument's name.
pub fn parse_counts(text: &str) -> Result<Counts, CliError> {
    let mut counts = Vec::new();
    for item in text.split(',').filter(|s| !s.is_empty()) {
        let (id, value) = item.split_once('=').ok_or_else(|| {
            CliError::Message(format!(
                "{item:?}: expected id=plies, e.g. r1-three-kings=12"
            ))
        })?;
        let value = match value.trim() {
            "none" => None,
            n => Some(n.parse::<u16>().map_err(|_| {
                CliError::Message(format!(
                    "{item:?}: the count must be a number of plies or 'none'"
                ))
            })?),
        };
        counts.push((id.trim().to_string(), value));
    }
    Ok(Counts(counts))
}

/// What `dtb probe` asks about the counted draw rules.
pub struct DrawRequest {
    pub rules: DrawRules,
    pub counts: Counts,
}

/// Opens the tables of `variant` in `dir` under the draw rules `rules`; fails if the folder
/// holds none.
pub fn open_tables(
    variant: &Variant,
    dir: &Path,
    rules: &DrawRules,
) -> Result<Tablebase, CliError> {
    let mut tables = Tablebase::new(*variant);
    tables.set_draw_rules(rules.clone())?;
    if tables.add_directory(dir)? == 0 {
        return Err(CliError::NoTables {
            rules: variant.moves.id.name(),
            dir: dir.to_path_buf(),
            variant: variant.to_string(),
        });
    }
    Ok(tables)
}

/// One legal move and its values.
struct MoveReport {
    mv: Move,
    value: Value,
    /// The position after the move.
    fen: String,
    /// Under the counted rules: the result with the counts at their start, with the counts
    /// given, and the counts after the move (to probe the next position with).
    draw: Option<(DrawWdl, Wdl, String)>,
}

/// One move of the principal variation.
struct LineStep {
    mv: String,
    /// The position after it.
    fen: String,
    /// The running counts after it, under the counted rules.
    counts: Option<String>,
}

/// Everything `dtb probe` (and the explorer's API) says of a position.
pub struct Report {
    position: Position,
    value: Value,
    /// Best first.
    moves: Vec<MoveReport>,
    /// The value under the counted rules; `None` without rules, the reason where their tables
    /// are not built (then only the pure values are given).
    draw: Option<Result<(DrawRules, DrawProbe), ProbeError>>,
    /// The principal variation; `None` if not asked for.
    line: Option<Vec<LineStep>>,
}

/// Probes `position` in `tables` with the running counts given, and the principal variation
/// with `line`.
pub fn report(
    tables: &Tablebase,
    position: Position,
    counts: &Counts,
    line: bool,
) -> Result<Report, CliError> {
    let variant = tables.variant();
    let value = tables.probe_dtw(&position)?;
    let moves = tables.probe_moves(&position)?;
    let given: Vec<(&str, Option<u16>)> =
        counts.0.iter().map(|(id, n)| (id.as_str(), *n)).collect();
    let rules = tables.draw_rules();
    let probed = |counts: &DrawCounts| {
        let found = tables.probe_draw(&position, counts)?;
        Ok::<_, ProbeError>((found, tables.draw_moves(&position, counts)?, *counts))
    };
    // Values under the counted rules: absent if there are none, or their tables are not built
    // (then only the pure value is shown, with the reason), an error for bad counts.
    let draw = if rules.preset == DrawPreset::None {
        None
    } else {
        let results = match DrawCounts::from_ids(rules, &given) {
            Ok(counts) => probed(&counts),
            // A counter the rules lack: reported, after what the probe checks first, as one the
            // material lacks, with the material's counters.
            Err(e) => probed(&DrawCounts::new())
                .and_then(|_| Err(in_material(e, rules, &position).into())),
        };
        match results {
            Ok(found) => Some(Ok(found)),
            Err(
                e @ (ProbeError::MissingDrawTable { .. } | ProbeError::UnsupportedDrawRules(_)),
            ) if given.is_empty() => Some(Err(e)),
            // With counts given, the rules' answer is what was asked: without it, nothing is.
            Err(e) => return Err(e.into()),
        }
    };
    let line = if line {
        // The counts run along the line too, where the rules' tables are there to read them.
        let mut counts = match &draw {
            Some(Ok((.., counts))) => Some(*counts),
            _ => None,
        };
        let mut at = position;
        let mut steps = Vec::new();
        for mv in tables.principal_variation(&position)? {
            let text = at.move_to_string(variant, &mv);
            if let Some(counts) = &mut counts {
                counts.play(rules, &at.board(), &at.orient_move(&mv));
            }
            at = at.play(&mv);
            steps.push(LineStep {
                mv: text,
                fen: at.to_fen(variant),
                counts: counts.map(|c| counts_text(rules, &c)),
            });
        }
        Some(steps)
    } else {
        None
    };
    let board = position.board();
    let moves = moves
        .into_iter()
        .map(|(mv, value)| {
            let draw = match &draw {
                Some(Ok((_, draw_moves, counts))) => {
                    draw_moves.iter().find(|r| r.mv == mv).map(|r| {
                        let mut after = *counts;
                        after.play(rules, &board, &position.orient_move(&mv));
                        (r.result, r.now, counts_text(rules, &after))
                    })
                }
                _ => None,
            };
            MoveReport {
                mv,
                value,
                fen: position.play(&mv).to_fen(variant),
                draw,
            }
        })
        .collect();
    Ok(Report {
        position,
        value,
        moves,
        draw: draw.map(|found| found.map(|(probe, ..)| (rules.clone(), probe))),
        line,
    })
}

/// Running counts as `--counts` takes them: `id=plies` (or `id=none`) for every counter not
/// at its start.
fn counts_text(rules: &DrawRules, counts: &DrawCounts) -> String {
    let mut items = Vec::new();
    for (k, counter) in rules.counters.iter().enumerate() {
        if let Some(plies) = counts.count(k) {
            items.push(format!(
                "{}={}",
                counter.id,
                plies.map_or("none".to_string(), |p| p.to_string())
            ));
        }
    }
    items.join(",")
}

impl Report {
    /// The report as `dtb probe --json` prints it and the explorer's API returns it.
    pub fn to_json(&self, variant: &Variant) -> serde_json::Value {
        let numbering = variant.notation.numbering;
        let moves: Vec<serde_json::Value> = self
            .moves
            .iter()
            .map(|m| {
                let mut object = serde_json::json!({
                    "move": self.position.move_to_string(variant, &m.mv),
                    "from": numbering.number(m.mv.from),
                    "to": numbering.number(m.mv.to),
                    "fen": m.fen,
                    "wdl": m.value.wdl().name(),
                    "dtw": m.value.distance(),
                });
                if let Some((result, now, counts)) = &m.draw {
                    object["result"] = serde_json::json!(result.name());
                    object["result_now"] = serde_json::json!(now.name());
                    object["counts"] = serde_json::json!(counts);
                }
                object
            })
            .collect();
        let mut object = serde_json::json!({
            "fen": self.position.to_fen(variant),
            "wdl": self.value.wdl().name(),
            "dtw": self.value.distance(),
            "moves": moves,
        });
        match &self.draw {
            Some(Ok((rules, probe))) => {
                object["draw_rules"] = serde_json::json!(rules.directory_name());
                object["result"] = serde_json::json!(probe.result.name());
                object["result_now"] = serde_json::json!(probe.now.name());
                object["budgets"] = serde_json::json!({
                    "A": probe.state.a,
                    "Z": probe.state.z,
                    "condition_started": probe.state.post,
                });
            }
            Some(Err(reason)) => {
                object["rules_unavailable"] = serde_json::json!(reason.to_string())
            }
            None => {}
        }
        if let Some(line) = &self.line {
            let moves: Vec<&str> = line.iter().map(|step| step.mv.as_str()).collect();
            let fens: Vec<&str> = line.iter().map(|step| step.fen.as_str()).collect();
            object["line"] = serde_json::json!(moves);
            object["line_fens"] = serde_json::json!(fens);
            if let Some(counts) = line
                .iter()
                .map(|step| step.counts.as_deref())
                .collect::<Option<Vec<_>>>()
            {
                object["line_counts"] = serde_json::json!(counts);
            }
        }
        object
    }

    /// Prints the report as text: the diagram, the values, the moves and the line.
    pub fn print(&self, variant: &Variant) {
        let position = &self.position;
        let side = match position.side_to_move {
            Color::White => "White",
            Color::Black => "Black",
        };
        out!("{}", position.diagram(variant).trim_end());
        out!("{}", position.to_fen(variant));
        out!("{side} to move: {} (pure game)", self.value);
        match &self.draw {
            Some(Ok((rules, probe))) => {
                out!(
                    "under the {} draw rules: {} with every count at its start; {} with the \
                     counts given (plies left: A {}, Z {})",
                    rules.directory_name(),
                    probe.result,
                    probe.now,
                    probe.state.a.map_or("-".into(), |a| a.to_string()),
                    probe.state.z.map_or("-".into(), |z| z.to_string()),
                );
            }
            Some(Err(reason)) => out!("under the counted draw rules: unavailable ({reason})"),
            None => {}
        }
        if self.moves.is_empty() {
            out!("no legal move: {side} has lost");
        }
        for m in &self.moves {
            let rules = m.draw.as_ref().map_or(String::new(), |(result, now, _)| {
                format!("  rules: {result}, now {now}")
            });
            out!(
                "  {:<16} {:<18}{rules}",
                position.move_to_string(variant, &m.mv),
                m.value.to_string()
            );
        }
        if let Some(line) = &self.line {
            if line.is_empty() {
                out!("line: none (a draw never ends)");
            } else {
                let moves: Vec<&str> = line.iter().map(|step| step.mv.as_str()).collect();
                out!("line: {}", moves.join(" "));
            }
        }
    }
}

/// Prints the position, its value and its moves' (as JSON with `json`), and the principal
/// variation with `line`.
pub fn probe(
    variant: &Variant,
    dir: &Path,
    fen: &str,
    json: bool,
    line: bool,
    request: &DrawRequest,
) -> Result<(), CliError> {
    // The position is read first: a bad string is reported before the folder is looked at.
    let position = Position::from_fen(fen, variant)?;
    let tables = open_tables(variant, dir, &request.rules)?;
    let report = report(&tables, position, &request.counts, line)?;
    if json {
        out!(
            "{}",
            serde_json::to_string_pretty(&report.to_json(variant))?
        );
    } else {
        report.print(variant);
    }
    Ok(())
}

/// A counter the rules lack, named as one that `position`'s material lacks, with the counters
/// that apply to it.
fn in_material(error: CountsError, rules: &DrawRules, position: &Position) -> CountsError {
    match error {
        CountsError::UnknownCounter {
            id,
            signature: None,
            ..
        } => {
            let signature = Signature::of(&position.board());
            let known: Vec<&str> = rules.active(&signature).map(|(c, _)| c.id).collect();
            CountsError::UnknownCounter {
                id,
                signature: Some(signature),
                known: known.join(", "),
            }
        }
        other => other,
    }
}
