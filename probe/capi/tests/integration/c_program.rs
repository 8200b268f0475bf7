//! A C program (`tests/c/check.c`) linked with the static library probes through the C
//! interface, and what it answers is compared with the Rust API: every position up to 4 pieces
//! (Russian) by bitboards, by position strings the C side writes, and by the cache-only probe;
//! the numbering and notation of every variant; moves and counted draw rules; every error code;
//! threads through one handle; the same under AddressSanitizer.

use std::fs;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use dprobe::format::{table_path, TableKind};
use dprobe::rules::{legal_moves, RuleSetId};
use dprobe::{DrawCounts, Position, Tablebase, Variant, Wdl};

use crate::support::{
    code, compile, numbered, pieces, positions, slots, static_lib_is_this_builds, tables,
};

/// The check program, compiled once per run.
fn check_program() -> &'static Path {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| compile(&["check.c"], "dprobe-check", &[]).unwrap())
}

/// The check program under AddressSanitizer, if the toolchain builds it.
fn asan_program() -> Option<&'static Path> {
    static PROGRAM: OnceLock<Option<PathBuf>> = OnceLock::new();
    PROGRAM
        .get_or_init(|| {
            compile(
                &["check.c"],
                "dprobe-check-asan",
                &["-fsanitize=address", "-fno-omit-frame-pointer"],
            )
        })
        .as_deref()
}

fn open(variant: &Variant) -> Tablebase {
    let mut tables = Tablebase::new(*variant);
    tables.add_directory(self::tables(variant)).unwrap();
    tables
}

fn wdl_code(wdl: Wdl) -> i16 {
    match wdl {
        Wdl::Win => 1,
        Wdl::Draw => 0,
        Wdl::Loss => -1,
    }
}

/// Runs `program` with `args`, feeding it `input` from a thread while `read` consumes its
/// output; checks that it exits with success.
fn run_piped(
    program: &Path,
    args: &[&str],
    input: impl FnOnce(&mut dyn Write) + Send,
    read: impl FnOnce(&mut dyn BufRead),
) {
    let mut child = Command::new(program)
        .args(args)
        .env("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut writer = BufWriter::with_capacity(1 << 16, stdin);
            input(&mut writer);
            // A program that stopped early shows in its status below.
            let _ = writer.flush();
        });
        read(&mut BufReader::with_capacity(1 << 16, stdout));
    });
    let status = child.wait().unwrap();
    assert!(status.success(), "{} {args:?}: {status}", program.display());
}

/// Probes positions through `check positions` and compares every answer with the Rust API.
fn positions_agree(program: &Path, variant: &Variant, max_pieces: u32, step: u64) {
    let dir = tables(variant).to_str().unwrap().to_string();
    let tables = open(variant);
    let mut checked = 0u64;
    let mut wrong = Vec::new();
    run_piped(
        program,
        &["positions", variant.name, &dir],
        |out| {
            for position in positions(2..=max_pieces, step) {
                for word in numbered(variant, &position) {
                    if out.write_all(&word.to_le_bytes()).is_err() {
                        return;
                    }
                }
            }
        },
        |answers| {
            let mut bytes = [0u8; 20];
            for position in positions(2..=max_pieces, step) {
                answers
                    .read_exact(&mut bytes)
                    .expect("the C program stopped early");
                let got: [i16; 10] =
                    std::array::from_fn(|i| i16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]));
                let value = tables.probe_dtw(&position).unwrap();
                let w = wdl_code(value.wdl());
                let d = value.distance().map_or(-1, |d| d as i16);
                // rc_wdl, wdl, rc_dtw, dtw_wdl, dtw, rc_fen, fen_wdl, fen_dtw, rc_cached,
                // cached_wdl: after dprobe_preload every position is in the cache.
                let expected = [0, w, 0, w, d, 0, w, d, 0, w];
                if got != expected && wrong.len() < 10 {
                    wrong.push(format!(
                        "{}: C {got:?}, Rust {expected:?}",
                        position.to_fen(variant)
                    ));
                }
                checked += 1;
            }
            let mut rest = Vec::new();
            answers.read_to_end(&mut rest).unwrap();
            assert!(rest.is_empty(), "{} bytes too many", rest.len());
        },
    );
    assert!(wrong.is_empty(), "{}:\n{}", variant.name, wrong.join("\n"));
    eprintln!(
        "{}: {checked} positions agree through C (bitboards, position strings, cache-only)",
        variant.name
    );
}

#[test]
fn every_position_up_to_4_pieces_agrees_russian() {
    let step = if static_lib_is_this_builds() {
        1
    } else {
        eprintln!(
            "notice: libdprobe_c.a was rebuilt by another profile after this test (a `cargo \
             build`); every 5th position only: `touch probe/capi/src/lib.rs` and test again"
        );
        5
    };
    positions_agree(check_program(), &Variant::RUSSIAN, 4, step);
}

