//! The compressed table files and the probe: every position of every table up to 4 pieces probes
//! to the solver's value for every rule set, damaged and foreign files give typed errors, and
//! threads probing at once agree with one.

use dprobe::format::TableKind;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use dprobe::{
    format::TableFile, index::Signature, rules::has_capture, Color, Corruption, Position,
    ProbeError, Tablebase, Value, Variant, Wdl,
};
use draughts_generator::pure::build::{generate, generate_with, BuildOptions};
use draughts_generator::pure::solve::Silent;
use draughts_generator::pure::store::Table;
use draughts_generator::pure::verify::check_published;
use draughts_generator::pure::write::{
    capture_flags, encode, symbols, write_atomically, Fill, Layout,
};

/// Tables up to 4 pieces for one variant, built once per test run.
pub(crate) fn built(variant: &Variant) -> &'static Path {
    static DIRS: [OnceLock<tempfile::TempDir>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let slot = match variant.moves.id {
        dprobe::rules::RuleSetId::Russian => 0,
        dprobe::rules::RuleSetId::Brazilian => 1,
        dprobe::rules::RuleSetId::Iberian => 2,
    };
    DIRS[slot]
        .get_or_init(|| {
            // The raw files kept: the probe of the published files is compared with them.
            let dir = tempfile::tempdir().unwrap();
            let keep_raw = BuildOptions {
                keep_raw: true,
                ..BuildOptions::default()
            };
            generate_with(dir.path(), &variant.moves, 4, &keep_raw, &Silent).unwrap();
            dir
        })
        .path()
}

pub(crate) fn tablebase(variant: &Variant, dir: &Path) -> Tablebase {
    let mut tables = Tablebase::new(*variant);
    assert!(tables.add_directory(dir).unwrap() > 0);
    tables
}

pub(crate) fn signatures_up_to(pieces: u32) -> Vec<Signature> {
    (2..=pieces).flat_map(Signature::with_pieces).collect()
}

fn every_position_probes_to_the_solvers_value(variant: Variant) {
    let dir = built(&variant);
    let tables = tablebase(&variant, dir);
    let mut captures = 0u64;
    let mut positions = 0u64;
    for signature in signatures_up_to(4) {
        let raw = Table::open(dir, variant.moves.id, signature, true).unwrap();
        for index in 0..raw.index.size() {
            let board = raw.index.board(index);
            // Both colours to move: Black's view is the same board turned.
            let color = if index % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            let position = Position::from_board(&board, color);
            let solved = raw.value(index).unwrap();
            assert_eq!(
                tables.probe_dtw(&position).unwrap(),
                solved,
                "{signature} #{index} {}",
                position.to_fen(&variant)
            );
            assert_eq!(tables.probe_wdl(&position).unwrap(), solved.wdl());
            captures += u64::from(has_capture(&board, &variant.moves));
            positions += 1;
        }
    }
    eprintln!(
        "{}: {positions} positions agree ({captures} resolved through captures)",
        variant.name
    );
}

#[test]
fn every_position_up_to_4_pieces_probes_to_the_solvers_value_russian() {
    every_position_probes_to_the_solvers_value(Variant::RUSSIAN);
}

#[test]
fn every_position_up_to_4_pieces_probes_to_the_solvers_value_brazilian() {
    every_position_probes_to_the_solvers_value(Variant::BRAZILIAN);
}

#[test]
fn every_position_up_to_4_pieces_probes_to_the_solvers_value_iberian() {
    every_position_probes_to_the_solvers_value(Variant::SPANISH);
}

