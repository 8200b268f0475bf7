//! Legal move generation for a [`Board`] under a set of [`MoveRules`].
//!
//! This is the one place that reads the move rules: which way men capture, which captures take
//! precedence and what a man reaching the far row during a capture does. Everything is computed
//! on the board as seen by the side to move (which moves up), so there is one code path for both
//! colours. Generation writes into a caller's buffer and allocates nothing once that buffer has
//! grown to its working size.

use crate::rules::geometry::{
    king_reach, ray_until_blocker, rotate_square, shift_down_left, shift_down_right, shift_up_left,
    shift_up_right, Bitboard, Direction, NEIGHBOUR, NO_SQUARE, PROMOTION_ROW,
};
use crate::rules::{Board, Color, Move, Position};
use crate::rules::{CapturePrecedence, MoveRules, PromotionInCapture, Variant};

/// Iterates over the squares of a set.
#[inline(always)]
pub(crate) fn squares(mut set: Bitboard) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if set == 0 {
            None
        } else {
            let s = set.trailing_zeros() as u8;
            set &= set - 1;
            Some(s)
        }
    })
}

/// The directions in which men capture under `rules`.
#[inline(always)]
fn man_capture_directions(rules: &MoveRules) -> &'static [Direction] {
    if rules.men_capture_backward {
        &Direction::ALL
    } else {
        &Direction::FORWARD
    }
}

/// Whether a king on `square` can capture, with `capturable` the enemy pieces it may jump and
/// `occupied` everything that blocks.
#[inline(always)]
fn king_can_capture(square: u8, capturable: Bitboard, occupied: Bitboard) -> bool {
    Direction::ALL
        .iter()
        .any(|&dir| king_captures_towards(square, dir, capturable, occupied))
}

/// Whether a king on `square` can capture in direction `dir` (`capturable` and `occupied` as
/// in [`king_can_capture`]).
#[inline(always)]
fn king_captures_towards(
    square: u8,
    dir: Direction,
    capturable: Bitboard,
    occupied: Bitboard,
) -> bool {
    let (_, blocker) = ray_until_blocker(square, dir, occupied);
    can_be_jumped(blocker, dir, capturable, occupied)
}

/// Whether the piece on `square` (or [`NO_SQUARE`]) can be jumped in direction `dir`: it is
/// capturable and the square beyond it is empty.
#[inline(always)]
fn can_be_jumped(square: u8, dir: Direction, capturable: Bitboard, occupied: Bitboard) -> bool {
    if square == NO_SQUARE || capturable & (1 << square) == 0 {
        return false;
    }
    let land = NEIGHBOUR[square as usize][dir as usize];
    land != NO_SQUARE && occupied & (1 << land) == 0
}

/// The mover's men that can capture, found for all men at once: a man captures in a direction
/// when the next square holds an enemy piece and the one after it is empty.
#[inline(always)]
fn men_that_capture(board: &Board, rules: &MoveRules) -> Bitboard {
    let empty = !board.occupied();
    let opp = board.opp();
    // Each shift pair runs backwards from the landing square to the man.
    let mut men = shift_down_right(shift_down_right(empty) & opp)
        | shift_down_left(shift_down_left(empty) & opp);
    if rules.men_capture_backward {
        men |=
            shift_up_left(shift_up_left(empty) & opp) | shift_up_right(shift_up_right(empty) & opp);
    }
    men & board.men
}

/// Whether the side to move has a capture (and so must capture).
#[inline]
pub fn has_capture(board: &Board, rules: &MoveRules) -> bool {
    if men_that_capture(board, rules) != 0 {
        return true;
    }
    let occupied = board.occupied();
    let opp = board.opp();
    squares(board.kings).any(|s| king_can_capture(s, opp, occupied))
}

