//! The retrograde solver: exact values with distances for a signature and its colour flip.
//!
//! A signature `S` and `flip(S)` are solved together, because every quiet move that does not
//! crown a man leads from one to the other. Everything else a move can lead to (a capture: fewer
//! pieces; a crowning: fewer men) is in a table solved earlier.
//!
//! 1. **Initialise**, in parallel over all positions: a position without moves is lost in 0; a
//!    position with a capture is decided at once from the smaller tables; any other gets a
//!    counter of its quiet moves into the pair, and a provisional win if a crowning move already
//!    wins.
//! 2. **Propagate by distance**: pass `n` takes the positions decided at distance `n` and walks
//!    their un-moves (a king came from any square along a free diagonal, a man from one square
//!    behind) to the predecessors, skipping predecessors that had a capture (their quiet moves
//!    were never legal). A loss in `n` makes every predecessor a win in `n + 1` (or improves a
//!    slower provisional win); a win in `n` counts a predecessor's counter down, and a counter that
//!    reaches zero makes it a loss, as long as the loser can hold out.
//! 3. Whatever is still undecided is a draw: the game never ends.
//!
//! Memory per position: a packed `u16` value and a `u8` counter.

use std::sync::atomic::{AtomicU16, AtomicU8, Ordering};
use std::sync::Mutex;

use dprobe::geometry::{king_reach, man_origins, Bitboard};
use dprobe::{has_capture, legal_moves, Board, Move, MoveRules, Signature, TableIndex, Value};
use rayon::prelude::*;

use crate::store::{StoreError, TableStats};
use crate::tableset::TableSet;

/// Positions handled per parallel task.
const CHUNK: usize = 1 << 12;

/// The index range `0..size` cut into chunks for parallel passes.
pub(crate) fn chunks(size: u64) -> impl ParallelIterator<Item = std::ops::Range<u64>> {
    let chunk = CHUNK as u64;
    (0..size.div_ceil(chunk) as usize)
        .into_par_iter()
        .map(move |c| c as u64 * chunk..((c as u64 + 1) * chunk).min(size))
}

/// One side of the pair being solved.
struct Side {
    index: TableIndex,
    values: Vec<AtomicU16>,
    counters: Vec<AtomicU8>,
}

/// A solved table, ready to be written.
pub struct Solved {
    /// Its signature.
    pub signature: Signature,
    /// Packed values in index order.
    pub values: Vec<u16>,
    /// Its statistics.
    pub stats: TableStats,
}

/// Reports progress: called with the number of positions just handled.
pub trait Progress: Sync {
    /// `positions` more positions have been handled in the current phase.
    fn advance(&self, positions: u64);
    /// A new phase starts: `name` over `total` positions.
    fn phase(&self, name: &str, total: u64);
}

/// Progress that goes nowhere.
pub struct Silent;

impl Progress for Silent {
    fn advance(&self, _: u64) {}
    fn phase(&self, _: &str, _: u64) {}
}

struct PairSolver<'a> {
    rules: &'a MoveRules,
    smaller: &'a TableSet,
    sides: Vec<Side>,
    /// The first failure to read a smaller table.
    failure: Mutex<Option<StoreError>>,
    /// The largest distance of any value set so far: propagation runs up to it.
    highest: AtomicU16,
}

