//! A brute-force solver of the counted draw rules, written from RULES.md §5 read literally. It
//! defines the expected answers for the rule-aware solver and probe, and shares nothing with them
//! except move generation ([`legal_moves`], [`Board`], [`Move`], [`Signature`], [`MoveRules`])
//! and the rules as data ([`DrawRules`] and its counters): no budgets, no minimum over counters,
//! no families, no thresholds, no table index.
//!
//! # The game it solves
//!
//! A **state** is a board seen from the side to move plus one count per counter that applies to
//! the board's material (`DrawRules::active`, in that order): `None` if the counter has not
//! started, `Some(p)` if it started `p` plies ago. Playing a move:
//!
//! - a capture or a crowning changes the material: the child gets **fresh counts** — a counter
//!   without a condition starts at `Some(0)`; a counter with a condition starts at `Some(0)` if
//!   the condition holds in the child (and the rules start it there), else stays `None`;
//! - any other move, per counter: a counter that "resets on a man move" goes to `Some(0)` if a
//!   man moved; otherwise `Some(p)` becomes `Some(p + 1)`, and `None` becomes `Some(0)` if the
//!   condition holds in the child (the move that makes it hold is not counted), else stays `None`.
//!   Under `forcada_restart_on_leave`, a Forçada count whose condition fails in the child goes
//!   back to `None` — unless `Some(p + 1)` has reached its limit: the move that leaves the
//!   river is counted, and if it was the last one allowed the game is drawn.
//!
//! At a state: if the side to move has no legal move (or no piece), it has lost — even where a
//! limit is reached. Otherwise, if any counter has reached its limit, the game is drawn. A
//! `Limit::Plies(L)` counter has reached it when `p >= L`; a `Limit::StrongMoves(N)` counter
//! when the strong side has made `N` moves since it started (see [`strong_moves_made`]).
//!
//! A counter read with `LimitOutcome::PureValue` (Russian rule 4 under `r4_limit_outcome`:
//! "reach a winning position") draws at its limit only if its strong side does not win the
//! board in the pure game (which this checker solves first, by itself, with no counters);
//! otherwise the count is over and play goes on. Its limit is "reached" only up to `2N` plies
//! (`L` for plies): a larger count has passed it. Counts past the limit all behave alike, so
//! such a count is kept at `2N + 1` (`L + 1`).
//!
//! Values come from forward value iteration to a fixpoint: a state is a win if some move leads to
//! a loss for the opponent, a loss if every move leads to a win for the opponent; what is never
//! decided is a draw. Materials reached by captures and crownings are solved in the same run from
//! their own states: no table is read.
//!
//! # Start states
//!
//! Every valid board of a signature (men never on their own far row) times every **consistent**
//! count vector: a vector a game could have reached. The material's clock `p_m` (plies since the
//! material arose) bounds everything:
//!
//! - counters without a condition and without a reset all equal `p_m`;
//! - a counter reset by man moves is at most `p_m`, and equals `p_m` if there is no man on the
//!   board (nothing can reset it). If a side has no king, it moves a man (or captures) at every
//!   turn, so the count is `0` when the side without kings has just moved (the other side is to
//!   move, or neither side has a king) and at most `1` when the side without kings is to move —
//!   only those values are enumerated;
//! - a counter with a condition is `None` (only if the condition fails on the board, or the
//!   rules start it only after a move that makes it hold: `forcada_start_if_occupied = false`) or
//!   `Some(p_c)` with `p_c <= p_m`, whether or not the condition holds on the board now (it keeps
//!   running once started; this includes `Some(0)` where it fails, which no game reaches) —
//!   except that a count that stops when its condition fails (`forcada_restart_on_leave`) runs
//!   where the condition fails only at its limit;
//! - every count is at most its **latest limit position**: `L` for `Plies(L)`; for
//!   `StrongMoves(N)`, `2N` if the weak side is to move and `2N - 1` if the strong side is (the
//!   limit position always has the weak side to move, right after the strong side's `N`-th move:
//!   a position with the strong side to move after `N` strong moves lies past it);
//! - if no counter is without a condition and reset, `p_m` is not a count of its own: the others
//!   are enumerated independently within their bounds, and `p_m` is their largest value.
//!
//! A child of a consistent state is consistent, so the solved set is closed: it is every
//! consistent state of every signature reachable from the requested ones (a superset of the
//! closure of the start states, solved in the same way).
//!
//! Every interpretation is supported: those whose effect is not in the counters' data
//! (`forcada_start_if_occupied`: a Forçada count waits where the material arises;
//! `forcada_restart_on_leave`) as described above.
//!
//! Include it with `#[path = "support/full_state.rs"] #[allow(dead_code)] mod full_state;` (each
//! test crate uses part of it).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use dprobe::rules::geometry::{rank_of, LONG_DIAGONAL};
use dprobe::{
    draw::{DrawPreset, Interpretation, Limit, LimitOutcome, PositionCond, Strong},
    index::Signature,
    rules::{legal_moves, Board, MoveRules},
    DrawRules, Move, Wdl,
};
use rayon::prelude::*;

/// Per counter (by id, in the order of `DrawRules::active`): plies since it started, `None` if it
/// has not started.
pub type Counts = Vec<(&'static str, Option<u16>)>;

/// The most counters one material has in any preset (Russian three kings against one: 4).
const MAX_COUNTERS: usize = 4;

/// A count vector without the names, padded with `None`.
type Raw = [Option<u16>; MAX_COUNTERS];

/// A counter that applies to a material, with its strong side in that material's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counter {
    /// The counter's id.
    pub id: &'static str,
    /// The condition that starts it, if any.
    pub condition: Option<PositionCond>,
    /// A man move starts it again.
    pub resets_on_man_move: bool,
    /// Its limit.
    pub limit: Limit,
    /// The strong side, relative to the side to move.
    pub strong: Strong,
    /// If the condition holds where the material arises, the count starts there.
    pub starts_if_holding: bool,
    /// A move after which the condition fails stops the count (it waits for the condition
    /// again).
    pub restarts_on_leave: bool,
    /// At its limit, a board its strong side wins in the pure game is not drawn: the count is
    /// over (`LimitOutcome::PureValue`).
    pub passes_if_won: bool,
}

