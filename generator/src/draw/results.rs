//! The fresh results of the materials solved before, which the draw-rule solver reads for the
//! exits (captures and crownings) of a pair: held in memory by signature, or overlaid.

use std::sync::OnceLock;

use bitvec::vec::BitVec;
use dprobe::format::draw::{alone_result, alone_symbol};
use dprobe::index::Signature;
use dprobe::DrawWdl;

use crate::Error;

/// The rule results of positions in materials solved earlier.
pub trait FreshResults: Sync {
    /// The result of the position at `index` of `signature` with fresh counts.
    fn fresh_at(&self, signature: Signature, index: u64) -> Result<DrawWdl, Error>;
}

/// One empty cell per signature slot.
fn empty_slots<T>() -> Vec<OnceLock<T>> {
    (0..Signature::SLOTS).map(|_| OnceLock::new()).collect()
}

/// Fresh rule results held in memory, by signature: what a build of rule tables reads its exits
/// from (one byte per position).
pub struct DrawResults {
    tables: Vec<OnceLock<Vec<u8>>>,
}

impl Default for DrawResults {
    fn default() -> Self {
        DrawResults {
            tables: empty_slots(),
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

    /// The code of the position at `index` of `signature`.
    fn code(&self, signature: Signature, index: u64) -> Result<u8, Error> {
        let table = self
            .get(signature)
            .ok_or_else(|| Error::Invariant(format!("rule table {signature} is not solved yet")))?;
        table
            .get(index as usize)
            .copied()
            .ok_or_else(|| Error::Invariant(format!("rule table {signature}: no position {index}")))
    }
}

fn bad_result(signature: Signature, index: u64) -> Error {
    Error::Invariant(format!("rule table {signature}: bad result at {index}"))
}

impl FreshResults for DrawResults {
    fn fresh_at(&self, signature: Signature, index: u64) -> Result<DrawWdl, Error> {
        DrawWdl::from_code(self.code(signature, index)?).ok_or_else(|| bad_result(signature, index))
    }
}

/// The fresh results under one counter alone of the signatures where they differ from those under
/// all the rules, as the bits of the files' sections alone ([`alone_symbol`]: that counter turns
/// the pure result into a draw): an eighth of a byte a position.
pub struct AloneResults {
    tables: Vec<OnceLock<BitVec<u64>>>,
}

impl Default for AloneResults {
    fn default() -> Self {
        AloneResults {
            tables: empty_slots(),
        }
    }
}

impl AloneResults {
    /// Keeps the results alone of `signature` (its bits, [`turned_bits`]) if they differ from
    /// `all`, those under all the rules; returns whether they do.
    pub fn insert(&self, signature: Signature, turned: BitVec<u64>, all: &[u8]) -> bool {
        let differ = all
            .iter()
            .zip(turned.iter().by_vals())
            .any(|(&all, turned)| {
                let cursed_or_blessed = matches!(
                    DrawWdl::from_code(all),
                    Some(DrawWdl::CursedWin | DrawWdl::BlessedLoss)
                );
                turned != cursed_or_blessed
            });
        if differ {
            let _ = self.tables[signature.slot()].set(turned);
        }
        differ
    }
}

/// Per position, whether one counter alone turns the pure result into a draw, from its results
/// alone (`alone`) and those under all the rules (`all`, both [`DrawWdl`] codes).
///
/// # Errors
///
/// A result alone that is neither the pure game's nor a draw: a broken invariant.
pub fn turned_bits(signature: Signature, all: &[u8], alone: &[u8]) -> Result<BitVec<u64>, Error> {
    all.iter()
        .zip(alone)
        .enumerate()
        .map(|(i, (&all, &alone))| {
            DrawWdl::from_code(all)
                .zip(DrawWdl::from_code(alone))
                .and_then(|(all, alone)| alone_symbol(all, alone))
                .map(|symbol| symbol == 1)
                .ok_or_else(|| {
                    Error::Invariant(format!(
                        "{signature}: the result at {i} under one counter alone is not the pure \
                         game's or a draw"
                    ))
                })
        })
        .collect()
}

/// The results under one counter alone: those of the signatures it holds (`top`), the others'
/// those under all the rules (`base`).
pub struct Overlay<'a> {
    /// Read first.
    pub top: &'a AloneResults,
    /// The results under all the rules.
    pub base: &'a DrawResults,
}

impl FreshResults for Overlay<'_> {
    fn fresh_at(&self, signature: Signature, index: u64) -> Result<DrawWdl, Error> {
        let all = self.base.code(signature, index)?;
        match self.top.tables[signature.slot()].get() {
            None => DrawWdl::from_code(all),
            Some(turned) => alone_result(all, u8::from(turned[index as usize])),
        }
        .ok_or_else(|| bad_result(signature, index))
    }
}
