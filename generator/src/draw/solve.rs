//! Values under the counted draw rules (`docs/DRAW_RULES.md` §3) for a signature and its colour
//! flip, from the pure tables of the pair and the rule results of the smaller materials.
//!
//! The rules never create a win, so only the pure winner `w` of a position can win under them;
//! per position and family the solver finds the least budget with which `w` still wins:
//!
//! 1. **Graph.** Once per pair, every position is classified from its exits (captures and
//!    crownings, valued by the child's rule result with fresh counts): lost now (no move), won
//!    now (`w` to move has a good exit), never (the loser has an escape, or `w` has no move
//!    left), or open; open positions keep their moves inside the material as edges, marked as
//!    man moves and as moves into a position where the family's condition holds.
//! 2. **Thresholds** (one budget, or none): the minimax number of plies to a good exit, counted
//!    in rounds of rising requirement, block by block of equal man advancement `π` (a man move
//!    raises `π`, so a block only reads finished blocks and itself). With `Z` in force a man move
//!    restarts the count: its requirement is 1 if the child wins with a full `Z`.
//! 3. **Layers** (both `A` and `Z` in force): every move lowers `A`, so layer `k` (least `Z` that
//!    wins with `A = k`) follows from layer `k − 1` alone. Two layers are kept at a time; what
//!    is stored is each position's staircase, the corners where its least `Z` falls.
//!
//! The `post` family (the condition counter has started) is solved first; `pre` reads it where a
//! move makes the condition hold. Where a move that leaves the condition stops the count (a
//! reading of the Forçada), `post` reads `pre` too: the two are solved in turn, each from the
//! other's last values, until `post` stops changing. Requirements only fall from one round to
//! the next (a first `post` takes every move back to `pre` as a loss of the win), and a win
//! that crosses between the families `n` times is found by round `n + 1`.

use std::borrow::Cow;
use std::sync::Mutex;

use bitvec::vec::BitVec;
use dprobe::{
    draw::{ConditionShape, DrawState, LimitOutcome, MaterialShape, PlaneKind, MAX_STORED, NEVER},
    index::{MenRun, Signature, TableIndex},
    rules::{capture_moves, has_capture, quiet_moves, Board, MoveRules},
    DrawRules, DrawWdl, Move, Wdl,
};
use rayon::prelude::*;

use crate::pure::solve::{bits_from_words, chunks, flags_by_chunks, CHUNK};
use crate::pure::tableset::TableSet;
use crate::Error;

use super::results::{pure_wdl, FreshResults};
use super::stairs::{NotAStaircase, Stairs, StairsBuilder};

/// Class of a position for every layer past 0: lost now (the mover has no move).
const LOST: u8 = 0;
/// `w` wins whatever the budget (a good exit), with the least requirement.
const GOOD: u8 = 1;
/// Decided by its moves inside the material.
const OPEN: u8 = 254;

const EDGE_INDEX: u32 = (1 << 29) - 1;
const EDGE_MAN: u32 = 1 << 29;
const EDGE_CONDITION: u32 = 1 << 30;
const EDGE_SIDE: u32 = 1 << 31;

/// Requirements are computed in `u16`; this one is "never".
const INF: u16 = u16::MAX;

/// One family of one side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Family {
    /// The condition counter has started in these states.
    pub post: bool,
    /// What the family holds.
    pub kind: PlaneKind,
    /// Per position, its staircase (one corner, at layer 0, for a family of one budget or none).
    pub stairs: Stairs,
}

impl Family {
    /// Whether the pure winner of position `index` wins in `state` (not at a limit).
    pub fn wins(&self, index: usize, state: &DrawState) -> bool {
        let layer = self.kind.plane_for(state.a, self.stairs.layers());
        self.kind.wins(self.stairs.entry(index, layer), state)
    }
}

/// The rule table of one signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawTable {
    /// Its signature.
    pub signature: Signature,
    /// The result with fresh counts, a [`DrawWdl`] code per position.
    pub fresh: Vec<u8>,
    /// `pre`, then `post` if the material has a condition counter; none if nothing can decide
    /// anything but the exits (then `fresh` says everything).
    pub families: Vec<Family>,
    /// The positions whose family entries no reader reads (capture positions and pure draws),
    /// so that a file may store filler there.
    pub unread: BitVec<u64>,
}

/// The moves of a signature and its colour flip, which no counted rule changes, with every
/// position classified from its exits under each reading of the smaller materials: built once,
/// read by every solve of the pair.
pub struct PairGraph {
    sides: Vec<SideGraph>,
}

/// One side of the pair, with its move graph.
struct SideGraph {
    signature: Signature,
    index: TableIndex,
    /// The condition the edges are marked with (`EDGE_CONDITION`), seen from this side's mover.
    condition: Option<ConditionShape>,
    /// The pure result of every position.
    pure: PureResults,
    /// `LOST`, `GOOD`, `NEVER` or `OPEN`, with the exits read in the first reading (a solve
    /// reads its own reading's, [`SideGraph::class_in`]).
    first_class: Vec<u8>,
    /// Per further reading, the positions whose class differs from `class`, with theirs.
    class_changes: Vec<Vec<(u32, u8)>>,
    /// The edges of the positions, by chunk of the index ([`SideGraph::edges_of`]): kept as
    /// each chunk lists them, never gathered into one array, which would need twice the memory
    /// while it is built.
    edges: Vec<EdgeChunk>,
    /// The positions whose family entries no reader reads: those with a capture, whose value in
    /// any state is their fresh result unless a count is at its limit (the capture leaves the
    /// material), and the pure draws, a draw in every state.
    unread: BitVec<u64>,
    /// Per position, whether `condition` holds there (empty without one): all a fresh state
    /// needs of the board, so that the fresh results are worked out without decoding it.
    condition_holds: BitVec<u64>,
}

/// Per side, the staircases of one family.
type Planes = Vec<Stairs>;

// Chunks of the index are packed one after the other: each must fill whole bytes.
const _: () = assert!(CHUNK % 4 == 0);

