//! Moves out of a pair (captures and crownings): the smaller table each leads to, found by what
//! the move leaves on the board, and the men's share of the index last looked up there.

use dprobe::index::{MenRank, Signature, TableIndex};
use dprobe::rules::geometry::Bitboard;
use dprobe::rules::Board;

use super::store::Table;
use super::tableset::TableSet;

/// The men's share of the index (see [`TableIndex::men_rank`]) of the placement of the men last
/// looked up in a smaller table: the captures of positions that share their men often lead to
/// the same placement again, only the kings differing. (Keeping more placements was measured
/// slower: the search costs more than it spares.)
#[derive(Default)]
pub(super) struct LastMenRank {
    pub(super) last: Option<(Signature, Bitboard, Bitboard, MenRank)>,
}

impl LastMenRank {
    /// The men's share of `board`'s index in `index`.
    #[inline]
    pub(super) fn get(&mut self, index: &TableIndex, board: &Board) -> MenRank {
        let signature = index.signature();
        match self.last {
            Some((s, men, opp_men, rank))
                if s == signature && men == board.men && opp_men == board.opp_men =>
            {
                rank
            }
            _ => {
                let rank = index.men_rank(board);
                self.last = Some((signature, board.men, board.opp_men, rank));
                rank
            }
        }
    }
}

/// The smaller tables that moves out of the pair lead to from one side, looked up by what a
/// move leaves on the board: the opponent's men and kings left, and whether the mover crowned.
/// A capture or crowning finds its table without hashing the signature or taking a lock.
pub(super) struct Exits<'a> {
    /// The side's own kings before any move: one more after a move means a crowning.
    pub(super) kings: u32,
    /// The opponent's kings before any move, plus one: the stride of the men left.
    pub(super) opp_kings_span: u32,
    /// By `(men left * opp_kings_span + kings left) * 2 + crowned`: the table, or the
    /// signature of one that could not be opened (its error is met again on use).
    pub(super) tables: Vec<Result<&'a Table, Signature>>,
}

impl<'a> Exits<'a> {
    pub(super) fn of(signature: Signature, smaller: &'a TableSet) -> Exits<'a> {
        let opp_kings_span = u32::from(signature.opp_kings) + 1;
        let mut tables = Vec::new();
        for men_left in 0..=signature.opp_men {
            for kings_left in 0..=signature.opp_kings {
                for crowned in [false, true] {
                    // A crowning needs a man; a slot no move reaches keeps this signature.
                    let crowned = u8::from(crowned).min(signature.mover_men);
                    let target = Signature {
                        mover_men: men_left,
                        mover_kings: kings_left,
                        opp_men: signature.mover_men - crowned,
                        opp_kings: signature.mover_kings + crowned,
                    };
                    let possible = target.is_possible() && men_left + kings_left > 0;
                    tables.push(if possible {
                        smaller.table(target).map_err(|_| target)
                    } else {
                        Err(target)
                    });
                }
            }
        }
        Exits {
            kings: u32::from(signature.mover_kings),
            opp_kings_span,
            tables,
        }
    }

    /// The table of `after`, a position a move out of the pair leads to (seen by its mover),
    /// or the signature of a table that could not be opened.
    #[inline(always)]
    pub(super) fn table(&self, after: &Board) -> Result<&'a Table, Signature> {
        let crowned = after.opp_kings.count_ones() > self.kings;
        let at = (after.men.count_ones() * self.opp_kings_span + after.kings.count_ones()) * 2
            + u32::from(crowned);
        self.tables[at as usize]
    }
}