impl PairSolver<'_> {
    /// Stores `value` at `slot`, noting its distance.
    fn set(&self, slot: &AtomicU16, value: Value) {
        slot.store(value.pack(), Ordering::Relaxed);
        self.note(value);
    }

    fn note(&self, value: Value) {
        if let Some(d) = value.distance() {
            self.highest.fetch_max(d, Ordering::Relaxed);
        }
    }

    fn partner(&self, side: usize) -> usize {
        if self.sides.len() == 1 {
            0
        } else {
            1 - side
        }
    }

    /// The value of a position in a smaller table.
    fn smaller_value(&self, board: &Board) -> Value {
        if board.own() == 0 {
            return Value::Loss(0);
        }
        let lookup = self.smaller.table(Signature::of(board)).and_then(|table| {
            let index = table.index.index(board);
            table.value(index).ok_or_else(|| StoreError::Corrupt {
                path: crate::store::table_path(
                    self.smaller.dir(),
                    self.rules.id,
                    Signature::of(board),
                ),
                reason: format!("invalid value at index {index}"),
            })
        });
        match lookup {
            Ok(value) => value,
            Err(error) => {
                let mut slot = self.failure.lock().unwrap_or_else(|e| e.into_inner());
                slot.get_or_insert(error);
                Value::Draw
            }
        }
    }

    /// The value after `mv`, from the mover's side; `partner` holds the non-crowning quiet moves'
    /// results. `None` if that result is in the pair and not decided yet.
    fn move_value(&self, board: &Board, mv: &Move, partner: usize) -> Option<Value> {
        let child = board.play(mv);
        let value = if mv.is_capture() || mv.crowned {
            self.smaller_value(&child)
        } else {
            let side = &self.sides[partner];
            Value::unpack(side.values[side.index.index(&child) as usize].load(Ordering::Relaxed))?
        };
        Some(value.one_ply_earlier())
    }

    fn init(&self, side: usize, index: u64, moves: &mut Vec<Move>) -> bool {
        let this = &self.sides[side];
        let board = this.index.board(index);
        moves.clear();
        legal_moves(&board, self.rules, moves);
        let capture = moves.first().is_some_and(Move::is_capture);
        let mut in_pair = 0u8;
        let mut best_outside: Option<Value> = None;
        for mv in moves.iter() {
            if mv.is_capture() || mv.crowned {
                let value = self.smaller_value(&board.play(mv)).one_ply_earlier();
                if best_outside.is_none_or(|best| value.is_better_than(best)) {
                    best_outside = Some(value);
                }
            } else {
                in_pair += 1;
            }
        }
        let slot = &this.values[index as usize];
        if in_pair == 0 {
            // Every move leaves the pair (or there is none): decided now.
            self.set(slot, best_outside.unwrap_or(Value::Loss(0)));
        } else {
            this.counters[index as usize].store(in_pair, Ordering::Relaxed);
            // Provisional: a quiet move inside the pair may still win faster.
            if let Some(win @ Value::Win(_)) = best_outside {
                self.set(slot, win);
            }
        }
        capture
    }

    /// Passes the value of a position decided at distance `n` on to its predecessors.
    fn propagate(&self, side: usize, index: u64, value: Value, moves: &mut Vec<Move>) {
        let before = self.partner(side);
        let pred_side = &self.sides[before];
        // The position seen by the side that has just moved.
        let mover_view = self.sides[side].index.board(index).flipped();
        for_each_unmove(&mover_view, |pred| {
            if has_capture(&pred, self.rules) {
                return;
            }
            let pred_index = pred_side.index.index(&pred) as usize;
            let slot = &pred_side.values[pred_index];
            match value {
                Value::Loss(n) => {
                    let win = Value::Win(n + 1);
                    let updated = slot.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |now| {
                        match Value::unpack(now) {
                            None => Some(win.pack()),
                            Some(Value::Win(d)) if d > n + 1 => Some(win.pack()),
                            _ => None,
                        }
                    });
                    if updated.is_ok() {
                        self.note(win);
                    }
                }
                Value::Win(_) => {
                    if slot.load(Ordering::Relaxed) == 0
                        && pred_side.counters[pred_index].fetch_sub(1, Ordering::Relaxed) == 1
                    {
                        self.resolve(before, pred_index, &pred, moves);
                    }
                }
                Value::Draw => {}
            }
        });
    }

    /// Every quiet move inside the pair of this position leads to a win for the opponent: its
    /// value is now the best of all its moves (a loss, unless a move leaving the pair draws).
    fn resolve(&self, side: usize, index: usize, board: &Board, moves: &mut Vec<Move>) {
        moves.clear();
        legal_moves(board, self.rules, moves);
        let partner = self.partner(side);
        let mut best: Option<Value> = None;
        for mv in moves.iter() {
            // Every result inside the pair is decided by now.
            let value = self.move_value(board, mv, partner).unwrap_or(Value::Draw);
            if best.is_none_or(|b| value.is_better_than(b)) {
                best = Some(value);
            }
        }
        if let Some(loss @ Value::Loss(_)) = best {
            self.set(&self.sides[side].values[index], loss);
        }
    }
}

