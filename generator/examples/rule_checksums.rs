//! The content of every rule table of a folder, as checksums of its decoded values: per file the
//! fresh results, the results under each counter alone, and every layer of every family (the
//! layers rebuilt from the corners, with the entries no reader reads — capture positions and pure
//! draws, which format 5 leaves unspecified — taken as "never"). Two sets whose lines agree hold
//! the same values, whatever their format or compression: this is how a change of the rule
//! tables' encoding is checked.
//!
//! `cargo run --release -p draughts-generator --example rule_checksums -- DIR/russian/fmjd64`
//! (the pure tables, which the fresh results are read against, in `DIR`).

use std::path::Path;

use dprobe::draw::NEVER;
use dprobe::format::DrawFile;
use dprobe::index::TableIndex;
use dprobe::rules::has_capture;
use dprobe::{Variant, Wdl};
use draughts_generator::draw::tables::pure_results;
use draughts_generator::pure::tableset::TableSet;
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: rule_checksums DIR (a folder of .rules files)");
        std::process::exit(2);
    };
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("a readable folder")
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "rules"))
        .collect();
    paths.sort();
    let set = Path::new(&dir)
        .parent()
        .and_then(Path::parent)
        .expect("a folder DIR/<rule set>/<draw rules>");
    // Smaller tables first, each pure table kept only while a table it leads to is read (they
    // are rebuilt in memory from published files); the lines are printed in name order.
    let pieces = |path: &Path| {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        name.map_or(0, |n| n.matches(['K', 'M']).count())
    };
    paths.sort_by_key(|path| pieces(path));
    let mut lines = Vec::new();
    let mut pure = None;
    for path in paths {
        let file = DrawFile::open(&path).expect("a rule table");
        let moves = Variant::ALL
            .iter()
            .find(|v| v.moves.id == file.rules)
            .expect("a known rule set")
            .moves;
        let pure = pure.get_or_insert_with(|| TableSet::new(set, moves));
        pure.close_all_but([file.signature], []);
        let name = path.file_name().expect("a file name").to_string_lossy();
        let results = pure_results(pure, file.signature).expect("the pure table");
        let fresh = file.fresh_results(&results).expect("fresh results");
        let index = TableIndex::new(file.signature);
        let unread: Vec<bool> = (0..results.len())
            .into_par_iter()
            .map(|i| results[i] == Wdl::Draw || has_capture(&index.board(i as u64), &moves))
            .collect();
        let mut line = format!("{name} fresh {:x}", xxh3_64(&fresh));
        for k in 0..file.counters_alone() {
            let alone = file.fresh_results_alone(k, &fresh).expect("a counter");
            line += &format!(" alone{k} {:x}", xxh3_64(&alone.expect("results alone")));
        }
        for post in [false, true] {
            if let Some((kind, layers)) = file.family(post) {
                line += &format!(" {} {kind:?} {layers}:", if post { "post" } else { "pre" });
                for mut layer in file.layers(post).expect("a family's layers") {
                    for (entry, _) in layer.iter_mut().zip(&unread).filter(|(_, &u)| u) {
                        *entry = NEVER;
                    }
                    line += &format!(" {:x}", xxh3_64(&layer));
                }
            }
        }
        lines.push(line);
    }
    lines.sort();
    for line in lines {
        println!("{line}");
    }
}