/// The pure results of a side's positions, four a byte (a byte each was the largest array of
/// the largest pairs after their edges).
struct PureResults(Vec<u8>);

impl PureResults {
    /// Packs `results`, whose length must be a multiple of 4 unless they are the last.
    fn pack(results: &[Wdl]) -> Vec<u8> {
        results
            .chunks(4)
            .map(|four| {
                four.iter()
                    .enumerate()
                    .fold(0u8, |byte, (k, &wdl)| byte | (wdl as u8) << (2 * k))
            })
            .collect()
    }

    #[inline]
    fn get(&self, i: usize) -> Wdl {
        match self.0[i / 4] >> (2 * (i % 4)) & 3 {
            0 => Wdl::Loss,
            1 => Wdl::Draw,
            _ => Wdl::Win,
        }
    }
}

/// The edges of [`CHUNK`] consecutive positions: those of the `j`-th are
/// `edges[offsets[j]..offsets[j + 1]]`.
struct EdgeChunk {
    offsets: Offsets,
    edges: Vec<u32>,
}

/// Where each position's edges start in its chunk: two bytes a position where the chunk's
/// edges allow (almost always: most positions keep none), else four.
enum Offsets {
    Short(Vec<u16>),
    Long(Vec<u32>),
}

impl Offsets {
    /// The shortest form of `offsets`.
    fn of(offsets: Vec<u32>) -> Offsets {
        match offsets.iter().map(|&o| u16::try_from(o)).collect() {
            Ok(short) => Offsets::Short(short),
            Err(_) => Offsets::Long(offsets),
        }
    }

    /// The edges of the `j`-th position of the chunk.
    #[inline]
    fn range(&self, j: usize) -> std::ops::Range<usize> {
        match self {
            Offsets::Short(o) => usize::from(o[j])..usize::from(o[j + 1]),
            Offsets::Long(o) => o[j] as usize..o[j + 1] as usize,
        }
    }
}

/// One solve of a pair: its graph, read under one set of counters and one reading of the exits.
struct Pair<'g> {
    sides: &'g [SideGraph],
    shapes: Vec<MaterialShape>,
    /// Per side, every position's class in this reading.
    class: Vec<Cow<'g, [u8]>>,
    z_full: Option<u16>,
}

/// Solves the rule tables of `signature` and its colour flip.
///
/// A counter read with [`LimitOutcome::PureValue`] (Russian rule 4, "reach a winning
/// position") never decides a position its strong side wins in the pure game, and decides the
/// others as a draw at its limit: the loser's moves keep the pure winner, and only moves that
/// keep it can win, so each side's positions form a game of their own. The pair is solved with
/// the counter and without it, and each position keeps the solve that applies to it
/// ([`DrawRules::set_aside`]): its `pre` staircase (and fresh result) from the solve without the
/// counter where the strong side wins, no `post` corners there (a count set aside is
/// not read). Where the other side wins, a count that has passed its limit is over as well, so
/// the `pre` staircases must agree for both readings: otherwise the pair is refused.
///
/// `graph` is read with the exits of its `reading`-th reading, and must have been built with
/// the condition counter of `draw` (or `draw` must have none).
///
/// # Errors
///
/// Rules the tables do not implement, a graph marked with another condition, or a table whose
/// values break the solver's invariants.
pub fn solve_draw_pair(
    draw: &DrawRules,
    graph: &PairGraph,
    reading: usize,
) -> Result<Vec<DrawTable>, Error> {
    let signature = graph.sides[0].signature;
    let pure_value_limit = draw
        .active(&signature)
        .any(|(c, _)| c.limit_outcome == LimitOutcome::PureValue);
    let with = solve_with_limits_drawn(draw, graph, reading)?;
    if !pure_value_limit {
        return Ok(with);
    }
    let without = solve_with_limits_drawn(&draw.without_pure_value_limits(), graph, reading)?;
    with.into_iter()
        .zip(without)
        .map(|(with, without)| keep_the_deciding_solve(draw, with, without))
        .collect()
}

/// Per position, `with` (solved with every limit a draw) or `without` (solved without the
/// counters read with [`LimitOutcome::PureValue`]), as [`solve_draw_pair`] says.
fn keep_the_deciding_solve(
    draw: &DrawRules,
    with: DrawTable,
    without: DrawTable,
) -> Result<DrawTable, Error> {
    let signature = with.signature;
    let refuse = |why: String| Error::Unsupported(format!("{signature}: {why}"));
    let [with_pre, with_post] = match with.families.as_slice() {
        [pre, post] if !pre.post && post.post => [pre, post],
        _ => {
            return Err(refuse(
                "expected families before and after the count starts".into(),
            ))
        }
    };
    let without_pre = match without.families.as_slice() {
        [pre] if pre.kind == with_pre.kind => pre,
        _ => {
            return Err(refuse(
                "the families without the count differ in kind".into(),
            ))
        }
    };
    let set_aside: Vec<bool> = with
        .fresh
        .iter()
        .map(|&code| {
            let pure = DrawWdl::from_code(code).map_or(Wdl::Draw, DrawWdl::pure);
            draw.set_aside(&signature, pure).is_some()
        })
        .collect();
    // Staircases are canonical (a corner wherever the value falls), so two positions have the
    // same values in every layer exactly when they have the same corners.
    let (with_stairs, without_stairs) = (&with_pre.stairs, &without_pre.stairs);
    if let Some(i) = Stairs::first_where(set_aside.len(), |i| {
        let decisive = DrawWdl::from_code(with.fresh[i]).is_some_and(|r| r.pure() != Wdl::Draw);
        !set_aside[i] && decisive && !with_stairs.same_at(without_stairs, i)
    }) {
        return Err(refuse(format!(
            "position {i}, which the lone king wins, would need a staircase of its own for a count \
             past its limit (r4-limit-outcome=pure-value)"
        )));
    }
    let pre = Stairs::select(
        with_stairs.layers().max(without_stairs.layers()),
        set_aside.len(),
        |i| {
            Some(if set_aside[i] {
                without_stairs
            } else {
                with_stairs
            })
        },
    );
    let post = Stairs::select(with_post.stairs.layers(), set_aside.len(), |i| {
        (!set_aside[i]).then_some(&with_post.stairs)
    });
    let fresh = with
        .fresh
        .iter()
        .zip(&without.fresh)
        .zip(&set_aside)
        .map(|((&with, &without), &aside)| if aside { without } else { with })
        .collect();
    Ok(DrawTable {
        signature,
        fresh,
        unread: with.unread,
        families: vec![
            Family {
                post: false,
                kind: with_pre.kind,
                stairs: pre,
            },
            Family {
                post: true,
                kind: with_post.kind,
                stairs: post,
            },
        ],
    })
}

