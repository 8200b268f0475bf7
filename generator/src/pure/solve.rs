//! The retrograde solver: exact values with distances for a signature and its colour flip.
//!
//! A signature `S` and `flip(S)` are solved together, because every quiet move that does not
//! crown a man leads from one to the other. Everything else a move can lead to (a capture: fewer
//! pieces; a crowning: fewer men) is in a table solved earlier.
//!
//! The pair is cut into **slices**: the positions with one placement of the men, with either
//! side to move. King moves stay in a slice; a man's step leads to a slice whose men have
//! advanced one rank more in all. Slices are solved level by level, the most advanced men
//! first, so that every move out of a slice leads to a value already final. Each slice is a
//! small retrograde problem of its own:
//!
//! 1. **Initialise** each position: a position without moves is lost in 0; one with a capture
//!    is decided at once from the smaller tables; any other reads its men's steps (from the
//!    smaller tables when they crown, else from the slices solved before), counts its king
//!    moves, and is decided if it has none, provisionally won if a step already wins. An
//!    undecided position's count holds its king moves and one more for its best move out of
//!    the slice, if any: that one is never counted down if it draws, and counted down in the
//!    pass of its distance if it loses. The count lives in the 16 bits that will hold the
//!    position's value (`slot.rs`).
//! 2. **Propagate by distance**: pass `n` takes the slice's positions decided at distance `n`
//!    (a unit of small slices of one level is solved as one: it is closed under king moves too)
//!    and walks their king un-moves (a king came from any square along a free diagonal) to the
//!    predecessors, skipping predecessors that had a capture (their quiet moves were never
//!    legal). A loss in `n` makes every predecessor a win in `n + 1` (or improves a slower
//!    provisional win); a win in `n` counts an undecided predecessor down, as does a move out
//!    of a slice that loses in `n + 1`. A count that reaches zero in pass `n` makes a loss in
//!    `n + 1`: every move has been counted, the slowest last, so no move is generated again.
//! 3. Whatever is still undecided is a draw (the game never ends), stored before the less
//!    advanced slices read it.
//!
//! A slice's values fit in a processor's cache, and the slices of one level are independent:
//! they are solved in parallel (`docs/ARCHITECTURE.md`, "Solver", has the memory per position).
//! The slices are planned in `slices.rs`, moves out of the pair read in
//! `exits.rs`, the passes' queues kept in `buckets.rs`.

use std::ops::Range;
use std::sync::atomic::{AtomicU16, AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;

use bitvec::vec::BitVec;
use dprobe::rules::geometry::{king_reach, rotate, Bitboard};
use dprobe::{
    index::{MenRun, Signature, TableIndex},
    rules::{capture_moves, king_moves_unless_capture, Board, MoveRules},
    Move, Value,
};
use rayon::prelude::*;

use crate::pure::store::{prefetch, Table, TableStats};
use crate::pure::tableset::TableSet;

use super::buckets::{tasks, Buckets, Found, Queue, Queued, Segment};
use super::exits::{Exits, LastMenRank};
use super::slices::{MenSteps, Slice, Slices};
use super::slot;
use crate::Error;

/// Positions handled per parallel task.
pub(crate) const CHUNK: usize = 1 << 12;

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
    bits_from_words(words, size as usize)
}

/// The first `len` bits of `words`, bit `i` being bit `i % 64` of word `i / 64` (the words of
/// chunks a multiple of 64 positions long, joined).
pub(crate) fn bits_from_words(words: Vec<u64>, len: usize) -> BitVec<u64> {
    let mut bits = BitVec::from_vec(words);
    bits.truncate(len);
    bits
}

/// Working space of one thread, reused from position to position.
struct Scratch<Q> {
    /// The position whose value waits to be passed on (see [`PairSolver::pass_on_later`]): its
    /// side and value; its predecessors are `preds`, the next position's `next_preds`.
    waiting: Option<(usize, Value)>,
    preds: Vec<usize>,
    next_preds: Vec<usize>,
    seen: Vec<u16>,
    found: Found<Q>,
    /// The men last decoded on each side: queued positions come in runs that share them.
    runs: [MenRun; 2],
}

impl<Q> Default for Scratch<Q> {
    fn default() -> Self {
        Scratch {
            waiting: None,
            preds: Vec::new(),
            next_preds: Vec::new(),
            seen: Vec::new(),
            found: Found::default(),
            runs: Default::default(),
        }
    }
}

/// Working space of one thread while initialising.
#[derive(Default)]
struct InitScratch<'a> {
    moves: Vec<Move>,
    steps: MenSteps,
    last_men: LastMenRank,
    /// The positions whose moves out of the slice wait to be read: each position's index, the
    /// end of its entries in `entries` and its moves inside the slice.
    waiting: Vec<(u64, usize, u8)>,
    entries: Vec<ExitEntry<'a>>,
}

/// Positions with moves out of their slice initialised together: the entries those moves lead
/// to (in the smaller tables, or in the slices solved before) are prefetched when the moves are
/// listed and read once all of them are on their way, so that their cache misses overlap
/// instead of following each other.
const SETTLED_TOGETHER: usize = 16;

/// Positions of a slice (both sides) from which its slots outgrow a core's share of the
/// processor's caches (1 MiB of L2 here at 2 bytes a position, 3 when this was measured with a
/// separate counter): from there on a pass
/// fetches the next position's predecessors while it updates those of the one before
/// ([`PairSolver::pass_on_later`]). In smaller slices they are in the caches already, and the
/// fetching only costs (measured: 4 % slower on a 6-piece pair of three men).
const FETCH_AHEAD_FROM: u64 = 1 << 18;

