//! The fresh results of the materials solved before, which the draw-rule solver reads for the
//! exits (captures and crownings) of a pair: held in memory by signature, or overlaid.

use dprobe::index::{Signature, TableIndex};
use dprobe::rules::Board;
use dprobe::DrawWdl;

use crate::Error;

/// The rule results of positions in materials solved earlier.
pub trait FreshResults: Sync {
    /// The result of `board` with fresh counts (its material just arose).
    fn fresh(&self, board: &Board) -> Result<DrawWdl, Error>;
}

/// Fresh rule results held in memory, by signature: what a build of rule tables reads its exits
/// from (one byte per position).
pub struct DrawResults {
    tables: Vec<std::sync::OnceLock<Vec<u8>>>,
}

impl Default for DrawResults {
    fn default() -> Self {
        DrawResults {
            tables: (0..Signature::SLOTS)
                .map(|_| std::sync::OnceLock::new())
                .collect(),
        }
    }
}

impl DrawResults {
    /// Keeps the fresh results of `signature`.
    pub fn insert(&self, signature: Signature, fresh: Vec<u8>) {
        let _ = self.tables[signature.slot()].set(fresh);
    }

    /// The fresh results of `signature`, if known.
    pub fn get(&self, signature: Signature) -> Option<&[u8]> {
        self.tables[signature.slot()].get().map(Vec::as_slice)
    }
}

impl DrawResults {
    fn fresh_or(&self, board: &Board, fallback: Option<&DrawResults>) -> Result<DrawWdl, Error> {
        let signature = Signature::of(board);
        let table = self
            .get(signature)
            .or_else(|| fallback.and_then(|f| f.get(signature)))
            .ok_or_else(|| Error::Invariant(format!("rule table {signature} is not solved yet")))?;
        let index = TableIndex::new(signature).index(board) as usize;
        DrawWdl::from_code(table[index]).ok_or_else(|| {
            Error::Invariant(format!("rule table {signature}: bad result at {index}"))
        })
    }
}

impl FreshResults for DrawResults {
    fn fresh(&self, board: &Board) -> Result<DrawWdl, Error> {
        self.fresh_or(board, None)
    }
}

/// Results of some signatures, the others read from a second set: the results under one
/// counter alone keep only the signatures where they differ from those under all the rules.
pub struct Overlay<'a> {
    /// Read first.
    pub top: &'a DrawResults,
    /// Read for the signatures `top` does not hold.
    pub base: &'a DrawResults,
}

impl FreshResults for Overlay<'_> {
    fn fresh(&self, board: &Board) -> Result<DrawWdl, Error> {
        self.top.fresh_or(board, Some(self.base))
    }
}
