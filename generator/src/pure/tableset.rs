//! The solved tables of one rule set in a directory, opened on first use, and the value of any
//! position they cover: from their raw working files, or rebuilt in memory from the published
//! files where the raw ones are gone.

use std::path::{Path, PathBuf};
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
}

impl TableSet {
    /// The tables of `rules` under `dir` (nothing is opened yet).
    pub fn new(dir: &Path, rules: MoveRules) -> TableSet {
        TableSet {
            dir: dir.to_path_buf(),
            rules,
            tables: (0..Signature::SLOTS).map(|_| OnceLock::new()).collect(),
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

    /// The table of `signature`, opened (and its checksum checked) on first use: its raw
    /// file, or without one, the table rebuilt in memory from its published files.
    pub fn table(&self, signature: Signature) -> Result<&Table, Error> {
        let cell = &self.tables[signature.slot()];
        if let Some(table) = cell.get() {
            return Ok(table);
        }
        let table = match Table::open(&self.dir, self.rules.id, signature, true) {
            Err(Error::Missing { .. }) if is_published(&self.dir, &self.rules, signature) => {
                unpack(self, signature)?
            }
            opened => opened?,
        };
        Ok(cell.get_or_init(|| table))
    }

    /// Closes every open table other than those of `ahead` and those they reach in one move
    /// (see [`move_targets`]), so that a long build or check keeps mapped only the tables it
    /// still reads: without this, every table ever read stays resident to the end.
    pub fn close_all_but(&mut self, ahead: impl IntoIterator<Item = Signature>) {
        let mut needed = vec![false; Signature::SLOTS];
        for signature in ahead {
            needed[signature.slot()] = true;
            for target in move_targets(signature) {
                needed[target.slot()] = true;
            }
        }
        for cell in &mut self.tables {
            if cell
                .get()
                .is_some_and(|table| !needed[table.index.signature().slot()])
            {
                cell.take();
            }
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
    use crate::pure::build::generate;
    use crate::pure::solve::Silent;
    use dprobe::{index::TableIndex, rules::legal_moves, Variant};

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

    #[test]
    fn closing_keeps_only_what_is_still_ahead() {
        let dir = tempfile::tempdir().unwrap();
        let rules = Variant::RUSSIAN.moves;
        generate(dir.path(), &rules, 3, &Silent).unwrap();
        let mut tables = TableSet::new(dir.path(), rules);
        let all: Vec<Signature> = (2..=3).flat_map(Signature::with_pieces).collect();
        for &signature in &all {
            tables.table(signature).unwrap();
        }
        let ahead: Signature = "KMvK".parse().unwrap();
        tables.close_all_but([ahead]);
        for signature in all {
            let kept = signature == ahead || move_targets(ahead).contains(&signature);
            assert_eq!(tables.open_table(signature).is_some(), kept, "{signature}");
        }
        // A closed table opens again when asked for.
        let closed: Signature = "MvM".parse().unwrap();
        assert!(tables.table(closed).is_ok());
    }
}