/// Where the value of a move out of a slice is read: a capture, a crowning or a man's step.
#[derive(Clone, Copy)]
enum ExitEntry<'a> {
    /// Known without a read, as seen by the opponent after the move: a loss in 0 when the move
    /// takes the opponent's last piece, a draw when the table could not be read (the failure
    /// is recorded).
    Known(Value),
    /// An entry of a smaller table.
    At(&'a Table, u64),
    /// The value of a position of a slice solved before (after a man's step), final.
    Solved(&'a AtomicU16),
}

/// One side of the pair being solved.
pub(super) struct Side {
    pub(super) index: TableIndex,
    /// Each position's working state ([`slot`]): 0 until initialised, its packed value once its
    /// slice is solved.
    pub(super) values: Vec<AtomicU16>,
    /// Whether the mover has a capture, 64 positions a word.
    pub(super) captures: Vec<AtomicU64>,
}

impl Side {
    /// The working arrays of one table, zeroed. They take memory only where written: the
    /// allocator maps a large zeroed block without touching it, so a pair solved in parts holds
    /// only the slices of its part and of the level above, not the whole pair.
    pub(super) fn new(signature: Signature) -> Side {
        let index = TableIndex::new(signature);
        let size = index.size() as usize;
        Side {
            index,
            values: zeroed_atomics(size),
            captures: zeroed_atomics(size.div_ceil(64)),
        }
    }

    /// Advises the kernel how to back the arrays (advice only: nothing to do where it fails).
    pub(super) fn advise(&self, pages: Pages) {
        advise_pages(&self.values, pages);
        advise_pages(&self.captures, pages);
    }
}

/// How the kernel should back a pair's working arrays.
#[derive(Clone, Copy)]
pub(super) enum Pages {
    /// Huge pages, for a pair solved whole: the passes read and write the arrays at random,
    /// and with small pages nearly every access of a large slice also misses the TLB.
    Huge,
    /// Small pages, for a part of a pair: it touches only the runs of its levels, scattered
    /// through arrays sized for the whole pair, and a 2 MB page around each run would make it
    /// hold most of the pair.
    Small,
}

#[cfg(target_os = "linux")]
fn advise_pages<T>(array: &[T], pages: Pages) {
    const PAGE: usize = 4096;
    let start = array.as_ptr() as usize;
    let end = start + std::mem::size_of_val(array);
    let (first, last) = (start.next_multiple_of(PAGE), end / PAGE * PAGE);
    let advice = match pages {
        Pages::Huge => libc::MADV_HUGEPAGE,
        Pages::Small => libc::MADV_NOHUGEPAGE,
    };
    if last > first {
        // SAFETY: the range is whole pages inside the array's allocation; the advice changes
        // how its memory is backed, never its contents.
        unsafe {
            libc::madvise(first as *mut libc::c_void, last - first, advice);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_pages<T>(_: &[T], _: Pages) {}

/// An atomic integer type with the layout of its integer `Plain`.
///
/// # Safety
///
/// `Self` must have the size and alignment of `Plain`, `Plain::default()` must be all zero
/// bits, and zero must be a valid `Self`.
unsafe trait AtomicOf {
    type Plain: Clone + Default;
}

// SAFETY: the standard library documents each atomic as having its integer's size and bit
// validity; the assertions below check the alignment on the target being compiled.
unsafe impl AtomicOf for AtomicU8 {
    type Plain = u8;
}
unsafe impl AtomicOf for AtomicU16 {
    type Plain = u16;
}
unsafe impl AtomicOf for AtomicU64 {
    type Plain = u64;
}
const _: () = assert!(
    std::mem::align_of::<AtomicU16>() == std::mem::align_of::<u16>()
        && std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>()
        && std::mem::align_of::<AtomicU8>() == std::mem::align_of::<u8>()
);

/// `len` zeroed atomics in an allocation made zeroed (`vec![0; len]`), which the allocator
/// maps lazily instead of writing it: pages are taken when first written.
fn zeroed_atomics<A: AtomicOf>(len: usize) -> Vec<A> {
    let mut plain = std::mem::ManuallyDrop::new(vec![A::Plain::default(); len]);
    let (pointer, length, capacity) = (plain.as_mut_ptr(), plain.len(), plain.capacity());
    // SAFETY: `A` has the layout of `A::Plain` and zero is a valid `A` (`AtomicOf`); the
    // allocation is handed over whole, with the length and capacity it was made with.
    unsafe { Vec::from_raw_parts(pointer.cast::<A>(), length, capacity) }
}

/// What initialisation settles for a position.
struct Settled {
    /// The value stored, final or a provisional win.
    value: Option<Value>,
    /// The pass in which the position's best move out of its slice, a loss, is counted down.
    exit: Option<u16>,
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
    sides: &'a [Side],
    /// For each side, the smaller tables its moves out of the pair lead to.
    exits: Vec<Exits<'a>>,
    /// The first failure to read a smaller table.
    failure: Mutex<Option<Error>>,
}

impl<'a> PairSolver<'a> {
    /// The first failure to read a smaller table, if any.
    fn first_failure(&self) -> Result<(), Error> {
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

    /// Where the value of a move out of the pair (a capture or a crowning) from a position of
    /// `side` is read, in the smaller table it leads to (the men's share of its index taken from
    /// `last_men` when met recently), its entry prefetched.
    #[inline]
    fn exit_entry(
        &self,
        side: usize,
        board: &Board,
        mv: &Move,
        last_men: &mut LastMenRank,
    ) -> ExitEntry<'a> {
        debug_assert!(mv.is_capture() || mv.crowned);
        let after = board.play(mv);
        if after.own() == 0 {
            return ExitEntry::Known(Value::Loss(0));
        }
        let table = match self.exits[side].table(&after) {
            Ok(table) => table,
            // Opening failed before: try again, to report why (or read it if it now opens).
            Err(signature) => match self.smaller.table(signature) {
                Ok(table) => table,
                Err(error) => {
                    self.record_failure(error);
                    return ExitEntry::Known(Value::Draw);
                }
            },
        };
        let men = last_men.get(&table.index, &after);
        let index = table
            .index
            .index_with_men(&men, after.kings, after.opp_kings);
        table.prefetch(index);
        ExitEntry::At(table, index)
    }

    /// The value of a move out of the slice, from the mover's side, read at `entry`.
    #[inline]
    fn read_exit(&self, entry: ExitEntry) -> Value {
        let value = match entry {
            ExitEntry::Known(value) => value,
            ExitEntry::Solved(slot) => {
                let value = Value::unpack(slot.load(Ordering::Relaxed));
                debug_assert!(value.is_some(), "a man's step leads to an unsolved slice");
                value.unwrap_or(Value::Draw)
            }
            ExitEntry::At(table, index) => table.value(index).unwrap_or_else(|| {
                self.record_failure(Error::Corrupt {
                    path: dprobe::format::raw_table_path(
                        self.smaller.dir(),
                        self.rules.id,
                        table.index.signature(),
                    ),
                    reason: format!("invalid value at index {index}"),
                });
                Value::Draw
            }),
        };
        value.one_ply_earlier()
    }

    /// Keeps the first failure to read a smaller table, reported when the pair is done.
    #[cold]
    fn record_failure(&self, error: Error) {
        let mut first = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert(error);
    }

    /// Records that a distance outgrew what the solver's slots hold ([`slot::LONGEST_DISTANCE`]).
    #[cold]
    fn record_too_long(&self) {
        let signature = self.sides[0].index.signature();
        self.record_failure(Error::Unsupported(format!(
            "{signature}: a distance longer than {} plies, more than the solver holds",
            slot::LONGEST_DISTANCE
        )));
    }

    /// Sets up one position of a slice: its value if decided or provisionally won, else its
    /// count of moves (see [`PairSolver::settle`]). Returns what was settled, or `None` for a position
    /// with moves out of its slice (captures, men's steps): it waits in `scratch` with the
    /// entries its moves lead to, settled by [`PairSolver::settle_waiting`]. Also returns
    /// whether the position has a capture. (Inlined into the solver of each width of queue.)
    #[inline(always)]
    fn init(
        &self,
        side: usize,
        index: u64,
        board: &Board,
        scratch: &mut InitScratch<'a>,
    ) -> (Option<Settled>, bool) {
        let partner = self.partner(side);
        if let Some(in_slice) = king_moves_unless_capture(board, self.rules) {
            // Quiet moves, without listing the kings': they stay in the slice, only counted.
            let occupied = board.occupied();
            let partner_side = &self.sides[partner];
            let InitScratch {
                steps,
                last_men,
                waiting,
                entries,
                ..
            } = scratch;
            let start = entries.len();
            for &(from, to, men) in steps.of(board, &partner_side.index) {
                if occupied & (1 << to) != 0 {
                    continue; // a king stands there
                }
                let step = Move {
                    from,
                    to,
                    crowned: men.is_none(),
                    captured: 0,
                };
                entries.push(match men {
                    // The result seen by the opponent: its kings are ours turned round.
                    Some(men) => {
                        let child = partner_side.index.index_with_men(
                            &men,
                            rotate(board.opp_kings),
                            rotate(board.kings),
                        );
                        debug_assert_eq!(child, partner_side.index.index(&board.play(&step)));
                        let slot = &partner_side.values[child as usize];
                        prefetch(slot);
                        ExitEntry::Solved(slot)
                    }
                    None => self.exit_entry(side, board, &step, last_men),
                });
            }
            if entries.len() == start {
                return (Some(self.settle(side, index, in_slice as u8, None)), false);
            }
            waiting.push((index, entries.len(), in_slice as u8));
            return (None, false);
        }
        let InitScratch {
            moves,
            last_men,
            waiting,
            entries,
            ..
        } = scratch;
        moves.clear();
        capture_moves(board, self.rules, moves);
        // Every move is a capture: into a smaller table.
        entries.extend(
            moves
                .iter()
                .map(|mv| self.exit_entry(side, board, mv, last_men)),
        );
        waiting.push((index, entries.len(), 0));
        (None, true)
    }

    /// Settles the positions waiting in `scratch`, the values of their moves out of the slice
    /// read at last.
    fn settle_waiting<Q: Queued>(
        &self,
        side: usize,
        scratch: &mut InitScratch,
        found: &mut Found<Q>,
    ) {
        let mut start = 0;
        for &(index, end, in_slice) in &scratch.waiting {
            let best = scratch.entries[start..end]
                .iter()
                .map(|&entry| self.read_exit(entry))
                .reduce(better);
            start = end;
            let settled = self.settle(side, index, in_slice, best);
            Self::queue(side, index, &settled, found);
        }
        scratch.waiting.clear();
        scratch.entries.clear();
    }

    /// Queues a position initialised: in the pass of its distance if decided, and in that of
    /// its move out of the slice if that one is a loss.
    #[inline(always)]
    fn queue<Q: Queued>(side: usize, index: u64, settled: &Settled, found: &mut Found<Q>) {
        if let Some(distance) = settled.value.and_then(Value::distance) {
            found.push(side, distance, index);
        }
        if let Some(distance) = settled.exit {
            found.push_exit(side, distance, index);
        }
    }

    /// Stores what initialisation decides for a position with `in_slice` moves inside its slice
    /// and `best_outside` the best of the others: its value once no move stays inside (a loss
    /// in 0 without moves), a provisional win if a move outside wins, else its count of moves.
    ///
    /// The moves outside count as one more move, so that the count reaches zero exactly when
    /// the position is lost, at the distance of its longest defence: a move outside that draws
    /// is never counted down (the position cannot be lost); one that loses is counted down in
    /// the pass of its distance, the returned [`Settled::exit`]. A position whose count reaches
    /// zero in pass `n` is then lost in `n + 1` without looking at its moves again. (A
    /// provisional win needs no count: a win is never counted down.)
    fn settle(
        &self,
        side: usize,
        index: u64,
        in_slice: u8,
        best_outside: Option<Value>,
    ) -> Settled {
        let slot = &self.sides[side].values[index as usize];
        let best_outside = if best_outside.and_then(Value::distance) > Some(slot::LONGEST_DISTANCE)
        {
            self.record_too_long();
            Some(Value::Draw)
        } else {
            best_outside
        };
        if in_slice == 0 {
            let value = best_outside.unwrap_or(Value::Loss(0));
            slot.store(value.pack(), Ordering::Relaxed);
            return Settled {
                value: Some(value),
                exit: None,
            };
        }
        // The moves outside, if any, count as one more (a win among them needs no count).
        let (stored, value, exit) = match best_outside {
            // Provisional: a king move inside the slice may still win faster.
            Some(Value::Win(d)) => (slot::provisional_win(d), best_outside, None),
            // The opponent wins in `d - 1` after the move out: counted down in that pass.
            Some(Value::Loss(d)) => (slot::undecided(in_slice + 1), None, Some(d - 1)),
            Some(Value::Draw) => (slot::undecided(in_slice + 1), None, None),
            None => (slot::undecided(in_slice), None, None),
        };
        slot.store(stored, Ordering::Relaxed);
        Settled { value, exit }
    }

    /// Solves a unit of slices of one level, every slice of the levels above being solved:
    /// initialises each position, passes what is decided on by distance within the unit, and
    /// stores a draw for whatever is still undecided.
    fn solve_slices<Q: Queued>(&self, unit: &[Slice], slices: &Slices, progress: &dyn Progress) {
        let run = slices.run;
        let parts = self.runs_of_unit(unit, slices);
        let ahead = self.fetch_ahead(slices);
        // Pieces of at most CHUNK positions, grouped into tasks of about CHUNK.
        let pieces: Vec<(usize, Range<u64>)> = parts
            .iter()
            .flat_map(|&(side, start)| {
                (start..start + run)
                    .step_by(CHUNK)
                    .map(move |from| (side, from..(from + CHUNK as u64).min(start + run)))
            })
            .collect();
        let per_task = (CHUNK as u64 / run.min(CHUNK as u64)) as usize;
        let mut buckets = Buckets::default();
        let found: Vec<Vec<Segment<Q>>> = pieces
            .par_chunks(per_task)
            .map_init(InitScratch::default, |scratch, task| {
                let mut found = Found::<Q>::default();
                for (side, range) in task {
                    self.init_range(*side, range.clone(), scratch, &mut found);
                }
                found.take()
            })
            .collect();
        for segments in found {
            buckets.add(segments);
        }

        let mut distance: u16 = 0;
        while let Some([decided, exits]) = buckets.take(distance) {
            if distance == slot::LONGEST_DISTANCE {
                self.record_too_long();
                break;
            }
            let work: Vec<(Queue, usize, Vec<&[Q]>)> = tasks(&decided)
                .into_iter()
                .map(|(side, pieces)| (Queue::Decided, side, pieces))
                .chain(
                    tasks(&exits)
                        .into_iter()
                        .map(|(side, pieces)| (Queue::Exit, side, pieces)),
                )
                .collect();
            let found: Vec<Vec<Segment<Q>>> =
                work.into_par_iter()
                    .map_init(Scratch::<Q>::default, |scratch, (queue, side, pieces)| {
                        let this = &self.sides[side];
                        for index in pieces.iter().copied().flatten().map(|&q| q.index()) {
                            if queue == Queue::Exit {
                                // A move out of the slice loses in `distance` for the opponent's
                                // win. (A position decided meanwhile is left as it is.)
                                let found = &mut scratch.found;
                                self.count_down::<Q, false>(side, index as usize, distance, found);
                                continue;
                            }
                            let now = this.values[index as usize].load(Ordering::Relaxed);
                            // A provisional win improved since it was queued is passed on in the
                            // pass of its new distance.
                            match slot::value(now) {
                                Some(value) if value.distance() == Some(distance) => self
                                    .pass_on_later::<Q, false>(side, index, value, ahead, scratch),
                                _ => {}
                            }
                        }
                        self.pass_on_waiting::<Q, false>(scratch);
                        scratch.found.take()
                    })
                    .collect();
            for segments in found {
                buckets.add(segments);
            }
            distance += 1;
        }

        // What is still undecided never ends: a draw, which the slices below read as final.
        parts.par_iter().for_each(|&(side, start)| {
            self.sides[side].values[start as usize..(start + run) as usize]
                .par_chunks(CHUNK)
                .for_each(finish_slots);
        });
        progress.advance(parts.len() as u64 * run);
    }

    /// [`PairSolver::solve_slices`] on the calling thread alone ([`Threads::OnePerUnit`]): the
    /// same steps, the passes one after another in one queue, every update a plain load and
    /// store.
    fn solve_slices_alone<Q: Queued>(
        &self,
        unit: &[Slice],
        slices: &Slices,
        progress: &dyn Progress,
    ) {
        let run = slices.run;
        let parts = self.runs_of_unit(unit, slices);
        let ahead = self.fetch_ahead(slices);
        let mut init = InitScratch::default();
        let mut scratch = Scratch::<Q>::default();
        for &(side, start) in &parts {
            self.init_range(side, start..start + run, &mut init, &mut scratch.found);
        }
        // A pass queues positions at later distances only: its own queues are taken whole.
        let mut distance: u16 = 0;
        while let Some(queues) = scratch.found.by_distance.get_mut(distance as usize) {
            if distance == slot::LONGEST_DISTANCE {
                self.record_too_long();
                break;
            }
            let [decided, exits] = std::mem::take(queues);
            for (side, indices) in exits.iter().enumerate() {
                for &q in indices {
                    let found = &mut scratch.found;
                    self.count_down::<Q, true>(side, q.index() as usize, distance, found);
                }
            }
            for (side, indices) in decided.iter().enumerate() {
                for index in indices.iter().map(|&q| q.index()) {
                    let now = self.sides[side].values[index as usize].load(Ordering::Relaxed);
                    match slot::value(now) {
                        Some(value) if value.distance() == Some(distance) => {
                            self.pass_on_later::<Q, true>(side, index, value, ahead, &mut scratch)
                        }
                        _ => {}
                    }
                }
            }
            self.pass_on_waiting::<Q, true>(&mut scratch);
            distance += 1;
        }
        for &(side, start) in &parts {
            finish_slots(&self.sides[side].values[start as usize..(start + run) as usize]);
        }
        progress.advance(parts.len() as u64 * run);
    }

    /// Whether a pass fetches predecessors ahead in slices of `slices` ([`FETCH_AHEAD_FROM`]).
    fn fetch_ahead(&self, slices: &Slices) -> bool {
        slices.run * self.sides.len() as u64 >= FETCH_AHEAD_FROM
    }

    /// The runs of positions of a unit of slices: (side, first index), each `slices.run` long.
    fn runs_of_unit(&self, unit: &[Slice], slices: &Slices) -> Vec<(usize, u64)> {
        unit.iter()
            .flat_map(|slice| slices.runs_of(slice, self.sides.len()))
            .collect()
    }

    /// Initialises the positions of `range` on one side, queueing those decided, and sets
    /// their capture flags (one atomic OR per word of 64).
    fn init_range<Q: Queued>(
        &self,
        side: usize,
        range: Range<u64>,
        scratch: &mut InitScratch<'a>,
        found: &mut Found<Q>,
    ) {
        let this = &self.sides[side];
        let flush = |(word, bits): (u64, u64)| {
            if bits != 0 {
                this.captures[word as usize].fetch_or(bits, Ordering::Relaxed);
            }
        };
        let mut pending = (range.start / 64, 0u64);
        for (index, board) in range.clone().zip(this.index.boards(range)) {
            let (settled, capture) = self.init(side, index, &board, scratch);
            match settled {
                Some(settled) => Self::queue(side, index, &settled, found),
                None if scratch.waiting.len() == SETTLED_TOGETHER => {
                    self.settle_waiting(side, scratch, found)
                }
                None => {}
            }
            if capture {
                if index / 64 != pending.0 {
                    flush(pending);
                    pending = (index / 64, 0);
                }
                pending.1 |= 1 << (index % 64);
            }
        }
        self.settle_waiting(side, scratch, found);
        flush(pending);
    }

    /// Passes the value of a position decided at distance `n` on to its predecessors. With
    /// `ahead`, once the next position's predecessors are found: this one's are fetched
    /// meanwhile, so that the processor waits for memory once for two positions. (The value of
    /// the position waiting cannot change meanwhile: a pass decides positions at later
    /// distances only.) With `ALONE`, the calling thread is the only one solving the position's
    /// slice, and updates its predecessors by plain loads and stores (see [`Threads`]).
    #[inline(always)]
    fn pass_on_later<Q: Queued, const ALONE: bool>(
        &self,
        side: usize,
        index: u64,
        value: Value,
        ahead: bool,
        scratch: &mut Scratch<Q>,
    ) {
        self.find_predecessors(side, index, ahead, scratch);
        if ahead {
            self.pass_on_waiting::<Q, ALONE>(scratch);
        }
        std::mem::swap(&mut scratch.preds, &mut scratch.next_preds);
        scratch.waiting = Some((side, value));
        if !ahead {
            self.pass_on_waiting::<Q, ALONE>(scratch);
        }
    }

    /// Finds the predecessors of a position of `side` into `scratch.next_preds`; with `fetch`,
    /// has their slots fetched.
    #[inline(always)]
    fn find_predecessors<Q>(&self, side: usize, index: u64, fetch: bool, scratch: &mut Scratch<Q>) {
        let pred_side = &self.sides[self.partner(side)];
        let Scratch {
            next_preds, runs, ..
        } = scratch;
        // The position seen by the side that has just moved.
        let mover_view = self.sides[side]
            .index
            .board_sharing_men(index, &mut runs[side])
            .flipped();
        next_preds.clear();
        // King un-moves keep the men where they are: their share of the index is computed once,
        // and that of the kings that stay once for each king that moved.
        let men = pred_side.index.men_rank(&mover_view);
        let occupied = mover_view.occupied();
        let mut kings = mover_view.kings;
        while kings != 0 {
            let to = kings.trailing_zeros() as u8;
            kings &= kings - 1;
            let others = mover_view.kings & !(1 << to);
            let moving = pred_side
                .index
                .one_king_moving(&men, others, mover_view.opp_kings);
            // The king came from any square along a free diagonal.
            let mut origins: Bitboard = king_reach(to, occupied);
            while origins != 0 {
                let from = origins.trailing_zeros() as u8;
                origins &= origins - 1;
                debug_assert_eq!(
                    moving.index_with_king_on(from),
                    pred_side
                        .index
                        .index_with_men(&men, others | 1 << from, mover_view.opp_kings)
                );
                next_preds.push(moving.index_with_king_on(from) as usize);
            }
        }
        if !fetch {
            return;
        }
        for &i in next_preds.iter() {
            prefetch(&pred_side.values[i]);
        }
    }

    /// Passes the value of the position waiting in `scratch`, if any, on to its predecessors
    /// (`scratch.preds`).
    #[inline(always)]
    fn pass_on_waiting<Q: Queued, const ALONE: bool>(&self, scratch: &mut Scratch<Q>) {
        let Some((side, value)) = scratch.waiting.take() else {
            return;
        };
        let before = self.partner(side);
        let pred_side = &self.sides[before];
        let Scratch {
            preds, seen, found, ..
        } = scratch;
        // Read every predecessor's slot before acting on any: the loads are independent, so
        // the processor overlaps their cache misses instead of waiting for each in turn.
        seen.clear();
        seen.extend(
            preds
                .iter()
                .map(|&i| pred_side.values[i].load(Ordering::Relaxed)),
        );
        for (&pred_index, &first_seen) in preds.iter().zip(seen.iter()) {
            // A predecessor that had a capture never played this quiet move. Such positions
            // were decided at initialisation, final, which tells them apart without generating
            // their captures again.
            match value {
                Value::Loss(n) => {
                    let win = Value::Win(n + 1).pack();
                    // An undecided position is won; a provisional win only improved.
                    let improves = |now: u16| {
                        slot::is_undecided(now)
                            || slot::provisional_distance(now).is_some_and(|d| d > n + 1)
                    };
                    if !improves(first_seen) {
                        continue;
                    }
                    let slot = &pred_side.values[pred_index];
                    let updated = if ALONE {
                        slot.store(win, Ordering::Relaxed);
                        true
                    } else {
                        slot.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |now| {
                            improves(now).then_some(win)
                        })
                        .is_ok()
                    };
                    if updated {
                        found.push(before, n + 1, pred_index as u64);
                    }
                }
                Value::Win(n) => {
                    if slot::is_undecided(first_seen) {
                        self.count_down::<Q, ALONE>(before, pred_index, n, found);
                    }
                }
                Value::Draw => {}
            }
        }
    }

    /// One more move of an undecided position leads to a win in `n` for the opponent. When
    /// that was the last (see [`PairSolver::settle`]), the position is lost in `n + 1`: every
    /// other move led to a win in `n` or fewer, counted down in an earlier pass. A position
    /// decided meanwhile is left as it is. `ALONE` as in [`PairSolver::pass_on_later`].
    fn count_down<Q: Queued, const ALONE: bool>(
        &self,
        side: usize,
        index: usize,
        n: u16,
        found: &mut Found<Q>,
    ) {
        let slot = &self.sides[side].values[index];
        let counted = |now: u16| {
            slot::is_undecided(now).then(|| match slot::moves_left(now) {
                1 => Value::Loss(n + 1).pack(),
                _ => slot::one_move_fewer(now),
            })
        };
        let before = if ALONE {
            let now = slot.load(Ordering::Relaxed);
            let Some(after) = counted(now) else {
                return;
            };
            slot.store(after, Ordering::Relaxed);
            now
        } else {
            match slot.fetch_update(Ordering::Relaxed, Ordering::Relaxed, counted) {
                Ok(now) => now,
                Err(_) => return,
            }
        };
        if slot::moves_left(before) == 1 {
            found.push(side, n + 1, index as u64);
        }
    }
}

/// The better of two values for the mover: `value` if it is better than `best`.
#[inline(always)]
fn better(best: Value, value: Value) -> Value {
    if value.is_better_than(best) {
        value
    } else {
        best
    }
}

/// Makes every slot of a solved unit final ([`slot::finish`]): a draw where still undecided.
fn finish_slots(slots: &[AtomicU16]) {
    for slot in slots {
        let now = slot.load(Ordering::Relaxed);
        let finished = slot::finish(now);
        if finished != now {
            slot.store(finished, Ordering::Relaxed);
        }
    }
}

/// The values of `atomics`, in the same allocation.
fn into_plain(atomics: Vec<AtomicU16>) -> Vec<u16> {
    atomics.into_iter().map(AtomicU16::into_inner).collect()
}

/// Solves `signature` and its colour flip (one table if they are the same), with every table
/// reachable by a capture or a crowning already in `smaller`.
pub fn solve_pair(
    rules: &MoveRules,
    smaller: &TableSet,
    signature: Signature,
    progress: &dyn Progress,
) -> Result<Vec<Solved>, Error> {
    solve_pair_in(
        rules,
        smaller,
        signature,
        progress,
        SolverMode::of(signature),
    )
}

/// Whether a pair needs queues of 64-bit indices: a table above 2³² positions (none up to 7
/// pieces; the queues are of 32-bit indices where they fit).
pub(super) fn needs_wide_queues(signature: Signature) -> bool {
    [signature, signature.flipped()]
        .iter()
        .any(|&s| TableIndex::new(s).size() > u64::from(u32::MAX) + 1)
}

/// The working arrays of the pair of `signature`: the table, and its flip unless it is its own.
pub(super) fn pair_sides(signature: Signature) -> Vec<Side> {
    let mut sides = vec![Side::new(signature)];
    if signature.flipped() != signature {
        sides.push(Side::new(signature.flipped()));
    }
    sides
}

/// [`solve_pair`] in a given [`SolverMode`].
fn solve_pair_in(
    rules: &MoveRules,
    smaller: &TableSet,
    signature: Signature,
    progress: &dyn Progress,
    mode: SolverMode,
) -> Result<Vec<Solved>, Error> {
    let sides = pair_sides(signature);
    for side in &sides {
        side.advise(Pages::Huge);
    }
    let total: u64 = sides.iter().map(|s| s.index.size()).sum();
    progress.phase("solve", total);
    let slices = Slices::of(signature);
    let levels = 0..=slices.by_level.len().saturating_sub(1);
    solve_levels(rules, smaller, &sides, &slices, levels, progress, mode)?;
    Ok(sides
        .into_iter()
        .map(|side| {
            // Every slice stored its draws: every value is set. Converted in place (an atomic
            // has its integer's layout, and a vector's items mapped one for one keep its
            // allocation), so the values are not held twice as the pair ends: 2.8 GB at the
            // largest 7-piece table.
            let signature = side.index.signature();
            let values = into_plain(side.values);
            let captures = BitVec::from_vec(
                side.captures
                    .into_iter()
                    .map(AtomicU64::into_inner)
                    .collect(),
            );
            solved_table(signature, values, captures)
        })
        .collect())
}

/// How many threads solve a unit of slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Threads {
    /// One thread a unit: king moves stay in a slice, so its positions are the thread's own,
    /// updated by plain loads and stores rather than atomic read-modify-writes (each a full
    /// barrier on x86, which also stops the processor overlapping the cache misses around it),
    /// and its passes need no parallel tasks.
    OnePerUnit,
    /// Every thread on each unit in turn, its passes cut into parallel tasks: for levels of
    /// few, large slices (the pairs with few men), which one thread a unit would leave idle.
    ManyPerUnit,
}

impl Threads {
    /// One thread a unit where a level has `units` enough to keep every thread busy
    /// ([`UNITS_PER_THREAD`] each), else every thread on each unit.
    fn for_level(units: usize) -> Threads {
        if units >= UNITS_PER_THREAD * rayon::current_num_threads() {
            Threads::OnePerUnit
        } else {
            Threads::ManyPerUnit
        }
    }
}

/// How the solver's passes run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SolverMode {
    /// Queues of 64-bit indices ([`needs_wide_queues`]) rather than of 32-bit ones, which must
    /// hold every index of the pair.
    pub(super) wide_queues: bool,
    /// The threads on a unit, or `None` to choose them level by level ([`Threads::for_level`]).
    pub(super) threads: Option<Threads>,
}

impl SolverMode {
    /// What a pair of `signature` needs: the narrowest queues that hold its indices, and the
    /// threads chosen level by level.
    pub(super) fn of(signature: Signature) -> SolverMode {
        SolverMode {
            wide_queues: needs_wide_queues(signature),
            threads: None,
        }
    }
}

/// Units per thread a level needs to be solved one thread a unit: enough for the threads to
/// balance units of uneven work between them.
const UNITS_PER_THREAD: usize = 8;

/// Solves the slices of `levels` of a pair, the most advanced men first, in `sides` whose
/// slices of the level just above hold their final values (solved before, or loaded from the
/// part of the pair that solved them: what a pair built in parts does part by part), in `mode`.
pub(super) fn solve_levels(
    rules: &MoveRules,
    smaller: &TableSet,
    sides: &[Side],
    slices: &Slices,
    levels: std::ops::RangeInclusive<usize>,
    progress: &dyn Progress,
    mode: SolverMode,
) -> Result<(), Error> {
    let solver = PairSolver {
        rules,
        smaller,
        sides,
        exits: sides
            .iter()
            .map(|side| Exits::of(side.index.signature(), smaller))
            .collect(),
        failure: Mutex::new(None),
    };
    // Slices are solved in units of at least CHUNK positions (a unit of small slices is closed
    // under king moves as well), so that each pass of a unit has work enough to be worth a task.
    let per_unit = (CHUNK as u64 / slices.run).max(1) as usize;
    // The most advanced men first: a man's step leads only to a slice one level further on.
    for level in levels.rev().filter_map(|level| slices.by_level.get(level)) {
        let threads = mode
            .threads
            .unwrap_or_else(|| Threads::for_level(level.len().div_ceil(per_unit)));
        let one_per_unit = threads == Threads::OnePerUnit;
        level
            .par_chunks(per_unit)
            .for_each(|unit| match (mode.wide_queues, one_per_unit) {
                (true, true) => solver.solve_slices_alone::<u64>(unit, slices, progress),
                (true, false) => solver.solve_slices::<u64>(unit, slices, progress),
                (false, true) => solver.solve_slices_alone::<u32>(unit, slices, progress),
                (false, false) => solver.solve_slices::<u32>(unit, slices, progress),
            });
        // A smaller table that cannot be read stops the pair at the end of the level.
        solver.first_failure()?;
        // The next level reads other parts of the smaller tables (their men placements follow
        // this level's): the pages read so far would only swell the resident size.
        smaller.release_pages();
    }
    Ok(())
}

/// A solved table from its packed values and capture flags (as long as the values or longer),
/// with its statistics.
pub(super) fn solved_table(
    signature: Signature,
    values: Vec<u16>,
    mut captures: BitVec<u64>,
) -> Solved {
    captures.truncate(values.len());
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use dprobe::{format::TableKind, rules::legal_moves, Variant};

    #[test]
    fn a_missing_or_damaged_smaller_table_stops_the_pair_and_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let rules = Variant::RUSSIAN.moves;
        // KKvK's flip KvKK captures a king into KvK, the only table the pair reads.
        let pair: Signature = "KKvK".parse().unwrap();
        let read: Signature = "KvK".parse().unwrap();
        let path = dprobe::format::raw_table_path(dir.path(), rules.id, read);
        let keep_raw = crate::pure::build::BuildOptions {
            keep_raw: true,
            ..Default::default()
        };
        let build = || {
            crate::pure::build::generate_with(dir.path(), &rules, 2, &keep_raw, &Silent).unwrap()
        };
        build();
        // Neither its raw file nor its published files: missing.
        std::fs::remove_file(&path).unwrap();
        let wdl = dprobe::format::table_path(dir.path(), rules.id, read, TableKind::Wdl);
        std::fs::remove_file(wdl).unwrap();
        match solve_pair(&rules, &TableSet::new(dir.path(), rules), pair, &Silent) {
            Err(Error::Missing { signature, .. }) => assert_eq!(signature, read),
            Err(other) => panic!("expected {read} missing, got {other}"),
            Ok(_) => panic!("solved without {read}"),
        }
        build();
        let mut bytes = std::fs::read(&path).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        match solve_pair(&rules, &TableSet::new(dir.path(), rules), pair, &Silent) {
            Err(Error::Corrupt { path: named, .. }) => assert_eq!(named, path),
            Err(other) => panic!("expected {read} damaged, got {other}"),
            Ok(_) => panic!("solved from a damaged {read}"),
        }
    }

    /// Solves each of `pairs` in both `modes` on the tables up to 4 pieces of `rules`, on a pool
    /// of several threads (so that what runs at once differs between the modes), and checks
    /// that both give the same tables.
    fn assert_solved_alike(rules: MoveRules, pairs: &[&str], modes: [SolverMode; 2]) {
        let dir = tempfile::tempdir().unwrap();
        crate::pure::build::generate_with(dir.path(), &rules, 4, &Default::default(), &Silent)
            .unwrap();
        let smaller = TableSet::new(dir.path(), rules);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        for pair in pairs {
            let pair: Signature = pair.parse().unwrap();
            let [first, second] = modes.map(|mode| {
                pool.install(|| solve_pair_in(&rules, &smaller, pair, &Silent, mode).unwrap())
            });
            assert_eq!(first.len(), second.len());
            for (f, s) in first.iter().zip(&second) {
                assert_eq!(f.signature, s.signature);
                assert!(f.values == s.values, "{} {modes:?}", f.signature);
                assert_eq!(f.stats, s.stats, "{} {modes:?}", f.signature);
                assert!(f.captures == s.captures, "{} {modes:?}", f.signature);
            }
        }
    }

    #[test]
    fn queues_of_64_bit_indices_solve_as_those_of_32_bit_ones() {
        // Kings only (one slice), men only, and both, solved again on the tables built.
        let mode = |wide_queues| SolverMode {
            wide_queues,
            threads: None,
        };
        let pairs = ["KKvKK", "MMvMM", "KMvKM", "KKMvK"];
        assert_solved_alike(Variant::BRAZILIAN.moves, &pairs, [mode(false), mode(true)]);
    }

    #[test]
    fn a_unit_solved_by_one_thread_equals_one_solved_by_all() {
        // Kings only (one slice, and KKKvKK's long wins), men only, and both.
        let mode = |threads| SolverMode {
            wide_queues: false,
            threads: Some(threads),
        };
        let pairs = ["KKvKK", "MMvMM", "KMvKM", "KKMvK", "KMMvM", "KKKvKK"];
        let modes = [mode(Threads::OnePerUnit), mode(Threads::ManyPerUnit)];
        assert_solved_alike(Variant::RUSSIAN.moves, &pairs, modes);
    }

    #[test]
    fn solved_values_keep_their_allocation() {
        let atomics: Vec<AtomicU16> = (0..1000).map(AtomicU16::new).collect();
        let at = atomics.as_ptr() as usize;
        let values = into_plain(atomics);
        assert_eq!(values.as_ptr() as usize, at, "the values were copied");
        assert!(values.iter().copied().eq(0..1000));
    }

    #[test]
    fn advancement_is_the_same_from_both_sides_and_grows_by_one_with_each_step() {
        let rules = Variant::RUSSIAN.moves;
        let mut moves = Vec::new();
        for name in ["KMvKM", "MMvKM", "KKMvMM", "MMMvMM"] {
            let index = TableIndex::new(name.parse().unwrap());
            for i in (0..index.size()).step_by(97) {
                let board = index.board(i);
                let level = board.advancement();
                assert_eq!(level, board.flipped().advancement(), "{name} {i}");
                moves.clear();
                legal_moves(&board, &rules, &mut moves);
                for mv in moves.iter().filter(|m| !m.is_capture() && !m.crowned) {
                    let child = board.play(mv);
                    let expected = if board.men & (1 << mv.from) != 0 {
                        level + 1
                    } else {
                        level
                    };
                    assert_eq!(child.advancement(), expected, "{name} {i} {mv:?}");
                }
            }
        }
    }

    #[test]
    fn slices_cover_every_position_once_and_hold_their_king_moves() {
        let rules = Variant::RUSSIAN.moves;
        let mut moves = Vec::new();
        // Kings only (one slice), men only (one position a slice), pairs that are their own
        // flip (a placement may be its own flip) and pairs that are not.
        for name in ["KKvKK", "KKvK", "MMvMM", "KMvKM", "KMvMM", "KKMvK"] {
            let sides = pair_sides(name.parse().unwrap());
            let slices = Slices::of(name.parse().unwrap());
            let mut seen: Vec<Vec<u8>> = sides
                .iter()
                .map(|s| vec![0; s.index.size() as usize])
                .collect();
            let mut slice_of: Vec<Vec<usize>> = seen.iter().map(|s| vec![0; s.len()]).collect();
            let mut number = 0;
            for level in &slices.by_level {
                for slice in level {
                    number += 1;
                    for (side, start) in slices.runs_of(slice, sides.len()) {
                        for i in start..start + slices.run {
                            seen[side][i as usize] += 1;
                            slice_of[side][i as usize] = number;
                        }
                    }
                }
            }
            assert!(seen.iter().flatten().all(|&n| n == 1), "{name}");
            // A king move stays in its slice; a man's step leaves it.
            let partner = sides.len() - 1;
            for side in 0..sides.len() {
                let other = if partner == 0 { 0 } else { 1 - side };
                let index = &sides[side].index;
                for i in (0..index.size()).step_by(13) {
                    let board = index.board(i);
                    moves.clear();
                    legal_moves(&board, &rules, &mut moves);
                    for mv in moves.iter().filter(|m| !m.is_capture() && !m.crowned) {
                        let child = sides[other].index.index(&board.play(mv)) as usize;
                        let same = slice_of[other][child] == slice_of[side][i as usize];
                        assert_eq!(same, board.kings & (1 << mv.from) != 0, "{name} {i} {mv:?}");
                    }
                }
            }
        }
    }
}