/// Solves the rule tables of the pair with every limit a draw.
fn solve_with_limits_drawn(
    draw: &DrawRules,
    graph: &PairGraph,
    reading: usize,
) -> Result<Vec<DrawTable>, Error> {
    let shapes = graph
        .sides
        .iter()
        .map(|side| MaterialShape::of(draw, side.signature))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Error::from)?;
    for (side, shape) in graph.sides.iter().zip(&shapes) {
        let marked_alike = |c: ConditionShape, m: ConditionShape| {
            (c.condition, c.strong_is_mover) == (m.condition, m.strong_is_mover)
        };
        if let Some(condition) = shape.condition {
            if !side
                .condition
                .is_some_and(|marked| marked_alike(condition, marked))
            {
                return Err(Error::Invariant(format!(
                    "{}: the move graph is not marked with the condition of these rules",
                    side.signature
                )));
            }
        }
    }
    let pair = Pair {
        sides: &graph.sides,
        class: graph
            .sides
            .iter()
            .map(|side| side.class_in(reading))
            .collect(),
        z_full: shapes[0].z_full,
        shapes,
    };
    let shapes = &pair.shapes;
    let a_live = shapes[0].a_full.is_some();
    let z_live = pair.z_full.is_some();

    let a_cap = shapes.iter().filter_map(|s| s.a_full).max();
    let (pre, post) = match shapes[0].condition {
        None => (pair.solve_family(a_live, a_cap, Cross::Stay)?, None),
        Some(condition) => {
            let cap = shapes
                .iter()
                .filter_map(|s| s.condition.map(|c| c.budget))
                .max();
            let restarts = condition.restarts_on_leave;
            let first = if restarts {
                Cross::Leave(None)
            } else {
                Cross::Stay
            };
            let mut post = pair.solve_family(true, cap, first)?;
            loop {
                let pre = pair.solve_family(a_live, a_cap, Cross::Enter(&post))?;
                if !restarts {
                    break (pre, Some(post));
                }
                let next = pair.solve_family(true, cap, Cross::Leave(Some(&pre)))?;
                if next == post {
                    break (pre, Some(post));
                }
                post = next;
            }
        }
    };

    let mut families: Vec<Vec<Family>> = vec![Vec::new(); pair.sides.len()];
    for (side, stairs) in pre.into_iter().enumerate() {
        families[side].push(Family {
            post: false,
            kind: PlaneKind::for_budgets(a_live, z_live),
            stairs,
        });
    }
    for (side, stairs) in post.into_iter().flatten().enumerate() {
        families[side].push(Family {
            post: true,
            kind: PlaneKind::for_budgets(true, z_live),
            stairs,
        });
    }
    Ok(families
        .into_iter()
        .enumerate()
        .map(|(side, families)| DrawTable {
            signature: pair.sides[side].signature,
            fresh: pair.fresh_results(side, &families),
            families,
            unread: pair.sides[side].unread.clone(),
        })
        .collect())
}

/// The side of the pair holding `signature`.
fn side_of(signatures: &[Signature], signature: Signature) -> usize {
    usize::from(signatures.len() == 2 && signatures[1] == signature)
}

/// The most readings a graph classifies at once (one bit each in [`Children::classify`]).
const MAX_READINGS: usize = 32;

