//! The independent check of rule tables (`rule_verify`): tables built by `generate_draw_tables`
//! pass it, and a table with one value changed — under valid checksums, so that only the
//! consistency pass can notice — fails it at that position.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use dprobe::{
    draw::{DrawPreset, Interpretation, PlaneKind, NEVER},
    format::{draw_dir, rule_set_dir, DrawFile},
    index::{Signature, TableIndex},
    rules::has_capture,
    DrawRules, DrawWdl, Variant, Wdl,
};
use draughts_generator::draw::build::generate_draw_tables;
use draughts_generator::draw::results::turned_bits;
use draughts_generator::draw::solve::{DrawTable, Family};
use draughts_generator::draw::stairs::Stairs;
use draughts_generator::draw::tables::{pure_results, DrawTables};
use draughts_generator::draw::verify::{
    verify_draw_table, DrawInconsistency, DrawQuantity, DrawValue,
};
use draughts_generator::draw::write::encode_draw_table;
use draughts_generator::pure::build::{build_order, generate};
use draughts_generator::pure::solve::Silent;
use draughts_generator::pure::tableset::TableSet;
use draughts_generator::Error;

use crate::cli::{dtb, verify_pure_tables};

/// Move rules and counted draw rules.
struct Rules {
    variant: Variant,
    draw: DrawRules,
}

impl Rules {
    fn new(variant: Variant, preset: DrawPreset) -> Rules {
        Rules {
            variant,
            draw: DrawRules::new(preset, Interpretation::default()),
        }
    }

    fn verify(&self, dir: &Path, signature: Signature) -> Vec<DrawInconsistency> {
        self.try_verify(dir, signature).unwrap()
    }

    fn try_verify(
        &self,
        dir: &Path,
        signature: Signature,
    ) -> Result<Vec<DrawInconsistency>, Error> {
        let pure = TableSet::new(dir, self.variant.moves);
        let tables = DrawTables::new(dir, self.variant.moves, self.draw.clone());
        verify_draw_table(&pure, &tables, &self.variant, signature, 10)
    }

    fn path(&self, dir: &Path, signature: Signature) -> PathBuf {
        dprobe::format::draw_table_path(dir, self.variant.moves.id, &self.draw, signature)
    }

    /// The rule table of `signature` in `dir`, decoded.
    fn read(&self, dir: &Path, signature: Signature) -> DrawTable {
        let file = DrawFile::open(&self.path(dir, signature)).unwrap();
        let mut families = Vec::new();
        for post in [false, true] {
            if let Some((kind, _)) = file.family(post) {
                let stairs = Stairs::from_corners(file.corners(post).unwrap());
                // The corners as read, and as the staircases of the layers they paint.
                assert_eq!(
                    stairs,
                    Stairs::from_layers(&file.layers(post).unwrap()).unwrap()
                );
                families.push(Family { post, kind, stairs });
            }
        }
        let pure = TableSet::new(dir, self.variant.moves);
        let results = pure_results(&pure, signature).unwrap();
        // The positions whose family entries no reader reads: pure draws and captures.
        let index = TableIndex::new(signature);
        let unread = results
            .iter()
            .enumerate()
            .map(|(i, &result)| {
                result == Wdl::Draw || has_capture(&index.board(i as u64), &self.variant.moves)
            })
            .collect();
        DrawTable {
            signature,
            fresh: file.fresh_results(&results).unwrap(),
            families,
            unread,
        }
    }

    /// Writes `table` in `dir` as a valid file (checksums and all).
    fn write(&self, dir: &Path, table: &DrawTable) {
        let bytes = encode_draw_table(&self.variant.moves, &self.draw, table, &[], 1).unwrap();
        std::fs::write(self.path(dir, table.signature), bytes).unwrap();
    }
}

/// A directory with the pure and rule tables of a variant up to some pieces.
struct Built {
    dir: tempfile::TempDir,
    rules: Rules,
    pieces: u32,
}