/// The counters that apply to `signature`, in the order of `DrawRules::active`.
pub fn counters(draw: &DrawRules, signature: &Signature) -> Vec<Counter> {
    let list: Vec<Counter> = draw
        .active(signature)
        .map(|(c, strong)| Counter {
            id: c.id,
            condition: c.condition,
            resets_on_man_move: c.resets_on_man_move,
            limit: c.limit,
            strong,
            starts_if_holding: c.condition.is_none_or(|cond| draw.starts_if_holding(cond)),
            restarts_on_leave: c.condition.is_some_and(|cond| draw.restarts_on_leave(cond)),
            passes_if_won: c.limit_outcome == LimitOutcome::PureValue,
        })
        .collect();
    for c in &list {
        if c.strong == Strong::Both {
            assert!(
                matches!(c.limit, Limit::Plies(_)) && c.condition.is_none(),
                "{}: a counter of both sides must count plies and have no condition",
                c.id
            );
        }
        assert!(
            !(c.resets_on_man_move && c.condition.is_some()),
            "{}: a condition counter reset by man moves is not supported",
            c.id
        );
    }
    assert!(list.len() <= MAX_COUNTERS, "{signature}: too many counters");
    list
}

/// Whether `cond` holds on `board` (the side to move's view) for a counter whose strong side is
/// `strong` in that view. The long diagonal maps onto itself when the board is turned, so it is
/// the same mask from either side.
pub fn condition_holds(cond: PositionCond, strong: Strong, board: &Board) -> bool {
    let (strong_kings, weak_kings) = match strong {
        Strong::Mover => (board.kings, board.opp_kings),
        Strong::Opponent => (board.opp_kings, board.kings),
        Strong::Both => panic!("a condition needs a strong side"),
    };
    match cond {
        // The weak side is a lone king (the counter's material says so).
        PositionCond::WeakKingOnLongDiagonal => weak_kings & LONG_DIAGONAL != 0,
        PositionCond::StrongKingOnLongDiagonal => strong_kings & LONG_DIAGONAL != 0,
    }
}

/// The moves the strong side has made in the `plies` plies since a counter started, seen from the
/// position now (`strong` relative to the side to move now).
///
/// Plies alternate, and the last one was made by the side not to move now. With the strong side
/// to move, the plies since the start end with a weak ply: `…, strong, weak`, so the strong side
/// made `floor(p / 2)` of them (p = 3: weak, strong, weak). With the weak side to move they end
/// with a strong ply: `ceil(p / 2)` (p = 3: strong, weak, strong).
pub fn strong_moves_made(plies: u16, strong: Strong) -> u16 {
    match strong {
        Strong::Mover => plies / 2,
        Strong::Opponent => plies.div_ceil(2),
        Strong::Both => panic!("both sides' moves count: the limit is in plies"),
    }
}

/// Whether the counter, at this count, has reached its limit (and, for a counter that passes
/// won boards, not passed it).
pub fn limit_reached(counter: &Counter, count: Option<u16>) -> bool {
    let Some(p) = count else {
        return false;
    };
    let reached = match counter.limit {
        Limit::Plies(limit) => p >= limit,
        Limit::StrongMoves(n) => strong_moves_made(p, counter.strong) >= u16::from(n),
    };
    reached && !(counter.passes_if_won && p > limit_plies(counter))
}

/// The counter's limit in plies: `L`, or `2N` for `N` strong moves (the largest count at which
/// the limit is first reached, whoever moved first).
fn limit_plies(counter: &Counter) -> u16 {
    match counter.limit {
        Limit::Plies(limit) => limit,
        Limit::StrongMoves(n) => 2 * u16::from(n),
    }
}

/// The largest count a consistent state holds: that of the latest position where the limit can
/// first be reached. `Plies(L)`: `L`. `StrongMoves(N)`: the limit is reached right after the
/// strong side's `N`-th move, so with the weak side to move: at most `2N` plies (`ceil(p/2) = N`);
/// with the strong side to move the count is at most `2N - 1` (`floor(p/2) = N - 1`; a later
/// strong-to-move position comes after a limit position). A counter that passes won boards
/// goes on past its limit: up to `2N + 1` (`L + 1`), which stands for every count past it.
pub fn max_count(counter: &Counter) -> u16 {
    if counter.passes_if_won {
        return limit_plies(counter) + 1;
    }
    match counter.limit {
        Limit::Plies(limit) => limit,
        Limit::StrongMoves(n) => match counter.strong {
            Strong::Mover => (2 * u16::from(n)).saturating_sub(1),
            Strong::Opponent => 2 * u16::from(n),
            Strong::Both => panic!("both sides' moves count: the limit is in plies"),
        },
    }
}

fn fresh_raw(list: &[Counter], board: &Board) -> Raw {
    let mut out = [None; MAX_COUNTERS];
    for (j, c) in list.iter().enumerate() {
        out[j] = match c.condition {
            None => Some(0),
            Some(cond) => {
                (c.starts_if_holding && condition_holds(cond, c.strong, board)).then_some(0)
            }
        };
    }
    out
}

/// One ply that neither captures nor crowns, per counter: `parent` are the counters before the
/// move (the mover's view), `child` the same counters after it (the new mover's view: strong
/// sides turned), `holds(j)` whether child counter `j`'s condition holds after the move.
fn quiet_step_raw(
    parent: &[Counter],
    counts: &Raw,
    man_move: bool,
    child: &[Counter],
    holds: impl Fn(usize) -> bool,
) -> Raw {
    assert_eq!(parent.len(), child.len(), "a quiet move keeps the material");
    let mut out = [None; MAX_COUNTERS];
    for (j, c) in child.iter().enumerate() {
        let i = parent
            .iter()
            .position(|p| p.id == c.id)
            .expect("a quiet move keeps the material, so its counters");
        out[j] = if c.resets_on_man_move && man_move {
            Some(0)
        } else {
            match counts[i] {
                Some(p) if c.restarts_on_leave && !holds(j) && !limit_reached(c, Some(p + 1)) => {
                    None
                }
                Some(p) if c.passes_if_won => Some((p + 1).min(max_count(c))),
                Some(p) => Some(p + 1),
                None => holds(j).then_some(0),
            }
        };
    }
    out
}

fn named(list: &[Counter], raw: &Raw) -> Counts {
    list.iter().zip(raw).map(|(c, &n)| (c.id, n)).collect()
}