#[test]
fn best_moves_and_lines_follow_the_values() {
    let variant = Variant::RUSSIAN;
    let tables = tablebase(&variant, built(&variant));
    // The longest win of three kings against one (see `dtb stats`).
    let position = Position::from_fen("W:WK21,K26,K30:BK31", &variant).unwrap();
    assert_eq!(tables.probe_dtw(&position).unwrap(), Value::Win(25));
    let moves = tables.probe_moves(&position).unwrap();
    assert_eq!(moves.len(), position.legal_moves(&variant).len());
    assert_eq!(moves[0].1, Value::Win(25));
    assert!(moves.windows(2).all(|w| !w[1].1.is_better_than(w[0].1)));
    assert_eq!(tables.best_move(&position).unwrap(), Some(moves[0]));
    let line = tables.principal_variation(&position).unwrap();
    assert_eq!(line.len(), 25);
    let mut at = position;
    for (ply, mv) in line.iter().enumerate() {
        let expected = if ply % 2 == 0 {
            Value::Win(25 - ply as u16)
        } else {
            Value::Loss(25 - ply as u16)
        };
        assert_eq!(tables.probe_dtw(&at).unwrap(), expected, "ply {ply}");
        at = at.play(mv);
    }
    assert!(
        at.legal_moves(&variant).is_empty(),
        "the line ends the game"
    );
    // A draw has no line; a lost position without moves has no best move.
    let draw = Position::from_fen("W:WK21:BK31", &variant).unwrap();
    assert_eq!(tables.probe_dtw(&draw).unwrap(), Value::Draw);
    assert!(tables.principal_variation(&draw).unwrap().is_empty());
    let blocked = Position::from_fen("W:W29:BK25,K22", &variant).unwrap();
    if blocked.legal_moves(&variant).is_empty() {
        assert_eq!(tables.probe_dtw(&blocked).unwrap(), Value::Loss(0));
        assert_eq!(tables.best_move(&blocked).unwrap(), None);
    }
}

#[test]
fn positions_the_tables_cannot_answer_are_typed_errors() {
    let variant = Variant::RUSSIAN;
    let dir = built(&variant);
    let tables = tablebase(&variant, dir);
    let five = Position::from_fen("W:WK1,K2,K3:BK31,K32", &variant).unwrap();
    assert!(matches!(
        tables.probe_wdl(&five),
        Err(ProbeError::TooManyPieces { pieces: 5, max: 4 })
    ));
    let no_opponent = Position::from_fen("W:WK1:B", &variant);
    if let Ok(position) = no_opponent {
        assert!(matches!(
            tables.probe_wdl(&position),
            Err(ProbeError::InvalidPosition(_))
        ));
    }
    let mut overlapping = Position::from_fen("W:WK1:BK32", &variant).unwrap();
    overlapping.black_kings |= overlapping.white_kings;
    assert!(matches!(
        tables.probe_dtw(&overlapping),
        Err(ProbeError::InvalidPosition(_))
    ));
    // A table removed: the error names it.
    let partial = tempfile::tempdir().unwrap();
    copy_tables(dir, partial.path(), &variant);
    let missing = partial.path().join("russian").join("KKKvK.wdl");
    std::fs::remove_file(&missing).unwrap();
    let tables = tablebase(&variant, partial.path());
    let position = Position::from_fen("W:WK21,K26,K30:BK31", &variant).unwrap();
    match tables.probe_wdl(&position) {
        Err(ProbeError::MissingTable {
            signature, kind, ..
        }) => {
            assert_eq!(signature.to_string(), "KKKvK");
            assert_eq!(kind, dprobe::format::TableKind::Wdl);
        }
        other => panic!("expected a missing table, got {other:?}"),
    }
    let message = tables.probe_wdl(&position).unwrap_err().to_string();
    assert!(message.contains("KKKvK.wdl"), "{message}");
}

fn copy_tables(from: &Path, to: &Path, variant: &Variant) {
    let name = variant.moves.id.name();
    std::fs::create_dir_all(to.join(name)).unwrap();
    for entry in std::fs::read_dir(from.join(name)).unwrap() {
        let path = entry.unwrap().path();
        if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("wdl" | "dtw")
        ) {
            std::fs::copy(&path, to.join(name).join(path.file_name().unwrap())).unwrap();
        }
    }
}