/// The number of the kings' quiet moves, or `None` when the side to move has a capture (and so
/// no quiet move). One look along each of a king's diagonals answers both, where
/// [`has_capture`] and then [`king_reach`] of each king would look twice: the solver asks this
/// of every position it initialises.
///
/// ```
/// use dprobe::rules::king_moves_unless_capture;
/// use dprobe::{Position, Variant};
///
/// let russian = Variant::RUSSIAN;
/// // A white king on c1 (square 30) reaches two squares towards a3 and five towards h6.
/// let quiet = Position::from_fen("W:WK30:B1", &russian)?;
/// assert_eq!(king_moves_unless_capture(&quiet.board(), &russian.moves), Some(7));
/// // A black man on d2 (square 26) with e3 empty behind it: the king must capture.
/// let capture = Position::from_fen("W:WK30:B26", &russian)?;
/// assert_eq!(king_moves_unless_capture(&capture.board(), &russian.moves), None);
/// # Ok::<(), dprobe::FenError>(())
/// ```
#[inline]
pub fn king_moves_unless_capture(board: &Board, rules: &MoveRules) -> Option<u32> {
    if men_that_capture(board, rules) != 0 {
        return None;
    }
    let occupied = board.occupied();
    let opp = board.opp();
    let mut reach: u32 = 0;
    for square in squares(board.kings) {
        for dir in Direction::ALL {
            let (seen, blocker) = ray_until_blocker(square, dir, occupied);
            if can_be_jumped(blocker, dir, opp, occupied) {
                return None;
            }
            reach += (seen & !occupied).count_ones();
        }
    }
    Some(reach)
}

/// Receives what a [`CaptureSearch`] finds. The move list ignores the path; the path finder
/// used for notation records it. Generic, so the move list pays nothing for paths.
trait CaptureSink {
    /// The capturing piece lands on `square` in the middle of its move.
    #[inline(always)]
    fn land(&mut self, _square: u8) {}
    /// The last landing is taken back.
    #[inline(always)]
    fn take_back(&mut self) {}
    /// A capture sequence ends with `mv`.
    fn finish(&mut self, mv: Move);
}

impl CaptureSink for Vec<Move> {
    #[inline(always)]
    fn finish(&mut self, mv: Move) {
        self.push(mv);
    }
}

/// Depth-first search over the capture sequences of one piece, with the Turkish-strike rule:
/// captured pieces stay on the board (blocking) until the move ends.
struct CaptureSearch<'a, S: CaptureSink> {
    rules: &'a MoveRules,
    from: u8,
    /// Everything that blocks: all pieces but the capturing one (its start square is empty).
    occupied: Bitboard,
    opp: Bitboard,
    sink: &'a mut S,
}

