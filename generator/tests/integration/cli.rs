//! The `dtb` program end to end: perft, generate (skip, resume, rebuild), stats, verify.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use dprobe::format::raw_table_path;
use dprobe::{
    index::Signature,
    rules::{has_capture, RuleSetId},
    Value, Variant,
};
use draughts_generator::pure::store::{write_table, Table};

use crate::published::{assert_same_files, files};

pub(crate) fn dtb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dtb"))
        .args(args)
        .output()
        .expect("dtb runs")
}

/// `dtb verify` of the pure tables of `variant` in `dir` (no draw-rule tables).
pub(crate) fn verify_pure_tables(variant: &str, dir: &str) -> Output {
    dtb(&[
        "verify",
        "--variant",
        variant,
        "--dir",
        dir,
        "--draw-rules",
        "none",
    ])
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A fresh folder holding every table of `variant` up to 3 pieces, built by `dtb generate` with
/// `extra` arguments.
fn built(variant: &str, extra: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let out = generate_3(variant, dir.path().to_str().unwrap(), extra);
    assert!(out.status.success(), "{}", stderr(&out));
    dir
}

/// `dtb generate` of every table of `variant` up to 3 pieces in `dir`, with `extra` arguments.
fn generate_3(variant: &str, dir: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "generate",
        "--variant",
        variant,
        "--pieces",
        "3",
        "--dir",
        dir,
    ];
    args.extend_from_slice(extra);
    dtb(&args)
}

#[test]
fn perft_prints_the_count_last_and_divides() {
    let out = dtb(&["perft", "--variant", "brazilian", "--depth", "5"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out).lines().last(), Some("7473"));

    let out = dtb(&["perft", "--variant", "russian", "--depth", "4", "--divide"]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 8, "seven moves and the total");
    let sum: u64 = lines[..7]
        .iter()
        .map(|l| l.split_whitespace().last().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 1469);
    assert_eq!(lines[7], "1469");
    assert!(lines.iter().any(|l| l.starts_with("c3-d4 ")), "{text}");

    let out = dtb(&[
        "perft",
        "--variant",
        "spanish",
        "--depth",
        "2",
        "--fen",
        "W:W1-12:B21-32",
    ]);
    assert_eq!(stdout(&out).lines().last(), Some("49"));
}

