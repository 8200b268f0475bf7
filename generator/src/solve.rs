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
//! Positions decided at each distance are kept in buckets (one `u32` index each), so a pass
//! touches only its own positions. Memory per position: a packed `u16` value, a `u8` counter,
//! and 4 bytes in a bucket for the positions decided at initialisation or later.
//!
//! Work in proportion to the positions runs in parallel: each parallel task hands over what it
//! decided as segments (one per distance and side), and the single-threaded bookkeeping between
//! passes is per segment. On a machine with many cores, a single-threaded loop over a pair's
//! positions would take longer than the parallel work around it.

use std::sync::atomic::{AtomicU16, AtomicU8, Ordering};
use std::sync::Mutex;

use bitvec::vec::BitVec;
use dprobe::geometry::{king_reach, man_origins, Bitboard};
use dprobe::{
    count_quiet_moves, has_capture, legal_moves, Board, MenRun, Move, MoveRules, Signature,
    TableIndex, Value,
};
use rayon::prelude::*;

use crate::store::{StoreError, TableStats};
use crate::tableset::TableSet;

/// The row from which a man's step crowns it (rank 7 for the side moving up).
const CROWNING_STEP_ROW: Bitboard = 0x0F00_0000;

/// Positions handled per parallel task.
const CHUNK: usize = 1 << 12;

/// Positions scanned per parallel task when queueing what initialisation decided: larger than
/// [`CHUNK`], so that each distance's segments stay long.
const QUEUE_CHUNK: usize = 1 << 16;

/// The index range `0..size` cut into chunks for parallel passes.
pub(crate) fn chunks(size: u64) -> impl ParallelIterator<Item = std::ops::Range<u64>> {
    let chunk = CHUNK as u64;
    (0..size.div_ceil(chunk) as usize)
        .into_par_iter()
        .map(move |c| c as u64 * chunk..((c as u64 + 1) * chunk).min(size))
}

/// One flag per index of `0..size`, computed in parallel [`chunks`]: `flag_chunk(scratch, range,
/// words)` sets bit `i - range.start` of `words` for each flagged `i`, with a `scratch` per
/// worker from `init`.
pub(crate) fn flags_by_chunks<S>(
    size: u64,
    init: impl Fn() -> S + Sync + Send,
    flag_chunk: impl Fn(&mut S, std::ops::Range<u64>, &mut [u64]) + Sync + Send,
) -> BitVec<u64> {
    // Chunks are a multiple of 64 positions long, so their words join without shifting.
    let words: Vec<u64> = chunks(size)
        .map_init(init, |scratch, range| {
            let mut words = vec![0u64; (range.end - range.start).div_ceil(64) as usize];
            flag_chunk(scratch, range, &mut words);
            words
        })
        .flatten_iter()
        .collect();
    let mut flags = BitVec::from_vec(words);
    flags.truncate(size as usize);
    flags
}

/// Working space of one thread, reused from position to position.
#[derive(Default)]
struct Scratch {
    moves: Vec<Move>,
    preds: Vec<(usize, Board)>,
    seen: Vec<u16>,
    found: Found,
    /// The men last decoded on each side: queued positions come in runs that share them.
    runs: [MenRun; 2],
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
    /// Whether the mover has a capture, in index order (the compressed files' don't-cares).
    pub captures: BitVec<u64>,
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
}

