//! `dtb plan`: a build cut into units with their dependencies and estimates, for a scheduler
//! (`scripts/slurm/submit.sh` reads the JSON form).

use dprobe::draw::DrawPreset;
use dprobe::{DrawRules, Variant};
use draughts_generator::pure::units::{rule_tables_unit, units, Unit};

use crate::error::CliError;
use crate::generate::check_pieces;

pub fn plan(
    variant: &Variant,
    pieces: u32,
    draw: &DrawRules,
    part_positions: u64,
    json: bool,
) -> Result<(), CliError> {
    check_pieces(pieces)?;
    let mut all = units(pieces, part_positions);
    if draw.preset != DrawPreset::None {
        all.push(rule_tables_unit(pieces, part_positions));
    }
    if json {
        let units: Vec<serde_json::Value> = all.iter().map(unit_json).collect();
        let plan = serde_json::json!({
            "variant": variant.name,
            "rule_set": variant.moves.id.name(),
            "pieces": pieces,
            "draw_rules": draw.directory_name(),
            "units": units,
        });
        out!("{plan:#}");
        return Ok(());
    }
    out!(
        "{} units up to {pieces} pieces ({} rules); `dtb generate --variant {variant} --pieces {pieces} --unit ID` builds one",
        all.len(),
        variant.moves.id.name()
    );
    out!(
        "{:>24} {:>14} {:>10} {:>10}  after",
        "unit",
        "positions",
        "memory MB",
        "CPU s"
    );
    for unit in &all {
        let after = if unit.after.len() > 6 {
            format!("{} units", unit.after.len())
        } else {
            unit.after.join(" ")
        };
        out!(
            "{:>24} {:>14} {:>10.0} {:>10.1}  {after}",
            unit.id,
            unit.positions,
            unit.memory_bytes as f64 / 1e6,
            unit.cpu_seconds_estimate
        );
    }
    let cpu: f64 = all.iter().map(|u| u.cpu_seconds_estimate).sum();
    let largest = all.iter().map(|u| u.memory_bytes).max().unwrap_or(0);
    out!(
        "total: {:.2} CPU hours; the largest unit needs {:.2} GB",
        cpu / 3600.0,
        largest as f64 / 1e9
    );
    Ok(())
}

fn unit_json(unit: &Unit) -> serde_json::Value {
    let mut json = serde_json::json!({
        "id": unit.id,
        "tables": unit.tables.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "after": unit.after,
        "positions": unit.positions,
        "memory_bytes": unit.memory_bytes,
        "cpu_seconds_estimate": (unit.cpu_seconds_estimate * 10.0).round() / 10.0,
    });
    if let Some(levels) = unit.levels {
        json["levels"] = serde_json::json!([levels.low, levels.high]);
    }
    json
}