impl PairGraph {
    /// Lists the moves of `signature` and its colour flip and classifies every position from
    /// its exits under each of `readings` (the fresh results of the materials solved before, as
    /// one set of counters or another sees them). Edges are marked with the condition counter of
    /// `draw`.
    ///
    /// # Errors
    ///
    /// A missing or damaged pure table of the pair, a failed lookup of a smaller material, rules
    /// the tables do not implement, a table too large for the edge encoding, or more than 32
    /// readings.
    ///
    /// With `captures_as_pure` (no capture of the pair leads to a material where some reading
    /// turns a pure result), a position with a capture is classified from its pure result
    /// alone: the pure winner's best capture keeps the win and every capture of the pure loser
    /// still loses, in every reading, so its captures are not listed.
    pub fn build(
        rules: &MoveRules,
        draw: &DrawRules,
        pure: &TableSet,
        readings: &[&dyn FreshResults],
        signature: Signature,
        captures_as_pure: bool,
    ) -> Result<PairGraph, Error> {
        if readings.is_empty() || readings.len() > MAX_READINGS {
            return Err(Error::Invariant(format!(
                "{signature}: {} readings of the exits, not 1 to {MAX_READINGS}",
                readings.len()
            )));
        }
        let mut signatures = vec![signature];
        if signature.flipped() != signature {
            signatures.push(signature.flipped());
        }
        let failure = Mutex::new(None);
        // The pure results of the pair, which the rules never improve on: the winner's moves
        // are kept only into positions it still wins.
        let results = signatures
            .iter()
            .map(|&s| pure_wdl(pure, readings[0], s))
            .collect::<Result<Vec<_>, _>>()?;
        let sides = signatures
            .iter()
            .map(|&s| {
                let condition = MaterialShape::of(draw, s).map_err(Error::from)?.condition;
                let child_side = side_of(&signatures, s.flipped());
                let results = [
                    results[side_of(&signatures, s)].as_slice(),
                    results[child_side].as_slice(),
                ];
                let exits = Exits {
                    readings,
                    captures_as_pure,
                };
                SideGraph::build(rules, results, exits, s, condition, child_side, &failure)
            })
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(error) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(error);
        }
        Ok(PairGraph { sides })
    }

    /// Per side, the positions whose pure result turns into a draw when the pair is read in
    /// `reading` under rules that run no count in it (so a position's value is the pure game's
    /// with the exits read there: its pure result or a draw), given `candidates`, per side, a
    /// set of positions outside which every pure result is known to hold. Only the candidates
    /// are worked out: a candidate keeps its pure result if its class says so, or if it is open
    /// and the winner moving has a move to a position that keeps its own (the loser moving,
    /// only such moves). Rounds add the positions so decided until none is; the candidates
    /// left are the draws. Each round reads the positions outside the candidates as keeping
    /// their pure results, which they do, so the rounds find what a solve of the whole pair
    /// finds (a win by a chain of `n` moves among the candidates by round `n`), from the
    /// candidates' moves alone.
    pub fn turned_without_counts(
        &self,
        reading: usize,
        candidates: &[BitVec<u64>],
    ) -> Vec<BitVec<u64>> {
        let mut turned: Vec<BitVec<u64>> = candidates.to_vec();
        let mut open: Vec<(u8, u32)> = Vec::new();
        for (s, side) in self.sides.iter().enumerate() {
            for i in candidates[s].iter_ones() {
                match side.class_at(reading, i) {
                    OPEN => open.push((s as u8, i as u32)),
                    NEVER => {}
                    _ => turned[s].set(i, false),
                }
            }
        }
        loop {
            let keeps: Vec<bool> = open
                .par_iter()
                .map(|&(s, i)| {
                    let side = &self.sides[usize::from(s)];
                    let winner_moves = side.pure.get(i as usize) == Wdl::Win;
                    let mut children = side.edges_of(i as usize).iter().map(|&edge| {
                        let (cs, ci, _, _) = unpack(edge);
                        !turned[cs][ci]
                    });
                    if winner_moves {
                        children.any(|keeps| keeps)
                    } else {
                        children.all(|keeps| keeps)
                    }
                })
                .collect();
            if !keeps.contains(&true) {
                return turned;
            }
            let mut still = Vec::with_capacity(open.len());
            for (&(s, i), keeps) in open.iter().zip(keeps) {
                if keeps {
                    turned[usize::from(s)].set(i as usize, false);
                } else {
                    still.push((s, i));
                }
            }
            open = still;
        }
    }
}

impl SideGraph {
    /// Classifies every position of one side and lists the moves that may matter.
    /// `results`: the pure results of this side's positions and of its children's (the colour
    /// flip).
    fn build(
        rules: &MoveRules,
        [results, children_results]: [&[Wdl]; 2],
        Exits {
            readings,
            captures_as_pure,
        }: Exits,
        signature: Signature,
        condition: Option<ConditionShape>,
        child_side: usize,
        failure: &Mutex<Option<Error>>,
    ) -> Result<SideGraph, Error> {
        let index = TableIndex::new(signature);
        let size = index.size();
        if size > u64::from(EDGE_INDEX) {
            return Err(Error::Unsupported(format!(
                "{signature}: {size} positions, more than the rule solver's {EDGE_INDEX}"
            )));
        }
        let record = |error: Error| {
            failure
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(error);
        };
        let children = Children {
            pure: children_results,
            index: TableIndex::new(signature.flipped()),
            side: child_side,
            // The same material with the other side to move: the strong side swaps roles.
            condition: condition.map(|c| ConditionShape {
                strong_is_mover: !c.strong_is_mover,
                ..c
            }),
            readings,
            record: &record,
        };
        struct Chunk {
            /// Packed ([`PureResults::pack`]): every chunk but the last holds a multiple of 4.
            pure: Vec<u8>,
            class: Vec<u8>,
            class_changes: Vec<Vec<(u32, u8)>>,
            edges: EdgeChunk,
            /// Bit `j` of word `j / 64` for the chunk's `j`-th position: chunks are a multiple
            /// of 64 positions long, so the words of consecutive chunks join without shifting.
            unread: Vec<u64>,
            /// As `unread`; empty without a condition counter.
            condition_holds: Vec<u64>,
        }
        let parts: Vec<Chunk> = chunks(size)
            .map(|range| {
                let mut moves: Vec<Move> = Vec::new();
                let mut classes = [NEVER; MAX_READINGS];
                let n = (range.end - range.start) as usize;
                let mut pure_values = Vec::with_capacity(n);
                let mut class = Vec::with_capacity(n);
                let mut class_changes = vec![Vec::new(); readings.len() - 1];
                let mut offsets = Vec::with_capacity(n + 1);
                let mut edges = Vec::new();
                let words = n.div_ceil(64);
                let mut unread = vec![0u64; words];
                let mut condition_holds = vec![0u64; if condition.is_some() { words } else { 0 }];
                offsets.push(0);
                for (j, (i, board)) in range.clone().zip(index.boards(range)).enumerate() {
                    let (word, bit) = (j / 64, 1u64 << (j % 64));
                    if condition.is_some_and(|condition| condition.holds(&board)) {
                        condition_holds[word] |= bit;
                    }
                    let pure = results[i as usize];
                    pure_values.push(pure);
                    let before = edges.len();
                    let classes = &mut classes[..readings.len()];
                    if pure == Wdl::Draw {
                        classes.fill(NEVER);
                        unread[word] |= bit;
                    } else {
                        // Captures are compulsory: one capture means every move is one.
                        let capture = has_capture(&board, rules);
                        if capture {
                            unread[word] |= bit;
                        }
                        // With captures as pure, a capture position keeps its pure result:
                        // its captures are listed only to check that (debug builds).
                        let from_pure = capture && captures_as_pure;
                        if !from_pure || cfg!(debug_assertions) {
                            moves.clear();
                            if capture {
                                capture_moves(&board, rules, &mut moves);
                            } else {
                                quiet_moves(&board, &mut moves);
                            }
                            let mover_wins = pure == Wdl::Win;
                            children.classify(&board, &moves, mover_wins, &mut edges, classes);
                            debug_assert!(
                                !from_pure || classes.iter().all(|&c| c == GOOD),
                                "{signature}: position {i}, a capture with captures as pure, is not \
                                 its pure winner's in every reading"
                            );
                        }
                        if from_pure {
                            classes.fill(GOOD);
                        }
                    }
                    if !classes.contains(&OPEN) {
                        edges.truncate(before);
                    }
                    offsets.push(edges.len() as u32);
                    class.push(classes[0]);
                    for (changes, &other) in class_changes.iter_mut().zip(&classes[1..]) {
                        if other != classes[0] {
                            changes.push((i as u32, other));
                        }
                    }
                }
                edges.shrink_to_fit();
                Chunk {
                    pure: PureResults::pack(&pure_values),
                    class,
                    class_changes,
                    edges: EdgeChunk {
                        offsets: Offsets::of(offsets),
                        edges,
                    },
                    unread,
                    condition_holds,
                }
            })
            .collect();
        let mut graph = SideGraph {
            signature,
            index,
            condition,
            pure: PureResults(Vec::with_capacity(size.div_ceil(4) as usize)),
            first_class: Vec::with_capacity(size as usize),
            class_changes: vec![Vec::new(); readings.len() - 1],
            edges: Vec::with_capacity(parts.len()),
            unread: BitVec::new(),
            condition_holds: BitVec::new(),
        };
        let mut unread = Vec::with_capacity(size.div_ceil(64) as usize);
        let mut condition_holds = Vec::new();
        for part in parts {
            graph.pure.0.extend(part.pure);
            graph.first_class.extend(part.class);
            for (all, changes) in graph.class_changes.iter_mut().zip(part.class_changes) {
                all.extend(changes);
            }
            graph.edges.push(part.edges);
            unread.extend(part.unread);
            condition_holds.extend(part.condition_holds);
        }
        graph.unread = bits_from_words(unread, size as usize);
        if condition.is_some() {
            graph.condition_holds = bits_from_words(condition_holds, size as usize);
        }
        Ok(graph)
    }

