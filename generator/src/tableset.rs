//! The solved tables of one rule set in a directory, opened on first use, and the value of any
//! position they cover.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use dprobe::{Board, MoveRules, Signature, Value};

use crate::store::{StoreError, Table};

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

    /// The table of `signature`, opened (and its checksum checked) on first use.
    pub fn table(&self, signature: Signature) -> Result<&Table, StoreError> {
        let cell = &self.tables[signature.slot()];
        if let Some(table) = cell.get() {
            return Ok(table);
        }
        let table = Table::open(&self.dir, self.rules.id, signature, true)?;
        Ok(cell.get_or_init(|| table))
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
