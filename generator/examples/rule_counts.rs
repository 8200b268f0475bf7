//! Solves rule tables in memory and prints per table how many pure wins the rules turn into draws.
//! `cargo run --release --example rule_counts -- <variant> <pieces> <dir>` (pure tables must be built).
use dprobe::{RuleWdl, Variant};
use draughts_generator::generate::plan;
use draughts_generator::rule_solve::solve_rules_in_memory;
use draughts_generator::tableset::TableSet;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let variant: Variant = args[1].parse().unwrap();
    let pieces: u32 = args[2].parse().unwrap();
    let dir = std::path::PathBuf::from(&args[3]);
    let pure = TableSet::new(&dir, variant.moves);
    let start = std::time::Instant::now();
    let results =
        solve_rules_in_memory(&variant.moves, &variant.draw_rules(), &pure, pieces).unwrap();
    eprintln!("solved in {:?}", start.elapsed());
    for planned in plan(pieces) {
        for sig in [planned.signature, planned.signature.flipped()] {
            let t = results.get(sig).unwrap();
            let mut counts = [0u64; 5];
            for &c in &t.fresh {
                counts[c as usize] += 1;
            }
            let kinds: Vec<String> = t
                .families
                .iter()
                .map(|f| {
                    format!(
                        "{}{:?}x{}",
                        if f.post { "post:" } else { "pre:" },
                        f.kind,
                        f.planes.len()
                    )
                })
                .collect();
            println!(
                "{sig:>8} {:?} {}",
                RuleWdl::ALL
                    .iter()
                    .zip(counts)
                    .map(|(r, c)| format!("{r}={c}"))
                    .collect::<Vec<_>>(),
                kinds.join(" ")
            );
            if sig == sig.flipped() {
                break;
            }
        }
    }
}
