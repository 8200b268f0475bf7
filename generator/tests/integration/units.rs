//! Builds cut into units as a cluster runs them: `dtb plan` and `dtb generate --unit`, each
//! unit a process of its own on a shared folder, several at once.

use std::path::Path;
use std::process::{Command, Output};

use crate::published::{assert_same_files, files};

fn dtb(args: &[&str], dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_dtb"));
    command.args(args).arg("--dir").arg(dir);
    command
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The units of `dtb plan` with `args` (and `plan_args`), by id.
fn plan_units(args: &[&str], plan_args: &[&str]) -> Vec<serde_json::Value> {
    let plan = Command::new(env!("CARGO_BIN_EXE_dtb"))
        .args([&["plan", "--json"][..], args, plan_args].concat())
        .output()
        .unwrap();
    assert!(plan.status.success(), "{}", text(&plan));
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    plan["units"].as_array().unwrap().clone()
}

fn id(unit: &serde_json::Value) -> String {
    unit["id"].as_str().unwrap().to_string()
}

/// Runs every unit with `dtb generate ARGS --unit ID` in waves, as a scheduler runs them: every
/// unit whose units before it are done, at once. Returns the number of waves.
fn run_in_waves(units: &[serde_json::Value], generate: &[&str], dir: &Path) -> usize {
    let mut done: Vec<String> = Vec::new();
    let mut waves = 0;
    while done.len() < units.len() {
        let ready: Vec<String> = units
            .iter()
            .filter(|u| !done.contains(&id(u)))
            .filter(|u| {
                u["after"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|a| done.iter().any(|d| d == a.as_str().unwrap()))
            })
            .map(id)
            .collect();
        assert!(!ready.is_empty(), "no unit can start after {done:?}");
        let jobs: Vec<_> = ready
            .iter()
            .map(|unit| {
                let mut command = dtb(&[generate, &["--unit", unit]].concat(), dir);
                command.stdout(std::process::Stdio::piped());
                command.stderr(std::process::Stdio::piped());
                (unit, command.spawn().unwrap())
            })
            .collect();
        for (unit, job) in jobs {
            let out = job.wait_with_output().unwrap();
            assert!(out.status.success(), "unit {unit}: {}", text(&out));
        }
        done.extend(ready);
        waves += 1;
    }
    waves
}

#[test]
fn units_run_as_separate_processes_give_the_bytes_of_a_whole_build() {
    let scratch = tempfile::tempdir().unwrap();
    let args = ["--variant", "russian", "--pieces", "3"];
    let generate = [&["generate"][..], &args].concat();
    let whole = dtb(&generate, scratch.path()).output().unwrap();
    assert!(whole.status.success(), "{}", text(&whole));

    let units = plan_units(&args, &[]);
    assert_eq!(id(units.last().unwrap()), "rule-tables");
    let dir = tempfile::tempdir().unwrap();
    let waves = run_in_waves(&units, &generate, dir.path());
    assert!(waves < units.len(), "some units ran side by side");
    let built = files(dir.path());
    assert_same_files(&files(scratch.path()), &built, "units");
    // A unit run again (a job resubmitted) leaves its files as they are.
    let again = dtb(&[&generate[..], &["--unit", "KvKK"]].concat(), dir.path())
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", text(&again));
    assert!(files(dir.path()) == built);
}

#[test]
fn pairs_built_in_parts_give_the_bytes_of_pairs_built_whole() {
    let args = [
        "--variant",
        "brazilian",
        "--pieces",
        "4",
        "--draw-rules",
        "none",
    ];
    let generate = [&["generate"][..], &args].concat();
    let whole = tempfile::tempdir().unwrap();
    let out = dtb(&generate, whole.path()).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));

    // A part limit small enough that every 4-piece pair with men is cut, most level by level.
    let units = plan_units(&args, &["--part-positions", "30000"]);
    let parts: Vec<&serde_json::Value> = units.iter().filter(|u| u["levels"].is_array()).collect();
    assert!(parts.len() > 60, "{} parts", parts.len());
    let dir = tempfile::tempdir().unwrap();
    run_in_waves(&units, &generate, dir.path());
    assert_same_files(&files(whole.path()), &files(dir.path()), "parts");
    // The part files are gone once each pair's tables are written.
    let left: Vec<String> = std::fs::read_dir(dir.path().join("brazilian"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".part"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_part_waits_for_the_part_above_and_refuses_a_damaged_one() {
    let args = [
        "--variant",
        "russian",
        "--pieces",
        "3",
        "--draw-rules",
        "none",
    ];
    let generate = [&["generate"][..], &args].concat();
    let units = plan_units(&args, &["--part-positions", "2000"]);
    let dir = tempfile::tempdir().unwrap();
    let run = |unit: &str| {
        dtb(&[&generate[..], &["--unit", unit]].concat(), dir.path())
            .output()
            .unwrap()
    };
    // Every unit before the pair KvMM, built in parts.
    let first = units
        .iter()
        .position(|u| id(u).starts_with("KvMM.levels-"))
        .unwrap();
    for unit in &units[..first] {
        assert!(run(&id(unit)).status.success(), "{}", id(unit));
    }
    let parts: Vec<String> = units[first..]
        .iter()
        .map(id)
        .take_while(|u| u.starts_with("KvMM.levels-"))
        .collect();
    assert!(parts.len() >= 3, "{parts:?}");

    // The second part before the first: the level it reads is named.
    let out = run(&parts[1]);
    assert!(!out.status.success());
    let level = units[first]["levels"][0].as_u64().unwrap();
    assert!(
        text(&out).contains(&format!(
            "unit {} reads the part of KvMM that solves level {level}",
            parts[1]
        )),
        "{}",
        text(&out)
    );
    // Levels the pair does not have.
    let out = run("KvMM.levels-0-99");
    assert!(!out.status.success());
    assert!(text(&out).contains("no unit KvMM.levels-0-99 in the plan up to 3 pieces"));

    // The first part, run twice: the second run keeps its file.
    assert!(run(&parts[0]).status.success());
    let part_file = dir
        .path()
        .join("russian")
        .join(format!("{}.part", parts[0]));
    let bytes = std::fs::read(&part_file).unwrap();
    assert!(run(&parts[0]).status.success());
    assert_eq!(std::fs::read(&part_file).unwrap(), bytes);

    // A damaged part file is refused by the part that reads it, which writes nothing.
    let mut damaged = bytes.clone();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 0x10;
    std::fs::write(&part_file, &damaged).unwrap();
    let out = run(&parts[1]);
    assert!(!out.status.success());
    assert!(text(&out).contains("checksum mismatch"), "{}", text(&out));
    std::fs::write(&part_file, &bytes[..bytes.len() - 3]).unwrap();
    let out = run(&parts[1]);
    assert!(text(&out).contains("truncated"), "{}", text(&out));
    let second = dir
        .path()
        .join("russian")
        .join(format!("{}.part", parts[1]));
    assert!(!second.exists());

    // Mended, the parts finish the pair; files named like parts of levels the pair does not
    // have are no parts of it.
    std::fs::write(&part_file, &bytes).unwrap();
    for stray in ["KvMM.levels-5-4.part", "KvMM.levels-1-999.part"] {
        std::fs::write(dir.path().join("russian").join(stray), b"stray").unwrap();
    }
    for part in &parts[1..] {
        assert!(run(part).status.success(), "{part}");
    }
    assert!(dir.path().join("russian/KvMM.wdl").exists());
    assert!(!part_file.exists());
    // A part run again once the pair is written does nothing.
    let written = files(dir.path());
    assert!(run(&parts[0]).status.success());
    assert!(files(dir.path()) == written);
}

#[test]
fn a_unit_refuses_to_start_before_the_tables_it_reads_and_unknown_units() {
    let dir = tempfile::tempdir().unwrap();
    let generate = [
        "generate",
        "--variant",
        "russian",
        "--pieces",
        "3",
        "--unit",
    ];
    // KvKK captures into KvK, whose unit has not run.
    let out = dtb(&[&generate[..], &["KvKK"]].concat(), dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out).contains("unit KvKK reads table KvK ("),
        "{}",
        text(&out)
    );
    for unknown in ["KvQ", "KKKvK", ""] {
        let out = dtb(&[&generate[..], &[unknown]].concat(), dir.path())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{unknown}");
        assert!(
            text(&out).contains(&format!("no unit {unknown} in the plan up to 3 pieces")),
            "{}",
            text(&out)
        );
    }
    // The rule tables before the pure ones: the first missing table is named.
    let out = dtb(&[&generate[..], &["rule-tables"]].concat(), dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(text(&out).contains("missing table"), "{}", text(&out));
    // Nothing was written.
    assert!(files(dir.path()).is_empty());
}
