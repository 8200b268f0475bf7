//! Sets that hold only the published files, as a finished build leaves them and as users
//! download them: the tables rebuilt from those files are the raw tables byte for byte, a build
//! leaves no working file behind, such a set is extended to the bytes of a build from scratch,
//! and a build killed at any point resumes to those bytes.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use dprobe::format::raw_table_path;
use dprobe::{index::Signature, Variant};
use draughts_generator::pure::build::{generate_with, BuildOptions};
use draughts_generator::pure::solve::Silent;
use draughts_generator::pure::store::Table;
use draughts_generator::pure::tableset::TableSet;
use draughts_generator::pure::unpack::unpack;

fn build(dir: &Path, variant: &Variant, pieces: u32, keep_raw: bool) {
    let options = BuildOptions {
        keep_raw,
        ..BuildOptions::default()
    };
    generate_with(dir, &variant.moves, pieces, &options, &Silent).unwrap();
}

/// Every file under `dir` (relative name, bytes).
pub(crate) fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                found.insert(name, fs::read(&path).unwrap());
            }
        }
    }
    found
}

/// Asserts that two folders' files (as [`files`] reads them) have the same names and bytes.
pub(crate) fn assert_same_files(
    expected: &BTreeMap<String, Vec<u8>>,
    found: &BTreeMap<String, Vec<u8>>,
    context: &str,
) {
    assert_eq!(
        found.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "{context}"
    );
    for (name, bytes) in expected {
        assert!(found[name] == *bytes, "{context}: {name} differs");
    }
}

fn names_ending(files: &BTreeMap<String, Vec<u8>>, ending: &str) -> Vec<String> {
    files
        .keys()
        .filter(|name| name.ends_with(ending))
        .cloned()
        .collect()
}

#[test]
fn tables_rebuilt_from_published_files_equal_the_raw_files() {
    for variant in [Variant::RUSSIAN, Variant::BRAZILIAN, Variant::PORTUGUESE] {
        let with_raw = tempfile::tempdir().unwrap();
        build(with_raw.path(), &variant, 4, true);
        // The published files alone, in a folder of their own.
        let published = tempfile::tempdir().unwrap();
        for (name, bytes) in files(with_raw.path()) {
            if !name.ends_with(".dtr") {
                let path = published.path().join(name);
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(path, bytes).unwrap();
            }
        }
        let rebuilt = TableSet::new(published.path(), variant.moves);
        for signature in (2..=4).flat_map(Signature::with_pieces) {
            let raw = Table::open(with_raw.path(), variant.moves.id, signature, true).unwrap();
            let table = rebuilt.table(signature).unwrap();
            assert!(table.is_in_memory(), "{variant} {signature}");
            assert_eq!(table.stats, raw.stats, "{variant} {signature}");
            assert_eq!(table.checksum(), raw.checksum(), "{variant} {signature}");
            let differing = (0..raw.index.size()).find(|&i| table.packed(i) != raw.packed(i));
            assert_eq!(differing, None, "{variant} {signature}");
        }
    }
}

#[test]
fn a_table_is_not_rebuilt_from_files_that_disagree() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &Variant::RUSSIAN, 3, false);
    let tables = TableSet::new(dir.path(), Variant::RUSSIAN.moves);
    // The `.dtw` file of another table under this table's name.
    let rules = Variant::RUSSIAN.moves.id;
    let path =
        |s: &str, kind| dprobe::format::table_path(dir.path(), rules, s.parse().unwrap(), kind);
    let dtw = dprobe::format::TableKind::Dtw;
    fs::copy(path("KMvK", dtw), path("KKvK", dtw)).unwrap();
    let error = unpack(&tables, "KKvK".parse().unwrap()).err().unwrap();
    assert!(error.to_string().contains("KKvK.dtw"), "{error}");
    // A table whose published files are gone, with no raw file either, is missing.
    fs::remove_file(path("KvK", dprobe::format::TableKind::Wdl)).unwrap();
    let error = tables.table("KvK".parse().unwrap()).err().unwrap();
    assert!(error.to_string().contains("missing table KvK"), "{error}");
}