fn unnamed(list: &[Counter], counts: &Counts) -> Option<Raw> {
    if counts.len() != list.len() {
        return None;
    }
    let mut raw = [None; MAX_COUNTERS];
    for (j, (c, &(id, n))) in list.iter().zip(counts).enumerate() {
        if c.id != id {
            return None;
        }
        raw[j] = n;
    }
    Some(raw)
}

/// The fresh counts of a board (as if its material had just arisen).
pub fn fresh_counts(draw: &DrawRules, board: &Board) -> Counts {
    let list = counters(draw, &Signature::of(board));
    named(&list, &fresh_raw(&list, board))
}

/// Whether a move changes the material (captures or crowns).
pub fn is_exit(mv: &Move) -> bool {
    mv.is_capture() || mv.crowned
}

/// The state after `mv` (a legal move of `board`), literally by the rules: the child board (new
/// mover's view) and its counts.
pub fn step(draw: &DrawRules, board: &Board, counts: &Counts, mv: &Move) -> (Board, Counts) {
    let child = board.play(mv);
    if is_exit(mv) {
        if child.own() == 0 {
            return (child, Vec::new());
        }
        return (child, fresh_counts(draw, &child));
    }
    let parent_list = counters(draw, &Signature::of(board));
    let child_list = counters(draw, &Signature::of(&child));
    let raw = unnamed(&parent_list, counts).expect("counts of the board's counters");
    let man_move = board.men & (1 << mv.from) != 0;
    let next = quiet_step_raw(&parent_list, &raw, man_move, &child_list, |j| {
        let c = &child_list[j];
        c.condition
            .is_some_and(|cond| condition_holds(cond, c.strong, &child))
    });
    (child, named(&child_list, &next))
}

/// The result decided at a state without looking at moves' children: `Some(Loss)` if the side to
/// move has no legal move, else `Some(Draw)` if a counter reached its limit, else `None`.
///
/// # Panics
///
/// For a counter that passes won boards (`LimitOutcome::PureValue`), which needs the pure
/// result: [`FullStateSolution::terminal`].
pub fn terminal(
    draw: &DrawRules,
    rules: &MoveRules,
    board: &Board,
    counts: &Counts,
) -> Option<Wdl> {
    terminal_given(draw, rules, board, counts, None)
}

/// As [`terminal`], given whether the strong side of a counter that passes won boards wins the
/// board in the pure game.
fn terminal_given(
    draw: &DrawRules,
    rules: &MoveRules,
    board: &Board,
    counts: &Counts,
    strong_wins: Option<bool>,
) -> Option<Wdl> {
    let mut moves = Vec::new();
    legal_moves(board, rules, &mut moves);
    if board.own() == 0 || moves.is_empty() {
        return Some(Wdl::Loss);
    }
    let list = counters(draw, &Signature::of(board));
    let raw = unnamed(&list, counts).expect("counts of the board's counters");
    list.iter()
        .zip(raw)
        .any(|(c, n)| {
            limit_reached(c, n)
                && !(c.passes_if_won
                    && strong_wins.expect("the pure result, for a limit that passes won boards"))
        })
        .then_some(Wdl::Draw)
}

/// Every valid board of the signature, by placing pieces square by square.
pub fn enumerate_boards(signature: Signature) -> Vec<Board> {
    fn place(square: u8, left: [u8; 4], board: Board, out: &mut Vec<Board>) {
        if left == [0; 4] {
            if board.is_valid() {
                out.push(board);
            }
            return;
        }
        if square == 32 {
            return;
        }
        place(square + 1, left, board, out);
        for kind in 0..4 {
            if left[kind] == 0 {
                continue;
            }
            let bit = 1u32 << square;
            let mut next = board;
            match kind {
                0 => next.men |= bit,
                1 => next.kings |= bit,
                2 => next.opp_men |= bit,
                _ => next.opp_kings |= bit,
            }
            let mut rest = left;
            rest[kind] -= 1;
            place(square + 1, rest, next, out);
        }
    }
    let mut out = Vec::new();
    let left = [
        signature.mover_men,
        signature.mover_kings,
        signature.opp_men,
        signature.opp_kings,
    ];
    place(0, left, Board::default(), &mut out);
    out
}

/// Every consistent count vector of a material (see the module doc), each with the material's
/// clock `p_m`. Whether a `None` fits a board is checked per board.
fn count_vectors(list: &[Counter], signature: &Signature) -> Vec<(Raw, u16)> {
    let no_men = signature.mover_men == 0 && signature.opp_men == 0;
    let shared: Vec<usize> = (0..list.len())
        .filter(|&j| list[j].condition.is_none() && !list[j].resets_on_man_move)
        .collect();
    let clock_max = if shared.is_empty() {
        list.iter().map(max_count).max().unwrap_or(0)
    } else {
        shared.iter().map(|&j| max_count(&list[j])).min().unwrap()
    };
    // A kings-only count where a side has no king: see the module doc.
    let kingless_cap = match (signature.mover_kings > 0, signature.opp_kings > 0) {
        (true, true) => None,
        (false, true) => Some(1),
        _ => Some(0),
    };
    let mut out = Vec::new();
    for clock in 0..=clock_max {
        let choices: Vec<Vec<Option<u16>>> = list
            .iter()
            .enumerate()
            .map(|(j, c)| {
                let top = clock.min(max_count(c));
                if shared.contains(&j) {
                    vec![Some(clock)]
                } else if c.resets_on_man_move {
                    if no_men {
                        if clock <= max_count(c) {
                            vec![Some(clock)]
                        } else {
                            vec![]
                        }
                    } else {
                        let top = kingless_cap.map_or(top, |cap| top.min(cap));
                        (0..=top).map(Some).collect()
                    }
                } else {
                    std::iter::once(None).chain((0..=top).map(Some)).collect()
                }
            })
            .collect();
        let mut partial: Vec<Raw> = vec![[None; MAX_COUNTERS]];
        for (j, options) in choices.iter().enumerate() {
            let mut next = Vec::with_capacity(partial.len() * options.len());
            for raw in &partial {
                for &o in options {
                    let mut r = *raw;
                    r[j] = o;
                    next.push(r);
                }
            }
            partial = next;
        }
        for raw in partial {
            let largest = raw.iter().flatten().copied().max().unwrap_or(0);
            if shared.is_empty() && largest != clock {
                continue; // counted under its own clock value
            }
            out.push((raw, clock));
        }
    }
    out
}