impl Built {
    fn new(variant: Variant, preset: DrawPreset, pieces: u32) -> Built {
        Built::with(Rules::new(variant, preset), pieces)
    }

    fn with(rules: Rules, pieces: u32) -> Built {
        let variant = rules.variant;
        let dir = tempfile::tempdir().unwrap();
        generate(dir.path(), &variant.moves, pieces, &Silent).unwrap();
        generate_draw_tables(
            dir.path(),
            &variant.moves,
            &rules.draw,
            pieces,
            1,
            true,
            &Silent,
        )
        .unwrap();
        Built { dir, rules, pieces }
    }

    /// Every rule table passes; returns how many were checked.
    fn verify_all(&self) -> usize {
        let Rules { variant, draw } = &self.rules;
        let pure = TableSet::new(self.dir.path(), variant.moves);
        let tables = DrawTables::new(self.dir.path(), variant.moves, draw.clone());
        let signatures = build_order(self.pieces);
        for &signature in &signatures {
            let found = verify_draw_table(&pure, &tables, variant, signature, 10).unwrap();
            assert!(
                found.is_empty(),
                "{} {signature}: {found:#?}",
                draw.directory_name()
            );
        }
        signatures.len()
    }

    /// A copy of the tables, to damage.
    fn copy(&self) -> tempfile::TempDir {
        let copy = tempfile::tempdir().unwrap();
        copy_dir(self.dir.path(), copy.path());
        copy
    }
}

/// Russian (FMJD-64) up to 4 pieces, built once for the tests of this file; tests that damage a
/// table work on a copy.
fn russian() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| Built::new(Variant::RUSSIAN, DrawPreset::Fmjd64, 4))
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn sig(name: &str) -> Signature {
    name.parse().unwrap()
}

#[test]
fn russian_rule_tables_up_to_four_pieces_pass() {
    let checked = russian().verify_all();
    assert!(checked > 40, "{checked}");
}

#[test]
fn portuguese_rule_tables_up_to_four_pieces_pass_and_changes_are_named() {
    let built = Built::new(Variant::PORTUGUESE, DrawPreset::Fpd, 4);
    built.verify_all();
    // The Forçada: a family before the river is occupied that no count limits (distances),
    // and one after it (thresholds of A); rule 2 with a man on the board: thresholds of Z.
    for (name, kind) in [
        ("KKKvK", PlaneKind::Distance),
        ("KKMvK", PlaneKind::ThresholdZ),
    ] {
        let signature = sig(name);
        let dir = built.dir.path();
        let mut table = built.rules.read(dir, signature);
        let family = &mut table.families[0];
        assert_eq!(family.kind, kind);
        let mut planes = family.stairs.to_layers();
        let wrong = (0..planes[0].len())
            .find(|&i| !table.unread[i] && (3..20).contains(&planes[0][i]))
            .unwrap();
        let stored = planes[0][wrong];
        planes[0][wrong] = stored - 1;
        family.stairs = Stairs::from_layers(&planes).unwrap();
        built.rules.write(dir, &table);
        let found = built.rules.verify(dir, signature);
        let hit = found
            .iter()
            .find(|f| f.index == wrong as u64)
            .unwrap_or_else(|| panic!("{name} index {wrong} not named: {found:#?}"));
        assert_eq!(
            hit.quantity,
            DrawQuantity::Threshold {
                post: false,
                kind,
                a: None
            }
        );
        assert_eq!(
            hit.stored,
            DrawValue::Threshold(Some(u16::from(stored) - 1))
        );
        assert_eq!(hit.expected, DrawValue::Threshold(Some(stored.into())));
    }
}