    /// Every position's class with the exits read in `reading`.
    fn class_in(&self, reading: usize) -> Cow<'_, [u8]> {
        let Some(changes) = reading.checked_sub(1).map(|r| &self.class_changes[r]) else {
            return Cow::Borrowed(&self.first_class);
        };
        let mut class = self.first_class.clone();
        for &(i, c) in changes {
            class[i as usize] = c;
        }
        Cow::Owned(class)
    }

    /// The class of position `index` with the exits read in `reading`.
    fn class_at(&self, reading: usize, index: usize) -> u8 {
        let Some(changes) = reading.checked_sub(1).map(|r| &self.class_changes[r]) else {
            return self.first_class[index];
        };
        // Listed in the order of the index.
        match changes.binary_search_by_key(&(index as u32), |&(i, _)| i) {
            Ok(k) => changes[k].1,
            Err(_) => self.first_class[index],
        }
    }

    fn edges_of(&self, index: usize) -> &[u32] {
        let chunk = &self.edges[index / CHUNK];
        let j = index % CHUNK;
        &chunk.edges[chunk.offsets.range(j)]
    }
}

/// What the exits of a side's moves read.
#[derive(Clone, Copy)]
struct Exits<'a> {
    /// The fresh results of the materials they lead to, in each reading.
    readings: &'a [&'a dyn FreshResults],
    /// No material a capture leads to holds a result the rules turn, in any reading
    /// ([`PairGraph::build`]'s `captures_as_pure`).
    captures_as_pure: bool,
}

/// What a side needs to know about the children of its positions.
struct Children<'a> {
    /// The pure results of the children.
    pure: &'a [Wdl],
    /// Index of the children inside the material (the colour flip).
    index: TableIndex,
    /// Which side of the pair they are on.
    side: usize,
    /// The condition counter, seen from the children's side to move.
    condition: Option<ConditionShape>,
    /// The fresh results of the materials the exits lead to, in each reading.
    readings: &'a [&'a dyn FreshResults],
    record: &'a (dyn Fn(Error) + Sync),
}

