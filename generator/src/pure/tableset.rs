//! The solved tables of one rule set in a directory, opened on first use, and the value of any
//! position they cover: from their raw working files, or rebuilt in memory from the published
//! files where the raw ones are gone.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use dprobe::{
    index::Signature,
    rules::{Board, MoveRules},
    Value,
};

use crate::pure::store::Table;
use crate::pure::unpack::{is_published, unpack};
use crate::Error;

/// Solved tables of one rule set, opened lazily and shared between threads.
pub struct TableSet {
    dir: PathBuf,
    rules: MoveRules,
    tables: Vec<OnceLock<Table>>,
    /// Whose raw file's checksum this set has checked: a raw file is never changed once in
    /// place, so a table closed and opened again is not read whole a second time.
    checked: Vec<AtomicBool>,
}

impl TableSet {
    /// The tables of `rules` under `dir` (nothing is opened yet).
    pub fn new(dir: &Path, rules: MoveRules) -> TableSet {
        TableSet {
            dir: dir.to_path_buf(),
            rules,
            tables: (0..Signature::SLOTS).map(|_| OnceLock::new()).collect(),
            checked: (0..Signature::SLOTS)
                .map(|_| AtomicBool::new(false))
                .collect(),
        }
    }

    /// The directory the tables are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The move rules the tables were solved under.
    pub fn rules(&self) -> &MoveRules {
        &self.rules
    }

    /// The table of `signature`, opened on first use: its raw file (its checksum checked the
    /// first time), or without one, the table rebuilt in memory from its published files.
    pub fn table(&self, signature: Signature) -> Result<&Table, Error> {
        let cell = &self.tables[signature.slot()];
        if let Some(table) = cell.get() {
            return Ok(table);
        }
        let checked = &self.checked[signature.slot()];
        let check_sum = !checked.load(Ordering::Acquire);
        let table = match Table::open(&self.dir, self.rules.id, signature, check_sum) {
            Err(Error::Missing { .. }) if is_published(&self.dir, &self.rules, signature) => {
                unpack(self, signature)?
            }
            opened => opened?,
        };
        checked.store(true, Ordering::Release);
        Ok(cell.get_or_init(|| table))
    }

    /// Closes every open table other than those of `now` and those they reach in one move
    /// (see [`move_targets`]), and the tables rebuilt in memory that `later` so reaches: a long
    /// build or check keeps resident only what it reads. A mapped table is opened again at
    /// little cost when a later table reads it, and its pages, kept mapped, would count in the
    /// build's resident size to the end (gigabytes at 7 pieces); a table rebuilt in memory is
    /// a solve to rebuild, so it is kept while anything ahead reads it.
    pub fn close_all_but(
        &mut self,
        now: impl IntoIterator<Item = Signature>,
        later: impl IntoIterator<Item = Signature>,
    ) {
        let reached = |signatures: &mut dyn Iterator<Item = Signature>| {
            let mut reached = vec![false; Signature::SLOTS];
            for signature in signatures {
                reached[signature.slot()] = true;
                for target in move_targets(signature) {
                    reached[target.slot()] = true;
                }
            }
            reached
        };
        let needed_now = reached(&mut now.into_iter());
        let needed_later = reached(&mut later.into_iter());
        for cell in &mut self.tables {
            if cell.get().is_some_and(|table| {
                let slot = table.index.signature().slot();
                !(needed_now[slot] || table.is_in_memory() && needed_later[slot])
            }) {
                cell.take();
            }
        }
    }

    /// Drops the pages of every open mapped table from the resident set
    /// ([`Table::release_pages`]).
    pub fn release_pages(&self) {
        for table in self.tables.iter().filter_map(OnceLock::get) {
            table.release_pages();
        }
    }

    /// The table of `signature` if it is already open.
    #[inline(always)]
    pub fn open_table(&self, signature: Signature) -> Option<&Table> {
        self.tables[signature.slot()].get()
    }

    /// The value of a position whose table is open; a side without pieces has lost.
    /// `None` if its table is not open or holds no valid value there.
    #[inline]
    pub fn value_of(&self, board: &Board) -> Option<Value> {
        if board.own() == 0 {
            return Some(Value::Loss(0));
        }
        let table = self.open_table(Signature::of(board))?;
        table.value(table.index.index(board))
    }
}

