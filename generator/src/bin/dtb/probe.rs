//! `dtb probe`: the value of one position and of each of its moves, read from the compressed
//! tables as a program using the probe library would read them; under counted draw rules also
//! the result those rules give, so that both can be compared.

use std::path::Path;

use dprobe::draw::{CountsError, DrawPreset};
use dprobe::index::Signature;
use dprobe::{Color, DrawCounts, DrawRules, Position, ProbeError, Tablebase, Variant};

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
    let position = Position::from_fen(fen, variant)?;
    let mut tables = Tablebase::new(*variant);
    tables.set_draw_rules(request.rules.clone())?;
    let found = tables.add_directory(dir)?;
    if found == 0 {
        return Err(CliError::Message(format!(
            "no {} table files in {}; run `dtb generate --variant {variant} --pieces N --dir {}` \
             first",
            variant.moves.id.name(),
            dir.display(),
            dir.display()
        )));
    }
    let value = tables.probe_dtw(&position)?;
    let moves = tables.probe_moves(&position)?;
    let pv = if line {
        tables.principal_variation(&position)?
    } else {
        Vec::new()
    };
    let given: Vec<(&str, Option<u16>)> = request
        .counts
        .0
        .iter()
        .map(|(id, n)| (id.as_str(), *n))
        .collect();
    let probed = |counts: &DrawCounts| {
        let found = tables.probe_draw(&position, counts)?;
        Ok::<_, ProbeError>((found, tables.draw_moves(&position, counts)?))
    };
    // Values under the counted rules: absent if there are none, or their tables are not built
    // (then only the pure value is shown, with the reason), an error for bad counts.
    let draw_results = if request.rules.preset == DrawPreset::None {
        None
    } else {
        let results = match DrawCounts::from_ids(tables.draw_rules(), &given) {
            Ok(counts) => probed(&counts),
            // A counter the rules lack: reported, after what the probe checks first, as one the
            // material lacks, with the material's counters.
            Err(e) => probed(&DrawCounts::new())
                .and_then(|_| Err(in_material(e, tables.draw_rules(), &position).into())),
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
    let mut pv_text = Vec::new();
    let mut at = position;
    for mv in &pv {
        pv_text.push(at.move_to_string(variant, mv));
        at = at.play(mv);
    }
    if json {
        let moves: Vec<serde_json::Value> = moves
            .iter()
            .map(|(mv, v)| {
                let mut object = serde_json::json!({
                    "move": position.move_to_string(variant, mv),
                    "wdl": v.wdl().name(),
                    "dtw": v.distance(),
                });
                if let Some(Ok((_, draw_moves))) = &draw_results {
                    if let Some(r) = draw_moves.iter().find(|r| r.mv == *mv) {
                        object["result"] = serde_json::json!(r.result.name());
                        object["result_now"] = serde_json::json!(r.now.name());
                    }
                }
                object
            })
            .collect();
        let mut object = serde_json::json!({
            "fen": position.to_fen(variant),
            "wdl": value.wdl().name(),
            "dtw": value.distance(),
            "moves": moves,
        });
        match &draw_results {
            Some(Ok((probe, _))) => {
                object["draw_rules"] = serde_json::json!(request.rules.directory_name());
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
        if line {
            object["line"] = serde_json::json!(pv_text);
        }
        out!("{}", serde_json::to_string_pretty(&object)?);
        return Ok(());
    }
    let side = match position.side_to_move {
        Color::White => "White",
        Color::Black => "Black",
    };
    out!("{}", position.diagram(variant).trim_end());
    out!("{}", position.to_fen(variant));
    out!("{side} to move: {value} (pure game)");
    match &draw_results {
        Some(Ok((probe, _))) => {
            out!(
                "under the {} draw rules: {} with every count at its start; {} with the counts \
                 given (plies left: A {}, Z {})",
                request.rules.directory_name(),
                probe.result,
                probe.now,
                probe.state.a.map_or("-".into(), |a| a.to_string()),
                probe.state.z.map_or("-".into(), |z| z.to_string()),
            );
        }
        Some(Err(reason)) => out!("under the counted draw rules: unavailable ({reason})"),
        None => {}
    }
    if moves.is_empty() {
        out!("no legal move: {side} has lost");
    }
    for (mv, v) in &moves {
        let rules = match &draw_results {
            Some(Ok((_, draw_moves))) => draw_moves
                .iter()
                .find(|r| r.mv == *mv)
                .map_or(String::new(), |r| {
                    format!("  rules: {}, now {}", r.result, r.now)
                }),
            _ => String::new(),
        };
        out!(
            "  {:<16} {:<18}{rules}",
            position.move_to_string(variant, mv),
            v.to_string()
        );
    }
    if line {
        if pv_text.is_empty() {
            out!("line: none (a draw never ends)");
        } else {
            out!("line: {}", pv_text.join(" "));
        }
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