/// The Forçada restarted when the river is left (with a 3-move count, so that it decides
/// games): the two families read each other, the tables pass, and a changed threshold of the
/// family after the river is occupied is named.
#[test]
fn restarted_forcada_tables_pass_and_changes_are_named() {
    let reading = Interpretation {
        forcada_restart_on_leave: true,
        forcada_moves: 3,
        ..Interpretation::default()
    };
    let rules = Rules {
        variant: Variant::PORTUGUESE,
        draw: DrawRules::new(DrawPreset::Fpd, reading),
    };
    let built = Built::with(rules, 4);
    built.verify_all();
    let signature = sig("KKKvK");
    let dir = built.dir.path();
    let mut table = built.rules.read(dir, signature);
    let post = &mut table.families[1];
    assert!(post.post);
    assert_eq!(post.kind, PlaneKind::ThresholdA);
    let index = dprobe::index::TableIndex::new(signature);
    let mut planes = post.stairs.to_layers();
    let wrong = (0..planes[0].len())
        .find(|&i| {
            let on_river =
                index.board(i as u64).kings & dprobe::rules::geometry::LONG_DIAGONAL != 0;
            on_river && !table.unread[i] && (2..6).contains(&planes[0][i])
        })
        .unwrap();
    let stored = planes[0][wrong];
    planes[0][wrong] = stored + 1;
    post.stairs = Stairs::from_layers(&planes).unwrap();
    built.rules.write(dir, &table);
    let found = built.rules.verify(dir, signature);
    let hit = found
        .iter()
        .find(|f| f.index == wrong as u64)
        .unwrap_or_else(|| panic!("index {wrong} not named: {found:#?}"));
    assert_eq!(
        hit.quantity,
        DrawQuantity::Threshold {
            post: true,
            kind: PlaneKind::ThresholdA,
            a: None
        }
    );
    assert_eq!(hit.expected, DrawValue::Threshold(Some(stored.into())));
}

/// Russian rule 4 read as "reach a winning position": where the strong side wins in the pure
/// game the tables keep the solve without rule 4, and its `post` entries must be "never" (no
/// state reads them). The tables pass, and such an entry changed is named.
#[test]
fn rule_4_passing_won_positions_tables_pass_and_changes_are_named() {
    let reading = Interpretation {
        r4_limit_outcome: dprobe::draw::LimitOutcome::PureValue,
        ..Interpretation::default()
    };
    let rules = Rules {
        variant: Variant::RUSSIAN,
        draw: DrawRules::new(DrawPreset::Fmjd64, reading),
    };
    let built = Built::with(rules, 4);
    built.verify_all();
    let signature = sig("KKKvK");
    let dir = built.dir.path();
    let mut table = built.rules.read(dir, signature);
    let won = (0..table.fresh.len())
        .find(|&i| !table.unread[i] && DrawWdl::from_code(table.fresh[i]) == Some(DrawWdl::Win))
        .unwrap();
    let post = &mut table.families[1];
    assert!(post.post);
    let mut planes = post.stairs.to_layers();
    assert_eq!(planes[0][won], NEVER);
    planes[0][won] = 3;
    post.stairs = Stairs::from_layers(&planes).unwrap();
    built.rules.write(dir, &table);
    let found = built.rules.verify(dir, signature);
    let hit = found
        .iter()
        .find(|f| f.index == won as u64)
        .unwrap_or_else(|| panic!("index {won} not named: {found:#?}"));
    assert_eq!(hit.stored, DrawValue::Threshold(Some(3)));
    assert_eq!(hit.expected, DrawValue::Threshold(None));
}