impl Children<'_> {
    /// The class of a position decided in the pure game, in each reading (`classes`), from its
    /// exits; pushes its moves inside the material as edges (the caller keeps them only for a
    /// position open in some reading).
    fn classify(
        &self,
        board: &Board,
        moves: &[Move],
        mover_wins: bool,
        edges: &mut Vec<u32>,
        classes: &mut [u8],
    ) {
        if moves.is_empty() {
            classes.fill(LOST);
            return;
        }
        // One bit per reading: some exit is good, or bad, for the pure winner.
        let mut bad_exit = 0u32;
        let mut good_exit = 0u32;
        let every = u32::MAX >> (MAX_READINGS - classes.len());
        // The exits first: where they decide the class in every reading (a good exit for the
        // winner, a bad one for the loser), the moves inside are never indexed.
        for mv in moves.iter().filter(|mv| mv.is_capture() || mv.crowned) {
            let child = board.play(mv);
            // Good for the pure winner: the child's mover loses if the winner moved.
            let good_result = if mover_wins {
                DrawWdl::Loss
            } else {
                DrawWdl::Win
            };
            if child.own() == 0 {
                let all_good = good_result == DrawWdl::Loss;
                good_exit |= if all_good { every } else { 0 };
                bad_exit |= if all_good { 0 } else { every };
                continue;
            }
            // Every reading indexes the materials alike.
            let (signature, child_index) = self.readings[0].locate(&child);
            for (r, reading) in self.readings.iter().enumerate() {
                let result = reading
                    .fresh_at(signature, child_index)
                    .unwrap_or_else(|error| {
                        (self.record)(error);
                        DrawWdl::Draw
                    });
                if result == good_result {
                    good_exit |= 1 << r;
                } else {
                    bad_exit |= 1 << r;
                }
            }
        }
        let decided = if mover_wins { good_exit } else { bad_exit };
        let mut inside = false;
        if decided != every {
            // The men's share of the index of the children of king moves, which leave the men
            // where they are: computed once, at the first of them.
            let mut kings_children_men = None;
            for mv in moves.iter().filter(|mv| !mv.is_capture() && !mv.crowned) {
                inside = true;
                let child = board.play(mv);
                let man_moved = board.men & (1 << mv.from) != 0;
                let child_index = if man_moved {
                    self.index.index(&child)
                } else {
                    let men = kings_children_men.get_or_insert_with(|| self.index.men_rank(&child));
                    self.index.index_with_men(men, child.kings, child.opp_kings)
                };
                // The winner moving only wants children it still wins in the pure game (the
                // rules never create wins); every child of the loser is one.
                if mover_wins && self.pure[child_index as usize] != Wdl::Loss {
                    continue;
                }
                let mut edge = child_index as u32;
                if man_moved {
                    edge |= EDGE_MAN;
                }
                if self.condition.is_some_and(|c| c.holds(&child)) {
                    edge |= EDGE_CONDITION;
                }
                if self.side == 1 {
                    edge |= EDGE_SIDE;
                }
                edges.push(edge);
            }
        }
        for (r, class) in classes.iter_mut().enumerate() {
            let (good, bad) = (good_exit >> r & 1 != 0, bad_exit >> r & 1 != 0);
            *class = match (mover_wins, good, bad, inside) {
                (true, true, _, _) | (false, _, false, false) => GOOD,
                (true, false, _, false) | (false, _, true, _) => NEVER,
                _ => OPEN,
            };
        }
    }
}

/// An edge unpacked: child side, child index, a man moved, the condition holds at the child.
#[inline(always)]
fn unpack(edge: u32) -> (usize, usize, bool, bool) {
    (
        usize::from(edge & EDGE_SIDE != 0),
        (edge & EDGE_INDEX) as usize,
        edge & EDGE_MAN != 0,
        edge & EDGE_CONDITION != 0,
    )
}