/// A hash for boards and count vectors (FxHash's mixing step).
#[derive(Default)]
struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }
    fn write_u16(&mut self, n: u16) {
        self.write_u64(u64::from(n));
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

const UNKNOWN: u8 = 0;
const WIN: u8 = 1;
const LOSS: u8 = 2;
/// A draw because a limit is reached (final).
const LIMIT: u8 = 3;
/// A (vector, board) pair that is no state: a `None` count where its condition holds (and the
/// rules start it there), or a count that stops off its condition running below its limit where
/// the condition fails.
const INVALID: u8 = 4;

/// Edge kinds, in the low two bits.
const EDGE_NO_PIECES: u64 = 0;
const EDGE_EXIT: u64 = 1;
const EDGE_QUIET: u64 = 2;
/// Flag bits of a quiet edge: bit 0 a man moved, bit `j + 1` child counter `j`'s condition holds.
const FLAG_COMBINATIONS: usize = 1 << (MAX_COUNTERS + 1);

/// How the states of a pair of materials (a signature and its colour flip) are ordered so that
/// every quiet move leads to a state decided earlier. Moves that capture or crown lead to
/// smaller materials, solved before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// Every quiet move adds one ply to the clock (a counter without condition and reset, or
    /// a kings-only counter where there is no man): by decreasing clock, one sweep per clock.
    Clock,
    /// A counter without condition always runs, so a king move adds one ply to the clock and a
    /// man move advances a man: by decreasing advance of the men, then decreasing clock.
    AdvanceThenClock,
    /// Neither (only counters that wait for a condition): sweeps until nothing changes.
    Fixpoint,
}

/// What the iteration keeps of a pair once it is solved.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// Every state (for [`FullStateSolution::value`] and the other queries).
    Everything,
    /// Only the states with every count at its start (clock 0): all that larger materials read.
    /// A pair ordered by clock holds two clocks at a time while it is solved.
    Fresh,
}

/// One signature: its boards, its count vectors and the moves of its boards.
struct Material {
    signature: Signature,
    /// Index of the signature with the other side to move (quiet moves lead there).
    flip: usize,
    counters: Vec<Counter>,
    boards: Vec<Board>,
    positions: FastMap<Board, u32>,
    /// Per board: bit `j` if counter `j`'s condition holds there and a count that has not
    /// started would have started there.
    cond_mask: Vec<u8>,
    /// Per board: bit `j` if counter `j` stops where its condition fails, and it fails there.
    leave_mask: Vec<u8>,
    /// Per board: how far its men have advanced (rows from their own side, both sides summed).
    advance: Vec<u8>,
    /// The consistent count vectors, by decreasing clock.
    vectors: Vec<Raw>,
    clock: Vec<u16>,
    vector_ids: FastMap<Raw, u32>,
    /// Per vector: bit `j` if counter `j` is `None`.
    none_mask: Vec<u8>,
    /// Per vector: bit `j` if counter `j` runs and has not reached its limit.
    running_mask: Vec<u8>,
    /// Per vector: a counter that draws at its limit whatever the board has reached it.
    at_limit: Vec<bool>,
    /// Per vector: a counter that passes won boards has reached its limit (and not passed it).
    at_passing_limit: Vec<bool>,
    /// Per board: the strong side of a counter that passes won boards wins it in the pure game.
    strong_wins: Vec<bool>,
    /// Layer `k`: the vectors of one clock value (a range of `vectors`), by decreasing clock.
    layers: Vec<Range<usize>>,
    /// Per vector: its layer.
    layer_of: Vec<u16>,
    /// Per layer, while it is kept: its states, board-major (`board × layer length + vector −
    /// layer start`), so that the states of one board's moves are read together.
    values: Vec<Option<Vec<AtomicU8>>>,
    order: Order,
    edge_start: Vec<u32>,
    edges: Vec<u64>,
    /// `vector × FLAG_COMBINATIONS + flags` → the child's vector (in `flip`), `u32::MAX` if unused.
    trans: Vec<u32>,
}

impl Material {
    fn positions_len(&self) -> usize {
        self.boards.len()
    }

    /// The layer holding the clock-0 vectors (every count at its start).
    fn fresh_layer(&self) -> usize {
        self.layers.len() - 1
    }

    fn layer_of_clock(&self, clock: u16) -> Option<usize> {
        self.layers
            .iter()
            .position(|r| self.clock[r.start] == clock)
    }

    /// Allocates layer `k` with every state unknown, or invalid where a waiting count's condition
    /// holds or where a count that stops off its condition runs below its limit while the
    /// condition fails. Returns the number of states in it.
    fn allocate(&mut self, k: usize) -> usize {
        if self.values[k].is_some() {
            return 0;
        }
        let range = self.layers[k].clone();
        let len = range.len();
        let (none_mask, cond_mask) = (&self.none_mask[range.clone()], &self.cond_mask);
        let (running_mask, leave_mask) = (&self.running_mask[range.clone()], &self.leave_mask);
        let values: Vec<AtomicU8> = (0..len * self.boards.len())
            .into_par_iter()
            .map(|i| {
                let (v, b) = (i % len, i / len);
                let invalid =
                    none_mask[v] & cond_mask[b] != 0 || running_mask[v] & leave_mask[b] != 0;
                AtomicU8::new(if invalid { INVALID } else { UNKNOWN })
            })
            .collect();
        let states = values
            .par_iter()
            .filter(|v| v.load(Relaxed) != INVALID)
            .count();
        self.values[k] = Some(values);
        states
    }

    /// The stored code of a state; panics if its layer is not kept.
    fn load(&self, vector: usize, board: usize) -> u8 {
        let k = self.layer_of[vector] as usize;
        let range = &self.layers[k];
        let values = self.values[k]
            .as_ref()
            .unwrap_or_else(|| panic!("{}: a state of a dropped layer", self.signature));
        values[board * range.len() + vector - range.start].load(Relaxed)
    }

    fn kept(&self, vector: usize) -> bool {
        self.values[self.layer_of[vector] as usize].is_some()
    }
}

/// Every consistent state of some signatures and of every signature reachable from them, solved.
pub struct FullStateSolution {
    draw: DrawRules,
    rules: MoveRules,
    materials: Vec<Material>,
    index: HashMap<Signature, usize>,
    requested: Vec<usize>,
    states: usize,
    passes: usize,
}

