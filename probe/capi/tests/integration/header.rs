//! The header against the library: every function it declares is exported and every exported
//! function is declared, its constants are the library's, it compiles as C and as C++, holds
//! the declarations engines compile against, and docs/ENGINES.md carries the example program as
//! it is tested.

use std::collections::BTreeSet;
use std::fs;
use std::process::Command;

use dprobe_c::*;

use crate::support::{crate_dir, static_lib};

fn header() -> String {
    fs::read_to_string(crate_dir().join("include/dprobe.h")).unwrap()
}

/// The header without its comments.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("*/").expect("unclosed comment") + start + 2;
        rest = &rest[end..];
    }
    out + rest
}

/// The `dprobe_` names followed by `(` (function declarations) in C code.
fn declared(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in code.match_indices("dprobe_") {
        if at > 0 && code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let name: String = code[at..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if code[at + name.len()..].trim_start().starts_with('(') {
            names.insert(name);
        }
    }
    names
}

/// The `#[no_mangle] ... extern "C" fn dprobe_*` functions of the crate's source.
fn exported_in_source() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for entry in fs::read_dir(crate_dir().join("src")).unwrap() {
        let text = fs::read_to_string(entry.unwrap().path()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(at) = line.find("extern \"C\" fn dprobe_") else {
                continue;
            };
            let name: String = line[at + "extern \"C\" fn ".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            assert!(
                i > 0 && lines[i - 1].trim() == "#[no_mangle]",
                "{name} is not #[no_mangle]"
            );
            names.insert(name);
        }
    }
    names
}

#[test]
fn header_declares_exactly_what_the_library_exports() {
    let declared = declared(&code(&header()));
    let source = exported_in_source();
    assert_eq!(
        declared, source,
        "header (left) against #[no_mangle] functions (right)"
    );
    assert!(declared.len() >= 19, "{declared:?}");
    // The symbols in the static library itself, if binutils are there.
    match Command::new("nm")
        .args(["-g", "--defined-only"])
        .arg(static_lib())
        .output()
    {
        Ok(output) if output.status.success() => {
            let symbols: BTreeSet<String> = String::from_utf8_lossy(&output.stdout)
                .lines()
                .filter_map(|line| {
                    let mut fields = line.split_whitespace().rev();
                    let name = fields.next()?;
                    (fields.next()? == "T" && name.starts_with("dprobe_")).then(|| name.to_string())
                })
                .collect();
            assert_eq!(declared, symbols, "header (left) against nm (right)");
        }
        _ => eprintln!("notice: no nm; the library's symbols are checked from its source only"),
    }
}

#[test]
fn header_holds_the_declarations_engines_compile_against() {
    let required = r#"typedef struct dprobe_tablebase dprobe_tablebase;
/* wdl: 1 win, 0 draw, -1 loss for the side to move; dtw: plies, -1 for a draw.
   Every int-returning call: 0 = ok, a negative DPROBE_ERR_* code otherwise. */
dprobe_tablebase *dprobe_open(const char *variant, const char *directory, size_t cache_bytes);
void dprobe_close(dprobe_tablebase *tb);              /* NULL is a no-op */
const char *dprobe_last_error(void);                  /* this thread's last message */
int dprobe_max_pieces(const dprobe_tablebase *tb);
int dprobe_probe_wdl(const dprobe_tablebase *tb, uint32_t white_men, uint32_t white_kings,
                     uint32_t black_men, uint32_t black_kings, int white_to_move, int *wdl);
int dprobe_probe_fen(const dprobe_tablebase *tb, const char *fen, int *wdl, int *dtw);
"#;
    assert!(header().contains(required));
    let ascii = header().bytes().all(|b| b.is_ascii());
    assert!(ascii, "the header is plain ASCII");
}

#[test]
fn header_constants_are_the_librarys() {
    let defines: Vec<(String, i64)> = code(&header())
        .lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("#define DPROBE_")?;
            let (name, value) = rest.split_once(' ')?;
            let value = value.trim().trim_start_matches('(').trim_end_matches(')');
            Some((format!("DPROBE_{name}"), value.parse().ok()?))
        })
        .collect();
    let library: Vec<(&str, i64)> = vec![
        ("DPROBE_OK", DPROBE_OK.into()),
        ("DPROBE_ERR_MISSING_TABLE", DPROBE_ERR_MISSING_TABLE.into()),
        (
            "DPROBE_ERR_TOO_MANY_PIECES",
            DPROBE_ERR_TOO_MANY_PIECES.into(),
        ),
        (
            "DPROBE_ERR_INVALID_POSITION",
            DPROBE_ERR_INVALID_POSITION.into(),
        ),
        ("DPROBE_ERR_CORRUPTED", DPROBE_ERR_CORRUPTED.into()),
        ("DPROBE_ERR_IO", DPROBE_ERR_IO.into()),
        ("DPROBE_ERR_NULL", DPROBE_ERR_NULL.into()),
        ("DPROBE_ERR_NOT_IN_CACHE", DPROBE_ERR_NOT_IN_CACHE.into()),
        ("DPROBE_ERR_BAD_ARGUMENT", DPROBE_ERR_BAD_ARGUMENT.into()),
        ("DPROBE_ERR_INTERNAL", DPROBE_ERR_INTERNAL.into()),
        ("DPROBE_MAX_COUNTERS", DPROBE_MAX_COUNTERS as i64),
        ("DPROBE_COUNT_NOT_STARTED", DPROBE_COUNT_NOT_STARTED.into()),
        ("DPROBE_COUNT_AT_START", DPROBE_COUNT_AT_START.into()),
        ("DPROBE_RESULT_WIN", 2),
        ("DPROBE_RESULT_CURSED_WIN", 1),
        ("DPROBE_RESULT_DRAW", 0),
        ("DPROBE_RESULT_BLESSED_LOSS", -1),
        ("DPROBE_RESULT_LOSS", -2),
        ("DPROBE_MOVE_TEXT_MAX", 48),
    ];
    for (name, value) in &library {
        assert!(
            defines.iter().any(|(n, v)| n == name && v == value),
            "{name} = {value} not in the header: {defines:?}"
        );
    }
    assert_eq!(defines.len(), library.len(), "{defines:?}");
    // The error codes are distinct.
    let codes: BTreeSet<i64> = library[..10].iter().map(|c| c.1).collect();
    assert_eq!(codes.len(), 10);
    assert_eq!(std::mem::size_of::<DrawCountsC>(), 32);
}

