//! Positions seen from the side to move ([`Board`]) and from White ([`Position`]), and moves.

use crate::rules::geometry::{rotate, rotate_square, Bitboard, PROMOTION_ROW};

/// A position from the point of view of the side to move, which always moves "up" the board
/// (towards rank 8). This is the form move generation, indexing and the solver use: a position
/// with Black to move is turned by 180° and its colours swapped, so one move generator and one
/// table serve both colours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Board {
    /// The mover's men.
    pub men: Bitboard,
    /// The mover's kings.
    pub kings: Bitboard,
    /// The opponent's men (they move down).
    pub opp_men: Bitboard,
    /// The opponent's kings.
    pub opp_kings: Bitboard,
}

impl Board {
    /// How far the men have advanced in all, in ranks: the same from either side's view, and
    /// one more after any man's step. Solvers order their work by it, since a man never steps
    /// back.
    #[inline]
    pub fn advancement(&self) -> u8 {
        let ranks = |men: Bitboard| -> u32 {
            let mut sum = 0;
            let mut rest = men;
            while rest != 0 {
                sum += rest.trailing_zeros() / 4;
                rest &= rest - 1;
            }
            sum
        };
        // The opponent's men advance down the board.
        (ranks(self.men) + 7 * self.opp_men.count_ones() - ranks(self.opp_men)) as u8
    }

    /// The mover's pieces.
    #[inline(always)]
    pub const fn own(&self) -> Bitboard {
        self.men | self.kings
    }

    /// The opponent's pieces.
    #[inline(always)]
    pub const fn opp(&self) -> Bitboard {
        self.opp_men | self.opp_kings
    }

    /// Every occupied square.
    #[inline(always)]
    pub const fn occupied(&self) -> Bitboard {
        self.own() | self.opp()
    }

    /// The same position with the other side to move: colours swapped, board turned by 180°.
    #[inline(always)]
    pub const fn flipped(&self) -> Board {
        Board {
            men: rotate(self.opp_men),
            kings: rotate(self.opp_kings),
            opp_men: rotate(self.men),
            opp_kings: rotate(self.kings),
        }
    }

    /// The position after `mv` (a legal move of this board), seen from the new side to move.
    #[inline(always)]
    pub const fn play(&self, mv: &Move) -> Board {
        let from = 1u32 << mv.from;
        let to = 1u32 << mv.to;
        let mut men = self.men & !from;
        let mut kings = self.kings & !from;
        if self.kings & from != 0 || mv.crowned {
            kings |= to;
        } else {
            men |= to;
        }
        Board {
            men: rotate(self.opp_men & !mv.captured),
            kings: rotate(self.opp_kings & !mv.captured),
            opp_men: rotate(men),
            opp_kings: rotate(kings),
        }
    }

    /// Whether the position is one the rules allow: no square holds two pieces, no man stands on
    /// its own far row (where it would have been crowned), at most 12 pieces a side.
    pub const fn is_valid(&self) -> bool {
        self.men & self.kings == 0
            && self.opp_men & self.opp_kings == 0
            && self.own() & self.opp() == 0
            && self.men & PROMOTION_ROW == 0
            && self.opp_men & rotate(PROMOTION_ROW) == 0
            && self.own().count_ones() <= 12
            && self.opp().count_ones() <= 12
    }
}

/// A move: where the piece starts and ends, what it captures and whether a man is crowned.
///
/// Squares are internal square numbers (see [`crate::rules::geometry`]). Two capture sequences with the
/// same start, end, captured set and resulting piece are the same move (RULES.md §3); the path
/// taken is not part of the move (see [`crate::Position::move_paths`] for printing one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// The square the piece leaves.
    pub from: u8,
    /// The square the piece ends on.
    pub to: u8,
    /// A man is crowned by this move.
    pub crowned: bool,
    /// The squares of the captured pieces (empty for a quiet move).
    pub captured: Bitboard,
}

