//! Proof of exactness of the rule-aware tables (issue 5): a brute-force solver over the full state
//! (position and every running count, `support/full_state.rs`, written separately from the
//! rules alone) must agree with [`Tablebase::probe_rules`] — the rule tables written by
//! `generate_rule_tables`, read back through the probe — on every consistent state of every
//! signature up to 3 pieces in every preset, and of the king-only 4-piece signatures.

#[path = "support/full_state.rs"]
#[allow(dead_code)]
mod full_state;

use dprobe::{DrawPreset, DrawRules, Interpretation, Position, Signature, Tablebase, Variant, Wdl};
use draughts_generator::generate::generate;
use draughts_generator::rule_files::generate_rule_tables;
use draughts_generator::solve::Silent;
use full_state::FullStateSolution;

/// Builds the pure and rule tables up to `pieces` in a fresh directory and compares every start
/// state of `signatures` with the brute force. Returns the number of states compared.
fn compare(variant: Variant, preset: DrawPreset, pieces: u32, signatures: &[&str]) -> usize {
    let draw = DrawRules::new(preset, Interpretation::default());
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), &variant.moves, pieces, &Silent).unwrap();
    generate_rule_tables(dir.path(), &variant.moves, &draw, pieces, 3, &Silent).unwrap();
    let mut tables = Tablebase::new(variant);
    tables.add_directory(dir.path()).unwrap();
    tables.set_draw_rules(draw.clone()).unwrap();

    let signatures: Vec<Signature> = signatures.iter().map(|s| s.parse().unwrap()).collect();
    let brute = FullStateSolution::solve(&variant.moves, &draw, &signatures);
    let mut compared = 0;
    let mut disagreements = Vec::new();
    for (board, counts, expected) in brute.start_states() {
        if board.own() == 0 || board.opp() == 0 {
            continue;
        }
        let position = Position::from_board(&board, dprobe::Color::White);
        let counts: Vec<(&str, Option<u16>)> = counts.iter().map(|&(id, c)| (id, c)).collect();
        let probed = match tables.probe_rules(&position, &counts) {
            Ok(probe) => probe.now,
            // States the probe refuses as impossible must be ones no game reaches; the brute
            // force enumerates a kings-only count up to its limit where a side has no king.
            Err(dprobe::ProbeError::Counts(_)) => continue,
            Err(e) => panic!("{e}"),
        };
        compared += 1;
        if probed != expected && disagreements.len() < 10 {
            disagreements.push(format!(
                "{} {:?}: brute force {expected}, probe {probed}",
                position.to_fen(&variant),
                counts
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{variant} {preset:?}: {}",
        disagreements.join("\n")
    );
    assert!(compared > 0);
    compared
}

fn up_to_three() -> Vec<String> {
    (2..=3)
        .flat_map(Signature::with_pieces)
        .map(|s| s.to_string())
        .collect()
}

fn presets() -> [(Variant, DrawPreset); 5] {
    [
        (Variant::RUSSIAN, DrawPreset::Fmjd64),
        (Variant::BRAZILIAN, DrawPreset::Cbd),
        (Variant::BRAZILIAN, DrawPreset::Fmjd64),
        (Variant::PORTUGUESE, DrawPreset::Fpd),
        (Variant::SPANISH, DrawPreset::Spanish),
    ]
}

#[test]
fn every_state_up_to_three_pieces() {
    let signatures = up_to_three();
    let names: Vec<&str> = signatures.iter().map(String::as_str).collect();
    for (variant, preset) in presets() {
        let n = compare(variant, preset, 3, &names);
        eprintln!("{variant} {preset:?}: {n} states agree");
    }
}

const KING_ONLY_FOUR: [&str; 3] = ["KKKvK", "KvKKK", "KKvKK"];

/// The Forçada presets (Portuguese, Spanish): 16 million states each, in CI.
#[test]
fn every_state_of_king_only_four_piece_endings_iberian() {
    for (variant, preset) in &presets()[3..] {
        let n = compare(*variant, *preset, 4, &KING_ONLY_FOUR);
        eprintln!("{variant} {preset:?}: {n} states agree");
    }
}

/// Russian and both Brazilian sets: 91 and 132 million states, about 8 minutes on 2 cores
/// (README); run with `--ignored`.
#[test]
#[ignore]
fn every_state_of_king_only_four_piece_endings_fmjd_and_cbd() {
    for (variant, preset) in &presets()[..3] {
        let n = compare(*variant, *preset, 4, &KING_ONLY_FOUR);
        eprintln!("{variant} {preset:?}: {n} states agree");
    }
}

#[test]
fn a_wrong_probe_would_be_caught() {
    // The comparison is not vacuous: some states under the Russian rules are drawn only by a
    // count, so a probe that ignored counts would disagree.
    let draw = DrawRules::new(DrawPreset::Fmjd64, Interpretation::default());
    let kkvk: Signature = "KKvK".parse().unwrap();
    let brute = FullStateSolution::solve(&Variant::RUSSIAN.moves, &draw, &[kkvk]);
    let pure_rules = DrawRules::new(DrawPreset::None, Interpretation::default());
    let pure = FullStateSolution::solve(&Variant::RUSSIAN.moves, &pure_rules, &[kkvk]);
    let pure_wins = pure.start_states().filter(|s| s.2 == Wdl::Win).count();
    let rule_wins = brute.start_states().filter(|s| s.2 == Wdl::Win).count();
    assert!(pure_wins > 0 && rule_wins > 0);
    assert!(
        brute.start_states().any(|(_, counts, wdl)| wdl == Wdl::Draw
            && counts.iter().any(|c| c.1.unwrap_or(0) > 0)),
        "some running count draws a position"
    );
}
