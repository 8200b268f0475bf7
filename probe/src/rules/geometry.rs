//! The board's geometry: the 32 dark squares, their neighbours and the diagonal rays through them.
//!
//! One geometry serves every variant (RULES.md §4): squares are numbered 0..32 from White's
//! side, row by row, `index = rank * 4 + file / 2`, so `0` is a1, `3` is g1, `4` is b2 and `31`
//! is h8. A set of squares is a `u32` bit mask. Turning the board by 180° maps square `s` to
//! `31 - s`, which is a bit reversal of the mask: that is how the side to move is always made to
//! move "up" (see [`crate::rules::Board`]).

/// A set of squares, bit `s` for square `s`.
pub type Bitboard = u32;

/// One of the four diagonal directions, seen from the side that moves up the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    UpLeft = 0,
    UpRight = 1,
    DownLeft = 2,
    DownRight = 3,
}

impl Direction {
    pub(crate) const ALL: [Direction; 4] = [
        Direction::UpLeft,
        Direction::UpRight,
        Direction::DownLeft,
        Direction::DownRight,
    ];
    pub(crate) const FORWARD: [Direction; 2] = [Direction::UpLeft, Direction::UpRight];

    const fn steps(self) -> (i32, i32) {
        match self {
            Direction::UpLeft => (1, -1),
            Direction::UpRight => (1, 1),
            Direction::DownLeft => (-1, -1),
            Direction::DownRight => (-1, 1),
        }
    }

    /// The two directions across the line of `self`.
    #[inline(always)]
    pub(crate) const fn across(self) -> [Direction; 2] {
        match self {
            Direction::UpLeft | Direction::DownRight => [Direction::UpRight, Direction::DownLeft],
            Direction::UpRight | Direction::DownLeft => [Direction::UpLeft, Direction::DownRight],
        }
    }

    /// Rays in "up" directions run towards higher square numbers.
    pub(crate) const fn is_up(self) -> bool {
        matches!(self, Direction::UpLeft | Direction::UpRight)
    }
}

/// Marks "no square" in [`NEIGHBOUR`].
pub(crate) const NO_SQUARE: u8 = 32;

/// The rank (0 = White's first row) of a square.
pub const fn rank_of(square: u8) -> u8 {
    square / 4
}

/// The file (0 = a) of a square.
pub const fn file_of(square: u8) -> u8 {
    let rank = square / 4;
    (square % 4) * 2 + rank % 2
}

/// The square at `(file, rank)`, if it is a dark (playing) square on the board.
pub const fn square_at(file: i32, rank: i32) -> Option<u8> {
    if file < 0 || file > 7 || rank < 0 || rank > 7 || (file + rank) % 2 != 0 {
        None
    } else {
        Some((rank * 4 + file / 2) as u8)
    }
}

/// The far row of the side moving up: where its men are crowned.
pub const PROMOTION_ROW: Bitboard = 0xF000_0000;
/// The side moving up starts from this row; the opponent's men are crowned here.
pub const BACK_ROW: Bitboard = 0x0000_000F;

/// The long diagonal a1–h8 (Russian "bolshak", Portuguese "rio").
pub const LONG_DIAGONAL: Bitboard = {
    let mut mask = 0;
    let mut i = 0;
    while i < 8 {
        if let Some(s) = square_at(i, i) {
            mask |= 1 << s;
        }
        i += 1;
    }
    mask
};

const fn build_neighbours() -> [[u8; 4]; 32] {
    let mut table = [[NO_SQUARE; 4]; 32];
    let mut s = 0;
    while s < 32 {
        let file = file_of(s as u8) as i32;
        let rank = rank_of(s as u8) as i32;
        let mut d = 0;
        while d < 4 {
            let (dr, df) = Direction::ALL[d].steps();
            if let Some(n) = square_at(file + df, rank + dr) {
                table[s][d] = n;
            }
            d += 1;
        }
        s += 1;
    }
    table
}

const fn build_rays() -> [[Bitboard; 4]; 32] {
    let mut table = [[0; 4]; 32];
    let mut s = 0;
    while s < 32 {
        let mut d = 0;
        while d < 4 {
            let mut mask = 0;
            let mut cur = NEIGHBOUR[s][d];
            while cur != NO_SQUARE {
                mask |= 1 << cur;
                cur = NEIGHBOUR[cur as usize][d];
            }
            table[s][d] = mask;
            d += 1;
        }
        s += 1;
    }
    table
}

/// `NEIGHBOUR[s][d]`: the square next to `s` in direction `d`, or [`NO_SQUARE`].
pub(crate) const NEIGHBOUR: [[u8; 4]; 32] = build_neighbours();

/// `RAY[s][d]`: every square from `s` (exclusive) to the edge in direction `d`.
pub(crate) const RAY: [[Bitboard; 4]; 32] = build_rays();

/// The squares a flying piece on `from` sees in direction `dir` up to and including the first
/// occupied square (the "blocker"), and that blocker, if any.
#[inline(always)]
pub(crate) fn ray_until_blocker(from: u8, dir: Direction, occupied: Bitboard) -> (Bitboard, u8) {
    let ray = RAY[from as usize][dir as usize];
    let blockers = ray & occupied;
    if blockers == 0 {
        return (ray, NO_SQUARE);
    }
    let blocker = if dir.is_up() {
        blockers.trailing_zeros() as u8
    } else {
        31 - blockers.leading_zeros() as u8
    };
    (ray & !RAY[blocker as usize][dir as usize], blocker)
}

