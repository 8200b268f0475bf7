//! Sizes of the compressed files a whole set of raw tables would give, without writing them:
//! bits per position per table and in total, for the size figures of docs/PERFORMANCE.md. Compressing the 6-piece
//! set this way takes several minutes.
//!
//! `cargo run --release -p draughts-generator --example set_size -- DIR VARIANT PIECES [wdl|dtw]...`

use dprobe::format::TableKind;
use std::path::PathBuf;

use dprobe::{index::Signature, Variant};
use draughts_generator::pure::build::build_order;
use draughts_generator::pure::store::Table;
use draughts_generator::pure::write::{capture_flags, dont_care, encode, symbols, Fill, Layout};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!("usage: set_size DIR VARIANT PIECES wdl|dtw...");
        std::process::exit(2);
    }
    let dir = PathBuf::from(&args[0]);
    let variant: Variant = args[1].parse().expect("a variant name");
    let pieces: u32 = args[2].parse().expect("a number of pieces");
    let kinds: Vec<(TableKind, Layout)> = args[3..]
        .iter()
        .map(|k| match k.as_str() {
            "wdl" => (TableKind::Wdl, Layout::WDL),
            _ => (TableKind::Dtw, Layout::DTW),
        })
        .collect();
    let rules = variant.moves;
    let mut totals = vec![(0u64, 0u64); kinds.len()];
    let mut largest: Option<(Signature, u64, Vec<u64>)> = None;
    for signature in build_order(pieces) {
        let table = Table::open(&dir, rules.id, signature, false).expect("a raw table");
        let n = table.index.size();
        let values: Vec<u16> = (0..n).map(|i| table.packed(i)).collect();
        let captures = capture_flags(&rules, &table.index);
        let mut sizes = Vec::new();
        for (k, &(kind, layout)) in kinds.iter().enumerate() {
            let symbols = symbols(&values, kind).expect("valid values");
            let file = encode(
                rules.id,
                signature,
                kind,
                (&symbols, &dont_care(kind, &values, &captures)),
                layout,
                &[Fill::CHOSEN],
            )
            .expect("compression");
            let bytes = file.len() as u64;
            totals[k].0 += bytes;
            totals[k].1 += n;
            sizes.push(bytes);
            println!(
                "{signature:>9} {n:>11} {:<3} {bytes:>11} bytes {:>7.4} bits/pos",
                kind.extension(),
                bytes as f64 * 8.0 / n as f64
            );
        }
        if largest.as_ref().is_none_or(|(_, m, _)| n > *m) {
            largest = Some((signature, n, sizes));
        }
    }
    for (k, &(kind, _)) in kinds.iter().enumerate() {
        let (bytes, n) = totals[k];
        println!(
            "total {} up to {pieces} pieces: {n} positions, {bytes} bytes, {:.4} bits/pos, {:.1} positions/byte",
            kind.extension(),
            bytes as f64 * 8.0 / n as f64,
            n as f64 / bytes as f64
        );
    }
    if let Some((signature, n, sizes)) = largest {
        for (k, &(kind, _)) in kinds.iter().enumerate() {
            println!(
                "largest table {signature} ({n} positions) {}: {} bytes, {:.4} bits/pos",
                kind.extension(),
                sizes[k],
                sizes[k] as f64 * 8.0 / n as f64
            );
        }
    }
}