#[test]
fn each_variants_numbering_agrees() {
    // Brazilian shares Russian's numbering but not its rules; Portuguese and Spanish number
    // the board from White's right.
    for variant in [Variant::BRAZILIAN, Variant::PORTUGUESE, Variant::SPANISH] {
        positions_agree(check_program(), &variant, pieces(&variant).min(3), 1);
    }
    positions_agree(check_program(), &Variant::PORTUGUESE, 4, 17);
}

/// A fixed pseudo-random step.
fn next(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *seed >> 33
}

/// Requests for `check lines` and the Rust API's answers: from sample positions, a few plies
/// of a game with its running counts: the moves with their values at the start, the value under
/// the counted rules with the counts at every ply, every move under the counted rules now and
/// then, and the counts carried over each move played.
fn requests(variant: &Variant, tables: &Tablebase, step: u64) -> (String, Vec<String>) {
    let rules = tables.draw_rules().clone();
    let mut input = String::new();
    let mut expected = Vec::new();
    let join = |values: Vec<String>| values.join(" ");
    let list = |tag: &str, moves: Vec<(String, i32, i32)>| {
        format!(
            "{tag} {}|{}|{}|{}",
            moves.len(),
            join(moves.iter().map(|m| m.0.clone()).collect()),
            join(moves.iter().map(|m| m.1.to_string()).collect()),
            join(moves.iter().map(|m| m.2.to_string()).collect()),
        )
    };
    let counts_text =
        |counts: &DrawCounts| join(slots(counts).iter().map(u16::to_string).collect());
    for (n, start) in positions(2..=pieces(variant), step).enumerate() {
        let mut seed = n as u64;
        let mut position = start;
        let mut counts = DrawCounts::new();
        for ply in 0..6 {
            let [wm, wk, bm, bk, white] = numbered(variant, &position);
            let head = format!("{white} {wm:x} {wk:x} {bm:x} {bk:x}");
            if ply == 0 {
                input += &format!("M {head}\n");
                expected.push(match tables.probe_moves(&position) {
                    Ok(moves) => list(
                        "M",
                        moves
                            .iter()
                            .map(|(mv, value)| {
                                (
                                    position.move_to_string(variant, mv),
                                    i32::from(wdl_code(value.wdl())),
                                    value.distance().map_or(-1, i32::from),
                                )
                            })
                            .collect(),
                    ),
                    Err(e) => format!("M E {}", code(&e)),
                });
            }
            input += &format!("D {head} {}\n", counts_text(&counts));
            expected.push(match tables.probe_draw(&position, &counts) {
                Ok(probe) => format!(
                    "D {} {}",
                    i32::from(probe.result.code()) - 2,
                    wdl_code(probe.now)
                ),
                Err(e) => format!("D E {}", code(&e)),
            });
            if ply % 3 == 1 {
                input += &format!("Y {head} {}\n", counts_text(&counts));
                expected.push(match tables.draw_moves(&position, &counts) {
                    Ok(moves) => list(
                        "Y",
                        moves
                            .iter()
                            .map(|m| {
                                (
                                    position.move_to_string(variant, &m.mv),
                                    i32::from(m.result.code()) - 2,
                                    i32::from(wdl_code(m.now)),
                                )
                            })
                            .collect(),
                    ),
                    Err(e) => format!("Y E {}", code(&e)),
                });
            }
            let board = position.board();
            let mut moves = Vec::new();
            legal_moves(&board, &variant.moves, &mut moves);
            if moves.is_empty() {
                break;
            }
            let mv = moves[next(&mut seed) as usize % moves.len()];
            let after = Position::from_board(&board.play(&mv), position.side_to_move.other());
            let [awm, awk, abm, abk, _] = numbered(variant, &after);
            input += &format!(
                "X {head} {awm:x} {awk:x} {abm:x} {abk:x} {}\n",
                counts_text(&counts)
            );
            counts.play(&rules, &board, &mv);
            expected.push(format!("X {}", counts_text(&counts)));
            position = after;
        }
    }
    (input, expected)
}

fn lines_agree(variant: &Variant, step: u64) {
    let dir = tables(variant).to_str().unwrap().to_string();
    let tables = open(variant);
    let (input, expected) = requests(variant, &tables, step);
    let mut got = Vec::new();
    run_piped(
        check_program(),
        &["lines", variant.name, &dir],
        |out| {
            let _ = out.write_all(input.as_bytes());
        },
        |answers| got = answers.lines().map(Result::unwrap).collect(),
    );
    assert_eq!(got.len(), expected.len(), "{}: answers", variant.name);
    let wrong: Vec<String> = got
        .iter()
        .zip(&expected)
        .filter(|(g, e)| g != e)
        .take(10)
        .map(|(g, e)| format!("C    {g}\nRust {e}"))
        .collect();
    assert!(wrong.is_empty(), "{}:\n{}", variant.name, wrong.join("\n"));
    let draws = expected.iter().filter(|e| e.starts_with("D ")).count();
    eprintln!(
        "{}: {} answers agree ({draws} under the counted rules)",
        variant.name,
        expected.len()
    );
}