impl PairSolver<'_> {
    /// The first failure to read a smaller table, if any.
    fn first_failure(&self) -> Result<(), StoreError> {
        match self
            .failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            Some(error) => Err(error),
            None => Ok(()),
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

    /// Sets up one position (its value if decided or provisionally won, else its counter);
    /// returns whether it has a capture.
    fn init(&self, side: usize, index: u64, board: &Board, moves: &mut Vec<Move>) -> bool {
        let this = &self.sides[side];
        let board = *board;
        if board.men & CROWNING_STEP_ROW == 0 && !has_capture(&board, self.rules) {
            // Every move is a quiet move into the pair: count them without listing them.
            match count_quiet_moves(&board) {
                0 => this.values[index as usize].store(Value::Loss(0).pack(), Ordering::Relaxed),
                n => this.counters[index as usize].store(n as u8, Ordering::Relaxed),
            }
            return false;
        }
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
        let value = if in_pair == 0 {
            // Every move leaves the pair (or there is none): decided now.
            Some(best_outside.unwrap_or(Value::Loss(0)))
        } else {
            this.counters[index as usize].store(in_pair, Ordering::Relaxed);
            // Provisional: a quiet move inside the pair may still win faster.
            best_outside.filter(|v| v.wdl() == dprobe::Wdl::Win)
        };
        if let Some(value) = value {
            this.values[index as usize].store(value.pack(), Ordering::Relaxed);
        }
        capture
    }

    /// Passes the value of a position decided at distance `n` on to its predecessors.
    fn propagate(&self, side: usize, index: u64, value: Value, scratch: &mut Scratch) {
        let before = self.partner(side);
        let pred_side = &self.sides[before];
        let Scratch {
            moves,
            preds,
            seen,
            found,
            runs,
        } = scratch;
        // The position seen by the side that has just moved.
        let mover_view = self.sides[side]
            .index
            .board_sharing_men(index, &mut runs[side])
            .flipped();
        preds.clear();
        // King un-moves keep the men where they are: their share of the index is computed once.
        let men = pred_side.index.men_rank(&mover_view);
        for_each_unmove(&mover_view, |pred, king_moved| {
            let pred_index = if king_moved {
                pred_side
                    .index
                    .index_with_men(&men, pred.kings, pred.opp_kings)
            } else {
                pred_side.index.index(&pred)
            };
            preds.push((pred_index as usize, pred));
        });
        // Read every predecessor's value before acting on any: the loads are independent, so
        // the processor overlaps their cache misses instead of waiting for each in turn.
        seen.clear();
        seen.extend(
            preds
                .iter()
                .map(|&(i, _)| pred_side.values[i].load(Ordering::Relaxed)),
        );
        for (&(pred_index, pred), &first_seen) in preds.iter().zip(seen.iter()) {
            // A predecessor that had a capture never played this quiet move. Such positions
            // were decided at initialisation, with no moves left to count (counter 0), which
            // tells them apart without generating their captures again.
            let slot = &pred_side.values[pred_index];
            let counter = &pred_side.counters[pred_index];
            match value {
                Value::Loss(n) => {
                    let win = Value::Win(n + 1);
                    let improves = |now: u16| match Value::unpack(now) {
                        None => true,
                        // Only a provisional win (counter still running) can be improved.
                        Some(Value::Win(d)) => d > n + 1 && counter.load(Ordering::Relaxed) > 0,
                        _ => false,
                    };
                    if !improves(first_seen) {
                        continue;
                    }
                    let updated = slot.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |now| {
                        improves(now).then_some(win.pack())
                    });
                    if updated.is_ok() {
                        found.push(before, n + 1, pred_index as u32);
                    }
                }
                Value::Win(_) => {
                    if first_seen == 0
                        && slot.load(Ordering::Relaxed) == 0
                        && counter.fetch_sub(1, Ordering::Relaxed) == 1
                    {
                        self.resolve(before, pred_index, &pred, moves, found);
                    }
                }
                Value::Draw => {}
            }
        }
    }

    /// Every quiet move inside the pair of this position leads to a win for the opponent: its
    /// value is now the best of all its moves (a loss, unless a move leaving the pair draws).
    fn resolve(
        &self,
        side: usize,
        index: usize,
        board: &Board,
        moves: &mut Vec<Move>,
        found: &mut Found,
    ) {
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
        if let Some(Value::Loss(distance)) = best {
            let slot = &self.sides[side].values[index];
            slot.store(Value::Loss(distance).pack(), Ordering::Relaxed);
            found.push(side, distance, index as u32);
        }
    }
}