/// Calls `f` with every position from which the side to move in `view` (which has just moved,
/// and moves up) reached `view` by a quiet move that did not crown a man.
#[inline]
fn for_each_unmove(view: &Board, mut f: impl FnMut(Board)) {
    let occupied = view.occupied();
    let mut kings = view.kings;
    while kings != 0 {
        let to = kings.trailing_zeros() as u8;
        kings &= kings - 1;
        let mut origins: Bitboard = king_reach(to, occupied);
        while origins != 0 {
            let from = origins.trailing_zeros();
            origins &= origins - 1;
            let mut pred = *view;
            pred.kings = (pred.kings & !(1 << to)) | (1 << from);
            f(pred);
        }
    }
    let mut men = view.men;
    while men != 0 {
        let to = men.trailing_zeros() as u8;
        men &= men - 1;
        let mut origins = man_origins(to) & !occupied;
        while origins != 0 {
            let from = origins.trailing_zeros();
            origins &= origins - 1;
            {
                let mut pred = *view;
                pred.men = (pred.men & !(1 << to)) | (1 << from);
                f(pred);
            }
        }
    }
}

/// Solves `signature` and its colour flip (one table if they are the same), with every table
/// reachable by a capture or a crowning already in `smaller`.
pub fn solve_pair(
    rules: &MoveRules,
    smaller: &TableSet,
    signature: Signature,
    progress: &dyn Progress,
) -> Result<Vec<Solved>, StoreError> {
    let mut signatures = vec![signature];
    if signature.flipped() != signature {
        signatures.push(signature.flipped());
    }
    let sides = signatures
        .iter()
        .map(|&sig| {
            let index = TableIndex::new(sig);
            let size = index.size() as usize;
            Side {
                index,
                values: (0..size).map(|_| AtomicU16::new(0)).collect(),
                counters: (0..size).map(|_| AtomicU8::new(0)).collect(),
            }
        })
        .collect();
    let solver = PairSolver {
        rules,
        smaller,
        sides,
        failure: Mutex::new(None),
        highest: AtomicU16::new(0),
    };
    let total: u64 = solver.sides.iter().map(|s| s.index.size()).sum();

    progress.phase("initialise", total);
    let mut captures = Vec::new();
    for side in 0..solver.sides.len() {
        let size = solver.sides[side].index.size();
        let count: u64 = chunks(size)
            .map_init(
                || Vec::with_capacity(64),
                |moves, range| {
                    let len = range.end - range.start;
                    let captures = range.filter(|&i| solver.init(side, i, moves)).count();
                    progress.advance(len);
                    captures as u64
                },
            )
            .sum();
        captures.push(count);
    }
    if let Some(error) = solver
        .failure
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
    {
        return Err(error);
    }

    // Propagate by distance, up to the largest distance set so far (which grows as we go).
    let mut distance: u16 = 0;
    while distance <= solver.highest.load(Ordering::Relaxed) {
        progress.phase(&format!("distance {distance}"), total);
        for side in 0..solver.sides.len() {
            let this = &solver.sides[side];
            chunks(this.index.size()).for_each_init(
                || Vec::with_capacity(64),
                |moves, range| {
                    for index in range {
                        let packed = this.values[index as usize].load(Ordering::Relaxed);
                        // Packed wins and losses at distance d are 2 + 2d and 3 + 2d; unknown
                        // (0) and draw (1) wrap around to distances no table reaches.
                        if packed.wrapping_sub(2) >> 1 == distance {
                            if let Some(value) = Value::unpack(packed) {
                                solver.propagate(side, index, value, moves);
                            }
                        }
                    }
                },
            );
            progress.advance(this.index.size());
        }
        distance += 1;
    }
    if let Some(error) = solver
        .failure
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
    {
        return Err(error);
    }

    let solved = solver
        .sides
        .into_iter()
        .zip(signatures)
        .zip(captures)
        .map(|((side, signature), captures)| {
            let values: Vec<u16> = side
                .values
                .into_iter()
                .map(|v| match v.into_inner() {
                    0 => Value::Draw.pack(),
                    packed => packed,
                })
                .collect();
            let stats = values
                .par_iter()
                .enumerate()
                .fold(TableStats::default, |mut stats, (index, &packed)| {
                    if let Some(value) = Value::unpack(packed) {
                        stats.count(index as u64, value, false);
                    }
                    stats
                })
                .reduce(TableStats::default, TableStats::merge);
            Solved {
                signature,
                values,
                stats: TableStats { captures, ..stats },
            }
        })
        .collect();
    Ok(solved)
}