/// A lone king against a lone king on different diagonals: stored in KvK, no capture to follow.
const KVK: &str = "W:WK29:BK1";

/// Probes KvK from a copy of the Russian tables whose `KvK.wdl` was damaged by `damage`.
fn probe_damaged(damage: impl FnOnce(&Path)) -> (ProbeError, PathBuf) {
    let (error, path, _copy) = probe_damaged_keeping_copy(damage);
    (error, path)
}

/// As [`probe_damaged`], also returning the copy (deleted when dropped).
fn probe_damaged_keeping_copy(
    damage: impl FnOnce(&Path),
) -> (ProbeError, PathBuf, tempfile::TempDir) {
    let variant = Variant::RUSSIAN;
    let copy = tempfile::tempdir().unwrap();
    copy_tables(built(&variant), copy.path(), &variant);
    let target = copy.path().join("russian").join("KvK.wdl");
    damage(&target);
    let tables = tablebase(&variant, copy.path());
    let position = Position::from_fen(KVK, &variant).unwrap();
    let error = tables.probe_wdl(&position).unwrap_err();
    // The failure is remembered, not retried into a different answer.
    assert_eq!(
        tables.probe_wdl(&position).unwrap_err().to_string(),
        error.to_string()
    );
    (error, target, copy)
}

fn corruption(error: ProbeError, path: &Path) -> Corruption {
    match error {
        ProbeError::Corrupted(c) => {
            assert_eq!(c.path, path);
            assert!(c.to_string().contains("KvK.wdl"));
            c.reason
        }
        other => panic!("expected a corrupted table, got {other:?}"),
    }
}

