//! The fresh results of the materials solved before, which the draw-rule solver reads for the
//! exits (captures and crownings) of a pair: held in memory by signature, or overlaid.

use dprobe::index::Signature;
use dprobe::DrawWdl;

use crate::Error;

/// The rule results of positions in materials solved earlier.
pub trait FreshResults: Sync {
    /// The fresh results of `signature` (a [`DrawWdl`] code per position), if it is solved.
    fn table(&self, signature: Signature) -> Option<&[u8]>;

    /// The result of the position at `index` of `signature` with fresh counts.
    fn fresh_at(&self, signature: Signature, index: u64) -> Result<DrawWdl, Error> {
        let table = self
            .table(signature)
            .ok_or_else(|| Error::Invariant(format!("rule table {signature} is not solved yet")))?;
        table
            .get(index as usize)
            .and_then(|&code| DrawWdl::from_code(code))
            .ok_or_else(|| {
                Error::Invariant(format!("rule table {signature}: bad result at {index}"))
            })
    }
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

impl FreshResults for DrawResults {
    fn table(&self, signature: Signature) -> Option<&[u8]> {
        self.get(signature)
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
    fn table(&self, signature: Signature) -> Option<&[u8]> {
        self.top.get(signature).or_else(|| self.base.get(signature))
    }
}
