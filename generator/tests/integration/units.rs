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

#[test]
fn units_run_as_separate_processes_give_the_bytes_of_a_whole_build() {
    let scratch = tempfile::tempdir().unwrap();
    let args = ["--variant", "russian", "--pieces", "3"];
    let generate = [&["generate"][..], &args].concat();
    let whole = dtb(&generate, scratch.path()).output().unwrap();
    assert!(whole.status.success(), "{}", text(&whole));

    let plan = Command::new(env!("CARGO_BIN_EXE_dtb"))
        .args([&["plan", "--json"][..], &args].concat())
        .output()
        .unwrap();
    assert!(plan.status.success(), "{}", text(&plan));
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let units = plan["units"].as_array().unwrap();
    let id = |u: &serde_json::Value| u["id"].as_str().unwrap().to_string();
    assert_eq!(id(units.last().unwrap()), "rule-tables");

    // In waves, as a scheduler runs them: every unit whose units before it are done, at once.
    let dir = tempfile::tempdir().unwrap();
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
                let mut command = dtb(&[&generate[..], &["--unit", unit]].concat(), dir.path());
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