impl<S: CaptureSink> CaptureSearch<'_, S> {
    #[inline(always)]
    fn finish(&mut self, to: u8, captured: Bitboard, crowned: bool) {
        self.sink.finish(Move {
            from: self.from,
            to,
            crowned,
            captured,
        });
    }

    /// A man on `square` has captured `captured` so far; capture on or end the move.
    fn continue_as_man(&mut self, square: u8, captured: Bitboard) {
        let capturable = self.opp & !captured;
        let mut continued = false;
        for &dir in man_capture_directions(self.rules) {
            let over = NEIGHBOUR[square as usize][dir as usize];
            if over == NO_SQUARE || capturable & (1 << over) == 0 {
                continue;
            }
            let land = NEIGHBOUR[over as usize][dir as usize];
            if land == NO_SQUARE || self.occupied & (1 << land) != 0 {
                continue;
            }
            continued = true;
            let captured = captured | (1 << over);
            self.sink.land(land);
            if PROMOTION_ROW & (1 << land) == 0 {
                self.continue_as_man(land, captured);
            } else {
                match self.rules.promotion_in_capture {
                    PromotionInCapture::CrownAndContinue => {
                        self.continue_as_king(land, captured, true)
                    }
                    PromotionInCapture::PassThroughAsMan => self.continue_as_man(land, captured),
                    PromotionInCapture::Stop => self.finish(land, captured, true),
                }
            }
            self.sink.take_back();
        }
        if !continued && captured != 0 {
            self.finish(square, captured, PROMOTION_ROW & (1 << square) != 0);
        }
    }

    /// A king (`crowned`: a man crowned during this move) on `square` has captured `captured`;
    /// capture on or end the move. A king that can continue from some landing squares must land
    /// on one of those.
    fn continue_as_king(&mut self, square: u8, captured: Bitboard, crowned: bool) {
        let capturable = self.opp & !captured;
        let mut continued = false;
        for dir in Direction::ALL {
            let (_, victim) = ray_until_blocker(square, dir, self.occupied);
            if victim == NO_SQUARE || capturable & (1 << victim) == 0 {
                continue;
            }
            let (beyond, next) = ray_until_blocker(victim, dir, self.occupied);
            let landings = beyond & !self.occupied;
            if landings == 0 {
                continue;
            }
            continued = true;
            let captured = captured | (1 << victim);
            let still_capturable = capturable & !(1 << victim);
            // From every landing square the king meets the same piece straight on, and looking
            // back the piece it has just taken (which stays until the move ends): only the two
            // directions across the line differ from square to square.
            let onward = if can_be_jumped(next, dir, still_capturable, self.occupied) {
                landings
            } else {
                let mut onward = 0;
                for land in squares(landings) {
                    if dir.across().iter().any(|&across| {
                        king_captures_towards(land, across, still_capturable, self.occupied)
                    }) {
                        onward |= 1 << land;
                    }
                }
                onward
            };
            if onward != 0 {
                for land in squares(onward) {
                    self.sink.land(land);
                    self.continue_as_king(land, captured, crowned);
                    self.sink.take_back();
                }
            } else {
                for land in squares(landings) {
                    self.sink.land(land);
                    self.finish(land, captured, crowned);
                    self.sink.take_back();
                }
            }
        }
        if !continued && captured != 0 {
            self.finish(square, captured, crowned);
        }
    }
}

/// Runs the capture search for every piece of the side to move, before the precedence rules and
/// before merging sequences with the same result.
fn search_captures<S: CaptureSink>(
    board: &Board,
    rules: &MoveRules,
    pieces: Bitboard,
    sink: &mut S,
) {
    let occupied_all = board.occupied();
    for from in squares(pieces) {
        sink.land(from);
        let mut search = CaptureSearch {
            rules,
            from,
            occupied: occupied_all & !(1 << from),
            opp: board.opp(),
            sink: &mut *sink,
        };
        if board.kings & (1 << from) != 0 {
            search.continue_as_king(from, 0, false);
        } else {
            search.continue_as_man(from, 0);
        }
        sink.take_back();
    }
}

/// Collects the squares a capture sequence visits, for the sequences that give one move.
struct PathFinder {
    target: Move,
    current: Vec<u8>,
    found: Vec<Vec<u8>>,
}

impl CaptureSink for PathFinder {
    fn land(&mut self, square: u8) {
        self.current.push(square);
    }
    fn take_back(&mut self) {
        self.current.pop();
    }
    fn finish(&mut self, mv: Move) {
        if mv == self.target {
            // Every landing, the last one included, has been recorded by `land`.
            if !self.found.contains(&self.current) {
                self.found.push(self.current.clone());
            }
        }
    }
}

/// Every path (start square, each landing square, in order) by which the legal move `mv` can be
/// played. A quiet move has the one path `[from, to]`.
pub fn move_paths(board: &Board, rules: &MoveRules, mv: &Move) -> Vec<Vec<u8>> {
    if !mv.is_capture() {
        return vec![vec![mv.from, mv.to]];
    }
    let mut finder = PathFinder {
        target: *mv,
        current: Vec::new(),
        found: Vec::new(),
    };
    search_captures(board, rules, 1 << mv.from, &mut finder);
    finder.found
}

/// Keeps only the captures the precedence rule allows, each distinct result once.
fn select_captures(board: &Board, rules: &MoveRules, moves: &mut Vec<Move>, start: usize) {
    let weight = |mv: &Move| -> u32 {
        let pieces = mv.captured.count_ones();
        match rules.precedence {
            CapturePrecedence::Free => 0,
            CapturePrecedence::MostPieces => pieces,
            CapturePrecedence::MostPiecesThenKings => {
                pieces * 16 + (mv.captured & board.opp_kings).count_ones()
            }
        }
    };
    let best = moves[start..].iter().map(weight).max().unwrap_or(0);
    let mut kept = start;
    for i in start..moves.len() {
        let mv = moves[i];
        if weight(&mv) == best && !moves[start..kept].contains(&mv) {
            moves[kept] = mv;
            kept += 1;
        }
    }
    moves.truncate(kept);
}