fn flip_byte(path: &Path, at: impl FnOnce(usize) -> usize) {
    let mut bytes = std::fs::read(path).unwrap();
    let i = at(bytes.len());
    bytes[i] ^= 0x20;
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn undamaged_copy_probes() {
    let variant = Variant::RUSSIAN;
    let copy = tempfile::tempdir().unwrap();
    copy_tables(built(&variant), copy.path(), &variant);
    let tables = tablebase(&variant, copy.path());
    let position = Position::from_fen(KVK, &variant).unwrap();
    let board = position.board();
    assert!(!has_capture(&board, &variant.moves));
    let raw = Table::open(
        built(&variant),
        variant.moves.id,
        Signature::of(&board),
        true,
    )
    .unwrap();
    let solved = raw.value(raw.index.index(&board)).unwrap();
    assert_eq!(tables.probe_wdl(&position).unwrap(), solved.wdl());
    assert_eq!(tables.probe_wdl(&position).unwrap(), Wdl::Draw);
}

/// The DTW file stores no draws (FORMAT.md, version 2): the probe takes them from the WDL file,
/// and reports a DTW entry whose parity disagrees with the WDL file instead of answering.
#[test]
fn a_dtw_file_holds_no_draws_and_must_agree_with_the_wdl_file() {
    let variant = Variant::RUSSIAN;
    let rules = variant.moves.id;
    let copy = tempfile::tempdir().unwrap();
    copy_tables(built(&variant), copy.path(), &variant);
    let signature: Signature = "KKvK".parse().unwrap();
    let raw = Table::open(built(&variant), rules, signature, true).unwrap();
    let quiet = |index: u64| !has_capture(&raw.index.board(index), &variant.moves);
    let values: Vec<u16> = (0..raw.index.size()).map(|i| raw.packed(i)).collect();
    // Every draw's entry says "wins in 1 ply", and one quiet win's says "lost now".
    let mut symbols = symbols(&values, TableKind::Dtw).unwrap();
    for (symbol, &value) in symbols.iter_mut().zip(&values) {
        if Value::unpack(value) == Some(Value::Draw) {
            *symbol = 2;
        }
    }
    let contradicted = (0..raw.index.size())
        .find(|&i| quiet(i) && matches!(raw.value(i), Some(Value::Win(_))))
        .unwrap();
    symbols[contradicted as usize] = 1;
    let nothing_skipped = bitvec::bitvec![u64, bitvec::order::Lsb0; 0; symbols.len()];
    let bytes = encode(
        rules,
        signature,
        TableKind::Dtw,
        (&symbols, &nothing_skipped),
        Layout::DTW,
        &[Fill::Solved],
    )
    .unwrap();
    let path = dprobe::format::table_path(copy.path(), rules, signature, TableKind::Dtw);
    // The files as written hold the raw values wherever the probe reads them.
    let captures = capture_flags(&variant.moves, &raw.index);
    check_published(copy.path(), &variant.moves, &raw, &captures).unwrap();
    write_atomically(&path, &bytes).unwrap();
    // `dtb verify`'s check of the published files finds the contradicted entry, and only it:
    // the draws' entries are don't-care.
    let problem = check_published(copy.path(), &variant.moves, &raw, &captures)
        .unwrap_err()
        .to_string();
    assert!(
        problem.contains("KKvK.dtw") && problem.contains(&format!("position {contradicted} ")),
        "{problem}"
    );

    let tables = tablebase(&variant, copy.path());
    let mut draws = 0;
    for index in (0..raw.index.size()).filter(|&i| quiet(i) && i != contradicted) {
        let position = Position::from_board(&raw.index.board(index), Color::White);
        let solved = raw.value(index).unwrap();
        assert_eq!(tables.probe_dtw(&position).unwrap(), solved, "#{index}");
        draws += usize::from(solved == Value::Draw);
    }
    assert!(draws > 1000, "KKvK is mostly drawn: {draws} draws probed");
    let position = Position::from_board(&raw.index.board(contradicted), Color::White);
    match tables.probe_dtw(&position).unwrap_err() {
        ProbeError::Corrupted(c) => {
            assert_eq!(c.path, path);
            assert_eq!(c.reason, Corruption::InvalidValue(contradicted));
        }
        other => panic!("expected a corrupted table, got {other:?}"),
    }
    // The win/draw/loss probe does not read the DTW file.
    assert_eq!(tables.probe_wdl(&position).unwrap(), Wdl::Win);
}

#[test]
fn a_flipped_header_byte_is_reported() {
    for at in [0, 9, 12, 20, 30, 40, 57] {
        let (error, path) = probe_damaged(|p| flip_byte(p, |_| at));
        let reason = corruption(error, &path);
        let expected = match at {
            0 => Corruption::BadMagic,
            9 => Corruption::UnsupportedVersion(0x2002),
            _ => Corruption::HeaderChecksum,
        };
        assert_eq!(reason, expected, "byte {at}");
    }
}

#[test]
fn a_flipped_offset_table_byte_is_reported() {
    let (error, path) = probe_damaged(|p| flip_byte(p, |_| 64 + 3));
    assert_eq!(corruption(error, &path), Corruption::BlockTableChecksum);
    let (error, path) = probe_damaged(|p| flip_byte(p, |_| 64 + 12));
    assert_eq!(corruption(error, &path), Corruption::BlockTableChecksum);
}

#[test]
fn a_flipped_block_byte_is_reported_when_the_block_is_read() {
    // KvK has one block: it starts after the 64-byte header and one 16-byte entry.
    let (error, path, _copy) = probe_damaged_keeping_copy(|p| flip_byte(p, |_| 64 + 16 + 5));
    assert_eq!(corruption(error, &path), Corruption::BlockChecksum(0));
    // The file checksum catches it too.
    let file = TableFile::open(&path).unwrap();
    assert_eq!(file.verify().unwrap_err().reason, Corruption::FileChecksum);
}

#[test]
fn a_truncated_or_empty_file_is_reported() {
    for keep in [1usize, 10, 63, 70, 100] {
        let (error, path) = probe_damaged(|p| {
            let bytes = std::fs::read(p).unwrap();
            std::fs::write(p, &bytes[..keep.min(bytes.len() - 1)]).unwrap();
        });
        let reason = corruption(error, &path);
        assert!(
            matches!(reason, Corruption::Truncated { .. }),
            "{keep} bytes: {reason:?}"
        );
    }
    let (error, path) = probe_damaged(|p| {
        let bytes = std::fs::read(p).unwrap();
        std::fs::write(p, &bytes[..bytes.len() - 1]).unwrap();
    });
    assert!(matches!(
        corruption(error, &path),
        Corruption::Truncated { .. }
    ));
    let (error, path) = probe_damaged(|p| std::fs::write(p, b"").unwrap());
    assert_eq!(corruption(error, &path), Corruption::Empty);
    let (error, path) = probe_damaged(|p| {
        let mut bytes = std::fs::read(p).unwrap();
        bytes.push(0);
        std::fs::write(p, bytes).unwrap();
    });
    assert!(matches!(
        corruption(error, &path),
        Corruption::TrailingBytes { .. }
    ));
}

#[test]
fn a_file_of_another_table_under_the_name_is_reported() {
    let brazilian = built(&Variant::BRAZILIAN).join("brazilian");
    let (error, path) = probe_damaged(|p| {
        std::fs::copy(brazilian.join("KvK.wdl"), p)
            .map(drop)
            .unwrap()
    });
    assert_eq!(
        corruption(error, &path),
        Corruption::ForeignRuleSet {
            found: "brazilian",
            expected: "russian"
        }
    );
    let (error, path) = probe_damaged(|p| {
        std::fs::copy(p.with_file_name("KvM.wdl"), p)
            .map(drop)
            .unwrap()
    });
    assert!(matches!(
        corruption(error, &path),
        Corruption::ForeignSignature { .. }
    ));
    let (error, path) = probe_damaged(|p| {
        std::fs::copy(p.with_file_name("KvK.dtw"), p)
            .map(drop)
            .unwrap()
    });
    assert!(matches!(
        corruption(error, &path),
        Corruption::ForeignKind { .. }
    ));
}

#[test]
fn threads_probing_at_once_agree_with_one_thread() {
    let variant = Variant::RUSSIAN;
    let dir = built(&variant);
    let mut tables = tablebase(&variant, dir);
    // A cache far smaller than the tables: threads evict each other's blocks all the time.
    tables.set_cache_size(64 << 10);
    let positions: Vec<Position> = ["KKMvK", "KMvKM", "MMvKK", "KKvKM"]
        .iter()
        .flat_map(|name| {
            let signature: Signature = name.parse().unwrap();
            let index = dprobe::index::TableIndex::new(signature);
            (0..index.size())
                .step_by(7)
                .map(move |i| Position::from_board(&index.board(i), Color::White))
        })
        .collect();
    let alone: Vec<Value> = positions
        .iter()
        .map(|p| tables.probe_dtw(p).unwrap())
        .collect();
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (tables, positions, alone) = (&tables, &positions, &alone);
            scope.spawn(move || {
                // Each thread walks the positions from a different starting point.
                let n = positions.len();
                for k in 0..n {
                    let i = (k * 31 + t * n / 4) % n;
                    assert_eq!(tables.probe_dtw(&positions[i]).unwrap(), alone[i]);
                    assert_eq!(tables.probe_wdl(&positions[i]).unwrap(), alone[i].wdl());
                }
            });
        }
    });
}