/// Every table one move from a position of `signature` can lead to, the position after the move
/// seen from the new mover's side: a quiet move leads to the colour flip, a crowning to one man
/// fewer and one king more on the side that moved, a capture to fewer opposing pieces (with or
/// without a crowning). A capture of the last opposing piece ends the game and reaches no table.
pub fn move_targets(signature: Signature) -> Vec<Signature> {
    let Signature {
        mover_men,
        mover_kings,
        opp_men,
        opp_kings,
    } = signature;
    let mut movers = vec![(mover_men, mover_kings)];
    if mover_men > 0 {
        movers.push((mover_men - 1, mover_kings + 1));
    }
    let mut targets = Vec::new();
    for (men, kings) in movers {
        for left_men in 0..=opp_men {
            for left_kings in 0..=opp_kings {
                let target = Signature {
                    mover_men: left_men,
                    mover_kings: left_kings,
                    opp_men: men,
                    opp_kings: kings,
                };
                if target.is_possible() {
                    targets.push(target);
                }
            }
        }
    }
    targets
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pure::build::{generate_with, BuildOptions};
    use crate::pure::solve::Silent;
    use dprobe::format::raw_table_path;
    use dprobe::{index::TableIndex, rules::legal_moves, Variant};
    use std::fs;

    fn names(signature: &str) -> Vec<String> {
        let mut names: Vec<String> = move_targets(signature.parse().unwrap())
            .iter()
            .map(Signature::to_string)
            .collect();
        names.sort();
        names
    }

    #[test]
    fn move_targets_are_the_flip_the_crownings_and_the_captures() {
        // KMvKK: a quiet move leads to KKvKM, a crowning to KKvKK; taking one king to KvKM or,
        // crowning on the way, KvKK; taking both ends the game.
        assert_eq!(names("KMvKK"), ["KKvKK", "KKvKM", "KvKK", "KvKM"]);
        assert_eq!(names("KvM"), ["MvK"]);
        assert_eq!(names("MvKM"), ["KMvK", "KMvM", "KvK", "KvM", "MvK", "MvM"]);
    }

    #[test]
    fn every_move_lands_in_one_of_the_move_targets() {
        // Up to 4 pieces, every position (a sample of the larger tables), every rule set: the
        // move generator, not the rule written above, says where moves go.
        for variant in [Variant::RUSSIAN, Variant::BRAZILIAN, Variant::PORTUGUESE] {
            for signature in (2..=4).flat_map(Signature::with_pieces) {
                let targets = move_targets(signature);
                let index = TableIndex::new(signature);
                let step = (index.size() / 20_000).max(1);
                let mut moves = Vec::new();
                for i in (0..index.size()).step_by(step as usize) {
                    let board = index.board(i);
                    moves.clear();
                    legal_moves(&board, &variant.moves, &mut moves);
                    for mv in &moves {
                        let after = board.play(mv);
                        if after.own() != 0 {
                            let reached = Signature::of(&after);
                            assert!(
                                targets.contains(&reached),
                                "{variant}: {signature} index {i} reaches {reached}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// Every table of `rules` up to `pieces` pieces in `dir`, its raw files kept.
    fn build_keeping_raw_files(dir: &Path, rules: &MoveRules, pieces: u32) {
        let keep_raw = BuildOptions {
            keep_raw: true,
            ..BuildOptions::default()
        };
        generate_with(dir, rules, pieces, &keep_raw, &Silent).unwrap();
    }

    #[test]
    fn closing_keeps_what_is_read_now_and_what_would_be_solved_again() {
        let (dir, rules) = (tempfile::tempdir().unwrap(), Variant::RUSSIAN.moves);
        build_keeping_raw_files(dir.path(), &rules, 3);
        // Without its raw file, KvK is rebuilt in memory from its published files.
        let unpacked: Signature = "KvK".parse().unwrap();
        fs::remove_file(raw_table_path(dir.path(), rules.id, unpacked)).unwrap();
        let mut tables = TableSet::new(dir.path(), rules);
        let all: Vec<Signature> = (2..=3).flat_map(Signature::with_pieces).collect();
        for &signature in &all {
            tables.table(signature).unwrap();
        }
        assert!(tables.open_table(unpacked).unwrap().is_in_memory());
        let now: Signature = "KMvK".parse().unwrap();
        let later: Signature = "KvKK".parse().unwrap();
        assert!(!move_targets(now).contains(&unpacked) && move_targets(later).contains(&unpacked));
        tables.close_all_but([now], [later]);
        for signature in all {
            let kept =
                signature == now || move_targets(now).contains(&signature) || signature == unpacked;
            assert_eq!(tables.open_table(signature).is_some(), kept, "{signature}");
        }
        // A closed table opens again when asked for, and nothing ahead keeps one in memory.
        let closed: Signature = "MvM".parse().unwrap();
        assert!(tables.table(closed).is_ok());
        tables.close_all_but([now], []);
        assert!(tables.open_table(unpacked).is_none());
    }

    #[test]
    fn a_raw_file_damaged_before_its_first_opening_is_refused() {
        let (dir, rules) = (tempfile::tempdir().unwrap(), Variant::RUSSIAN.moves);
        build_keeping_raw_files(dir.path(), &rules, 2);
        let signature: Signature = "KvK".parse().unwrap();
        let path = raw_table_path(dir.path(), rules.id, signature);
        let mut bytes = fs::read(&path).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x40;
        fs::write(&path, &bytes).unwrap();
        let tables = TableSet::new(dir.path(), rules);
        let error = tables.table(signature).err().map(|e| e.to_string());
        assert!(
            error.as_deref().is_some_and(|e| e.contains("checksum")),
            "{error:?}"
        );
    }
}