/// Where a move that changes the condition leads, for the family being solved.
#[derive(Clone, Copy)]
enum Cross<'a> {
    /// Every move stays in the family: no condition, or `post` where the count runs on.
    Stay,
    /// `pre`: a move onto the condition starts the count, in these `post` staircases.
    Enter(&'a Planes),
    /// `post` where a move off the condition stops the count: it returns to these `pre`
    /// staircases (`None` before they are known: such a move never wins).
    Leave(Option<&'a Planes>),
}

impl Pair<'_> {
    /// The staircases of one family, `cross` saying where moves to the other family lead.
    /// `a_live`: every move lowers a budget `A` that starts at most at `a_cap`.
    fn solve_family(
        &self,
        a_live: bool,
        a_cap: Option<u16>,
        cross: Cross,
    ) -> Result<Planes, Error> {
        let post = match cross {
            Cross::Stay | Cross::Leave(_) => None,
            Cross::Enter(post) => Some(post),
        };
        match (a_live, self.z_full) {
            (true, Some(z_full)) if !matches!(cross, Cross::Leave(_)) => {
                self.layers(a_cap.unwrap_or(0), z_full, post)
            }
            (true, Some(_)) => Err(Error::Unsupported(format!(
                "{}: a count that stops off its condition beside a count a man move restarts",
                self.sides[0].signature
            ))),
            (false, Some(z_full)) => self.thresholds(Some(z_full), cross),
            (_, None) => self.thresholds(a_cap.filter(|_| a_live), cross),
        }
    }

    /// The condition counter's budget when it starts at a position of `side`.
    fn condition_budget(&self, side: usize) -> u16 {
        self.shapes[side].condition.map_or(0, |c| c.budget)
    }

    /// The stored entry of the post family at a child where the condition has just started
    /// with `a` plies on `A`: for layers the least `Z` that wins, else the threshold if it is
    /// within `a`. `None` if the winner does not win there.
    fn post_entry(post: &Planes, side: usize, index: usize, a: u16) -> Option<u16> {
        let entry = post[side].entry(index, usize::from(a));
        (entry != NEVER && u16::from(entry) <= a).then_some(u16::from(entry))
    }

    /// One-budget families (or none): the least budget with which the winner wins, found in
    /// rounds of rising requirement, block by block of decreasing men's advancement. With `Z`
    /// in force (`z_full`), a man move's requirement is 1 if the child wins with a full `Z`.
    /// A move back to `pre` (`Cross::Leave`) needs one ply of budget to be played, and a second
    /// to leave the child off the limit unless its mover has no move.
    fn thresholds(&self, cap: Option<u16>, cross: Cross) -> Result<Planes, Error> {
        let values = self.threshold_values(cap, cross)?;
        Ok(values.iter().map(|v| Stairs::single(v)).collect())
    }

    /// Per side and position, the least budget of [`Pair::thresholds`] (or [`NEVER`]).
    fn threshold_values(&self, cap: Option<u16>, cross: Cross) -> Result<Vec<Vec<u8>>, Error> {
        let z_full = self.z_full;
        let mut values: Vec<Vec<u8>> = self
            .class
            .iter()
            .map(|class| {
                class
                    .par_iter()
                    .map(|&c| if c == OPEN { NEVER } else { c })
                    .collect()
            })
            .collect();
        // Men's advancement (the sum over all men of the rows they have gone forward) orders
        // the blocks: worked out for the open positions only (about a third of a large pair's),
        // on every core.
        let mut open: Vec<(u8, u8, u32)> = Vec::new();
        for (s, side) in self.sides.iter().enumerate() {
            let class = &self.class[s];
            let side_open: Vec<(u8, u8, u32)> = (0..class.len() as u32)
                .into_par_iter()
                .filter(|&i| class[i as usize] == OPEN)
                .map_init(MenRun::default, |run, i| {
                    let (men, opp_men) = side.index.men_sharing_run(u64::from(i), run);
                    let men_only = Board {
                        men,
                        opp_men,
                        kings: 0,
                        opp_kings: 0,
                    };
                    (men_only.advancement(), s as u8, i)
                })
                .collect();
            open.extend(side_open);
        }
        // A round reads only the values of the rounds before, so the order inside a block is
        // free: sorting by the advancement alone groups many equal keys at once.
        open.par_sort_unstable_by_key(|&(advancement, _, _)| std::cmp::Reverse(advancement));
        let limit = cap.unwrap_or(MAX_STORED);
        for block in open.chunk_by(|a, b| a.0 == b.0) {
            let mut round = 1u16;
            let mut undecided: Vec<(u8, u8, u32)> = block.to_vec();
            while round <= limit && !undecided.is_empty() {
                let requirements: Vec<u16> = undecided
                    .par_iter()
                    .map(|&(_, s, i)| {
                        let (s, i) = (usize::from(s), i as usize);
                        let winner_moves = self.sides[s].pure.get(i) == Wdl::Win;
                        let mut acc = if winner_moves { INF } else { 0 };
                        for &edge in self.sides[s].edges_of(i) {
                            let (cs, ci, man, condition) = unpack(edge);
                            let requirement = match (cross, condition) {
                                (Cross::Enter(post), true) => {
                                    let a = self.condition_budget(cs);
                                    match Self::post_entry(post, cs, ci, a) {
                                        None => INF,
                                        Some(_) if man && z_full.is_some() => 1,
                                        Some(e) => 1 + e,
                                    }
                                }
                                (Cross::Leave(pre), false) => {
                                    match pre.map(|pre| pre[cs].entry(ci, 0)) {
                                        None | Some(NEVER) => INF,
                                        Some(v) => 1 + u16::from(v.min(1)),
                                    }
                                }
                                _ => {
                                    let v = values[cs][ci];
                                    match z_full {
                                        _ if v == NEVER => INF,
                                        Some(z) if man => {
                                            if u16::from(v) <= z {
                                                1
                                            } else {
                                                INF
                                            }
                                        }
                                        _ => 1 + u16::from(v),
                                    }
                                }
                            };
                            acc = if winner_moves {
                                acc.min(requirement)
                            } else {
                                acc.max(requirement)
                            };
                            // No move does better for the winner than this round (the positions
                            // of lower requirements are decided), nor worse for the loser than
                            // a move the winner has no answer to.
                            if (winner_moves && acc <= round) || (!winner_moves && acc == INF) {
                                break;
                            }
                        }
                        acc
                    })
                    .collect();
                let mut next = INF;
                let mut decided = false;
                let mut still: Vec<(u8, u8, u32)> = Vec::with_capacity(undecided.len());
                for (&(a, s, i), &requirement) in undecided.iter().zip(&requirements) {
                    if requirement <= round {
                        debug_assert_eq!(requirement, round);
                        values[usize::from(s)][i as usize] = requirement as u8;
                        decided = true;
                    } else {
                        next = next.min(requirement);
                        still.push((a, s, i));
                    }
                }
                undecided = still;
                round = if decided { round + 1 } else { next };
            }
            if cap.is_none() && round != INF && round > limit {
                return Err(Error::Unsupported(format!(
                    "{}: a winning line longer than {MAX_STORED} plies to an exit does not fit the \
                     rule table's bytes",
                    self.sides[0].signature
                )));
            }
        }
        Ok(values)
    }

    /// Two budgets: layer `k` holds, per position, the least `Z` with which the winner wins when
    /// `A = k`; every move lowers `A`, so a layer reads only the one before.
    fn layers(&self, a_cap: u16, z_full: u16, post: Option<&Planes>) -> Result<Planes, Error> {
        let entry_cap = if post.is_some() {
            (0..self.sides.len())
                .map(|s| self.condition_budget(s))
                .max()
                .unwrap_or(0)
        } else {
            0
        };
        // No layer's least Z is below the one with `A` unbounded (the family solved with `Z`
        // alone: each move's requirement there is at most what it is at any layer), and a
        // least Z never rises from a layer to the next: a position at that floor stays there and
        // is not worked out again. Most positions reach it long before the last layer.
        let floor = self.threshold_values(Some(z_full), post.map_or(Cross::Stay, Cross::Enter))?;
        let mut built: Vec<StairsBuilder> = self
            .class
            .iter()
            .map(|class| {
                StairsBuilder::new(
                    class
                        .iter()
                        .map(|&c| if c == LOST { 0 } else { NEVER })
                        .collect(),
                )
            })
            .collect();
        let rises = |s: usize, at: NotAStaircase| {
            Error::Invariant(format!(
                "{}: the least Z of position {} rises at A = {}, against the rules never creating \
                 a win",
                self.sides[s].signature, at.index, at.layer
            ))
        };
        let mut moving: Vec<Vec<u64>> = Vec::new();
        for k in 1..=a_cap {
            let layer = LayerStep {
                k,
                z_full,
                post,
                built: &built,
                floor: &floor,
            };
            let may_settle = k > z_full.max(entry_cap);
            if k == 1 {
                // Every position is worked out, and its value applied in place.
                let values: Vec<Vec<u8>> = (0..self.sides.len())
                    .map(|s| {
                        (0..self.class[s].len())
                            .into_par_iter()
                            .map(|i| match (self.class[s][i], built[s].last()[i]) {
                                // At its floor, an open position stays there.
                                (OPEN, last) if last == floor[s][i] => last,
                                (OPEN, _) => self.open_value(s, i, &layer),
                                (class, _) => class,
                            })
                            .collect()
                    })
                    .collect();
                if may_settle && built.iter().zip(&values).all(|(b, v)| b.last() == v) {
                    break;
                }
                for (s, (builder, values)) in built.iter_mut().zip(&values).enumerate() {
                    builder.push(values).map_err(|at| rises(s, at))?;
                }
                // Past layer 1, where the class of every other position gives its value, only
                // the open positions above their floor can change: each layer is worked out for
                // them alone, flagged a bit a position.
                moving = (0..self.sides.len())
                    .map(|s| {
                        let (class, last) = (&self.class[s], built[s].last());
                        flags_by_chunks(
                            class.len() as u64,
                            || (),
                            |_, range, words| {
                                for i in range.clone() {
                                    let i = i as usize;
                                    if class[i] == OPEN && last[i] != floor[s][i] {
                                        let at = i - range.start as usize;
                                        words[at / 64] |= 1 << (at % 64);
                                    }
                                }
                            },
                        )
                        .into_vec()
                    })
                    .collect();
                continue;
            }
            let corners = (0..self.sides.len())
                .map(|s| {
                    built[s]
                        .corners_at(&moving[s], |i| self.open_value(s, i, &layer))
                        .map_err(|at| rises(s, at))
                })
                .collect::<Result<Vec<_>, _>>()?;
            if may_settle && corners.iter().all(Vec::is_empty) {
                break;
            }
            for (builder, corners) in built.iter_mut().zip(corners) {
                builder.add_layer(corners);
            }
            // A position at its floor stays there: it is no longer flagged.
            for (s, moving) in moving.iter_mut().enumerate() {
                let (last, floor) = (built[s].last(), &floor[s]);
                moving.par_iter_mut().enumerate().for_each(|(w, word)| {
                    let mut bits = *word;
                    while bits != 0 {
                        let bit = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        if last[w * 64 + bit] == floor[w * 64 + bit] {
                            *word &= !(1 << bit);
                        }
                    }
                });
            }
        }
        Ok(built.into_iter().map(StairsBuilder::finish).collect())
    }
}