/// The family entries of capture positions and pure draws are not read (the files hold filler
/// there): the tables with every such entry changed, and written as given, still pass, and so
/// do their colour flips, whose quiet moves lead into those positions.
#[test]
fn unread_family_entries_may_hold_anything() {
    let built = russian();
    let copy = built.copy();
    // Rule 1's thresholds of A, and rule 3 × rule 2's layers.
    for name in ["KKKvK", "KKvKM"] {
        let signature = sig(name);
        let mut table = built.rules.read(copy.path(), signature);
        let unread: Vec<bool> = table.unread.iter().by_vals().collect();
        assert!(unread.iter().any(|&u| u) && !unread.iter().all(|&u| u));
        let mut changed = Vec::new();
        for family in &mut table.families {
            let mut planes = family.stairs.to_layers();
            for i in (0..unread.len()).filter(|&i| unread[i]) {
                // A position that never wins wins from the last layer with one ply; one that
                // wins never does.
                let never = planes.iter().all(|plane| plane[i] == NEVER);
                for plane in planes.iter_mut() {
                    plane[i] = NEVER;
                }
                if never {
                    planes.last_mut().unwrap()[i] = 1;
                }
            }
            family.stairs = Stairs::from_layers(&planes).unwrap();
            changed.push(planes);
        }
        // Nothing unread: the writer keeps every entry as given.
        table.unread.fill(false);
        built.rules.write(copy.path(), &table);
        let written = built.rules.read(copy.path(), signature);
        for (family, planes) in written.families.iter().zip(&changed) {
            assert_eq!(&family.stairs.to_layers(), planes, "{name}");
        }
        for checked in [signature, signature.flipped()] {
            let found = built.rules.verify(copy.path(), checked);
            assert!(found.is_empty(), "{checked}: {found:#?}");
        }
    }
}

/// The bytes of a rule file with its header's checksum made valid again after a change.
fn with_header_checksum(mut bytes: Vec<u8>) -> Vec<u8> {
    let end = 32 + 16 * usize::from(u16::from_le_bytes([bytes[24], bytes[25]]));
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..end]);
    bytes[end..end + 8].copy_from_slice(&sum.to_le_bytes());
    bytes
}

/// Rule files of versions 4 to 7 are read as they are (version 4 stored the filler entries of
/// format 5 as values); older and newer versions are refused by name. Only versions 7 on may
/// name results alone without storing them, as a section of no bytes.
#[test]
fn rule_files_of_versions_4_to_7_are_read_and_others_refused() {
    let built = russian();
    let copy = built.copy();
    let path = built.rules.path(copy.path(), sig("KKvK"));
    let written = std::fs::read(&path).unwrap();
    assert_eq!(u16::from_le_bytes([written[8], written[9]]), 8);
    let implied = DrawFile::open(&path).unwrap().alone_implied();
    assert!(
        !implied.is_empty(),
        "KKvK stores the results of every counter alone"
    );
    // The same file without the entries of those sections, as version 6 wrote a file whose
    // draw rules have one counter (no results alone at all).
    let sections = usize::from(u16::from_le_bytes([written[24], written[25]]));
    let kept: Vec<&[u8]> = written[32..32 + 16 * sections]
        .chunks(16)
        .filter(|entry| !(entry[0] == 3 && entry[1] != 0))
        .collect();
    let mut stored_only = written[..32].to_vec();
    stored_only[24..26].copy_from_slice(&(kept.len() as u16).to_le_bytes());
    stored_only.extend(kept.concat());
    stored_only.extend(&written[32 + 16 * sections..]);
    for (version, read) in [
        (7u16, true),
        (6, true),
        (5, true),
        (4, true),
        (3, false),
        (9, false),
    ] {
        // The version changed under a valid header checksum.
        for (bytes, names_unstored) in [(&written, true), (&stored_only, false)] {
            let mut bytes = bytes.clone();
            bytes[8..10].copy_from_slice(&version.to_le_bytes());
            std::fs::write(&path, with_header_checksum(bytes)).unwrap();
            match DrawFile::open(&path) {
                Ok(file) => {
                    let unstored_read = version >= 7 || !names_unstored;
                    assert!(read && unstored_read, "version {version} read");
                    assert_eq!(file.version, version);
                    assert_eq!(file.counters_alone() == 0, !names_unstored);
                }
                Err(error) if read => {
                    assert!(names_unstored && version < 7, "version {version}: {error}");
                    assert!(error.to_string().contains("section"), "{error}");
                }
                Err(error) => assert!(
                    error
                        .to_string()
                        .contains(&format!("format version {version}")),
                    "{error}"
                ),
            }
        }
    }
    // A section named but not stored that claims bytes is refused, and so is one out of the
    // counters' order.
    let entry = |counter: u16| {
        (0..usize::from(u16::from_le_bytes([written[24], written[25]])))
            .map(|k| 32 + 16 * k)
            .find(|&at| {
                written[at] == 3
                    && written[at + 1] != 0
                    && written[at + 2..at + 4] == counter.to_le_bytes()
            })
            .unwrap()
    };
    let at = entry(implied[0].0);
    let mut bytes = written.clone();
    bytes[at + 8] = 1;
    std::fs::write(&path, with_header_checksum(bytes)).unwrap();
    let error = DrawFile::open(&path).unwrap_err().to_string();
    assert!(error.contains("section"), "{error}");
    let mut bytes = written.clone();
    bytes[at + 2] ^= 0x40;
    std::fs::write(&path, with_header_checksum(bytes)).unwrap();
    let error = DrawFile::open(&path).unwrap_err().to_string();
    assert!(error.contains("out of order"), "{error}");
    // The file as written reads.
    std::fs::write(&path, &written).unwrap();
    assert!(DrawFile::open(&path).is_ok());
}