#[test]
fn moves_and_counted_draw_rules_agree() {
    lines_agree(&Variant::RUSSIAN, 1499);
    lines_agree(&Variant::BRAZILIAN, 97);
    lines_agree(&Variant::PORTUGUESE, 1499);
    lines_agree(&Variant::SPANISH, 1499);
}

/// Copies a folder tree.
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            fs::copy(&path, &target).unwrap();
        }
    }
}

/// Runs `check errors` on copies of the Russian tables: one without the table of kings against
/// a king, one where it is damaged, one where it disappears once the folder is opened.
fn every_error_code(program: &Path) {
    let variant = Variant::RUSSIAN;
    let full = tables(&variant);
    let scratch = tempfile::tempdir().unwrap();
    let kvk = |dir: &Path| {
        table_path(
            dir,
            RuleSetId::Russian,
            "KvK".parse().unwrap(),
            TableKind::Wdl,
        )
    };
    let [partial, damaged, unreadable] =
        ["partial", "damaged", "unreadable"].map(|name| scratch.path().join(name));
    for dir in [&partial, &damaged, &unreadable] {
        copy_tree(full, dir);
    }
    fs::remove_file(kvk(&partial)).unwrap();
    let mut bytes = fs::read(kvk(&damaged)).unwrap();
    // The last byte of the last block's data, before the file's checksum.
    let at = bytes.len() - 9;
    bytes[at] ^= 0x5A;
    fs::write(kvk(&damaged), bytes).unwrap();
    // A folder under the table's name: it opens, but cannot be mapped (an I/O error).
    fs::remove_file(kvk(&unreadable)).unwrap();
    fs::create_dir(kvk(&unreadable)).unwrap();
    let output = Command::new(program)
        .arg("errors")
        .arg(variant.name)
        .arg(full)
        .args([&partial, &damaged, &unreadable])
        .env("ASAN_OPTIONS", "detect_leaks=0")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for code in -8..=-1 {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(&format!("ok {code} "))),
            "code {code} not provoked:\n{stdout}"
        );
    }
    assert!(stdout.contains("errors: 0 failed"), "{stdout}");
    eprint!("{stdout}");
}

#[test]
fn every_error_code_but_internal() {
    every_error_code(check_program());
}

#[test]
fn threads_through_one_handle_agree_with_one_thread() {
    let variant = Variant::RUSSIAN;
    let dir = tables(&variant).to_str().unwrap().to_string();
    let mut report = String::new();
    run_piped(
        check_program(),
        &["threads", variant.name, &dir, "4"],
        |out| {
            for position in positions(2..=4, 97) {
                for word in numbered(&variant, &position) {
                    let _ = out.write_all(&word.to_le_bytes());
                }
            }
        },
        |answers| {
            answers.read_to_string(&mut report).unwrap();
        },
    );
    eprint!("{report}");
    assert!(report.contains(" 0 mismatches"), "{report}");
}

#[test]
fn under_address_sanitizer() {
    let Some(program) = asan_program() else {
        eprintln!("notice: the C compiler cannot build with -fsanitize=address; skipped");
        return;
    };
    every_error_code(program);
    positions_agree(program, &Variant::RUSSIAN, 3, 1);
    positions_agree(program, &Variant::PORTUGUESE, 4, 211);
    let dir = tables(&Variant::RUSSIAN).to_str().unwrap().to_string();
    let mut report = String::new();
    run_piped(
        program,
        &["threads", "russian", &dir, "3"],
        |out| {
            for position in positions(2..=4, 1009) {
                for word in numbered(&Variant::RUSSIAN, &position) {
                    let _ = out.write_all(&word.to_le_bytes());
                }
            }
        },
        |answers| {
            answers.read_to_string(&mut report).unwrap();
        },
    );
    assert!(report.contains(" 0 mismatches"), "{report}");
}

#[test]
fn the_example_program_runs() {
    let program = compile(&["example.c"], "dprobe-example", &[]).unwrap();
    let output = Command::new(program)
        .arg(tables(&Variant::RUSSIAN))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stderr.is_empty(),
        "{stdout}{stderr}"
    );
    // The longest win of three kings against one (see the probe's tests).
    for line in [
        "tables up to 4 pieces",
        "wdl 1",
        "dtw 25 plies",
        "black to move: wdl ",
    ] {
        assert!(stdout.contains(line), "{line:?} missing:\n{stdout}");
    }
    eprint!("{stdout}");
}