/// A state handed to the visitor of [`FullStateSolution::stream`].
pub type Visitor<'a> = &'a (dyn Fn(Board, Counts, Wdl) + Sync);

impl FullStateSolution {
    /// Solves every consistent start state of `signatures` (and everything reachable), keeping
    /// every state.
    pub fn solve(
        rules: &MoveRules,
        draw: &DrawRules,
        signatures: &[Signature],
    ) -> FullStateSolution {
        let mut solution = Self::build(rules, draw, signatures);
        solution.iterate(Keep::Everything, None);
        solution
    }

    /// Solves the same states as [`FullStateSolution::solve`] keeping only what the solving
    /// needs (for a pair ordered by clock, two clocks at a time), and hands every state of
    /// `signatures` in a fixed pseudo-random sample of about one in `one_in` to `visit` once its
    /// value is final (in parallel, in no fixed order). Returns the number of states solved.
    pub fn stream(
        rules: &MoveRules,
        draw: &DrawRules,
        signatures: &[Signature],
        one_in: u64,
        visit: Visitor<'_>,
    ) -> usize {
        let mut solution = Self::build(rules, draw, signatures);
        solution.iterate(Keep::Fresh, Some((visit, one_in)));
        solution.states
    }

    /// The materials, their boards, vectors, moves and count transitions; no values yet.
    fn build(rules: &MoveRules, draw: &DrawRules, signatures: &[Signature]) -> FullStateSolution {
        // A limit that passes won boards needs the pure game's results: solved here first, with
        // no counter.
        let pure = draw
            .counters
            .iter()
            .any(|c| c.limit_outcome == LimitOutcome::PureValue)
            .then(|| {
                let none = DrawRules::new(DrawPreset::None, Interpretation::default());
                FullStateSolution::solve(rules, &none, signatures)
            });
        let pure_of = |board: &Board| {
            pure.as_ref()
                .and_then(|p| p.fresh_value(board))
                .expect("the pure result of every board reached")
        };
        // 1. The signatures reachable by moves, with their boards.
        let mut index: HashMap<Signature, usize> = HashMap::new();
        let mut found: Vec<(Signature, Vec<Board>)> = Vec::new();
        let mut queue: Vec<Signature> = signatures
            .iter()
            .copied()
            .filter(Signature::is_possible)
            .collect();
        while let Some(signature) = queue.pop() {
            if index.contains_key(&signature) {
                continue;
            }
            let boards = enumerate_boards(signature);
            let children: HashSet<Signature> = boards
                .par_iter()
                .fold(HashSet::new, |mut set, board| {
                    let mut moves = Vec::new();
                    legal_moves(board, rules, &mut moves);
                    for mv in &moves {
                        let child = board.play(mv);
                        if child.own() != 0 {
                            set.insert(Signature::of(&child));
                        }
                    }
                    set
                })
                .reduce(HashSet::new, |mut a, b| {
                    a.extend(b);
                    a
                });
            index.insert(signature, found.len());
            found.push((signature, boards));
            queue.extend(children.into_iter().filter(|s| !index.contains_key(s)));
        }
        for k in 0..found.len() {
            let flip = found[k].0.flipped();
            if let std::collections::hash_map::Entry::Vacant(e) = index.entry(flip) {
                // Only if a signature has no quiet move at all; keep it for the pairing.
                e.insert(found.len());
                found.push((flip, enumerate_boards(flip)));
            }
        }
        assert!(found.len() < 256, "material indices fit 8 bits of an edge");

        // 2. Count vectors, boards and their conditions.
        let mut materials: Vec<Material> = found
            .into_iter()
            .map(|(signature, boards)| {
                material(
                    draw,
                    signature,
                    boards,
                    index[&signature.flipped()],
                    &pure_of,
                )
            })
            .collect();

        // 3. Moves of every board, as edges.
        let mut all_edges = Vec::with_capacity(materials.len());
        for material in &materials {
            let per_board: Vec<Vec<u64>> = material
                .boards
                .par_iter()
                .map(|board| edges_of(rules, &materials, &index, material, board))
                .collect();
            let mut edge_start = Vec::with_capacity(per_board.len() + 1);
            let mut edges = Vec::new();
            edge_start.push(0u32);
            for list in per_board {
                edges.extend(list);
                edge_start.push(u32::try_from(edges.len()).expect("edges fit u32"));
            }
            all_edges.push((edge_start, edges));
        }
        for (material, (edge_start, edges)) in materials.iter_mut().zip(all_edges) {
            material.edge_start = edge_start;
            material.edges = edges;
        }

        // 4. Count transitions of quiet moves, for the flag combinations that occur.
        let mut all_trans = Vec::with_capacity(materials.len());
        for material in &materials {
            let child = &materials[material.flip];
            let mut used = [false; FLAG_COMBINATIONS];
            for &e in &material.edges {
                if e & 3 == EDGE_QUIET {
                    used[((e >> 2) & 0x3f) as usize] = true;
                }
            }
            let mut trans = vec![u32::MAX; material.vectors.len() * FLAG_COMBINATIONS];
            for (v, raw) in material.vectors.iter().enumerate() {
                if material.at_limit[v] {
                    continue; // no move is played from a limit position
                }
                for (flags, _) in used.iter().enumerate().filter(|(_, &u)| u) {
                    let next = quiet_step_raw(
                        &material.counters,
                        raw,
                        flags & 1 != 0,
                        &child.counters,
                        |j| flags & (1 << (j + 1)) != 0,
                    );
                    let id = *child.vector_ids.get(&next).unwrap_or_else(|| {
                        panic!(
                            "{}: counts {:?} lead by a quiet move (flags {flags:b}) to {:?}, \
                             not a consistent vector of {}",
                            material.signature,
                            named(&material.counters, raw),
                            named(&child.counters, &next),
                            child.signature
                        )
                    });
                    trans[v * FLAG_COMBINATIONS + flags] = id;
                }
            }
            all_trans.push(trans);
        }
        for (material, trans) in materials.iter_mut().zip(all_trans) {
            material.trans = trans;
        }

        let mut requested: Vec<usize> = Vec::new();
        for s in signatures {
            if let Some(&i) = index.get(s) {
                if !requested.contains(&i) {
                    requested.push(i);
                }
            }
        }
        FullStateSolution {
            draw: draw.clone(),
            rules: *rules,
            materials,
            index,
            requested,
            states: 0,
            passes: 0,
        }
    }

