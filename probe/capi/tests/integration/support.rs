//! What the tests share: tables built once per run in temporary folders, the positions of those
//! tables in the variant's numbering, and the C programs compiled against the static library.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use dprobe::draw::MAX_COUNTERS;
use dprobe::index::{Signature, TableIndex};
use dprobe::rules::RuleSetId;
use dprobe::{Color, DrawCounts, Position, ProbeError, Variant};
use draughts_generator::draw::build::generate_draw_tables;
use draughts_generator::pure::build::generate;
use draughts_generator::pure::solve::Silent;

/// The capi crate's folder.
pub fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Pieces of the tables built for each rule set: every test of Russian goes up to 4; the other
/// rule sets test the numbering and the notation, which 3 pieces already cover square by square.
pub fn pieces(variant: &Variant) -> u32 {
    match variant.moves.id {
        RuleSetId::Russian | RuleSetId::Iberian => 4,
        RuleSetId::Brazilian => 3,
    }
}

/// The pure tables of the variant's rule set and the rule tables of its draw rules, built once
/// per test run (Portuguese and Spanish share one folder: one rule set, two sets of draw rules).
pub fn tables(variant: &Variant) -> &'static Path {
    static DIRS: [OnceLock<tempfile::TempDir>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    // The draw rules built so far into each folder.
    static DRAW_BUILT: Mutex<Vec<(RuleSetId, String)>> = Mutex::new(Vec::new());
    let slot = match variant.moves.id {
        RuleSetId::Russian => 0,
        RuleSetId::Brazilian => 1,
        RuleSetId::Iberian => 2,
    };
    let pieces = pieces(variant);
    let dir = DIRS[slot]
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            generate(dir.path(), &variant.moves, pieces, &Silent).unwrap();
            dir
        })
        .path();
    let rules = variant.draw_rules();
    let mut built = DRAW_BUILT.lock().unwrap();
    let key = (variant.moves.id, rules.directory_name());
    if !built.contains(&key) {
        generate_draw_tables(dir, &variant.moves, &rules, pieces, 3, true, &Silent).unwrap();
        built.push(key);
    }
    dir
}

/// Every `step`th position of every table of `pieces` pieces, with both colours to move
/// (alternating with the index: each table stores both through its colour-flipped twin).
pub fn positions(
    pieces: std::ops::RangeInclusive<u32>,
    step: u64,
) -> impl Iterator<Item = Position> {
    pieces
        .flat_map(Signature::with_pieces)
        .flat_map(move |signature| {
            let index = TableIndex::new(signature);
            (0..index.size()).step_by(step as usize).map(move |i| {
                let color = if i % 2 == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                Position::from_board(&index.board(i), color)
            })
        })
}

/// A position's bitboards in the variant's numbering (bit n − 1 for square n), and its side to
/// move (1 for White).
pub fn numbered(variant: &Variant, position: &Position) -> [u32; 5] {
    let n = variant.notation.numbering;
    [
        n.numbered(position.white_men),
        n.numbered(position.white_kings),
        n.numbered(position.black_men),
        n.numbered(position.black_kings),
        u32::from(position.side_to_move == Color::White),
    ]
}

/// The counts as `dprobe_draw_counts` holds them.
pub fn slots(counts: &DrawCounts) -> [u16; MAX_COUNTERS] {
    std::array::from_fn(|k| match counts.count(k) {
        None => 0xFFFF,
        Some(None) => 0xFFFE,
        Some(Some(plies)) => plies,
    })
}

/// The C code of each probe error (the header's `DPROBE_ERR_*`), written out here apart from
/// the library's own mapping.
pub fn code(error: &ProbeError) -> i32 {
    match error {
        ProbeError::MissingTable { .. } | ProbeError::MissingDrawTable { .. } => -1,
        ProbeError::TooManyPieces { .. } => -2,
        ProbeError::InvalidPosition(_) => -3,
        ProbeError::Corrupted(_) | ProbeError::DrawRulesMismatch { .. } => -4,
        ProbeError::Io { .. } => -5,
        ProbeError::NotInCache => -7,
        ProbeError::Counts(_) | ProbeError::UnsupportedDrawRules(_) => -8,
    }
}

/// The static library cargo built for this test run. The lib target's `staticlib` is written
/// without a hash in its name into the `deps` folder beside this test's executable (cargo copies
/// it up to `target/<profile>/` only when the library itself is what is built).
pub fn static_lib() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    [deps, deps.parent().unwrap()]
        .iter()
        .map(|dir| dir.join("libdprobe_c.a"))
        .find(|lib| lib.is_file())
        .unwrap_or_else(|| panic!("libdprobe_c.a not found in {}", deps.display()))
}

/// Whether the static library is the one built with this test (optimised as the test profile
/// says). Every profile writes `deps/libdprobe_c.a` under the same name: a `cargo build` after
/// the tests were built replaces it with an unoptimised one, newer than this executable, which
/// a later `cargo test` does not rebuild (it gives the same answers, only slower).
pub fn static_lib_is_this_builds() -> bool {
    let modified = |path: &Path| fs::metadata(path).and_then(|m| m.modified()).ok();
    match (
        modified(&static_lib()),
        modified(&std::env::current_exe().unwrap()),
    ) {
        (Some(lib), Some(exe)) => lib <= exe,
        _ => true,
    }
}

/// Compiles C source files of `tests/c/` against the header and the static library into a
/// program in cargo's temporary folder; `None` (with a notice) if `flags` are not supported by
/// the C compiler (only asked for optional ones, such as a sanitizer).
pub fn compile(sources: &[&str], name: &str, flags: &[&str]) -> Option<PathBuf> {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let mut cc = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
    cc.args(["-std=c11", "-D_POSIX_C_SOURCE=200809L", "-O1", "-g"])
        .args(["-Wall", "-Wextra", "-Werror"])
        .args(flags)
        .arg("-I")
        .arg(crate_dir().join("include"));
    for source in sources {
        cc.arg(crate_dir().join("tests/c").join(source));
    }
    cc.arg(static_lib())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&out);
    let result = cc.output().expect("cannot run the C compiler `cc`");
    if !result.status.success() {
        let stderr = String::from_utf8_lossy(&result.stderr);
        if flags.is_empty() {
            panic!("cc failed:\n{stderr}");
        }
        eprintln!("notice: cc {flags:?} failed, skipped:\n{stderr}");
        return None;
    }
    Some(out)
}
