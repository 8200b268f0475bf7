//! Measures the packing choices of the compressed table files on raw tables already built:
//! fills of the don't-care entries and block sizes under the default compression (`quick`), and
//! zstd levels 9 to 19 against it. Prints bits per position and compression time for each choice;
//! docs/PERFORMANCE.md ("Writer and compression") quotes its output.
//!
//! `cargo run --release -p draughts-generator --example measure_packing -- DIR VARIANT SIG...`

use dprobe::format::TableKind;
use std::path::PathBuf;
use std::time::Instant;

use dprobe::{index::Signature, Variant};
use draughts_generator::pure::store::Table;
use draughts_generator::pure::write::{
    capture_flags, dont_care, encode, symbols, Compression, Fill, Layout,
};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: measure_packing DIR VARIANT SIGNATURE...");
        std::process::exit(2);
    }
    let dir = PathBuf::from(&args[0]);
    let variant: Variant = args[1].parse().expect("a variant name");
    let rules = variant.moves;
    for name in &args[2..] {
        let signature: Signature = name.parse().expect("a signature");
        let table = Table::open(&dir, rules.id, signature, false).expect("a raw table");
        let n = table.index.size();
        let values: Vec<u16> = (0..n).map(|i| table.packed(i)).collect();
        let captures = capture_flags(&rules, &table.index);
        let share = captures.count_ones() as f64 / n as f64;
        println!(
            "{name}: {n} positions, {:.1}% with a capture",
            100.0 * share
        );
        let fills: [(&str, &[Fill]); 4] = [
            ("solved (no don't-care)", &[Fill::Solved]),
            ("previous", &[Fill::Previous]),
            ("majority", &[Fill::Majority]),
            (
                "best of previous/majority",
                &[Fill::Previous, Fill::Majority],
            ),
        ];
        for kind in [TableKind::Wdl, TableKind::Dtw] {
            let symbols = symbols(&values, kind).expect("valid values");
            let default = match kind {
                TableKind::Wdl => Layout::WDL,
                TableKind::Dtw => Layout::DTW,
            };
            let measure = |what: String, layout: Layout, fills: &[Fill]| {
                let started = Instant::now();
                let file = encode(
                    rules.id,
                    signature,
                    kind,
                    (&symbols, &dont_care(kind, &values, &captures)),
                    layout,
                    fills,
                )
                .expect("compression");
                println!(
                    "  {:<4} {what:<52} {:>7.4} bits/pos {:>6.2} s",
                    kind.extension(),
                    file.len() as f64 * 8.0 / n as f64,
                    started.elapsed().as_secs_f64()
                );
            };
            for (fill_name, fill) in fills {
                measure(format!("fill {fill_name}"), default, fill);
            }
            for per_block in [
                default.positions_per_block / 4,
                default.positions_per_block * 4,
            ] {
                let layout = Layout {
                    positions_per_block: per_block,
                    ..default
                };
                measure(
                    format!("{per_block} positions per block"),
                    layout,
                    &[Fill::CHOSEN],
                );
            }
            for level in [9, 13, 15, 19] {
                let layout = Layout {
                    compression: Compression::Level(level),
                    ..default
                };
                measure(format!("zstd level {level}"), layout, &[Fill::CHOSEN]);
            }
        }
    }
}
