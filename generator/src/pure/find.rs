//! Facts mined from a table for people who check endgame theory: its longest wins, and its
//! mutual zugzwangs (the opposition of draughts: positions where having the move is a handicap).

use dprobe::{
    index::Signature,
    rules::{has_capture, Board},
    Value, Wdl,
};
use rayon::prelude::*;

use crate::error::Error;
use crate::pure::solve::chunks;
use crate::pure::tableset::TableSet;

/// One long win: a position of the table, the mover to play and win in `plies`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LongWin {
    /// The position's index in its table.
    pub index: u64,
    /// Plies to the end of the game under best play.
    pub plies: u16,
}

/// The `count` longest wins of the table of `signature`, longest first (positions of equal
/// length in index order).
///
/// # Errors
///
/// The table cannot be read.
pub fn longest_wins(
    tables: &TableSet,
    signature: Signature,
    count: usize,
) -> Result<Vec<LongWin>, Error> {
    let table = tables.table(signature)?;
    let order = |w: &LongWin| (std::cmp::Reverse(w.plies), w.index);
    let mut found: Vec<LongWin> = chunks(table.index.size())
        .map(|range| {
            let mut best: Vec<LongWin> = Vec::new();
            for index in range {
                if let Some(Value::Win(plies)) = table.value(index) {
                    best.push(LongWin { index, plies });
                    // Keep the chunk's best `count`, trimmed now and then.
                    if best.len() >= count.max(1).saturating_mul(2) {
                        best.sort_by_key(order);
                        best.truncate(count);
                    }
                }
            }
            best
        })
        .flatten_iter()
        .collect();
    found.sort_by_key(order);
    found.truncate(count);
    Ok(found)
}

/// A mutual zugzwang: a placement of the pieces where the side to move does worse than it would
/// if the other side were to move. Both sides to move are quiet (no capture): a capture is
/// forced, so having the move is then no choice at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zugzwang {
    /// The position's index in the table (the mover to play).
    pub index: u64,
    /// The mover's result with the move.
    pub with_the_move: Wdl,
    /// The mover's result were the other side to move.
    pub without_the_move: Wdl,
}

/// The mutual zugzwangs of one table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Zugzwangs {
    /// Positions where neither side to move has a capture (the positions looked at).
    pub quiet: u64,
    /// How many of each kind: whoever moves loses (`Loss`, `Win`), the mover draws where it
    /// would win (`Draw`, `Win`), the mover loses where it would draw (`Loss`, `Draw`).
    pub counts: Vec<((Wdl, Wdl), u64)>,
    /// The first `limit` in index order.
    pub first: Vec<Zugzwang>,
}

/// The mutual zugzwangs of the table of `signature`: counts of each kind and the first `limit`.
///
/// # Errors
///
/// The table or its colour flip cannot be read.
pub fn zugzwangs(
    tables: &TableSet,
    signature: Signature,
    limit: usize,
) -> Result<Zugzwangs, Error> {
    let table = tables.table(signature)?;
    tables.table(signature.flipped())?;
    let rules = tables.rules();
    let unreadable = |index| {
        Error::Invariant(format!(
            "{signature} position {index}: a stored value cannot be read"
        ))
    };
    let parts: Vec<(u64, Vec<Zugzwang>)> = chunks(table.index.size())
        .map(|range| {
            let mut quiet = 0;
            let mut found = Vec::new();
            for (index, board) in range.clone().zip(table.index.boards(range)) {
                let other: Board = board.flipped();
                if has_capture(&board, rules) || has_capture(&other, rules) {
                    continue;
                }
                quiet += 1;
                let with = table.value(index).ok_or_else(|| unreadable(index))?.wdl();
                let without = -tables
                    .value_of(&other)
                    .ok_or_else(|| unreadable(index))?
                    .wdl();
                if with < without {
                    found.push(Zugzwang {
                        index,
                        with_the_move: with,
                        without_the_move: without,
                    });
                }
            }
            Ok((quiet, found))
        })
        .collect::<Result<_, Error>>()?;
    let mut result = Zugzwangs::default();
    for kind in [
        (Wdl::Loss, Wdl::Win),
        (Wdl::Draw, Wdl::Win),
        (Wdl::Loss, Wdl::Draw),
    ] {
        result.counts.push((kind, 0));
    }
    for (quiet, found) in parts {
        result.quiet += quiet;
        for z in found {
            let kind = (z.with_the_move, z.without_the_move);
            if let Some((_, n)) = result.counts.iter_mut().find(|(k, _)| *k == kind) {
                *n += 1;
            }
            if result.first.len() < limit {
                result.first.push(z);
            }
        }
    }
    Ok(result)
}