/// The squares a flying king on `from` can move to quietly (and so the squares a king now on
/// `from` can have come from), given the occupied squares.
#[inline(always)]
pub fn king_reach(from: u8, occupied: Bitboard) -> Bitboard {
    let mut targets = 0;
    for dir in Direction::ALL {
        let (seen, _) = ray_until_blocker(from, dir, occupied);
        targets |= seen;
    }
    targets & !occupied
}

/// Squares one step up-left of each square in `set` (men moving forward).
#[inline(always)]
pub(crate) const fn shift_up_left(set: Bitboard) -> Bitboard {
    const EVEN_RANKS: Bitboard = 0x0F0F_0F0F;
    const ODD_RANKS: Bitboard = 0xF0F0_F0F0;
    const FILE_A: Bitboard = 0x0101_0101;
    ((set & EVEN_RANKS & !FILE_A) << 3) | ((set & ODD_RANKS) << 4)
}

/// Squares one step up-right of each square in `set` (men moving forward).
#[inline(always)]
pub(crate) const fn shift_up_right(set: Bitboard) -> Bitboard {
    const EVEN_RANKS: Bitboard = 0x0F0F_0F0F;
    const ODD_RANKS: Bitboard = 0xF0F0_F0F0;
    const FILE_H: Bitboard = 0x8080_8080;
    ((set & EVEN_RANKS) << 4) | ((set & ODD_RANKS & !FILE_H) << 5)
}

/// Squares one step down-left of each square in `set` (the inverse of [`shift_up_right`]).
#[inline(always)]
pub(crate) const fn shift_down_left(set: Bitboard) -> Bitboard {
    const EVEN_RANKS: Bitboard = 0x0F0F_0F0F;
    const ODD_RANKS: Bitboard = 0xF0F0_F0F0;
    const FILE_A: Bitboard = 0x0101_0101;
    ((set & ODD_RANKS) >> 4) | ((set & EVEN_RANKS & !FILE_A) >> 5)
}

/// Squares one step down-right of each square in `set` (the inverse of [`shift_up_left`]).
#[inline(always)]
pub(crate) const fn shift_down_right(set: Bitboard) -> Bitboard {
    const EVEN_RANKS: Bitboard = 0x0F0F_0F0F;
    const ODD_RANKS: Bitboard = 0xF0F0_F0F0;
    const FILE_H: Bitboard = 0x8080_8080;
    ((set & ODD_RANKS & !FILE_H) >> 3) | ((set & EVEN_RANKS) >> 4)
}

/// The squares a man of the side moving up on `square` steps to: one square ahead, up-left and
/// up-right (whether they are free is for the caller).
#[inline(always)]
pub const fn man_steps(square: u8) -> Bitboard {
    shift_up_left(1 << square) | shift_up_right(1 << square)
}

/// Turns a set of squares by 180°: square `s` becomes `31 - s`.
#[inline(always)]
pub const fn rotate(set: Bitboard) -> Bitboard {
    set.reverse_bits()
}

/// Turns one square by 180°.
#[inline(always)]
pub const fn rotate_square(square: u8) -> u8 {
    31 - square
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn man_steps_go_one_rank_up_diagonally() {
        for from in 0..32u8 {
            let mut expected = 0;
            for df in [-1, 1] {
                if let Some(to) = square_at(file_of(from) as i32 + df, rank_of(from) as i32 + 1) {
                    expected |= 1 << to;
                }
            }
            assert_eq!(man_steps(from), expected, "square {from}");
        }
    }

    #[test]
    fn squares_map_to_files_and_ranks() {
        assert_eq!((file_of(0), rank_of(0)), (0, 0)); // a1
        assert_eq!((file_of(3), rank_of(3)), (6, 0)); // g1
        assert_eq!((file_of(4), rank_of(4)), (1, 1)); // b2
        assert_eq!((file_of(31), rank_of(31)), (7, 7)); // h8
        for s in 0..32u8 {
            assert_eq!(square_at(file_of(s) as i32, rank_of(s) as i32), Some(s));
        }
    }

    #[test]
    fn shifts_agree_with_neighbour_table() {
        for s in 0..32u8 {
            let bit = 1u32 << s;
            let expect = |d: Direction| match NEIGHBOUR[s as usize][d as usize] {
                NO_SQUARE => 0,
                n => 1u32 << n,
            };
            assert_eq!(
                shift_up_left(bit),
                expect(Direction::UpLeft),
                "up-left of {s}"
            );
            assert_eq!(
                shift_up_right(bit),
                expect(Direction::UpRight),
                "up-right of {s}"
            );
        }
    }

    #[test]
    fn rotation_maps_geometry_onto_itself() {
        for s in 0..32u8 {
            let r = rotate_square(s);
            assert_eq!(file_of(r), 7 - file_of(s));
            assert_eq!(rank_of(r), 7 - rank_of(s));
        }
        assert_eq!(LONG_DIAGONAL.count_ones(), 8);
        assert_eq!(rotate(LONG_DIAGONAL), LONG_DIAGONAL);
        assert_eq!(rotate(PROMOTION_ROW), BACK_ROW);
    }

    #[test]
    fn rays_stop_at_first_blocker() {
        // a1 looking up-right along the long diagonal, blocked on d4 (square 13).
        let (seen, blocker) = ray_until_blocker(0, Direction::UpRight, 1 << 13);
        assert_eq!(blocker, 13);
        assert_eq!(seen, (1 << 4) | (1 << 9) | (1 << 13));
        // h8 looking down-left, blocked on d4 too.
        let (seen, blocker) = ray_until_blocker(31, Direction::DownLeft, 1 << 13);
        assert_eq!(blocker, 13);
        assert_eq!(seen.count_ones(), 4);
    }
}