#[test]
fn a_finished_build_leaves_only_the_published_files() {
    let signatures: Vec<Signature> = (2..=4).flat_map(Signature::with_pieces).collect();
    let lean = tempfile::tempdir().unwrap();
    build(lean.path(), &Variant::RUSSIAN, 4, false);
    let written = files(lean.path());
    assert_eq!(names_ending(&written, ".dtr"), Vec::<String>::new());
    assert_eq!(names_ending(&written, ".partial"), Vec::<String>::new());
    assert_eq!(names_ending(&written, ".wdl").len(), signatures.len());
    assert_eq!(names_ending(&written, ".dtw").len(), signatures.len());

    let kept = tempfile::tempdir().unwrap();
    build(kept.path(), &Variant::RUSSIAN, 4, true);
    for &signature in &signatures {
        let path = raw_table_path(kept.path(), Variant::RUSSIAN.moves.id, signature);
        assert!(path.exists(), "{signature}");
    }
    // The published files do not depend on keeping the raw ones.
    let kept_files = files(kept.path());
    for (name, bytes) in &written {
        assert!(kept_files[name] == *bytes, "{name}");
    }
}

#[test]
fn a_set_of_published_files_is_extended_to_the_bytes_of_a_build_from_scratch() {
    for variant in [Variant::RUSSIAN, Variant::BRAZILIAN, Variant::PORTUGUESE] {
        let scratch = tempfile::tempdir().unwrap();
        build(scratch.path(), &variant, 4, false);
        let extended = tempfile::tempdir().unwrap();
        build(extended.path(), &variant, 3, false);
        let smaller = files(extended.path());
        assert_eq!(names_ending(&smaller, ".dtr"), Vec::<String>::new());
        build(extended.path(), &variant, 4, false);
        let extended_files = files(extended.path());
        assert_same_files(&files(scratch.path()), &extended_files, variant.name);
        // The smaller tables were read, not written again.
        for (name, bytes) in &smaller {
            assert!(
                extended_files[name] == *bytes,
                "{variant}: {name} rewritten"
            );
        }
    }
}

#[test]
fn a_killed_build_resumes_to_the_bytes_of_an_uninterrupted_one() {
    let dtb = |dir: &Path| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_dtb"));
        command.args([
            "generate",
            "--variant",
            "russian",
            "--pieces",
            "4",
            "--threads",
            "1",
        ]);
        command.args(["--draw-rules", "none", "--dir"]).arg(dir);
        command
    };
    let whole = tempfile::tempdir().unwrap();
    assert!(dtb(whole.path()).output().unwrap().status.success());
    let expected = files(whole.path());
    // Killed (SIGKILL: nothing is cleaned up) early, in the middle and late in the build (after
    // the k-th table it reports finished, and a moment into the next pair, whatever the
    // machine's speed), then resumed; then killed twice and resumed. 41 tables in all.
    for kills in [vec![4], vec![16], vec![34], vec![10, 14]] {
        let dir = tempfile::tempdir().unwrap();
        let mut killed_before_the_end = true;
        for after in &kills {
            let mut child = dtb(dir.path()).stderr(Stdio::piped()).spawn().unwrap();
            // Kept open until the kill: a closed pipe would end the build by itself.
            let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
            let finished = lines
                .by_ref()
                .map_while(Result::ok)
                .filter(|line| line.contains(" positions, "))
                .take(*after)
                .count();
            std::thread::sleep(Duration::from_millis(20));
            killed_before_the_end &= finished == *after && child.try_wait().unwrap().is_none();
            child.kill().unwrap();
            child.wait().unwrap();
            drop(lines);
        }
        let out = dtb(dir.path()).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let resumed = files(dir.path());
        assert!(
            killed_before_the_end,
            "the build ended before it was killed: after {kills:?} tables"
        );
        assert_same_files(
            &expected,
            &resumed,
            &format!("killed after {kills:?} tables"),
        );
    }
}