    /// Value iteration, pair by pair (smaller materials first), each pair in its [`Order`].
    /// Keeping everything, whole sweeps over every state follow until one changes nothing: the
    /// first must already change nothing, or the order was wrong.
    fn iterate(&mut self, keep: Keep, visit: Option<(Visitor<'_>, u64)>) {
        let mut pairs: Vec<Vec<usize>> = Vec::new();
        for (i, m) in self.materials.iter().enumerate() {
            if m.flip == i {
                pairs.push(vec![i]);
            } else if m.flip > i {
                pairs.push(vec![i, m.flip]);
            }
        }
        pairs.sort_by_key(|pair| {
            let s = self.materials[pair[0]].signature;
            (s.pieces(), s.mover_men + s.opp_men)
        });
        for pair in &pairs {
            let order = self.materials[pair[0]].order;
            assert!(pair.iter().all(|&i| self.materials[i].order == order));
            if order == Order::Clock && keep == Keep::Fresh {
                self.solve_by_clock_streaming(pair, visit);
                continue;
            }
            for &i in pair {
                for k in 0..self.materials[i].layers.len() {
                    self.states += self.materials[i].allocate(k);
                }
            }
            match order {
                Order::Clock => {
                    for clock in self.clocks(pair) {
                        for &i in pair {
                            if let Some(k) = self.materials[i].layer_of_clock(clock) {
                                self.sweep(i, k, None);
                            }
                        }
                    }
                }
                Order::AdvanceThenClock => {
                    let by_advance: Vec<Vec<Vec<u32>>> = pair
                        .iter()
                        .map(|&i| boards_by_advance(&self.materials[i]))
                        .collect();
                    let top = by_advance.iter().map(Vec::len).max().unwrap_or(0);
                    for advance in (0..top).rev() {
                        for clock in self.clocks(pair) {
                            for (&i, groups) in pair.iter().zip(&by_advance) {
                                let (Some(boards), Some(k)) =
                                    (groups.get(advance), self.materials[i].layer_of_clock(clock))
                                else {
                                    continue;
                                };
                                self.sweep(i, k, Some(boards));
                            }
                        }
                    }
                }
                Order::Fixpoint => loop {
                    let mut decided = 0;
                    for &i in pair {
                        for k in 0..self.materials[i].layers.len() {
                            decided += self.sweep(i, k, None);
                        }
                    }
                    if decided == 0 {
                        break;
                    }
                },
            }
            if let Some((visit, one_in)) = visit {
                for &i in pair {
                    for k in 0..self.materials[i].layers.len() {
                        self.visit_layer(i, k, visit, one_in);
                    }
                }
            }
            if keep == Keep::Fresh {
                for &i in pair {
                    let m = &mut self.materials[i];
                    let fresh = m.fresh_layer();
                    for (k, values) in m.values.iter_mut().enumerate() {
                        if k != fresh {
                            *values = None;
                        }
                    }
                }
            }
        }
        if keep == Keep::Everything {
            self.passes = 1;
            loop {
                self.passes += 1;
                let mut decided = 0;
                for i in 0..self.materials.len() {
                    for k in 0..self.materials[i].layers.len() {
                        decided += self.sweep(i, k, None);
                    }
                }
                assert!(
                    decided == 0 || self.passes > 2,
                    "the ordered pass left {decided} states that a sweep decides"
                );
                if decided == 0 {
                    break;
                }
            }
        }
    }

    /// The clock values of a pair, from the largest down.
    fn clocks(&self, pair: &[usize]) -> std::iter::Rev<std::ops::RangeInclusive<u16>> {
        let top = pair
            .iter()
            .filter_map(|&i| self.materials[i].clock.first().copied())
            .max()
            .unwrap_or(0);
        (0..=top).rev()
    }

    /// A pair ordered by clock, holding only the clock being solved and the one above it (its
    /// quiet moves' children), then the fresh layer.
    fn solve_by_clock_streaming(&mut self, pair: &[usize], visit: Option<(Visitor<'_>, u64)>) {
        for clock in self.clocks(pair) {
            for &i in pair {
                if let Some(k) = self.materials[i].layer_of_clock(clock) {
                    self.states += self.materials[i].allocate(k);
                }
            }
            for &i in pair {
                if let Some(k) = self.materials[i].layer_of_clock(clock) {
                    self.sweep(i, k, None);
                    if let Some((visit, one_in)) = visit {
                        self.visit_layer(i, k, visit, one_in);
                    }
                }
            }
            for &i in pair {
                if let Some(k) = self.materials[i].layer_of_clock(clock + 1) {
                    self.materials[i].values[k] = None;
                }
            }
        }
    }

    /// Evaluates every undecided state of layer `k` of material `i` (on `boards` only, if given)
    /// once, in parallel, updating in place: a decision only reads decided children, so the
    /// order cannot make it wrong. Returns how many states were decided.
    fn sweep(&self, i: usize, k: usize, boards: Option<&[u32]>) -> usize {
        let m = &self.materials[i];
        let range = m.layers[k].clone();
        let values = m.values[k].as_ref().expect("a kept layer");
        let one_board = |pos: usize| {
            let mut decided = 0;
            for v in range.clone() {
                let cell = &values[pos * range.len() + v - range.start];
                if cell.load(Relaxed) != UNKNOWN {
                    continue;
                }
                let result = self.evaluate(m, v, pos);
                if result != UNKNOWN {
                    cell.store(result, Relaxed);
                    decided += 1;
                }
            }
            decided
        };
        match boards {
            Some(list) => list
                .par_iter()
                .with_min_len(256)
                .map(|&pos| one_board(pos as usize))
                .sum(),
            None => (0..m.positions_len())
                .into_par_iter()
                .with_min_len(256)
                .map(one_board)
                .sum(),
        }
    }

    /// The rules at one state, given what is known of its children.
    fn evaluate(&self, m: &Material, vector: usize, position: usize) -> u8 {
        let edges = &m.edges[m.edge_start[position] as usize..m.edge_start[position + 1] as usize];
        if edges.is_empty() {
            return LOSS; // no legal move: lost, even at a limit
        }
        if m.at_limit[vector] || (m.at_passing_limit[vector] && !m.strong_wins[position]) {
            return LIMIT;
        }
        let child = &self.materials[m.flip];
        let mut all_win = true;
        for &e in edges {
            let value = match e & 3 {
                EDGE_NO_PIECES => LOSS,
                EDGE_EXIT => {
                    let (c, v, pos) = exit_target(e);
                    self.materials[c].load(v, pos)
                }
                _ => {
                    let flags = ((e >> 2) & 0x3f) as usize;
                    let v = m.trans[vector * FLAG_COMBINATIONS + flags];
                    debug_assert_ne!(v, u32::MAX);
                    child.load(v as usize, (e >> 8) as usize)
                }
            };
            debug_assert_ne!(value, INVALID, "a move reached a state that is not one");
            if value == LOSS {
                return WIN;
            }
            all_win &= value == WIN;
        }
        if all_win {
            LOSS
        } else {
            UNKNOWN
        }
    }

    /// Hands the sampled states of layer `k` of material `i`, if requested, to `visit`.
    fn visit_layer(&self, i: usize, k: usize, visit: Visitor<'_>, one_in: u64) {
        if !self.requested.contains(&i) {
            return;
        }
        let m = &self.materials[i];
        let range = m.layers[k].clone();
        // The key names the state by its signature, count vector and board, not by the order
        // the materials were found in, so the sample is the same in every run.
        let s = m.signature;
        let material = [s.mover_men, s.mover_kings, s.opp_men, s.opp_kings]
            .iter()
            .fold(0u64, |code, &n| code << 4 | u64::from(n));
        (0..m.positions_len()).into_par_iter().for_each(|pos| {
            for v in range.clone() {
                let code = m.load(v, pos);
                let key = material << 48 ^ (v as u64) << 32 ^ pos as u64;
                if code != INVALID && sampled(key, one_in) {
                    visit(m.boards[pos], named(&m.counters, &m.vectors[v]), wdl(code));
                }
            }
        });
    }

    /// Every start state with its value for the side to move.
    pub fn start_states(&self) -> impl Iterator<Item = (Board, Counts, Wdl)> + '_ {
        self.requested.iter().flat_map(move |&i| {
            let m = &self.materials[i];
            let n = m.positions_len();
            m.vectors.iter().enumerate().flat_map(move |(v, raw)| {
                let counts = named(&m.counters, raw);
                (0..n).filter_map(move |pos| {
                    let code = m.load(v, pos);
                    (code != INVALID).then(|| (m.boards[pos], counts.clone(), wdl(code)))
                })
            })
        })
    }

    /// Number of states solved (every consistent state of every reachable signature).
    pub fn states(&self) -> usize {
        self.states
    }

    /// The value of one solved state, `None` if it is not one (its signature was not reached,
    /// or the counts are not a consistent vector for the board).
    pub fn value(&self, board: &Board, counts: &Counts) -> Option<Wdl> {
        let m = &self.materials[*self.index.get(&Signature::of(board))?];
        let raw = unnamed(&m.counters, counts)?;
        let v = *m.vector_ids.get(&raw)? as usize;
        let pos = *m.positions.get(board)? as usize;
        let code = m.load(v, pos);
        (code != INVALID).then(|| wdl(code))
    }

    /// As the free function [`terminal`], for a board this solution has solved (which knows
    /// the pure result a limit that passes won boards reads).
    pub fn terminal(&self, board: &Board, counts: &Counts) -> Option<Wdl> {
        let strong_wins = self.index.get(&Signature::of(board)).and_then(|&i| {
            let m = &self.materials[i];
            Some(m.strong_wins[*m.positions.get(board)? as usize])
        });
        terminal_given(&self.draw, &self.rules, board, counts, strong_wins)
    }

    /// The value of a board with fresh counts.
    pub fn fresh_value(&self, board: &Board) -> Option<Wdl> {
        self.value(board, &fresh_counts(&self.draw, board))
    }

    /// The consistent count vectors of a solved signature.
    pub fn count_vectors(&self, signature: &Signature) -> Option<Vec<Counts>> {
        let m = &self.materials[*self.index.get(signature)?];
        Some(m.vectors.iter().map(|r| named(&m.counters, r)).collect())
    }

    /// The value of the state made of the `vector`-th count vector of [`Self::count_vectors`] and
    /// the `board`-th board of [`Self::boards`] of a solved signature, `None` if it is no state.
    pub fn value_at(&self, signature: &Signature, vector: usize, board: usize) -> Option<Wdl> {
        let m = &self.materials[*self.index.get(signature)?];
        if vector >= m.vectors.len() || board >= m.boards.len() || !m.kept(vector) {
            return None;
        }
        let code = m.load(vector, board);
        (code != INVALID).then(|| wdl(code))
    }

    /// The boards of a solved signature.
    pub fn boards(&self, signature: &Signature) -> Option<&[Board]> {
        Some(&self.materials[*self.index.get(signature)?].boards)
    }

    /// How many whole passes the iteration made (the ordered one and the confirming sweeps).
    pub fn passes(&self) -> usize {
        self.passes
    }

    /// The move rules and draw rules solved under.
    pub fn rules(&self) -> (&MoveRules, &DrawRules) {
        (&self.rules, &self.draw)
    }
}

fn wdl(code: u8) -> Wdl {
    match code {
        WIN => Wdl::Win,
        LOSS => Wdl::Loss,
        _ => Wdl::Draw,
    }
}

/// Whether the state with this key is in a sample of about one in `one_in`: a fixed
/// pseudo-random choice (SplitMix64 of the key), so that a failure can be reproduced.
pub fn sampled(key: u64, one_in: u64) -> bool {
    let mut z = key.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) % one_in == 0
}