/// A file without a family says the rules leave its material as the pure game has it. Where a
/// crowning of that material leads to a result the rules turn, the check names the exit (a
/// cycle of positions could otherwise keep a win whose way out the rules have turned); a
/// material where a count runs needs its family; and only version 8 on may leave it out.
#[test]
fn a_material_stored_as_pure_must_have_no_count_and_no_turned_exit() {
    let built = russian();
    let copy = built.copy();
    // The man's crowning leads to KKMvK, where the lone king's long-diagonal rule turns wins.
    let signature = sig("MvKKM");
    let mut table = built.rules.read(copy.path(), signature);
    assert!(
        !table.families.is_empty(),
        "{signature} is not stored as pure"
    );
    table.families.clear();
    for code in &mut table.fresh {
        *code = DrawWdl::unturned(DrawWdl::from_code(*code).unwrap().pure()).code();
    }
    built.rules.write(copy.path(), &table);
    let found = built.rules.verify(copy.path(), signature);
    let exits: Vec<_> = found
        .iter()
        .filter(|f| f.quantity == DrawQuantity::ExitOfPureMaterial)
        .collect();
    assert!(!exits.is_empty(), "{found:#?}");
    assert!(exits
        .iter()
        .all(|f| f.stored == DrawValue::Result(DrawWdl::CursedWin)
            && f.expected == DrawValue::Result(DrawWdl::Win)));
    // The same file as version 7 wrote it: refused.
    let path = built.rules.path(copy.path(), signature);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[8..10].copy_from_slice(&7u16.to_le_bytes());
    std::fs::write(&path, with_header_checksum(bytes)).unwrap();
    let error = DrawFile::open(&path).unwrap_err().to_string();
    assert!(error.contains("no family"), "{error}");
    // A material where a count runs (rule 4 in KvKKK) stored without its family: refused.
    let signature = sig("KvKKK");
    let mut table = built.rules.read(copy.path(), signature);
    table.families.clear();
    built.rules.write(copy.path(), &table);
    let error = built
        .rules
        .try_verify(copy.path(), signature)
        .unwrap_err()
        .to_string();
    assert!(error.contains("family"), "{error}");
}