#[test]
fn header_compiles_as_c_and_as_cpp() {
    let path = crate_dir().join("include/dprobe.h");
    let status = Command::new("cc")
        .args([
            "-fsyntax-only",
            "-std=c99",
            "-pedantic",
            "-Wall",
            "-Wextra",
            "-Werror",
        ])
        .args(["-x", "c"])
        .arg(&path)
        .status()
        .expect("cannot run the C compiler `cc`");
    assert!(status.success(), "the header does not compile as C");
    match Command::new("c++")
        .args([
            "-fsyntax-only",
            "-std=c++11",
            "-pedantic",
            "-Wall",
            "-Wextra",
            "-Werror",
        ])
        .args(["-x", "c++"])
        .arg(&path)
        .status()
    {
        Ok(status) => assert!(status.success(), "the header does not compile as C++"),
        Err(_) => eprintln!("notice: no C++ compiler (c++); the C++ check is skipped"),
    }
}

#[test]
fn engines_doc_carries_the_example_program() {
    let example = fs::read_to_string(crate_dir().join("tests/c/example.c")).unwrap();
    let doc = fs::read_to_string(crate_dir().join("../../docs/ENGINES.md")).unwrap();
    assert!(
        doc.contains(&format!("```c\n{example}```\n")),
        "docs/ENGINES.md must hold probe/capi/tests/c/example.c verbatim in a ```c block"
    );
}