/// What working out layer `k` of a family of two budgets reads.
struct LayerStep<'a> {
    k: u16,
    z_full: u16,
    /// The `post` staircases a move onto the condition enters, for `pre`.
    post: Option<&'a Planes>,
    /// The staircases so far, whose last layer is `k - 1`.
    built: &'a [StairsBuilder],
    /// Per side and position, the least Z with `A` unbounded, below which no layer goes.
    floor: &'a [Vec<u8>],
}

impl Pair<'_> {
    /// The value at layer `step.k` of open position `i` of side `s`: the least `Z` with which
    /// the winner wins, from its moves' values at the layer before.
    #[inline]
    fn open_value(&self, s: usize, i: usize, step: &LayerStep) -> u8 {
        let LayerStep {
            k,
            z_full,
            post,
            built,
            floor,
        } = *step;
        let floor = floor[s][i];
        let side = &self.sides[s];
        let winner_moves = side.pure.get(i) == Wdl::Win;
        let mut acc = if winner_moves { INF } else { 0 };
        for &edge in side.edges_of(i) {
            let (cs, ci, man, condition) = unpack(edge);
            let requirement = match post.filter(|_| condition) {
                Some(post) => {
                    let a = (k - 1).min(self.condition_budget(cs));
                    match Self::post_entry(post, cs, ci, a) {
                        None => INF,
                        Some(e) if man => {
                            if e <= z_full.min(a) {
                                1
                            } else {
                                INF
                            }
                        }
                        Some(e) => 1 + e,
                    }
                }
                None => {
                    let p = built[cs].last()[ci];
                    if p == NEVER {
                        INF
                    } else if man {
                        if u16::from(p) <= z_full.min(k - 1) {
                            1
                        } else {
                            INF
                        }
                    } else {
                        1 + u16::from(p)
                    }
                }
            };
            acc = if winner_moves {
                acc.min(requirement)
            } else {
                acc.max(requirement)
            };
            // 1 is the least a move gives, and a move the winner has no answer to the most.
            if (winner_moves && acc == 1) || (!winner_moves && acc == INF) {
                break;
            }
        }
        let value = if acc <= k.min(z_full) {
            acc as u8
        } else {
            NEVER
        };
        debug_assert!(value >= floor, "a least Z below the floor of A unbounded");
        value
    }
}

impl Pair<'_> {
    /// The result of every position of `side` with fresh counts, from the solved families.
    fn fresh_results(&self, side: usize, families: &[Family]) -> Vec<u8> {
        (0..self.sides[side].index.size() as usize)
            .into_par_iter()
            .map(|i| self.fresh_result(side, i, families).code())
            .collect()
    }

    fn fresh_result(&self, side: usize, i: usize, families: &[Family]) -> DrawWdl {
        let graph = &self.sides[side];
        let pure = graph.pure.get(i);
        if pure == Wdl::Draw {
            return DrawWdl::Draw;
        }
        let holds = graph.condition_holds.get(i).is_some_and(|holds| *holds);
        let state = self.shapes[side].fresh_where(holds);
        let wins = self.class[side][i] == LOST
            || families
                .iter()
                .find(|f| f.post == state.post)
                .is_some_and(|f| f.wins(i, &state));
        match (pure == Wdl::Win, wins) {
            (true, true) => DrawWdl::Win,
            (true, false) => DrawWdl::CursedWin,
            (false, true) => DrawWdl::Loss,
            (false, false) => DrawWdl::BlessedLoss,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pure_results_packed_by_chunk_read_back_every_value() {
        let values = [Wdl::Loss, Wdl::Draw, Wdl::Win];
        let chunk = |c: usize, n: usize| -> Vec<Wdl> {
            (0..n)
                .map(|i| values[(i * 7 + c * 5 + i / 3) % 3])
                .collect()
        };
        // Two whole chunks and a last one of 5 positions, packed apart and joined.
        let parts = [chunk(0, CHUNK), chunk(1, CHUNK), chunk(2, 5)];
        let packed = PureResults(parts.iter().flat_map(|p| PureResults::pack(p)).collect());
        let all: Vec<Wdl> = parts.concat();
        assert_eq!(packed.0.len(), all.len().div_ceil(4));
        for (i, &wdl) in all.iter().enumerate() {
            assert_eq!(packed.get(i), wdl, "position {i}");
        }
    }
}