#[test]
fn a_changed_fresh_result_is_named() {
    let built = russian();
    let copy = built.copy();
    let signature = sig("KvKKK");
    let mut table = built.rules.read(copy.path(), signature);
    // A blessed loss (the lone king survives the count) claimed to be a plain loss.
    let wrong = table
        .fresh
        .iter()
        .position(|&c| c == DrawWdl::BlessedLoss.code())
        .expect("Russian KvKKK has blessed losses");
    table.fresh[wrong] = DrawWdl::Loss.code();
    built.rules.write(copy.path(), &table);

    let found = built.rules.verify(copy.path(), signature);
    let hit = found
        .iter()
        .find(|f| f.index == wrong as u64)
        .unwrap_or_else(|| panic!("index {wrong} not named: {found:#?}"));
    assert!(
        matches!(hit.quantity, DrawQuantity::Fresh { .. }),
        "{hit:?}"
    );
    assert_eq!(hit.stored, DrawValue::Result(DrawWdl::Loss));
    assert_eq!(hit.expected, DrawValue::Result(DrawWdl::BlessedLoss));
    assert!(hit.fen.starts_with("W:"), "{}", hit.fen);
}

#[test]
fn a_changed_threshold_is_named() {
    // Russian KKKvK: before the long-diagonal rule starts, thresholds of A (rule 1).
    let built = russian();
    let copy = built.copy();
    let signature = sig("KKKvK");
    let mut table = built.rules.read(copy.path(), signature);
    let family = &mut table.families[0];
    assert_eq!((family.kind, family.post), (PlaneKind::ThresholdA, false));
    let mut planes = family.stairs.to_layers();
    let wrong = (0..planes[0].len())
        .find(|&i| !table.unread[i] && (5..20).contains(&planes[0][i]))
        .unwrap();
    let stored = planes[0][wrong];
    planes[0][wrong] = stored + 2;
    family.stairs = Stairs::from_layers(&planes).unwrap();
    built.rules.write(copy.path(), &table);

    let found = built.rules.verify(copy.path(), signature);
    let hit = found
        .iter()
        .find(|f| f.index == wrong as u64 && matches!(f.quantity, DrawQuantity::Threshold { .. }))
        .unwrap_or_else(|| panic!("index {wrong} not named: {found:#?}"));
    assert_eq!(
        hit.quantity,
        DrawQuantity::Threshold {
            post: false,
            kind: PlaneKind::ThresholdA,
            a: None
        }
    );
    assert_eq!(
        hit.stored,
        DrawValue::Threshold(Some(u16::from(stored) + 2))
    );
    assert_eq!(hit.expected, DrawValue::Threshold(Some(stored.into())));
}

/// Changes the family of layers of Russian KKvKM (rule 3's `A`, never reset, and rule 2's `Z`,
/// reset by a man move) in a copy of the tables: `change` picks a position and a layer from the
/// staircases of the positions read (it is given whether each is unread) and changes the
/// layers it is given. Returns what the check names at that position and layer.
fn named_after_changing_layers(
    change: impl FnOnce(&Stairs, &[bool], &mut [Vec<u8>]) -> (usize, usize),
) -> DrawInconsistency {
    let built = russian();
    let copy = built.copy();
    let signature = sig("KKvKM");
    let mut table = built.rules.read(copy.path(), signature);
    let family = &mut table.families[0];
    assert_eq!(family.kind, PlaneKind::LayersAz);
    let mut planes = family.stairs.to_layers();
    let unread: Vec<bool> = table.unread.iter().by_vals().collect();
    let (wrong, layer) = change(&family.stairs, &unread, &mut planes);
    family.stairs = Stairs::from_layers(&planes).unwrap();
    built.rules.write(copy.path(), &table);

    let found = built.rules.verify(copy.path(), signature);
    let quantity = DrawQuantity::Threshold {
        post: false,
        kind: PlaneKind::LayersAz,
        a: Some(layer as u16),
    };
    found
        .into_iter()
        .find(|f| f.index == wrong as u64 && f.quantity == quantity)
        .unwrap_or_else(|| panic!("index {wrong} layer {layer} not named"))
}

