//! A dense index per signature: a bijection between the positions of a [`Signature`] and
//! `0..size`, with no holes (men never on their own far row, no two pieces on a square).
//!
//! Pieces are placed in a fixed order, each group as a combination (combinatorial number
//! system) of the squares still free for it:
//!
//! 1. the opponent's men on rank 8 (`j` of them, 4 squares) — rank 8 is closed to the mover's
//!    men, so splitting on `j` makes the number of squares left for the mover's men fixed;
//! 2. the opponent's other men on ranks 2–7 (24 squares);
//! 3. the mover's men on ranks 1–7 not taken by them (`28 - (opp_men - j)` squares);
//! 4. the mover's kings on the free squares (`32 - men`);
//! 5. the opponent's kings on the squares still free.
//!
//! Kings vary fastest, so positions that differ by a king move lie close together.

use crate::index::Signature;
use crate::rules::geometry::Bitboard;
use crate::rules::Board;

const fn build_binomials() -> [[u64; 33]; 33] {
    let mut table = [[0u64; 33]; 33];
    let mut n = 0;
    while n <= 32 {
        table[n][0] = 1;
        let mut k = 1;
        while k <= n {
            table[n][k] = table[n - 1][k - 1] + if k < n { table[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    table
}

/// `BINOMIAL[n][k]` = n choose k, for n, k ≤ 32.
const BINOMIAL: [[u64; 33]; 33] = build_binomials();

/// n choose k (0 when k > n).
#[inline(always)]
pub const fn binomial(n: u32, k: u32) -> u64 {
    if k > n || n > 32 {
        0
    } else {
        BINOMIAL[n as usize][k as usize]
    }
}

const OPP_FAR_ROW: Bitboard = 0xF000_0000;
const MIDDLE_ROWS: Bitboard = 0x0FFF_FFF0;
const MOVER_MEN_SQUARES: Bitboard = 0x0FFF_FFFF;

/// The rank of a set among the sets of its size, in colexicographic order (combinatorial number
/// system), after compressing it onto the squares of `free`.
#[inline(always)]
fn rank_within(set: Bitboard, free: Bitboard) -> u64 {
    let mut rank = 0;
    let mut rest = set;
    // At most 32 squares: the bound lets the table reads go unchecked, the counts being below 33.
    for row in &BINOMIAL_BY_K[1..] {
        if rest == 0 {
            break;
        }
        let square = rest.trailing_zeros();
        rest &= rest - 1;
        let below = free & ((1u32 << square) - 1);
        rank += row[below.count_ones() as usize];
    }
    rank
}

/// The `k`-element set of rank `rank` (see [`rank_within`]) spread back onto the squares of
/// `free`.
#[inline]
fn unrank_within(mut rank: u64, k: u32, free: Bitboard) -> Bitboard {
    let mut set = 0;
    for i in (1..=k).rev() {
        let c = largest_below(rank, i);
        rank -= binomial(c, i);
        set |= select(free, c);
    }
    set
}

/// The `k` positions (as a set of positions, bit `c` for position `c`) of the combination of
/// rank `rank` (see [`rank_within`]).
#[inline]
fn unrank_positions(mut rank: u64, k: u32) -> u32 {
    let mut positions = 0;
    for i in (1..=k).rev() {
        let c = largest_below(rank, i);
        rank -= binomial(c, i);
        positions |= 1 << c;
    }
    positions
}

/// The largest `c` with C(c, i) <= rank, for a rank below C(32, i).
#[inline(always)]
fn largest_below(rank: u64, i: u32) -> u32 {
    match i {
        1 => rank as u32,
        2..=LARGEST_BELOW_MAX_K => {
            u32::from(LARGEST_BELOW[LARGEST_BELOW_START[i as usize] + rank as usize])
        }
        _ => {
            // A binary search: binomials grow with c, and c < 32.
            let row = &BINOMIAL_BY_K[i as usize];
            let mut c = 0;
            for step in [16, 8, 4, 2, 1] {
                c += step * usize::from(row[c + step] <= rank);
            }
            c as u32
        }
    }
}

/// The group sizes whose [`largest_below`] is read from [`LARGEST_BELOW`]: one table lookup
/// instead of a chain of comparisons, for 41 kB of tables.
const LARGEST_BELOW_MAX_K: u32 = 4;

/// Where the answers for each `i` start in [`LARGEST_BELOW`] (ranks run over `0..C(32, i)`).
const LARGEST_BELOW_START: [usize; LARGEST_BELOW_MAX_K as usize + 2] = {
    let mut start = [0; LARGEST_BELOW_MAX_K as usize + 2];
    let mut i = 2;
    while i <= LARGEST_BELOW_MAX_K as usize {
        start[i + 1] = start[i] + BINOMIAL[32][i] as usize;
        i += 1;
    }
    start
};

/// [`largest_below`] for every rank of every `i` in `2..=LARGEST_BELOW_MAX_K`.
static LARGEST_BELOW: [u8; LARGEST_BELOW_START[LARGEST_BELOW_MAX_K as usize + 1]] = {
    let mut table = [0u8; LARGEST_BELOW_START[LARGEST_BELOW_MAX_K as usize + 1]];
    let mut i = 2;
    while i <= LARGEST_BELOW_MAX_K as usize {
        // Ranks from C(c, i) up to C(c + 1, i) - 1 have c as their answer.
        let mut c = i - 1;
        while c < 32 {
            let mut rank = BINOMIAL[c][i];
            while rank < BINOMIAL[c + 1][i] {
                table[LARGEST_BELOW_START[i] + rank as usize] = c as u8;
                rank += 1;
            }
            c += 1;
        }
        i += 1;
    }
    table
};

/// `BINOMIAL_BY_K[k][n]` = n choose k: the binomials of one `k` side by side, for searches over
/// `n`.
const BINOMIAL_BY_K: [[u64; 33]; 33] = {
    let mut table = [[0u64; 33]; 33];
    let mut n = 0;
    while n <= 32 {
        let mut k = 0;
        while k <= 32 {
            table[k][n] = BINOMIAL[n][k];
            k += 1;
        }
        n += 1;
    }
    table
};

/// `SELECT_IN_BYTE[byte][n]`: the position of the `n`-th (from 0) set bit of `byte`.
const SELECT_IN_BYTE: [[u8; 8]; 256] = {
    let mut table = [[0u8; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut n = 0;
        let mut bit = 0;
        while bit < 8 {
            if byte & (1 << bit) != 0 {
                table[byte][n] = bit as u8;
                n += 1;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

/// The square of the `n`-th (from 0) square of `free`, as a one-bit set: the byte that holds it
/// is found from the bytes' running counts, the square within it from a table. No branches, as
/// the squares missing from `free` fall anywhere.
#[inline(always)]
fn select(free: Bitboard, n: u32) -> Bitboard {
    let low8 = (free & 0xFF).count_ones();
    let low16 = (free & 0xFFFF).count_ones();
    let low24 = (free & 0xFF_FFFF).count_ones();
    let byte = u32::from(n >= low8) + u32::from(n >= low16) + u32::from(n >= low24);
    let below = [0, low8, low16, low24][byte as usize];
    let bits = (free >> (8 * byte)) & 0xFF;
    1 << (8 * byte + u32::from(SELECT_IN_BYTE[bits as usize][(n - below) as usize & 7]))
}

/// The sizes of the five combination groups for one count `j` of opponent men on rank 8.
#[derive(Clone, Copy, Debug, Default)]
struct Block {
    offset: u64,
    far: u64,
    middle: u64,
    mover_men: u64,
    mover_kings: u64,
    opp_kings: u64,
}

impl Block {
    const fn size(&self) -> u64 {
        self.far * self.middle * self.mover_men * self.mover_kings * self.opp_kings
    }
}

/// The men's share of an index (see [`TableIndex::men_rank`]).
#[derive(Clone, Copy, Debug)]
pub struct MenRank {
    base: u64,
    opp_kings_count: u64,
    free_for_kings: Bitboard,
}

/// The kings a side that [`OneKingMoving`] ranks: a valid board has at most 12 pieces a side.
const MAX_KINGS_A_SIDE: usize = 12;

/// The indices of the positions that differ only in the square of one of the mover's kings,
/// the men, the mover's other kings and the opponent's kings staying where they are (see
/// [`TableIndex::one_king_moving`]): what a retrograde solver needs for every king un-move.
///
/// Made once for the king that moves, each index then costs three counts of bits and a few
/// table reads instead of ranking every king again. The moving king shifts the order of the
/// mover's kings above it by one, and takes one free square away from the opponent's kings
/// above it: both ranks are kept for each number of kings below it.
#[derive(Clone, Copy, Debug)]
pub struct OneKingMoving {
    base: u64,
    opp_kings_count: u64,
    free_for_kings: Bitboard,
    other_kings: Bitboard,
    opp_kings: Bitboard,
    /// The rank of the other kings were every one of them above the moving king: the `i`-th
    /// (from 1) on the `p`-th free square adds C(p, i + 1).
    kings_above: u64,
    /// By the number `t` of other kings below the moving one: what the first `t` take back,
    /// C(p, i) − C(p, i + 1) each (a wrapping sum, the whole rank being positive).
    kings_below: [u64; MAX_KINGS_A_SIDE + 1],
    /// The rank of the opponent's kings were the moving king below every one of them: the
    /// `j`-th (from 1), with `q` free squares below it besides the moving king's, adds C(q, j).
    opp_above: u64,
    /// By the number `u` of the opponent's kings below the moving one: what the first `u` add,
    /// having one free square more below them, C(q + 1, j) − C(q, j) each.
    opp_below: [u64; MAX_KINGS_A_SIDE + 1],
}

impl OneKingMoving {
    /// The index of the position with the moving king on `square` (a free square: no man or
    /// other king on it).
    #[inline(always)]
    pub fn index_with_king_on(&self, square: u8) -> u64 {
        let below = (1u32 << square) - 1;
        let free_below = (self.free_for_kings & below).count_ones() as usize;
        let t = (self.other_kings & below).count_ones() as usize;
        let u = (self.opp_kings & below).count_ones() as usize;
        let kings = self
            .kings_above
            .wrapping_add(self.kings_below[t.min(MAX_KINGS_A_SIDE)])
            .wrapping_add(BINOMIAL_BY_K[t + 1][free_below]);
        let opp_kings = self.opp_above + self.opp_below[u.min(MAX_KINGS_A_SIDE)];
        self.base + kings * self.opp_kings_count + opp_kings
    }
}

/// The indices that share the men of the board last decoded by
/// [`TableIndex::board_sharing_men`], and those men. Empty at first.
#[derive(Clone, Copy, Debug, Default)]
pub struct MenRun {
    /// The signature whose index made the run: a run is never read by another.
    signature: Option<Signature>,
    start: u64,
    end: u64,
    opp_kings_count: u64,
    men: Bitboard,
    opp_men: Bitboard,
    /// The squares free for the kings, in order.
    squares: [u8; 32],
    /// The rank of the mover's kings last decoded in the run (`u64::MAX`: none yet), their
    /// squares and their positions among the free squares.
    kings_rank: u64,
    kings: Bitboard,
    kings_positions: u32,
}

/// The index of one signature.
#[derive(Clone, Debug)]
pub struct TableIndex {
    signature: Signature,
    blocks: [Block; 5],
    size: u64,
}

impl TableIndex {
    /// The index of `signature` (which must be possible, see [`Signature::is_possible`]).
    pub fn new(signature: Signature) -> TableIndex {
        let (mm, mk, om, ok) = (
            u32::from(signature.mover_men),
            u32::from(signature.mover_kings),
            u32::from(signature.opp_men),
            u32::from(signature.opp_kings),
        );
        let mut blocks = [Block::default(); 5];
        let mut offset = 0;
        for (j, block) in blocks.iter_mut().enumerate() {
            let j = j as u32;
            *block = Block {
                offset,
                far: binomial(4, j),
                middle: if j <= om { binomial(24, om - j) } else { 0 },
                mover_men: if j <= om {
                    binomial(28 - (om - j).min(28), mm)
                } else {
                    0
                },
                mover_kings: binomial(32u32.saturating_sub(mm + om), mk),
                opp_kings: binomial(32u32.saturating_sub(mm + om + mk), ok),
            };
            offset += block.size();
        }
        TableIndex {
            signature,
            blocks,
            size: offset,
        }
    }

    /// The signature indexed.
    pub const fn signature(&self) -> Signature {
        self.signature
    }

    /// The number of positions: indices run over `0..size`.
    pub const fn size(&self) -> u64 {
        self.size
    }

    /// The index of a board of this signature.
    #[inline]
    pub fn index(&self, board: &Board) -> u64 {
        debug_assert_eq!(Signature::of(board), self.signature);
        self.index_with_men(&self.men_rank(board), board.kings, board.opp_kings)
    }

    /// The part of the index that the men decide. Positions that differ only in where the kings
    /// stand share it, so a caller indexing many such positions (the un-moves of kings) computes
    /// it once.
    #[inline]
    pub fn men_rank(&self, board: &Board) -> MenRank {
        let far = board.opp_men & OPP_FAR_ROW;
        let middle = board.opp_men & MIDDLE_ROWS;
        let block = &self.blocks[far.count_ones() as usize];
        let mut men = rank_within(far, OPP_FAR_ROW);
        men = men * block.middle + rank_within(middle, MIDDLE_ROWS);
        men = men * block.mover_men + rank_within(board.men, MOVER_MEN_SQUARES & !middle);
        MenRank {
            base: block.offset + men * block.mover_kings * block.opp_kings,
            opp_kings_count: block.opp_kings,
            free_for_kings: !(board.men | board.opp_men),
        }
    }

    /// The index of the position with the men of `men` and these kings.
    #[inline]
    pub fn index_with_men(&self, men: &MenRank, kings: Bitboard, opp_kings: Bitboard) -> u64 {
        let free = men.free_for_kings;
        men.base
            + rank_within(kings, free) * men.opp_kings_count
            + rank_within(opp_kings, free & !kings)
    }

    /// The indices of the positions with the men of `men`, the mover's kings `other_kings` and
    /// one more, wherever it stands, and the opponent's kings `opp_kings` (see
    /// [`OneKingMoving`]), for kings of a board of this index's signature.
    ///
    /// ```
    /// use dprobe::index::{Signature, TableIndex};
    ///
    /// let table = TableIndex::new("KKMvKM".parse::<Signature>()?);
    /// let board = table.board(123_456);
    /// let men = table.men_rank(&board);
    /// // The mover's lowest king moves; the other pieces stay.
    /// let king = board.kings & board.kings.wrapping_neg();
    /// let others = board.kings & !king;
    /// let moving = table.one_king_moving(&men, others, board.opp_kings);
    /// let free = !(board.men | board.opp_men | others | board.opp_kings);
    /// for square in (0..32).filter(|&square| free & (1 << square) != 0) {
    ///     let kings = others | 1 << square;
    ///     assert_eq!(
    ///         moving.index_with_king_on(square),
    ///         table.index_with_men(&men, kings, board.opp_kings)
    ///     );
    /// }
    /// # Ok::<(), dprobe::index::BadSignature>(())
    /// ```
    #[inline(always)]
    pub fn one_king_moving(
        &self,
        men: &MenRank,
        other_kings: Bitboard,
        opp_kings: Bitboard,
    ) -> OneKingMoving {
        let free = men.free_for_kings;
        let free_below = |square: u32, free: Bitboard| (free & ((1u32 << square) - 1)).count_ones();
        let mut moving = OneKingMoving {
            base: men.base,
            opp_kings_count: men.opp_kings_count,
            free_for_kings: free,
            other_kings,
            opp_kings,
            kings_above: 0,
            kings_below: [0; MAX_KINGS_A_SIDE + 1],
            opp_above: 0,
            opp_below: [0; MAX_KINGS_A_SIDE + 1],
        };
        let mut rest = other_kings;
        for i in 1..=MAX_KINGS_A_SIDE {
            if rest == 0 {
                break;
            }
            let p = free_below(rest.trailing_zeros(), free) as usize;
            rest &= rest - 1;
            let (own, shifted) = (BINOMIAL_BY_K[i][p], BINOMIAL_BY_K[i + 1][p]);
            moving.kings_above += shifted;
            moving.kings_below[i] =
                moving.kings_below[i - 1].wrapping_add(own.wrapping_sub(shifted));
        }
        let opp_free = free & !other_kings;
        let mut rest = opp_kings;
        for (j, row) in (1..=MAX_KINGS_A_SIDE).zip(&BINOMIAL_BY_K[1..]) {
            if rest == 0 {
                break;
            }
            // Counted without the moving king: below this king it is one free square more.
            let q = free_below(rest.trailing_zeros(), opp_free) as usize;
            rest &= rest - 1;
            let without = row[q.saturating_sub(1)];
            moving.opp_above += without;
            moving.opp_below[j] = moving.opp_below[j - 1] + row[q] - without;
        }
        moving
    }

    /// The board at `index` (which must be below [`TableIndex::size`]).
    pub fn board(&self, index: u64) -> Board {
        let run = self.men_run(index);
        let kings_rank = index - run.start;
        let free_for_kings = !(run.men | run.opp_men);
        let kings = unrank_within(
            kings_rank / run.opp_kings_count,
            u32::from(self.signature.mover_kings),
            free_for_kings,
        );
        let opp_kings = unrank_within(
            kings_rank % run.opp_kings_count,
            u32::from(self.signature.opp_kings),
            free_for_kings & !kings,
        );
        Board {
            men: run.men,
            kings,
            opp_men: run.opp_men,
            opp_kings,
        }
    }

    /// The run of indices that share the men of the board at `index`, and those men (the
    /// tables for decoding its kings not yet made).
    fn men_run(&self, index: u64) -> MenRun {
        debug_assert!(index < self.size);
        let sig = self.signature;
        let j = self
            .blocks
            .iter()
            .rposition(|b| b.size() > 0 && b.offset <= index)
            .unwrap_or(0);
        let block = &self.blocks[j];
        let kings_per_men = block.mover_kings * block.opp_kings;
        let mut rest = (index - block.offset) / kings_per_men;
        let mover_men_rank = rest % block.mover_men;
        rest /= block.mover_men;
        let middle_rank = rest % block.middle;
        let far_rank = rest / block.middle;

        let far = unrank_within(far_rank, j as u32, OPP_FAR_ROW);
        let om = u32::from(sig.opp_men);
        let middle = unrank_within(middle_rank, om - j as u32, MIDDLE_ROWS);
        let men = unrank_within(
            mover_men_rank,
            u32::from(sig.mover_men),
            MOVER_MEN_SQUARES & !middle,
        );
        let start = index - (index - block.offset) % kings_per_men;
        MenRun {
            signature: Some(sig),
            start,
            end: start + kings_per_men,
            opp_kings_count: block.opp_kings,
            men,
            opp_men: far | middle,
            squares: [0; 32],
            kings_rank: u64::MAX,
            kings: 0,
            kings_positions: 0,
        }
    }

    /// The men of the board at `index` (the mover's, then the opponent's), decoding nothing
    /// when `index` lies in `run`, the indices whose men were decoded last with it: for passes
    /// that read only the men, such as ordering positions by their men's advancement.
    ///
    /// ```
    /// use dprobe::index::{MenRun, Signature, TableIndex};
    ///
    /// let table = TableIndex::new("KMMvKM".parse::<Signature>()?);
    /// let mut run = MenRun::default();
    /// for index in (0..table.size()).step_by(101) {
    ///     let board = table.board(index);
    ///     assert_eq!(table.men_sharing_run(index, &mut run), (board.men, board.opp_men));
    /// }
    /// # Ok::<(), dprobe::index::BadSignature>(())
    /// ```
    pub fn men_sharing_run(&self, index: u64, run: &mut MenRun) -> (Bitboard, Bitboard) {
        self.enter_run(index, run);
        (run.men, run.opp_men)
    }

    /// Makes `run` the run of `index`, unless it already is.
    #[inline]
    fn enter_run(&self, index: u64, run: &mut MenRun) {
        debug_assert!(index < self.size);
        if run.signature != Some(self.signature) || !(run.start..run.end).contains(&index) {
            *run = self.men_run(index);
            run.squares = in_order(!(run.men | run.opp_men));
        }
    }

    /// The board at `index`, decoding only the kings when `index` lies in `run`, the indices
    /// whose men are those of the board last decoded with it. Kings vary fastest in the index,
    /// so a list of indices in (roughly) increasing order, like the solver's queues, mostly
    /// stays in one run after another.
    ///
    /// ```
    /// use dprobe::index::{MenRun, Signature, TableIndex};
    ///
    /// let table = TableIndex::new("KKMvKKM".parse::<Signature>()?);
    /// let mut run = MenRun::default();
    /// for index in (1_000..table.size()).step_by(997) {
    ///     // The same board as decoding from scratch, only faster in runs.
    ///     assert_eq!(table.board_sharing_men(index, &mut run), table.board(index));
    /// }
    /// # Ok::<(), dprobe::index::BadSignature>(())
    /// ```
    pub fn board_sharing_men(&self, index: u64, run: &mut MenRun) -> Board {
        self.enter_run(index, run);
        let sig = self.signature;
        let kings_rank = index - run.start;
        // Runs of up to 8 pieces hold fewer than 2^32 placements of the kings, where 32-bit
        // division is the quicker.
        let (mover_rank, opp_rank) = if run.end - run.start <= u64::from(u32::MAX) {
            let (rank, count) = (kings_rank as u32, run.opp_kings_count as u32);
            (u64::from(rank / count), u64::from(rank % count))
        } else {
            (
                kings_rank / run.opp_kings_count,
                kings_rank % run.opp_kings_count,
            )
        };
        if mover_rank != run.kings_rank {
            run.kings_rank = mover_rank;
            run.kings_positions = unrank_positions(mover_rank, u32::from(sig.mover_kings));
            run.kings = spread(run.kings_positions, &run.squares);
        }
        // The opponent's kings count positions among the squares the mover's kings leave: each
        // position at or above one of those moves up by one.
        let mut opp_kings = 0;
        let mut rest = unrank_positions(opp_rank, u32::from(sig.opp_kings));
        while rest != 0 {
            let mut position = rest.trailing_zeros();
            rest &= rest - 1;
            let mut taken = run.kings_positions;
            while taken != 0 && taken.trailing_zeros() <= position {
                position += 1;
                taken &= taken - 1;
            }
            opp_kings |= 1 << run.squares[position as usize & 31];
        }
        Board {
            men: run.men,
            kings: run.kings,
            opp_men: run.opp_men,
            opp_kings,
        }
    }

    /// The boards at the consecutive indices of `range`, in order. Kings vary fastest in the
    /// index, so most steps only move the opponent's kings on to their next placement (see
    /// `KingSteps`); the men are decoded only when they change. For passes over whole tables.
    pub fn boards(&self, range: std::ops::Range<u64>) -> impl Iterator<Item = Board> + '_ {
        let mut state: Option<KingSteps> = None;
        range.map(move |index| {
            if let Some(steps) = &mut state {
                if steps.advance() {
                    return steps.board;
                }
            }
            // The men change (or this is the first board): decode it whole.
            let board = self.board(index);
            let block = self
                .blocks
                .iter()
                .rev()
                .find(|b| b.size() > 0 && b.offset <= index)
                .copied()
                .unwrap_or_default();
            let rest = index - block.offset;
            state = Some(KingSteps::new(
                board,
                (rest / block.opp_kings) % block.mover_kings,
                rest % block.opp_kings,
                block.mover_kings,
                block.opp_kings,
            ));
            board
        })
    }
}

/// The placements of the kings around fixed men in index order, stepped one at a time: each
/// side's kings as a set of positions among the squares free for them (the combinations that
/// [`rank_within`] ranks, in its order), moved on by Gosper's rule for the next set of as many
/// positions, then spread back onto the squares. A step costs a few operations where decoding
/// the rank again costs a search per king.
struct KingSteps {
    /// The board of the current placement.
    board: Board,
    /// The ranks of the mover's and the opponent's kings, and how many ranks each has.
    ranks: [u64; 2],
    counts: [u64; 2],
    /// The positions of the mover's kings among the free squares, and of the opponent's
    /// among the free squares the mover's kings leave.
    positions: [u32; 2],
    /// The squares free for the mover's kings, and those left after them, in order.
    squares: [[u8; 32]; 2],
}

impl KingSteps {
    fn new(board: Board, mover_rank: u64, opp_rank: u64, mover_count: u64, opp_count: u64) -> Self {
        let free = !(board.men | board.opp_men);
        let mut steps = KingSteps {
            board,
            ranks: [mover_rank, opp_rank],
            counts: [mover_count, opp_count],
            positions: [
                compressed(board.kings, free),
                compressed(board.opp_kings, free & !board.kings),
            ],
            squares: [[0; 32]; 2],
        };
        steps.squares[0] = in_order(free);
        steps.squares[1] = in_order(free & !board.kings);
        steps
    }

    /// Moves on to the next placement around the same men; `false` when there is none.
    #[inline]
    fn advance(&mut self) -> bool {
        if self.ranks[1] + 1 < self.counts[1] {
            self.ranks[1] += 1;
            self.positions[1] = next_combination(self.positions[1]);
            self.board.opp_kings = spread(self.positions[1], &self.squares[1]);
            return true;
        }
        if self.ranks[0] + 1 < self.counts[0] {
            self.ranks[0] += 1;
            self.ranks[1] = 0;
            self.positions[0] = next_combination(self.positions[0]);
            self.board.kings = spread(self.positions[0], &self.squares[0]);
            let free = !(self.board.men | self.board.opp_men);
            self.squares[1] = in_order(free & !self.board.kings);
            self.positions[1] = (1 << self.board.opp_kings.count_ones()) - 1;
            self.board.opp_kings = spread(self.positions[1], &self.squares[1]);
            return true;
        }
        false
    }
}

/// The next set with as many elements in increasing order (Gosper's rule): the lowest element
/// that can move up one does, and the elements below it go back to the bottom. Not for 0.
#[inline(always)]
fn next_combination(set: u32) -> u32 {
    let lowest = set & set.wrapping_neg();
    let carried = set.wrapping_add(lowest);
    carried | (((carried ^ set) >> lowest.trailing_zeros()) >> 2)
}

/// The squares of `free` in increasing order (the rest of the array unused).
fn in_order(mut free: Bitboard) -> [u8; 32] {
    let mut squares = [0; 32];
    let mut n = 0;
    while free != 0 {
        squares[n] = free.trailing_zeros() as u8;
        free &= free - 1;
        n += 1;
    }
    squares
}

/// The positions of the squares of `set` among those of `free`, as a set of positions.
fn compressed(set: Bitboard, free: Bitboard) -> u32 {
    let mut positions = 0;
    let mut rest = set;
    while rest != 0 {
        let square = rest.trailing_zeros();
        rest &= rest - 1;
        positions |= 1 << (free & ((1u32 << square) - 1)).count_ones();
    }
    positions
}

/// The squares at the positions of `positions` in `squares`.
#[inline(always)]
fn spread(positions: u32, squares: &[u8; 32]) -> Bitboard {
    let mut set = 0;
    let mut rest = positions;
    while rest != 0 {
        set |= 1 << squares[rest.trailing_zeros() as usize & 31];
        rest &= rest - 1;
    }
    set
}

/// The number of positions with exactly `pieces` pieces, both sides present, from the mover's
/// view, by a closed form independent of [`TableIndex`]: for `a` men of the mover (ranks 1–7)
/// of which `i` stand on rank 1, `b` men of the opponent (ranks 2–8) avoid the mover's men on
/// ranks 2–7; the `k` kings take any of the squares left, split `c` / `k - c` between the
/// sides, with both sides present.
pub fn positions_with_pieces(pieces: u32) -> u64 {
    let mut total = 0;
    for a in 0..=pieces.min(12) {
        for b in 0..=(pieces - a).min(12) {
            let kings = pieces - a - b;
            // Placements of the men: split the mover's men by how many stand on rank 1.
            let men: u64 = (0..=a.min(4))
                .map(|i| binomial(4, i) * binomial(24, a - i) * binomial(28 - (a - i), b))
                .sum();
            let free = 32 - a - b;
            // The kings: c for the mover, kings - c for the opponent, both sides present.
            let king_splits: u64 = (0..=kings)
                .filter(|&c| a + c >= 1 && b + kings - c >= 1 && a + c <= 12 && b + kings - c <= 12)
                .map(|c| binomial(free, c) * binomial(free - c, kings - c))
                .sum();
            total += men * king_splits;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(name: &str) -> Signature {
        name.parse().unwrap()
    }

    /// `count` indices below `size` spread over the whole table (a multiplicative hash).
    fn scattered(count: u64, size: u64) -> impl Iterator<Item = u64> {
        (0..count).map(move |i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7) % size)
    }

    #[test]
    fn binomials() {
        assert_eq!(binomial(32, 16), 601_080_390);
        assert_eq!(binomial(4, 5), 0);
        assert_eq!(binomial(0, 0), 1);
    }

    #[test]
    fn largest_below_matches_its_definition() {
        for i in 1..=8 {
            for rank in (0..binomial(32, i)).step_by(if i <= 4 { 1 } else { 997 }) {
                let c = largest_below(rank, i);
                assert!(
                    binomial(c, i) <= rank && binomial(c + 1, i) > rank,
                    "{i} {rank}"
                );
            }
        }
    }

    #[test]
    fn select_finds_the_nth_square() {
        for free in [
            u32::MAX,
            0x0FFF_FFF0,
            0xF0F0_F0F0,
            0x8000_0001,
            0x1234_5678,
            0xFFFE_FDFB,
        ] {
            let squares: Vec<u32> = (0..32).filter(|s| free & (1 << s) != 0).collect();
            for (n, &square) in squares.iter().enumerate() {
                assert_eq!(select(free, n as u32), 1 << square, "{free:#x} {n}");
            }
        }
    }

    #[test]
    fn round_trip_exhaustively_on_small_signatures() {
        for pieces in 2..=3 {
            for signature in Signature::with_pieces(pieces) {
                let table = TableIndex::new(signature);
                let mut seen = std::collections::HashSet::new();
                for i in 0..table.size() {
                    let board = table.board(i);
                    assert!(board.is_valid(), "{signature} {i}: {board:?}");
                    assert_eq!(Signature::of(&board), signature);
                    assert_eq!(table.index(&board), i, "{signature}");
                    assert!(seen.insert(board));
                }
            }
        }
    }

    #[test]
    fn boards_in_a_row_match_boards_one_by_one() {
        for name in [
            "KKKvK", "KMvKM", "MMvKK", "KKvMM", "MvM", "KKMvKKM", "KKvKK", "KKKMvKK",
        ] {
            let table = TableIndex::new(sig(name));
            let size = table.size();
            for range in [
                // Small tables whole: every step from one placement of the kings to the next.
                0..if size < 1_000_000 { size } else { 5000 },
                size.saturating_sub(3000)..size,
                size / 3..(size / 3 + 777).min(size),
            ] {
                let start = range.start;
                for (offset, board) in table.boards(range).enumerate() {
                    assert_eq!(
                        board,
                        table.board(start + offset as u64),
                        "{name} {}",
                        start + offset as u64
                    );
                }
            }
        }
    }

    #[test]
    fn boards_sharing_men_match_boards_one_by_one() {
        // One run across signatures, ascending and scattered indices: the run only ever saves
        // work, it never changes a board.
        let mut run = MenRun::default();
        for name in ["KKMvKKM", "KMvKMM", "KKKvKK", "MMvMM", "KMvKKM"] {
            let table = TableIndex::new(sig(name));
            let size = table.size();
            let mut indices: Vec<u64> = scattered(3000, size).collect();
            indices.sort_unstable();
            indices.extend((0..2000).map(|i| (i * 7919) % size));
            indices.extend(size.saturating_sub(500)..size);
            for index in indices {
                assert_eq!(
                    table.board_sharing_men(index, &mut run),
                    table.board(index),
                    "{name} {index}"
                );
            }
        }
    }

    #[test]
    fn one_king_moving_matches_ranking_every_king() {
        for name in [
            "KvK", "KKvK", "KvKK", "KKKvKKK", "KKMvKKM", "KMvKMM", "KvKKKKMM", "KKKKKKvK",
        ] {
            let table = TableIndex::new(sig(name));
            let size = table.size();
            for index in scattered(2000, size) {
                let board = table.board(index);
                let men = table.men_rank(&board);
                let mut kings = board.kings;
                while kings != 0 {
                    let king = kings & kings.wrapping_neg();
                    kings &= kings - 1;
                    let others = board.kings & !king;
                    let moving = table.one_king_moving(&men, others, board.opp_kings);
                    let free = !(board.men | board.opp_men | others | board.opp_kings);
                    for square in (0..32).filter(|&s| free & (1 << s) != 0) {
                        assert_eq!(
                            moving.index_with_king_on(square),
                            table.index_with_men(&men, others | 1 << square, board.opp_kings),
                            "{name} {index} king to {square}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn sizes_match_brute_force_counts() {
        // Count valid boards of a signature by trying every placement.
        for name in ["MvM", "KvK", "MMvK", "KMvM", "MvMM"] {
            let signature = sig(name);
            let mut count = 0u64;
            let n = signature.pieces();
            let mut squares = vec![0u32; n as usize];
            fn place(depth: usize, squares: &mut Vec<u32>, signature: Signature, count: &mut u64) {
                if depth == squares.len() {
                    let mut board = Board::default();
                    let mut k = 0;
                    let groups = [
                        signature.mover_men,
                        signature.mover_kings,
                        signature.opp_men,
                        signature.opp_kings,
                    ];
                    for (g, &size) in groups.iter().enumerate() {
                        // Within a group squares increase, so each set is counted once.
                        let mut last = None;
                        for _ in 0..size {
                            let s = squares[k];
                            if last.is_some_and(|l| l >= s) {
                                return;
                            }
                            last = Some(s);
                            let bit = 1u32 << s;
                            match g {
                                0 => board.men |= bit,
                                1 => board.kings |= bit,
                                2 => board.opp_men |= bit,
                                _ => board.opp_kings |= bit,
                            }
                            k += 1;
                        }
                    }
                    if board.occupied().count_ones() as usize == squares.len() && board.is_valid() {
                        *count += 1;
                    }
                    return;
                }
                for s in 0..32 {
                    squares[depth] = s;
                    place(depth + 1, squares, signature, count);
                }
            }
            place(0, &mut squares, signature, &mut count);
            assert_eq!(TableIndex::new(signature).size(), count, "{name}");
        }
    }

    proptest::proptest! {
        /// Random indices of every signature with 4 to 8 pieces (and some larger ones) map to
        /// valid boards of that signature and back.
        #[test]
        fn round_trip_on_large_signatures(pick in 0usize..100_000, fraction in 0.0f64..1.0) {
            let all: Vec<Signature> = (4..=8)
                .flat_map(Signature::with_pieces)
                .chain(["KKKKKKvKKKKKK", "MMMMMMMMMMMMvMMMMMMMMMMMM", "KKMMMMvKMMMMM"]
                    .iter()
                    .map(|n| sig(n)))
                .collect();
            let signature = all[pick % all.len()];
            let table = TableIndex::new(signature);
            let i = ((table.size() - 1) as f64 * fraction) as u64;
            let board = table.board(i);
            proptest::prop_assert!(board.is_valid());
            proptest::prop_assert_eq!(Signature::of(&board), signature);
            proptest::prop_assert_eq!(table.index(&board), i);
        }
    }

    #[test]
    fn closed_form_matches_sum_over_signatures() {
        for pieces in 2..=8 {
            let sum: u64 = Signature::with_pieces(pieces)
                .into_iter()
                .map(|s| TableIndex::new(s).size())
                .sum();
            assert_eq!(sum, positions_with_pieces(pieces), "{pieces} pieces");
        }
    }
}