impl Move {
    /// Whether the move captures.
    pub const fn is_capture(&self) -> bool {
        self.captured != 0
    }

    /// The same move seen from the other side of the board (turned by 180°).
    pub const fn rotated(&self) -> Move {
        Move {
            from: rotate_square(self.from),
            to: rotate_square(self.to),
            crowned: self.crowned,
            captured: rotate(self.captured),
        }
    }
}

/// A side: White moves first and starts on ranks 1–3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// The side that moves first.
    White,
    /// The other side.
    Black,
}

impl Color {
    /// The other side.
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

/// A position as players see it: pieces by colour on the internal geometry (seen from White),
/// and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// White's men.
    pub white_men: Bitboard,
    /// White's kings.
    pub white_kings: Bitboard,
    /// Black's men.
    pub black_men: Bitboard,
    /// Black's kings.
    pub black_kings: Bitboard,
    /// The side to move.
    pub side_to_move: Color,
}

impl Position {
    /// The starting position: 12 men each on the three rows nearest their owner, White to move.
    pub const INITIAL: Position = Position {
        white_men: 0x0000_0FFF,
        white_kings: 0,
        black_men: 0xFFF0_0000,
        black_kings: 0,
        side_to_move: Color::White,
    };

    /// The position seen from the side to move.
    pub const fn board(&self) -> Board {
        let white_view = Board {
            men: self.white_men,
            kings: self.white_kings,
            opp_men: self.black_men,
            opp_kings: self.black_kings,
        };
        match self.side_to_move {
            Color::White => white_view,
            Color::Black => white_view.flipped(),
        }
    }

    /// The position a [`Board`] stands for, given which side is to move.
    pub const fn from_board(board: &Board, side_to_move: Color) -> Position {
        let white_view = match side_to_move {
            Color::White => *board,
            Color::Black => board.flipped(),
        };
        Position {
            white_men: white_view.men,
            white_kings: white_view.kings,
            black_men: white_view.opp_men,
            black_kings: white_view.opp_kings,
            side_to_move,
        }
    }

    /// The pieces of one side.
    pub const fn pieces(&self, color: Color) -> Bitboard {
        match color {
            Color::White => self.white_men | self.white_kings,
            Color::Black => self.black_men | self.black_kings,
        }
    }

    /// Converts a move between the [`Board`] view (side to move moving up) and White's geometry; the conversion is its own inverse.
    pub const fn orient_move(&self, mv: &Move) -> Move {
        match self.side_to_move {
            Color::White => *mv,
            Color::Black => mv.rotated(),
        }
    }

    /// The position after a legal move (squares in White's geometry).
    pub const fn play(&self, mv: &Move) -> Position {
        let relative = self.orient_move(mv);
        let next = self.board().play(&relative);
        Position::from_board(&next, self.side_to_move.other())
    }

    /// The same position with colours swapped and the board turned by 180°: its moves are this
    /// position's moves, turned.
    pub const fn color_flipped(&self) -> Position {
        Position {
            white_men: rotate(self.black_men),
            white_kings: rotate(self.black_kings),
            black_men: rotate(self.white_men),
            black_kings: rotate(self.white_kings),
            side_to_move: self.side_to_move.other(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_position_is_valid_and_symmetric() {
        assert!(Position::INITIAL.board().is_valid());
        let flipped = Position::INITIAL.color_flipped();
        assert_eq!(
            flipped.board(),
            Position::INITIAL.board().flipped().flipped()
        );
        assert_eq!(flipped.side_to_move, Color::Black);
    }

    #[test]
    fn board_round_trips_through_position() {
        let pos = Position {
            white_men: 0b1011 << 8,
            white_kings: 1 << 30,
            black_men: 1 << 20,
            black_kings: 1 << 2,
            side_to_move: Color::Black,
        };
        assert_eq!(Position::from_board(&pos.board(), Color::Black), pos);
    }
}