/// Positions decided (or given a better provisional win) at one distance for one side, in the
/// order they were found.
struct Segment {
    side: usize,
    distance: u16,
    indices: Vec<u32>,
}

/// Positions a task decides, grouped by distance and side as they come, to be passed on in the
/// pass for their distance. Handed over a segment at a time, not one position at a time on a
/// single thread.
#[derive(Default)]
struct Found {
    by_distance: Vec<[Vec<u32>; 2]>,
}

/// The slot of `distance` (one entry per side) in a list by distance, grown as needed.
fn at_distance<T: Default>(by_distance: &mut Vec<[T; 2]>, distance: u16) -> &mut [T; 2] {
    let d = distance as usize;
    if by_distance.len() <= d {
        by_distance.resize_with(d + 1, Default::default);
    }
    &mut by_distance[d]
}

impl Found {
    fn push(&mut self, side: usize, distance: u16, index: u32) {
        at_distance(&mut self.by_distance, distance)[side].push(index);
    }

    /// Everything found so far, as segments; leaves `self` empty.
    fn take(&mut self) -> Vec<Segment> {
        let mut segments = Vec::new();
        for (distance, sides) in self.by_distance.iter_mut().enumerate() {
            for (side, indices) in sides.iter_mut().enumerate() {
                if !indices.is_empty() {
                    segments.push(Segment {
                        side,
                        distance: distance as u16,
                        indices: std::mem::take(indices),
                    });
                }
            }
        }
        segments
    }
}

/// A pass's segments cut into tasks of [`CHUNK`] to 2·[`CHUNK`] positions (for each side, long
/// segments split, short ones grouped; each side's last task may be smaller), so that a
/// frontier of many short segments does not become as many tiny tasks.
fn tasks(frontier: &[Vec<Vec<u32>>; 2]) -> Vec<(usize, Vec<&[u32]>)> {
    let mut tasks = Vec::new();
    for (side, segments) in frontier.iter().enumerate() {
        let mut pieces: Vec<&[u32]> = Vec::new();
        let mut len = 0;
        for piece in segments.iter().flat_map(|segment| segment.chunks(CHUNK)) {
            pieces.push(piece);
            len += piece.len();
            if len >= CHUNK {
                tasks.push((side, std::mem::take(&mut pieces)));
                len = 0;
            }
        }
        if !pieces.is_empty() {
            tasks.push((side, pieces));
        }
    }
    tasks
}

/// The positions to pass on, by distance and side, in segments: 4 bytes each.
#[derive(Default)]
struct Buckets {
    by_distance: Vec<[Vec<Vec<u32>>; 2]>,
}

impl Buckets {
    fn add(&mut self, segments: Vec<Segment>) {
        for segment in segments {
            at_distance(&mut self.by_distance, segment.distance)[segment.side]
                .push(segment.indices);
        }
    }

    /// The segments of each side at `distance`, or `None` once no bucket at or beyond it holds
    /// any.
    fn take(&mut self, distance: u16) -> Option<[Vec<Vec<u32>>; 2]> {
        let d = distance as usize;
        if self.by_distance[d.min(self.by_distance.len())..]
            .iter()
            .all(|sides| sides.iter().all(Vec::is_empty))
        {
            return None;
        }
        Some(
            self.by_distance
                .get_mut(d)
                .map(std::mem::take)
                .unwrap_or_default(),
        )
    }
}