/// Appends the quiet (non-capturing) moves of the side to move to `out` (which is not cleared
/// first): the legal moves when [`has_capture`] is false. For callers that have asked
/// [`has_capture`] already; [`legal_moves`] asks it itself.
pub fn quiet_moves(board: &Board, out: &mut Vec<Move>) {
    let occupied = board.occupied();
    for from in squares(board.men) {
        for dir in Direction::FORWARD {
            let to = NEIGHBOUR[from as usize][dir as usize];
            if to != NO_SQUARE && occupied & (1 << to) == 0 {
                out.push(Move {
                    from,
                    to,
                    crowned: PROMOTION_ROW & (1 << to) != 0,
                    captured: 0,
                });
            }
        }
    }
    for from in squares(board.kings) {
        for to in squares(king_reach(from, occupied)) {
            out.push(Move {
                from,
                to,
                crowned: false,
                captured: 0,
            });
        }
    }
}

/// Appends every legal move of the side to move to `out` (which is not cleared first): the
/// captures the rules allow if there is any capture, otherwise the quiet moves.
pub fn legal_moves(board: &Board, rules: &MoveRules, out: &mut Vec<Move>) {
    if has_capture(board, rules) {
        capture_moves(board, rules, out);
    } else {
        quiet_moves(board, out);
    }
}

/// Appends the captures the rules allow to `out` (which is not cleared first): the legal moves
/// when [`has_capture`] is true, each distinct result once. Nothing when there is no capture.
pub fn capture_moves(board: &Board, rules: &MoveRules, out: &mut Vec<Move>) {
    let start = out.len();
    let pieces = board.kings | men_that_capture(board, rules);
    search_captures(board, rules, pieces, out);
    if out.len() > start {
        select_captures(board, rules, out, start);
    }
}

/// The number of legal moves, counting quiet moves without listing them. `scratch` is working
/// space for captures.
#[inline]
pub fn count_legal_moves(board: &Board, rules: &MoveRules, scratch: &mut Vec<Move>) -> u64 {
    if has_capture(board, rules) {
        scratch.clear();
        legal_moves(board, rules, scratch);
        return scratch.len() as u64;
    }
    u64::from(count_quiet_moves(board))
}

/// The number of quiet moves, without listing them (the legal moves when there is no capture).
#[inline]
pub fn count_quiet_moves(board: &Board) -> u32 {
    let occupied = board.occupied();
    let empty = !occupied;
    let men = (shift_up_left(board.men) & empty).count_ones()
        + (shift_up_right(board.men) & empty).count_ones();
    let kings: u32 = squares(board.kings)
        .map(|k| king_reach(k, occupied).count_ones())
        .sum();
    men + kings
}

impl Position {
    /// Every legal move of the side to move under the variant's rules, squares in White's
    /// geometry. Allocates; engines and the solver use [`legal_moves`] on a [`Board`] with a
    /// reused buffer instead.
    pub fn legal_moves(&self, variant: &Variant) -> Vec<Move> {
        let mut moves = Vec::new();
        legal_moves(&self.board(), &variant.moves, &mut moves);
        moves.iter().map(|mv| self.orient_move(mv)).collect()
    }

    /// Every path (start square, each landing square) by which a legal move can be played, in
    /// White's geometry.
    pub fn move_paths(&self, variant: &Variant, mv: &Move) -> Vec<Vec<u8>> {
        let relative = self.orient_move(mv);
        let mut paths = move_paths(&self.board(), &variant.moves, &relative);
        if self.side_to_move == Color::Black {
            for path in &mut paths {
                for square in path.iter_mut() {
                    *square = rotate_square(*square);
                }
            }
        }
        paths
    }
}