/// How far the men of a board have advanced: each man's rows from its own first row, summed
/// over both sides (the same from either side's view). A quiet man move adds one.
fn advance(board: &Board) -> u8 {
    let mut sum = 0;
    for sq in 0..32u8 {
        let bit = 1u32 << sq;
        if board.men & bit != 0 {
            sum += rank_of(sq);
        } else if board.opp_men & bit != 0 {
            sum += 7 - rank_of(sq);
        }
    }
    sum
}

/// The boards of a material grouped by [`advance`] (index: the advance).
fn boards_by_advance(m: &Material) -> Vec<Vec<u32>> {
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for (pos, &a) in m.advance.iter().enumerate() {
        let a = usize::from(a);
        if groups.len() <= a {
            groups.resize(a + 1, Vec::new());
        }
        groups[a].push(pos as u32);
    }
    groups
}

/// A material's boards, count vectors, layers and order (no moves yet).
fn material(
    draw: &DrawRules,
    signature: Signature,
    boards: Vec<Board>,
    flip: usize,
    pure_of: &dyn Fn(&Board) -> Wdl,
) -> Material {
    let list = counters(draw, &signature);
    let positions: FastMap<Board, u32> = boards
        .iter()
        .enumerate()
        .map(|(i, b)| (*b, i as u32))
        .collect();
    let cond_mask: Vec<u8> = boards
        .iter()
        .map(|b| {
            let mut mask = 0;
            for (j, c) in list.iter().enumerate() {
                if c.starts_if_holding
                    && c.condition
                        .is_some_and(|cond| condition_holds(cond, c.strong, b))
                {
                    mask |= 1 << j;
                }
            }
            mask
        })
        .collect();
    let leave_mask: Vec<u8> = boards
        .iter()
        .map(|b| {
            let mut mask = 0;
            for (j, c) in list.iter().enumerate() {
                if c.restarts_on_leave
                    && c.condition
                        .is_some_and(|cond| !condition_holds(cond, c.strong, b))
                {
                    mask |= 1 << j;
                }
            }
            mask
        })
        .collect();
    let mut with_clock = count_vectors(&list, &signature);
    with_clock.sort_by_key(|&(_, clock)| std::cmp::Reverse(clock));
    let vectors: Vec<Raw> = with_clock.iter().map(|&(r, _)| r).collect();
    let clock: Vec<u16> = with_clock.iter().map(|&(_, c)| c).collect();
    let vector_ids: FastMap<Raw, u32> = vectors
        .iter()
        .enumerate()
        .map(|(i, r)| (*r, i as u32))
        .collect();
    assert!(
        vectors.len() <= 1 << 16,
        "vector ids fit 16 bits of an edge"
    );
    let none_mask = vectors
        .iter()
        .map(|r| {
            (0..list.len())
                .filter(|&j| r[j].is_none())
                .fold(0u8, |m, j| m | 1 << j)
        })
        .collect();
    let running_mask = vectors
        .iter()
        .map(|r| {
            (0..list.len())
                .filter(|&j| r[j].is_some() && !limit_reached(&list[j], r[j]))
                .fold(0u8, |m, j| m | 1 << j)
        })
        .collect();
    let limit_of = |passing: bool| -> Vec<bool> {
        vectors
            .iter()
            .map(|r| {
                list.iter()
                    .zip(r)
                    .any(|(c, &n)| c.passes_if_won == passing && limit_reached(c, n))
            })
            .collect()
    };
    let (at_limit, at_passing_limit) = (limit_of(false), limit_of(true));
    let passing_strong = list.iter().find(|c| c.passes_if_won).map(|c| c.strong);
    let strong_wins = boards
        .iter()
        .map(|b| {
            let pure = passing_strong.map(|_| pure_of(b));
            matches!(
                (passing_strong, pure),
                (Some(Strong::Mover), Some(Wdl::Win)) | (Some(Strong::Opponent), Some(Wdl::Loss))
            )
        })
        .collect();
    let mut layers: Vec<Range<usize>> = Vec::new();
    let mut layer_of = Vec::with_capacity(vectors.len());
    for (v, &c) in clock.iter().enumerate() {
        match layers.last_mut() {
            Some(last) if clock[last.start] == c => last.end = v + 1,
            _ => layers.push(v..v + 1),
        }
        layer_of.push((layers.len() - 1) as u16);
    }
    let no_men = signature.mover_men == 0 && signature.opp_men == 0;
    let order = if list
        .iter()
        .any(|c| c.condition.is_none() && (!c.resets_on_man_move || no_men))
    {
        Order::Clock
    } else if list.iter().any(|c| c.condition.is_none()) {
        Order::AdvanceThenClock
    } else {
        Order::Fixpoint
    };
    let advance = boards.iter().map(advance).collect();
    Material {
        signature,
        flip,
        counters: list,
        positions,
        cond_mask,
        leave_mask,
        advance,
        vectors,
        clock,
        vector_ids,
        none_mask,
        running_mask,
        at_limit,
        at_passing_limit,
        strong_wins,
        values: (0..layers.len()).map(|_| None).collect(),
        layers,
        layer_of,
        order,
        edge_start: Vec::new(),
        edges: Vec::new(),
        trans: Vec::new(),
        boards,
    }
}