#[test]
fn every_compressed_file_passes_its_own_verification() {
    let variant = Variant::RUSSIAN;
    let dir = built(&variant).join("russian");
    for signature in signatures_up_to(4) {
        for ext in ["wdl", "dtw"] {
            let path = dir.join(format!("{signature}.{ext}"));
            let file = TableFile::open(&path).unwrap();
            file.verify().unwrap();
            assert_eq!(file.header().signature, signature);
        }
    }
}

/// Recomputes the checksums (blocks, block table, header, whole file) of a damaged table file in
/// place, as far as its block count and offsets allow, so that damage reaches the checks behind
/// them. The same as the fuzz target's (`fuzz/fuzz_targets/table_file.rs`).
fn reseal(bytes: &mut [u8]) {
    use xxhash_rust::xxh3::xxh3_64;
    if bytes.len() < 64 {
        return;
    }
    let blocks = u32::from_le_bytes(bytes[28..32].try_into().unwrap()) as usize;
    let Some(table_end) = blocks.checked_mul(16).and_then(|n| n.checked_add(64)) else {
        return;
    };
    if table_end <= bytes.len() {
        let mut start = 0u64;
        for block in 0..blocks {
            let entry = 64 + 16 * block;
            let end = u64::from_le_bytes(bytes[entry..entry + 8].try_into().unwrap());
            let range = start
                .checked_add(table_end as u64)
                .zip(end.checked_add(table_end as u64));
            if let Some((from, to)) = range {
                if from <= to && to <= bytes.len() as u64 {
                    let sum = xxh3_64(&bytes[from as usize..to as usize]);
                    bytes[entry + 8..entry + 16].copy_from_slice(&sum.to_le_bytes());
                }
            }
            start = end;
        }
        let sum = xxh3_64(&bytes[64..table_end]);
        bytes[48..56].copy_from_slice(&sum.to_le_bytes());
    }
    let sum = xxh3_64(&bytes[..56]);
    bytes[56..64].copy_from_slice(&sum.to_le_bytes());
    let body = bytes.len() - 8;
    if body >= 64 {
        let sum = xxh3_64(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
    }
}

/// The stable-Rust stand-in for the fuzz target: every single-byte change (three patterns) and
/// every truncation of small real files, as they are and resealed, read and verified without a
/// panic; an intact reseal changes nothing.
#[test]
fn mutated_files_never_panic_the_reader() {
    let dir = built(&Variant::RUSSIAN).join("russian");
    let mut rejected = 0u64;
    let mut accepted = 0u64;
    for name in ["KvK.wdl", "KvM.dtw", "MvM.wdl", "KKvK.wdl"] {
        let original = std::fs::read(dir.join(name)).unwrap();
        let mut same = original.clone();
        reseal(&mut same);
        assert_eq!(
            same, original,
            "{name}: resealing an intact file changes it"
        );
        let mut try_bytes = |bytes: Vec<u8>| {
            let mut resealed = bytes.clone();
            reseal(&mut resealed);
            for candidate in [bytes, resealed] {
                match TableFile::from_bytes(name, candidate).map(|f| f.verify()) {
                    Ok(Ok(())) => accepted += 1,
                    _ => rejected += 1,
                }
            }
        };
        for at in 0..original.len() {
            for pattern in [0x01u8, 0x80, 0xFF] {
                let mut bytes = original.clone();
                bytes[at] ^= pattern;
                try_bytes(bytes);
            }
        }
        for len in 0..original.len() {
            try_bytes(original[..len].to_vec());
        }
    }
    eprintln!("{rejected} damaged files rejected, {accepted} accepted");
    assert!(rejected > accepted);
}

#[test]
fn a_rerun_writes_missing_or_damaged_compressed_files_again() {
    let variant = Variant::RUSSIAN;
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), &variant.moves, 3, &Silent).unwrap();
    let tables = dir.path().join("russian");
    let wdl = tables.join("KKvK.wdl");
    let dtw = tables.join("KvKM.dtw");
    let original = (std::fs::read(&wdl).unwrap(), std::fs::read(&dtw).unwrap());
    std::fs::remove_file(&wdl).unwrap();
    flip_byte(&dtw, |_| 20);
    generate(dir.path(), &variant.moves, 3, &Silent).unwrap();
    assert_eq!(std::fs::read(&wdl).unwrap(), original.0);
    assert_eq!(std::fs::read(&dtw).unwrap(), original.1);
}