/// Calls `f` with every position from which the side to move in `view` (which has just moved,
/// and moves up) reached `view` by a quiet move that did not crown a man, and whether that move
/// was a king's.
#[inline]
fn for_each_unmove(view: &Board, mut f: impl FnMut(Board, bool)) {
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
            f(pred, true);
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
            let mut pred = *view;
            pred.men = (pred.men & !(1 << to)) | (1 << from);
            f(pred, false);
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
    for &sig in &signatures {
        let size = TableIndex::new(sig).size();
        if size > u64::from(u32::MAX) {
            return Err(StoreError::Unsupported(format!(
                "{sig} has {size} positions; tables above 2^32 positions are not supported yet"
            )));
        }
    }
    let sides = signatures
        .iter()
        .map(|&sig| {
            let index = TableIndex::new(sig);
            let size = index.size() as usize;
            Side {
                index,
                // Filled in parallel: the first writes to hundreds of megabytes.
                values: (0..size)
                    .into_par_iter()
                    .map(|_| AtomicU16::new(0))
                    .collect(),
                counters: (0..size)
                    .into_par_iter()
                    .map(|_| AtomicU8::new(0))
                    .collect(),
            }
        })
        .collect();
    let solver = PairSolver {
        rules,
        smaller,
        sides,
        failure: Mutex::new(None),
    };
    let total: u64 = solver.sides.iter().map(|s| s.index.size()).sum();

    progress.phase("initialise", total);
    let mut buckets = Buckets::default();
    let mut captures = Vec::new();
    for side in 0..solver.sides.len() {
        let size = solver.sides[side].index.size();
        let flags = flags_by_chunks(
            size,
            || Vec::with_capacity(64),
            |moves, range, words| {
                let len = range.end - range.start;
                let boards = solver.sides[side].index.boards(range.clone());
                for (offset, (index, board)) in range.zip(boards).enumerate() {
                    let capture = solver.init(side, index, &board, moves);
                    words[offset / 64] |= u64::from(capture) << (offset % 64);
                }
                progress.advance(len);
            },
        );
        captures.push(flags);
        // Queue what initialisation decided, in index order (which keeps the first passes'
        // memory accesses close together).
        let found: Vec<Vec<Segment>> = solver.sides[side]
            .values
            .par_chunks(QUEUE_CHUNK)
            .enumerate()
            .map(|(number, values)| {
                let first = number * QUEUE_CHUNK;
                let mut found = Found::default();
                for (offset, value) in values.iter().enumerate() {
                    if let Some(distance) =
                        Value::unpack(value.load(Ordering::Relaxed)).and_then(Value::distance)
                    {
                        found.push(side, distance, (first + offset) as u32);
                    }
                }
                found.take()
            })
            .collect();
        for segments in found {
            buckets.add(segments);
        }
    }
    solver.first_failure()?;

    // Propagate by distance. A pass decides positions at later distances only.
    let mut distance: u16 = 0;
    while let Some(frontier) = buckets.take(distance) {
        let size = frontier.iter().flatten().map(Vec::len).sum::<usize>() as u64;
        progress.phase(&format!("distance {distance}"), size);
        let found: Vec<Vec<Segment>> = tasks(&frontier)
            .into_par_iter()
            .map_init(Scratch::default, |scratch, (side, pieces)| {
                let this = &solver.sides[side];
                for &index in pieces.iter().copied().flatten() {
                    let packed = this.values[index as usize].load(Ordering::Relaxed);
                    // A provisional win improved since it was queued is passed on in the pass
                    // of its new distance.
                    match Value::unpack(packed) {
                        Some(value) if value.distance() == Some(distance) => {
                            solver.propagate(side, u64::from(index), value, scratch)
                        }
                        _ => {}
                    }
                }
                progress.advance(pieces.iter().map(|p| p.len() as u64).sum());
                scratch.found.take()
            })
            .collect();
        for segments in found {
            buckets.add(segments);
        }
        distance += 1;
    }
    solver.first_failure()?;

    let solved = solver
        .sides
        .into_iter()
        .zip(signatures)
        .zip(captures)
        .map(|((side, signature), captures)| {
            let values: Vec<u16> = side
                .values
                .into_par_iter()
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
                stats: TableStats {
                    captures: captures.count_ones() as u64,
                    ..stats
                },
                captures,
            }
        })
        .collect();
    Ok(solved)
}