#[test]
fn perft_rejects_bad_input_with_a_message() {
    let out = dtb(&[
        "perft",
        "--variant",
        "russian",
        "--depth",
        "2",
        "--fen",
        "W:W21,21:B1",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("two pieces on square 21"),
        "{}",
        stderr(&out)
    );
    let out = dtb(&["perft", "--variant", "checkers", "--depth", "2"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("unknown variant"), "{}", stderr(&out));
}

fn modified(path: &Path) -> std::time::SystemTime {
    fs::metadata(path).unwrap().modified().unwrap()
}

#[test]
fn generate_skips_finished_tables_and_mends_damaged_raw_files() {
    let dir = built("russian", &["--keep-raw"]);
    let d = dir.path().to_str().unwrap();
    let rules = RuleSetId::Russian;
    let signatures: Vec<Signature> = (2..=3).flat_map(Signature::with_pieces).collect();
    for &s in &signatures {
        assert!(raw_table_path(dir.path(), rules, s).exists(), "{s}");
    }
    let kept = raw_table_path(dir.path(), rules, "KKvK".parse().unwrap());
    let deleted = raw_table_path(dir.path(), rules, "KMvK".parse().unwrap());
    let truncated = raw_table_path(dir.path(), rules, "MvMM".parse().unwrap());
    let kept_time = modified(&kept);
    fs::remove_file(&deleted).unwrap();
    let bytes = fs::read(&truncated).unwrap();
    fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    // A temporary file left by an interrupted run is not mistaken for a table.
    fs::write(deleted.with_extension("dtr.partial"), b"half a table").unwrap();

    let out = dtb(&[
        "generate",
        "--variant",
        "russian",
        "--pieces",
        "3",
        "--dir",
        d,
        "--threads",
        "1",
        "--keep-raw",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        modified(&kept),
        kept_time,
        "a finished table is not rebuilt"
    );
    assert!(Table::open(dir.path(), rules, "KMvK".parse().unwrap(), true).is_ok());
    assert!(Table::open(dir.path(), rules, "MvMM".parse().unwrap(), true).is_ok());

    let out = dtb(&["verify", "--variant", "russian", "--dir", d]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(stdout(&out).contains(&format!(
        "{} tables checked, 0 inconsistent",
        signatures.len()
    )));
}

#[test]
fn stats_json_has_the_documented_keys() {
    let dir = built("portuguese", &[]);
    let d = dir.path().to_str().unwrap();
    // Spanish shares the Portuguese tables.
    let out = dtb(&["stats", "--variant", "spanish", "--dir", d, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 16);
    for row in rows {
        let n = |k: &str| row[k].as_u64().unwrap_or_else(|| panic!("{k} in {row}"));
        assert_eq!(n("wins") + n("draws") + n("losses"), n("positions"));
        assert!(n("captures") <= n("positions"));
        let table: Signature = row["table"].as_str().unwrap().parse().unwrap();
        assert_eq!(n("pieces"), u64::from(table.pieces()));
        if n("max_dtw") > 0 {
            let fen = row["max_dtw_fen"].as_str().unwrap();
            assert!(dprobe::Position::from_fen(fen, &dprobe::Variant::SPANISH).is_ok());
        } else {
            assert!(row["max_dtw_fen"].is_null());
        }
    }
    let kkvk = rows.iter().find(|r| r["table"] == "KKvK").unwrap();
    assert_eq!(kkvk["positions"], 14880);
}

#[test]
fn generate_json_gives_each_solved_table_as_stats_and_the_manifest_give_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = generate_3("russian", d, &["--json", "--draw-rules", "none"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 16, "every table up to 3 pieces, one line each");
    // What `dtb stats --json` reads back from the published files, and the committed manifest.
    let out = dtb(&["stats", "--variant", "russian", "--dir", d, "--json"]);
    let stats: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let mut stats = stats.as_array().unwrap().clone();
    let by_table = |a: &serde_json::Value, b: &serde_json::Value| {
        a["table"].as_str().cmp(&b["table"].as_str())
    };
    lines.sort_by(by_table);
    stats.sort_by(by_table);
    assert_eq!(lines, stats);
    let manifest: serde_json::Value =
        serde_json::from_str(include_str!("../../../tables/manifest.json")).unwrap();
    for line in &lines {
        let entry = manifest["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["rule_set"] == "russian" && e["table"] == line["table"]);
        assert_eq!(entry, Some(line));
    }
    // A rerun solves nothing and prints nothing.
    let out = generate_3("russian", d, &["--json", "--draw-rules", "none"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
}

#[test]
fn verify_names_an_inconsistent_position_and_a_damaged_file() {
    let dir = built("brazilian", &["--keep-raw"]);
    let d = dir.path().to_str().unwrap();
    let rules = RuleSetId::Brazilian;
    let signature: Signature = "KKvK".parse().unwrap();
    let table = Table::open(dir.path(), rules, signature, true).unwrap();
    // Rewrite the table with one value changed, under a valid checksum: only the consistency
    // pass can notice.
    let wrong = (0..table.index.size())
        .find(|&i| matches!(table.value(i), Some(Value::Win(_))))
        .unwrap();
    let values: Vec<u16> = (0..table.index.size())
        .map(|i| {
            if i == wrong {
                Value::Draw.pack()
            } else {
                table.packed(i)
            }
        })
        .collect();
    let stats = table.stats;
    drop(table);
    write_table(dir.path(), rules, signature, values.into_iter(), &stats).unwrap();
    let out = dtb(&["verify", "--variant", "brazilian", "--dir", d]);
    assert!(!out.status.success());
    let text = stdout(&out);
    assert!(text.contains("KKvK: INCONSISTENT"), "{text}");
    assert!(text.contains(&format!("index {wrong} ")), "{text}");
    assert!(text.contains("stored Some(Draw)"), "{text}");

    // Flip one byte: the checksum catches it and the file is named.
    let path = raw_table_path(dir.path(), rules, "KvK".parse().unwrap());
    let mut bytes = fs::read(&path).unwrap();
    bytes[200] ^= 0x40;
    fs::write(&path, bytes).unwrap();
    // The pure tables only: the rule pass would add a line saying it skips damaged pure tables.
    let out = verify_pure_tables("brazilian", d);
    assert!(!out.status.success());
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("KvK: cannot check"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("KvK.dtr") && line.contains("checksum"),
        "{line}"
    );
    // Every table is still reported: those whose moves lead into the damaged one name it.
    let signatures = (2..=3).flat_map(Signature::with_pieces).count();
    let reports = text.lines().filter(|l| !l.starts_with("    index")).count();
    assert_eq!(reports, signatures + 1, "{text}");
    // KvKK reaches KvK by taking a king; KKvK cannot reach it (taking the last king ends the
    // game), so it is still checked and its planted error still found.
    assert!(text.contains("KvKK: cannot check"), "{text}");
    assert!(text.contains("KKvK: INCONSISTENT"), "{text}");
}

#[test]
fn verify_on_the_published_files_alone_names_a_wrong_entry() {
    // A set of published files whose entries are wrong under valid checksums: the raw value of
    // a position without a capture changed, the compressed files written again from it, the raw
    // files deleted. The values rebuilt from the files are then wrong at that position, and only
    // the check of its moves can tell.
    let dir = built("russian", &["--keep-raw", "--draw-rules", "none"]);
    let d = dir.path().to_str().unwrap();
    let rules = RuleSetId::Russian;
    let signature: Signature = "KKvK".parse().unwrap();
    let table = Table::open(dir.path(), rules, signature, true).unwrap();
    let moves = Variant::RUSSIAN.moves;
    let wrong = (0..table.index.size())
        .find(|&i| {
            matches!(table.value(i), Some(Value::Win(_)))
                && !has_capture(&table.index.board(i), &moves)
        })
        .unwrap();
    let values: Vec<u16> = (0..table.index.size())
        .map(|i| match i == wrong {
            true => Value::Draw.pack(),
            false => table.packed(i),
        })
        .collect();
    let stats = table.stats;
    drop(table);
    write_table(dir.path(), rules, signature, values.into_iter(), &stats).unwrap();
    let out = generate_3("russian", d, &["--recompress", "--draw-rules", "none"]);
    assert!(out.status.success(), "{}", stderr(&out));
    for entry in fs::read_dir(dir.path().join("russian")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "dtr") {
            fs::remove_file(path).unwrap();
        }
    }
    let out = verify_pure_tables("russian", d);
    assert!(!out.status.success());
    let text = stdout(&out);
    assert!(text.contains("KKvK: INCONSISTENT"), "{text}");
    assert!(text.contains(&format!("index {wrong} ")), "{text}");
    assert!(text.contains("stored Some(Draw)"), "{text}");
}

#[test]
fn generate_rejects_impossible_requests() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for pieces in ["1", "9"] {
        let out = dtb(&[
            "generate",
            "--variant",
            "russian",
            "--pieces",
            pieces,
            "--dir",
            d,
        ]);
        assert!(!out.status.success());
        assert!(
            stderr(&out).contains("--pieces must be between 2 and 8"),
            "{}",
            stderr(&out)
        );
    }
    let out = dtb(&["stats", "--variant", "russian", "--dir", d]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("dtb generate"), "{}", stderr(&out));
}

#[test]
fn a_faster_compression_level_gives_files_that_verify() {
    let dir = built("russian", &["--zstd-level", "1"]);
    let d = dir.path().to_str().unwrap();
    let out = dtb(&["verify", "--variant", "russian", "--dir", d]);
    assert!(out.status.success(), "{}", stdout(&out));
    let out = dtb(&[
        "probe",
        "--variant",
        "russian",
        "--dir",
        d,
        "--json",
        "W:WK21,K26:BK31",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(["win", "draw", "loss"].contains(&json["wdl"].as_str().unwrap()));
    for level in ["0", "23"] {
        let out = dtb(&[
            "generate",
            "--variant",
            "russian",
            "--pieces",
            "3",
            "--dir",
            d,
            "--zstd-level",
            level,
        ]);
        assert!(!out.status.success(), "level {level} accepted");
    }
}

/// The bytes of every compressed file of the Russian tables in `dir`, by name.
fn compressed_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir.join("russian"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "wdl" || e == "dtw"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, fs::read(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn rule_tables_built_after_the_pure_ones_read_their_raw_files_and_leave_none() {
    // In one command the rule build reads each pair's raw files, then deletes them.
    let together = built("brazilian", &[]);
    let built_together = files(together.path());
    let raw: Vec<&String> = built_together
        .keys()
        .filter(|n| n.ends_with(".dtr"))
        .collect();
    assert!(raw.is_empty(), "{raw:?}");
    assert!(built_together
        .keys()
        .any(|name| name.ends_with("KKvK.rules")));
    // The same files as rule tables built later from the published files alone.
    let apart = built("brazilian", &["--draw-rules", "none"]);
    let out = generate_3("brazilian", apart.path().to_str().unwrap(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_same_files(&built_together, &files(apart.path()), "brazilian");
    // With `--keep-raw` both builds keep them.
    let kept = built("brazilian", &["--keep-raw"]);
    let rules = RuleSetId::Brazilian;
    for signature in (2..=3).flat_map(Signature::with_pieces) {
        assert!(
            raw_table_path(kept.path(), rules, signature).exists(),
            "{signature}"
        );
    }
}

#[test]
fn recompress_rewrites_the_compressed_files_of_a_built_set() {
    let dir = built("russian", &["--draw-rules", "none"]);
    let d = dir.path().to_str().unwrap();
    let before = compressed_files(dir.path());
    let rerun =
        |extra: &[&str]| generate_3("russian", d, &[&["--draw-rules", "none"], extra].concat());
    // A rerun keeps finished files, whatever compression it is given.
    let out = rerun(&["--compression", "small"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        compressed_files(dir.path()) == before,
        "a rerun rewrote files"
    );
    // Asked to, it writes every one again under the compression asked for.
    let out = rerun(&["--recompress", "--zstd-level", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let after = compressed_files(dir.path());
    assert_eq!(
        before.iter().map(|(name, _)| name).collect::<Vec<_>>(),
        after.iter().map(|(name, _)| name).collect::<Vec<_>>()
    );
    assert!(after != before, "no file was written again");
    let out = dtb(&["verify", "--variant", "russian", "--dir", d]);
    assert!(out.status.success(), "{}", stdout(&out));
    // One compression at a time.
    let out = rerun(&["--compression", "small", "--zstd-level", "3"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--zstd-level"), "{}", stderr(&out));
}

#[test]
fn probe_gives_results_under_the_counted_rules() {
    let dir = built("russian", &[]);
    let d = dir.path().to_str().unwrap();
    let probe = |extra: &[&str]| {
        let mut args = vec!["probe", "--variant", "russian", "--dir", d, "--json"];
        args.extend_from_slice(extra);
        args.push("W:WK21,K26:BK31");
        dtb(&args)
    };
    let out = probe(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let five = ["win", "cursed-win", "draw", "blessed-loss", "loss"];
    assert!(five.contains(&json["result"].as_str().unwrap()), "{json}");
    for mv in json["moves"].as_array().unwrap() {
        assert!(five.contains(&mv["result"].as_str().unwrap()), "{mv}");
    }
    // Every count at its limit: a draw whatever the pure value.
    let out = probe(&["--counts", "r5-small=10,r2-kings-only=10"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["result_now"], "draw", "{json}");
    let out = probe(&["--counts", "r9-nothing=3"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("r5-small"), "{}", stderr(&out));
}

#[test]
fn stats_count_what_the_rules_and_each_rule_alone_turn_into_draws() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = dtb(&[
        "generate",
        "--variant",
        "russian",
        "--pieces",
        "4",
        "--dir",
        d,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = dtb(&["stats", "--variant", "russian", "--dir", d, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let n = |v: &serde_json::Value| v.as_u64().unwrap();
    let mut kvkkk = None;
    let mut leave_pure = 0;
    for table in json.as_array().unwrap() {
        // The rules only turn wins and losses into draws.
        assert_eq!(
            n(&table["rule_wins"]) + n(&table["cursed_wins"]),
            n(&table["wins"])
        );
        assert_eq!(
            n(&table["rule_losses"]) + n(&table["blessed_losses"]),
            n(&table["losses"])
        );
        let turned_by = table["turned_by"].as_object().unwrap();
        assert_eq!(turned_by.len(), 7, "every Russian counter: {table}");
        for alone in turned_by.values() {
            // One counter alone changes no more than all of them.
            assert!(
                n(&alone["cursed_wins"]) <= n(&table["cursed_wins"]),
                "{table}"
            );
            assert!(
                n(&alone["blessed_losses"]) <= n(&table["blessed_losses"]),
                "{table}"
            );
        }
        // A material the rules leave pure: nothing turned, no requirement counted.
        if table["rules_leave_pure"] == true {
            assert_eq!(n(&table["cursed_wins"]) + n(&table["blessed_losses"]), 0);
            assert!(table["longest_rule_win"].is_null(), "{table}");
            leave_pure += 1;
        // A win under the rules has a requirement and a position that needs it.
        } else if n(&table["rule_wins"]) > 0 {
            let fen = table["longest_rule_win_fen"].as_str().unwrap();
            let out = dtb(&["probe", "--variant", "russian", "--dir", d, "--json", fen]);
            let probe: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
            assert_eq!(probe["result"], "win", "{table}");
        }
        if table["table"] == "KKKvK" {
            // Rule 1: three kings must win within 15 moves, 29 plies with the strong side to
            // move; the pure game's longest win takes 25.
            let longest = n(&table["longest_rule_win"]);
            assert!(longest > 0 && longest <= 29, "{table}");
        }
        if table["table"] == "KvKKK" {
            kvkkk = Some(table.clone());
        }
    }
    // Materials where one side has no king and no exit is turned (such as MvMM) are stored
    // as pure; the others, with a king on both sides or a turned exit, are not.
    assert!(leave_pure > 0 && leave_pure < json.as_array().unwrap().len());
    // The lone king's long-diagonal rule saves it; the three-kings limit alone never does
    // (the longest pure win takes 13 moves of 15).
    let kvkkk = kvkkk.unwrap();
    let blessed = n(&kvkkk["blessed_losses"]);
    assert!(blessed > 0, "{kvkkk}");
    assert_eq!(
        n(&kvkkk["turned_by"]["r4-long-diagonal"]["blessed_losses"]),
        blessed
    );
    assert_eq!(
        n(&kvkkk["turned_by"]["r1-three-kings"]["blessed_losses"]),
        0
    );
    let out = dtb(&["stats", "--variant", "russian", "--dir", d]);
    assert!(
        stdout(&out).contains(&format!("r4-long-diagonal 0/{blessed}")),
        "{}",
        stdout(&out)
    );
    // `dtb find` lists those positions: as many as counted, each saved by the diagonal rule.
    let out = dtb(&[
        "find",
        "--variant",
        "russian",
        "--dir",
        d,
        "--table",
        "KvKKK",
        "--rule-changes",
        "--limit",
        "100000",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let found: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(n(&found["blessed_losses"]), blessed);
    assert_eq!(n(&found["cursed_wins"]), 0);
    let first = found["first"].as_array().unwrap();
    assert_eq!(first.len() as u64, blessed);
    for change in first {
        assert_eq!(change["result"], "blessed-loss", "{change}");
        assert_eq!(
            change["by"],
            serde_json::json!(["r4-long-diagonal"]),
            "{change}"
        );
    }
    // The probe agrees on the first.
    let fen = first[0]["fen"].as_str().unwrap();
    let out = dtb(&["probe", "--variant", "russian", "--dir", d, "--json", fen]);
    let probe: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(probe["result"], "blessed-loss", "{fen}");
}

#[test]
fn rule_settings_choose_other_readings_and_bad_ones_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    // Three moves for the Spanish three-kings rule instead of 13: some wins no longer fit.
    let setting = ["--rule-setting", "spanish-three-kings-moves=3"];
    let mut args = vec![
        "generate",
        "--variant",
        "spanish",
        "--pieces",
        "4",
        "--dir",
        d,
    ];
    args.extend_from_slice(&["--zstd-level", "3"]);
    args.extend_from_slice(&setting);
    let out = dtb(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let kkkvk = |extra: &[&str]| {
        let mut args = vec!["stats", "--variant", "spanish", "--dir", d, "--json"];
        args.extend_from_slice(extra);
        let out = dtb(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        json.as_array()
            .unwrap()
            .iter()
            .find(|t| t["table"] == "KKKvK")
            .cloned()
            .unwrap()
    };
    let table = kkkvk(&setting);
    let name = table["draw_rules"].as_str().unwrap();
    assert!(name.starts_with("spanish-") && name != "spanish", "{table}");
    assert!(table["cursed_wins"].as_u64().unwrap() > 0, "{table}");
    // The tables of RULES.md's reading are other tables, not built here.
    assert!(kkkvk(&[]).get("draw_rules").is_none());

    let probe = |settings: &[&str]| {
        let mut args = vec!["probe", "--variant", "spanish", "--dir", d];
        for s in settings {
            args.extend_from_slice(&["--rule-setting", s]);
        }
        args.push("W:WK21,K26,K30:BK31");
        dtb(&args)
    };
    let out = probe(&["spanish-three-kings-moves=3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    for (setting, message) in [
        ("spanish-three-kings-moves=0", "expected moves, 1 to 60"),
        ("forcada-moves=many", "expected moves, 1 to 60"),
        ("r1-requires-no-men=yes", "expected true | false"),
        ("no-such=1", "the settings are r4-limit-outcome"),
        ("forcada-moves", "expected name=value"),
    ] {
        let out = probe(&[setting]);
        assert!(!out.status.success(), "{setting} accepted");
        assert!(
            stderr(&out).contains(message),
            "{setting}: {}",
            stderr(&out)
        );
    }
    // A restarted Forçada with a second count in the same ending is refused by name.
    let out = probe(&[
        "forcada-restart-on-leave=true",
        "kings-rule-excludes-three-kings=false",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("forcada-restart-on-leave=true with kings-rule-excludes"),
        "{}",
        stderr(&out)
    );
}

/// The help of `--rule-setting` names every setting `dprobe::draw::SETTINGS` lists (the help text is
/// written by hand).
#[test]
fn rule_setting_help_names_every_setting() {
    for command in ["generate", "probe", "stats", "verify"] {
        let out = dtb(&[command, "--help"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let help = stdout(&out);
        for (name, _) in dprobe::draw::SETTINGS {
            assert!(help.contains(name), "dtb {command} --help lacks {name}");
        }
    }
}

#[test]
fn find_lists_the_longest_wins_with_their_lines_and_the_zugzwangs() {
    let dir = built("russian", &["--draw-rules", "none"]);
    let d = dir.path().to_str().unwrap();
    let find = |extra: &[&str]| {
        let mut args = vec!["find", "--variant", "russian", "--dir", d];
        args.extend_from_slice(extra);
        dtb(&args)
    };
    let out = find(&["--table", "KKvK", "--longest", "3", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let wins: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let wins = wins.as_array().unwrap();
    assert_eq!(wins.len(), 3);
    let mut previous = u64::MAX;
    for win in wins {
        let plies = win["plies"].as_u64().unwrap();
        assert!(plies <= previous, "longest first");
        previous = plies;
        // The line runs to the end of the game: one move a ply.
        assert_eq!(win["line"].as_array().unwrap().len() as u64, plies, "{win}");
    }

    let out = find(&[
        "--table",
        "KMvK",
        "--zugzwangs",
        "--limit",
        "100000",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let found: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let counted: u64 = found["zugzwangs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["positions"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, found["first"].as_array().unwrap().len() as u64);
    assert!(counted > 0, "KMvK has mutual zugzwangs");

    let out = find(&["--table", "KvKvK", "--zugzwangs"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("not a table name"),
        "{}",
        stderr(&out)
    );
    let out = find(&["--table", "KKKKvK", "--longest", "1"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("missing table KKKKvK"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn info_describes_table_and_rule_files_and_info_and_stats_name_damage() {
    let dir = built("russian", &[]);
    let pure = dir.path().join("russian").join("KKvK.wdl");
    let out = dtb(&["info", pure.to_str().unwrap()]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("signature          KKvK (3 pieces)"),
        "{text}"
    );
    assert!(text.contains("checksums          ok"), "{text}");

    // A rule table: its rules, its families and every section's size.
    let rules = dir.path().join("russian").join("fmjd64").join("KKvK.rules");
    let out = dtb(&["info", rules.to_str().unwrap()]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    for expected in [
        "kind               draw-rule table",
        "draw rules         fmjd64 (as RULES.md reads them",
        "signature          KKvK (3 pieces)",
        "family pre",
        "fresh results",
        "r1-three-kings alone",
        "checksums          ok",
    ] {
        assert!(text.contains(expected), "{expected:?} in {text}");
    }
    // Results alone that follow from the fresh results are named, with no bytes.
    assert!(
        text.contains("turns nothing") || text.contains("turns what all turn"),
        "{text}"
    );
    let listed: u64 = text
        .lines()
        .filter(|l| l.starts_with("  ") && !l.contains(" turns "))
        .map(|l| {
            l.split_whitespace()
                .rev()
                .nth(1)
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    let header = fs::read(&rules).unwrap().len() as u64 - listed;
    assert!(
        header > 0 && header < 1024,
        "sections {listed}, header {header}"
    );

    // One byte of the last section changed: described, then the check fails.
    let mut bytes = fs::read(&rules).unwrap();
    let last = bytes.len() - 20;
    bytes[last] ^= 0x55;
    fs::write(&rules, &bytes).unwrap();
    let out = dtb(&["info", rules.to_str().unwrap()]);
    let text = stdout(&out);
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("checksums          FAILED"), "{text}");

    // Cut short: an error that names the file and the problem, not a description.
    fs::write(&rules, &bytes[..40]).unwrap();
    let out = dtb(&["info", rules.to_str().unwrap()]);
    assert!(!out.status.success());
    let error = stderr(&out);
    assert!(
        error.contains("KKvK.rules") && error.contains("truncated"),
        "{error}"
    );

    // `dtb stats` names the rule file it cannot read, rather than leaving its row out; so
    // it does a file that holds another table.
    let d = dir.path().to_str().unwrap();
    let stats_names_the_file = |problem: &str| {
        let out = dtb(&["stats", "--variant", "russian", "--dir", d]);
        assert!(!out.status.success(), "{}", stdout(&out));
        let error = stderr(&out);
        assert!(
            error.contains("KKvK.rules") && error.contains(problem),
            "{error}"
        );
    };
    stats_names_the_file("truncated");
    fs::copy(rules.with_file_name("KvKK.rules"), &rules).unwrap();
    stats_names_the_file("holds the rule table of KvKK");
}
