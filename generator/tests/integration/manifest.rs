//! A fresh build of every table up to 4 pieces, for each move-rule set, against the published
//! manifest (`tables/manifest.json`, written by `scripts/manifest.sh`): the same statistics and
//! the same checksum of every value.

use dprobe::{index::Signature, Variant};
use draughts_generator::pure::build::{generate_with, BuildOptions};
use draughts_generator::pure::solve::Silent;
use draughts_generator::pure::tableset::TableSet;
use draughts_generator::pure::write::Compression;

#[test]
fn fresh_build_matches_the_manifest() {
    let manifest: serde_json::Value =
        serde_json::from_str(include_str!("../../../tables/manifest.json"))
            .expect("valid manifest");
    let entries = manifest["tables"].as_array().expect("a list of tables");
    let mut checked = 0;
    for variant in [Variant::RUSSIAN, Variant::BRAZILIAN, Variant::PORTUGUESE] {
        let dir = tempfile::tempdir().unwrap();
        let fast = BuildOptions {
            compression: Compression::Level(1),
            ..BuildOptions::default()
        };
        generate_with(dir.path(), &variant.moves, 4, &fast, &Silent).unwrap();
        let tables = TableSet::new(dir.path(), variant.moves);
        for signature in (2..=4).flat_map(Signature::with_pieces) {
            let name = signature.to_string();
            let entry = entries
                .iter()
                .find(|e| e["rule_set"] == variant.moves.id.name() && e["table"] == name)
                .unwrap_or_else(|| panic!("{variant} {name} missing from the manifest"));
            // Read from the published files: a finished build keeps no raw file.
            let table = tables.table(signature).unwrap();
            let s = table.stats;
            let built = [
                ("positions", s.positions),
                ("wins", s.wins),
                ("draws", s.draws),
                ("losses", s.losses),
                ("captures", s.captures),
                ("max_dtw", u64::from(s.max_dtw)),
            ];
            for (key, value) in built {
                assert_eq!(entry[key].as_u64(), Some(value), "{variant} {name} {key}");
            }
            assert_eq!(
                entry["checksum"].as_str(),
                Some(format!("{:016x}", table.checksum()).as_str()),
                "{variant} {name}: the values differ from the published build"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 3 * 41, "41 tables up to 4 pieces per rule set");
}