/// The target of an exit edge: material, vector (fresh counts) and board.
fn exit_target(e: u64) -> (usize, usize, usize) {
    (
        ((e >> 2) & 0xff) as usize,
        ((e >> 10) & 0xffff) as usize,
        (e >> 26) as usize,
    )
}

/// The moves of `board` (a board of `material`) as edges.
fn edges_of(
    rules: &MoveRules,
    materials: &[Material],
    index: &HashMap<Signature, usize>,
    material: &Material,
    board: &Board,
) -> Vec<u64> {
    let mut moves = Vec::new();
    legal_moves(board, rules, &mut moves);
    let quiet_child = &materials[material.flip];
    moves
        .iter()
        .map(|mv| {
            let child = board.play(mv);
            if is_exit(mv) {
                if child.own() == 0 {
                    return EDGE_NO_PIECES;
                }
                let c_index = index[&Signature::of(&child)];
                let c = &materials[c_index];
                let pos = u64::from(c.positions[&child]);
                let v = u64::from(c.vector_ids[&fresh_raw(&c.counters, &child)]);
                EDGE_EXIT | (c_index as u64) << 2 | v << 10 | pos << 26
            } else {
                debug_assert_eq!(Signature::of(&child), quiet_child.signature);
                let mut flags = u64::from(board.men & (1 << mv.from) != 0);
                for (j, c) in quiet_child.counters.iter().enumerate() {
                    if c.condition
                        .is_some_and(|cond| condition_holds(cond, c.strong, &child))
                    {
                        flags |= 1 << (j + 1);
                    }
                }
                let pos = u64::from(quiet_child.positions[&child]);
                EDGE_QUIET | flags << 2 | pos << 8
            }
        })
        .collect()
}