#[test]
fn a_removed_corner_is_named() {
    // A position whose first corner is at layer 10 or later loses it: from there on it would
    // never win.
    let mut stored = 0;
    let hit = named_after_changing_layers(|stairs, unread, planes| {
        let wrong = (0..stairs.len())
            .find(|&i| !unread[i] && stairs.corners(i).first().is_some_and(|c| c.0 >= 10))
            .unwrap();
        let layer = usize::from(stairs.corners(wrong)[0].0);
        assert_eq!(planes[layer - 1][wrong], NEVER);
        stored = planes[layer][wrong];
        for plane in &mut planes[layer..] {
            plane[wrong] = NEVER;
        }
        (wrong, layer)
    });
    assert_eq!(hit.stored, DrawValue::Threshold(None));
    assert_eq!(hit.expected, DrawValue::Threshold(Some(stored.into())));
}

#[test]
fn a_corner_moved_one_layer_later_is_named() {
    // A position whose staircase falls twice keeps its second value's corner one layer later.
    // That layer then claims the value before it, which the winner beats by a ply: the layer
    // that ends a run of equal values is named, not only its first.
    let (mut before, mut value) = (0, 0);
    let hit = named_after_changing_layers(|stairs, unread, planes| {
        let layers = stairs.layers();
        let (wrong, layer);
        (wrong, layer, before, value) = (0..stairs.len())
            .filter(|&i| !unread[i])
            .find_map(|i| {
                let corners = stairs.corners(i);
                let (layer, value) = *corners.get(1)?;
                let next = corners.get(2).map_or(layers, |c| usize::from(c.0));
                (usize::from(layer) + 1 < next).then_some((
                    i,
                    usize::from(layer),
                    corners[0].1,
                    value,
                ))
            })
            .expect("Russian KKvKM has staircases that fall twice");
        planes[layer][wrong] = before;
        (wrong, layer)
    });
    assert_eq!(hit.stored, DrawValue::Threshold(Some(before.into())));
    assert_eq!(hit.expected, DrawValue::Threshold(Some(value.into())));
}

/// Every file of a folder, by name.
fn files_of(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(path).unwrap())
        })
        .collect()
}

/// A rerun builds again the rule tables that are missing or damaged, to the bytes of an
/// uninterrupted build, reading the kept tables a rebuilt one's exits lead to; once every table
/// is in place it reads none (it succeeds with the pure tables gone).
#[test]
fn a_rerun_rebuilds_missing_and_damaged_rule_tables_and_reads_none_when_finished() {
    let built = russian();
    let Rules { variant, draw } = &built.rules;
    let rerun = |dir: &Path| generate_draw_tables(dir, &variant.moves, draw, 4, 1, true, &Silent);
    let rule_dir = |dir: &Path| draw_dir(dir, variant.moves.id, draw);
    let expected = files_of(&rule_dir(built.dir.path()));
    let copy = built.copy();
    // The first pair; the last 4-piece pair, whose exits lead to kept tables; a damaged table.
    for name in ["KvK", "KKvKK"] {
        std::fs::remove_file(built.rules.path(copy.path(), sig(name))).unwrap();
    }
    let damaged = built.rules.path(copy.path(), sig("KMvK"));
    let mut bytes = std::fs::read(&damaged).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    std::fs::write(&damaged, bytes).unwrap();
    rerun(copy.path()).unwrap();
    assert!(
        files_of(&rule_dir(copy.path())) == expected,
        "rebuilt tables differ"
    );
    for entry in std::fs::read_dir(rule_set_dir(copy.path(), variant.moves.id)).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::remove_file(path).unwrap();
        }
    }
    rerun(copy.path()).unwrap();
    assert!(
        files_of(&rule_dir(copy.path())) == expected,
        "a finished set changed"
    );
}

