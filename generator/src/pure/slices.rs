//! A pair's slices: the positions with one placement of the men, by level of the men's
//! advancement, and the men's steps that lead from one slice to the next.

use dprobe::index::{binomial, MenRank, Signature, TableIndex};
use dprobe::rules::geometry::{man_steps, rotate, Bitboard, PROMOTION_ROW};
use dprobe::rules::Board;
use rayon::prelude::*;

use super::buckets::grown;

/// The men's steps of one placement of the men, each with the men's share of its result's index
/// on the partner side (`None`: the step crowns, into a smaller table). The positions of a run
/// share them: only whether a king stands on a step's square varies.
#[derive(Default)]
pub(super) struct MenSteps {
    /// The partner side's signature, the mover's and the opponent's men they were made for
    /// (a task may initialise both sides, whose men can look alike).
    pub(super) men: Option<(Signature, Bitboard, Bitboard)>,
    pub(super) steps: Vec<(u8, u8, Option<MenRank>)>,
}

impl MenSteps {
    /// The steps of `board`'s men, made again only when its men differ from the last board's.
    pub(super) fn of(
        &mut self,
        board: &Board,
        partner: &TableIndex,
    ) -> &[(u8, u8, Option<MenRank>)] {
        let key = Some((partner.signature(), board.men, board.opp_men));
        if self.men != key {
            self.men = key;
            self.steps.clear();
            let men_squares = board.men | board.opp_men;
            let mut men = board.men;
            while men != 0 {
                let from = men.trailing_zeros() as u8;
                men &= men - 1;
                let mut steps = man_steps(from) & !men_squares;
                while steps != 0 {
                    let to = steps.trailing_zeros() as u8;
                    steps &= steps - 1;
                    let rank = (PROMOTION_ROW & (1 << to) == 0).then(|| {
                        // Only the men matter to their share of the index.
                        partner.men_rank(&Board {
                            men: rotate(board.opp_men),
                            kings: 0,
                            opp_men: rotate((board.men & !(1 << from)) | (1 << to)),
                            opp_kings: 0,
                        })
                    });
                    self.steps.push((from, to, rank));
                }
            }
        }
        &self.steps
    }
}

/// The positions with one placement of the men, with either side to move: king moves stay
/// inside it, a man's step leads to a slice whose men have advanced one rank more, captures and
/// crownings lead to smaller tables. In each side's index, kings vary fastest, so a placement
/// of the men is one run of consecutive indices.
#[derive(Clone, Copy)]
pub(super) struct Slice {
    /// The run of the men's placement in the first side, by its number.
    pub(super) first: u32,
    /// The run of the same placement seen by the other side to move, in the partner side (the
    /// first side again in a pair that is its own flip).
    pub(super) partner: u32,
}

/// A pair's slices, by level: the number of ranks its men have advanced in all.
pub(super) struct Slices {
    /// Positions in one run: the placements of the kings around fixed men.
    pub(super) run: u64,
    pub(super) by_level: Vec<Vec<Slice>>,
}

impl Slices {
    /// The slices of the pair of `signature` (the table, and its flip unless it is its own).
    pub(super) fn of(signature: Signature) -> Slices {
        let mut sides = vec![TableIndex::new(signature)];
        if signature.flipped() != signature {
            sides.push(TableIndex::new(signature.flipped()));
        }
        let men = u32::from(signature.mover_men + signature.opp_men);
        let mover_kings = u32::from(signature.mover_kings);
        // The same for the flipped signature (the two kings' counts swap), and for every count
        // of the opponent's men on the far row: every block of the index is made of whole runs.
        let run = binomial(32 - men, mover_kings)
            * binomial(32 - men - mover_kings, u32::from(signature.opp_kings));
        let partner = sides.len() - 1;
        let runs = sides[0].size() / run;
        let mut slices: Vec<(u8, Slice)> = (0..runs as u32)
            .into_par_iter()
            .filter_map(|first| {
                let board = sides[0].board(u64::from(first) * run);
                let partner_run = (sides[partner].index(&board.flipped()) / run) as u32;
                // In a pair that is its own flip, a placement and its flip are one slice.
                (partner == 1 || partner_run >= first).then_some((
                    board.advancement(),
                    Slice {
                        first,
                        partner: partner_run,
                    },
                ))
            })
            .collect();
        slices.par_sort_by_key(|&(level, _)| level);
        let mut by_level: Vec<Vec<Slice>> = Vec::new();
        for (level, slice) in slices {
            grown(&mut by_level, level as usize).push(slice);
        }
        Slices { run, by_level }
    }

    /// The runs of `slice`: (side, first index), one run when a placement is its own flip.
    pub(super) fn runs_of(
        &self,
        slice: &Slice,
        sides: usize,
    ) -> impl Iterator<Item = (usize, u64)> {
        let partner = sides - 1;
        let second = (partner == 1 || slice.partner != slice.first)
            .then_some((partner, u64::from(slice.partner) * self.run));
        std::iter::once((0, u64::from(slice.first) * self.run)).chain(second)
    }

    /// Positions in the slices of `level` (of a pair of `sides` tables).
    pub(super) fn level_positions(&self, level: usize, sides: usize) -> u64 {
        self.by_level.get(level).map_or(0, |slices| {
            slices
                .iter()
                .map(|slice| self.runs_of(slice, sides).count() as u64 * self.run)
                .sum()
        })
    }
}