#[test]
fn missing_and_foreign_rule_tables_are_errors() {
    let built = russian();
    let copy = built.copy();
    // A material an exit leads to is missing: named, not a pass.
    std::fs::remove_file(built.rules.path(copy.path(), sig("KvK"))).unwrap();
    match built.rules.try_verify(copy.path(), sig("KKvK")) {
        Err(Error::Missing { signature, .. }) => assert_eq!(signature, sig("KvK")),
        other => panic!("{other:?}"),
    }
    // A file of another signature under this one's name.
    let copy = built.copy();
    std::fs::copy(
        built.rules.path(copy.path(), sig("KvKK")),
        built.rules.path(copy.path(), sig("KKvKK")),
    )
    .unwrap();
    let error = built
        .rules
        .try_verify(copy.path(), sig("KKvKK"))
        .unwrap_err();
    assert!(
        error.to_string().contains("KvKK, expected KKvKK"),
        "{error}"
    );
}

#[test]
fn dtb_verify_checks_rule_tables() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = dtb(&[
        "generate",
        "--variant",
        "russian",
        "--pieces",
        "3",
        "--dir",
        d,
    ]);
    assert!(out.status.success());
    let signatures = (2..=3).flat_map(Signature::with_pieces).count();
    let out = dtb(&["verify", "--variant", "russian", "--dir", d]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(&format!(
            "{signatures} rule tables checked (fmjd64), 0 inconsistent"
        )),
        "{text}"
    );

    // One fresh result changed: the rule pass fails and names the position.
    let rules = Rules::new(Variant::RUSSIAN, DrawPreset::Fmjd64);
    let mut table = rules.read(dir.path(), sig("KKvK"));
    let wrong = table
        .fresh
        .iter()
        .position(|&c| c == DrawWdl::Win.code())
        .unwrap();
    table.fresh[wrong] = DrawWdl::CursedWin.code();
    rules.write(dir.path(), &table);
    let out = dtb(&["verify", "--variant", "russian", "--dir", d]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("KKvK: INCONSISTENT"), "{text}");
    assert!(
        text.contains(&format!("index {wrong} ")) && text.contains("stored cursed-win"),
        "{text}"
    );
    // The pure tables alone still pass.
    let out = verify_pure_tables("russian", d);
    assert!(out.status.success());
}

#[test]
fn a_result_alone_outside_its_bounds_is_named() {
    let built = russian();
    let copy = built.copy();
    let signature = sig("KvKKK");
    let path = built.rules.path(copy.path(), signature);
    let file = DrawFile::open(&path).unwrap();
    let table = built.rules.read(copy.path(), signature);
    let mut alone: Vec<Vec<u8>> = (0..file.counters_alone())
        .map(|k| file.fresh_results_alone(k, &table.fresh).unwrap().unwrap())
        .collect();
    // A loss under all the rules claimed to be a blessed loss under rule 1 alone: one counter
    // cannot draw what all of them together do not.
    let r1 = built
        .rules
        .draw
        .counters
        .iter()
        .position(|c| c.id == "r1-three-kings")
        .unwrap();
    let wrong = table
        .fresh
        .iter()
        .position(|&c| c == DrawWdl::Loss.code())
        .expect("Russian KvKKK has losses");
    alone[r1][wrong] = DrawWdl::BlessedLoss.code();
    let turned: Vec<_> = alone
        .iter()
        .map(|alone| turned_bits(signature, &table.fresh, alone).unwrap())
        .collect();
    let sections: Vec<_> = turned.iter().map(|bits| bits.as_bitslice()).collect();
    let bytes = encode_draw_table(
        &built.rules.variant.moves,
        &built.rules.draw,
        &table,
        &sections,
        1,
    )
    .unwrap();
    std::fs::write(&path, bytes).unwrap();

    let found = built.rules.verify(copy.path(), signature);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].index, wrong as u64);
    assert_eq!(
        found[0].quantity,
        DrawQuantity::Alone {
            counter: "r1-three-kings"
        }
    );
    assert_eq!(found[0].stored, DrawValue::Result(DrawWdl::BlessedLoss));
    assert!(found[0]
        .quantity
        .to_string()
        .contains("under r1-three-kings alone"));
}
