//! Running counts, as a game keeps them (per counter id, plies since it started), reduced to
//! the [`DrawState`] a value depends on, checked against the position, and carried from move
//! to move.

use crate::draw::state::{min_opt, min_opt_clamped, role, Role};
use crate::draw::{
    ConditionShape, DrawCounter, DrawRules, DrawState, Limit, LimitOutcome, MaterialShape, Strong,
    UnsupportedDrawRules,
};
use crate::index::Signature;
use crate::rules::{Board, Move};
use crate::value::Wdl;

/// Why running counts cannot occur in a game, or name no counter.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CountsError {
    /// A counter id that does not apply to this material.
    #[error("{}", unknown_counter(.id, .signature.as_ref(), .known))]
    UnknownCounter {
        /// The id given.
        id: String,
        /// The material it does not apply to; `None` if the rules have no such counter.
        signature: Option<Signature>,
        /// The ids that apply, comma-separated.
        known: String,
    },
    /// A count past its limit.
    #[error("count {id}={count} is past its limit of {limit} plies")]
    PastLimit {
        /// The counter.
        id: &'static str,
        /// The count given.
        count: u16,
        /// Its limit in plies.
        limit: u16,
    },
    /// Counts that no game can produce.
    #[error("inconsistent counts: {0}")]
    Inconsistent(String),
}

fn unknown_counter(id: &str, signature: Option<&Signature>, known: &str) -> String {
    match signature {
        Some(signature) => format!(
            "counter {id:?} does not apply to this material ({signature}); its counters are: {known}"
        ),
        None => format!("no counter {id:?} in these draw rules; their counters are: {known}"),
    }
}

/// The most counters a set of draw rules may have (the presets have at most five).
pub const MAX_COUNTERS: usize = 16;

/// A slot's code for a count at its start (not given).
const AT_START: u16 = u16::MAX;
/// A slot's code for a counter that waits for its condition.
const NOT_STARTED: u16 = u16::MAX - 1;

/// The running counts of the counted draw rules, as an engine keeps them along a game: per
/// counter of a [`DrawRules`] (by its place in `rules.counters`), the plies since it started,
/// "not started" (a counter that waits for its position condition), or "at its start" (not
/// given: 0, or for a condition counter, started now if its condition holds and the rules start
/// it there).
///
/// It is 32 bytes, `Copy`, and allocates nothing: an engine keeps one per ply on its stack and
/// updates it with [`DrawCounts::play`]. Counter ids (`"r1-three-kings"`) are only needed to set
/// counts by name ([`DrawCounts::set`]).
///
/// ```
/// use dprobe::draw::{DrawPreset, Interpretation};
/// use dprobe::{DrawCounts, DrawRules, Position, Variant};
///
/// let rules = DrawRules::new(DrawPreset::Fmjd64, Interpretation::default());
/// let position = Position::from_fen("W:WK1,K2,K3:BK29", &Variant::RUSSIAN)?;
/// // The game so far: the three kings arose 8 plies ago, the lone king went to the long
/// // diagonal 3 plies ago.
/// let mut counts = DrawCounts::new();
/// for (id, plies) in [("r1-three-kings", 8), ("r2-kings-only", 8), ("r3-kings-4-5-pieces", 8)] {
///     counts.set(&rules, id, Some(plies))?;
/// }
/// counts.set(&rules, "r4-long-diagonal", Some(3))?;
/// let board = position.board(); // seen from the side to move, as moves are played
/// let mut moves = Vec::new();
/// dprobe::rules::legal_moves(&board, &Variant::RUSSIAN.moves, &mut moves);
/// counts.play(&rules, &board, &moves[0]);
/// assert_eq!(counts.get(&rules, "r1-three-kings"), Some(Some(9)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DrawCounts {
    slots: [u16; MAX_COUNTERS],
}

impl Default for DrawCounts {
    fn default() -> Self {
        DrawCounts::new()
    }
}

impl std::fmt::Debug for DrawCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut list = f.debug_map();
        for (k, &slot) in self.slots.iter().enumerate() {
            if slot != AT_START {
                list.entry(&k, &DrawCounts::decode(slot));
            }
        }
        list.finish()
    }
}

impl DrawCounts {
    /// Every count at its start, as where the material has just arisen.
    pub const fn new() -> DrawCounts {
        DrawCounts {
            slots: [AT_START; MAX_COUNTERS],
        }
    }

    const fn encode(plies: Option<u16>) -> u16 {
        match plies {
            // Counts that large are past every limit (at most 120 plies): kept distinct from
            // the codes, they are refused as past the limit.
            Some(p) if p >= NOT_STARTED => NOT_STARTED - 1,
            Some(p) => p,
            None => NOT_STARTED,
        }
    }

    const fn decode(slot: u16) -> Option<u16> {
        if slot == NOT_STARTED {
            None
        } else {
            Some(slot)
        }
    }

    /// The count of counter `k` of the rules (its place in `rules.counters`): `None` if it is
    /// at its start, else plies since it started (`None`: not started).
    #[inline]
    pub fn count(&self, k: usize) -> Option<Option<u16>> {
        match self.slots.get(k) {
            Some(&slot) if slot != AT_START => Some(DrawCounts::decode(slot)),
            _ => None,
        }
    }

    /// Sets the count of counter `k` (its place in `rules.counters`; larger places are
    /// ignored): plies since it started, or `None` for not started.
    #[inline]
    pub fn set_count(&mut self, k: usize, plies: Option<u16>) {
        if let Some(slot) = self.slots.get_mut(k) {
            *slot = DrawCounts::encode(plies);
        }
    }

    /// Puts counter `k` back at its start.
    #[inline]
    pub fn reset_count(&mut self, k: usize) {
        if let Some(slot) = self.slots.get_mut(k) {
            *slot = AT_START;
        }
    }

    /// The count of the counter named `id`, as [`DrawCounts::count`] gives it; `None` also if
    /// the rules have no such counter.
    pub fn get(&self, rules: &DrawRules, id: &str) -> Option<Option<u16>> {
        self.count(rules.counters.iter().position(|c| c.id == id)?)
    }

    /// Sets the count of the counter named `id`: plies since it started, or `None` for not
    /// started.
    ///
    /// # Errors
    ///
    /// [`CountsError::UnknownCounter`] if the rules have no counter of that id.
    pub fn set(
        &mut self,
        rules: &DrawRules,
        id: &str,
        plies: Option<u16>,
    ) -> Result<(), CountsError> {
        match rules.counters.iter().position(|c| c.id == id) {
            Some(k) => {
                self.set_count(k, plies);
                Ok(())
            }
            None => Err(CountsError::UnknownCounter {
                id: id.to_string(),
                known: rules
                    .counters
                    .iter()
                    .map(|c| c.id)
                    .collect::<Vec<_>>()
                    .join(", "),
                signature: None,
            }),
        }
    }

    /// Counts given by counter id, the others at their start.
    ///
    /// # Errors
    ///
    /// As [`DrawCounts::set`].
    pub fn from_ids(
        rules: &DrawRules,
        counts: &[(&str, Option<u16>)],
    ) -> Result<DrawCounts, CountsError> {
        let mut out = DrawCounts::new();
        for &(id, plies) in counts {
            out.set(rules, id, plies)?;
        }
        Ok(out)
    }

    /// The counts after `mv`, a legal move of `board` (seen from its mover, as
    /// [`crate::Position::board`] gives it): a capture or a crowning changes the material and
    /// puts every count at its start; otherwise see [`counts_after`].
    pub fn play(&mut self, rules: &DrawRules, board: &Board, mv: &Move) {
        if mv.is_capture() || mv.crowned {
            *self = DrawCounts::new();
        } else {
            *self = counts_after(rules, board, self, mv);
        }
    }
}

/// The state of `board` with the given running counts: for each counter, plies since it started
/// (`None`: not started, only for a counter that starts on a condition). Counters not given are
/// at their start: 0, or for a condition counter, started now if its condition holds (and the
/// rules start it where the material arises: `forcada_start_if_occupied`) and not started
/// otherwise.
///
/// # Errors
///
/// [`CountsError`] if a counter does not apply, a count is past its limit (except one read with
/// [`LimitOutcome::PureValue`], which is then over and left out of the state), or the counts
/// contradict each other (a count that never resets larger than the material's, two material
/// counts that differ, a condition that holds but a counter not started where the rules start it
/// as soon as it holds, a kings-only count above 1 where a side has no king).
pub fn state_from_counts(
    rules: &DrawRules,
    board: &Board,
    counts: &DrawCounts,
) -> Result<DrawState, CountsError> {
    let material = MaterialCounters::for_counts(rules, Signature::of(board))?;
    state_with(rules, &material, board, counts, false)
}

/// What the counters of some draw rules make of one material: the strong side of each counter
/// that applies, and whether its `Z` budget is dominated ([`MaterialShape::of`]). Worked out
/// once per material: the probe keeps one with each rule table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MaterialCounters {
    signature: Signature,
    /// By the counter's place in the rules.
    strong: [Option<Strong>; MAX_COUNTERS],
    z_dropped: bool,
}

impl MaterialCounters {
    /// The counters of `rules` on `signature`'s material.
    pub(crate) fn of(
        rules: &DrawRules,
        signature: Signature,
    ) -> Result<MaterialCounters, UnsupportedDrawRules> {
        let shape = MaterialShape::of(rules, signature)?;
        let mut strong = [None; MAX_COUNTERS];
        for (side, counter) in strong.iter_mut().zip(&rules.counters) {
            *side = counter.material.strong_side(&signature);
        }
        Ok(MaterialCounters {
            signature,
            strong,
            z_dropped: shape.z_full.is_none(),
        })
    }

    /// As [`MaterialCounters::of`], with rules the tables do not implement reported as counts
    /// that cannot be read.
    fn for_counts(rules: &DrawRules, signature: Signature) -> Result<Self, CountsError> {
        MaterialCounters::of(rules, signature).map_err(|e| CountsError::Inconsistent(e.to_string()))
    }

    /// Whether the pure result `pure` sets a counter aside ([`DrawRules::set_aside`]).
    fn sets_aside(&self, rules: &DrawRules, pure: Wdl) -> bool {
        rules
            .counters
            .iter()
            .zip(&self.strong)
            .any(|(counter, strong)| {
                let strong_wins = match strong {
                    Some(Strong::Mover) => pure == Wdl::Win,
                    Some(Strong::Opponent) => pure == Wdl::Loss,
                    _ => false,
                };
                strong_wins && counter.limit_outcome == LimitOutcome::PureValue
            })
    }
}

/// As [`state_from_counts`], for a board of `material`; `set_aside`: a counter read with
/// [`LimitOutcome::PureValue`] is checked but left out of the state (as it is where its count
/// has passed its limit).
fn state_with(
    rules: &DrawRules,
    material: &MaterialCounters,
    board: &Board,
    counts: &DrawCounts,
    set_aside: bool,
) -> Result<DrawState, CountsError> {
    let signature = material.signature;
    debug_assert_eq!(signature, Signature::of(board));
    for (k, counter) in rules.counters.iter().enumerate() {
        if counts.count(k).is_some() && material.strong.get(k).copied().flatten().is_none() {
            return Err(CountsError::UnknownCounter {
                id: counter.id.to_string(),
                signature: Some(signature),
                known: rules
                    .active(&signature)
                    .map(|(c, _)| c.id)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
    }
    let mut state = DrawState {
        post: false,
        a: None,
        z: None,
    };
    let mut material_count: Option<(&'static str, u16)> = None;
    // Counts that must not exceed the material's: at most one per counter, kept on the stack.
    let mut bounded_by_material = [("", 0u16); MAX_COUNTERS];
    let mut bounded = 0;
    let mut bound = |id: &'static str, plies: u16| {
        bounded_by_material[bounded] = (id, plies);
        bounded += 1;
    };
    for (k, (counter, strong)) in rules.counters.iter().zip(material.strong).enumerate() {
        let Some(strong) = strong else {
            continue;
        };
        let strong_to_move = strong == Strong::Mover;
        let count = counts
            .count(k)
            .unwrap_or_else(|| start_count(rules, counter, strong, board));
        let role = role(counter, &signature);
        let Some(plies) = count else {
            if !matches!(role, Role::Condition) {
                return Err(CountsError::Inconsistent(format!(
                    "{} starts with its material and cannot be 'not started'",
                    counter.id
                )));
            }
            let condition = counter.condition.expect("a condition counter");
            let shape = ConditionShape::new(rules, condition, strong_to_move, 0);
            if shape.starts_if_holding && shape.holds(board) {
                return Err(CountsError::Inconsistent(format!(
                    "the condition of {} holds in this position, so its count has started \
                     (give {}=0 or more)",
                    counter.id, counter.id
                )));
            }
            continue;
        };
        let limit_plies = counter.limit_plies();
        let passing = counter.limit_outcome == LimitOutcome::PureValue;
        if passing && (set_aside || plies > limit_plies) {
            // Over, or never deciding here: only bounded by the material's count.
            bound(counter.id, plies);
            continue;
        }
        if plies > limit_plies {
            return Err(CountsError::PastLimit {
                id: counter.id,
                count: plies,
                limit: limit_plies,
            });
        }
        let left = remaining(counter.limit, plies, strong_to_move);
        match role {
            Role::Dead => {
                // The side without a king moves a man (or captures) at every turn: the count is
                // 0 after its move, and 1 after the other side's.
                let most = u16::from(signature.mover_kings == 0 && signature.opp_kings > 0);
                if plies > most {
                    return Err(CountsError::Inconsistent(format!(
                        "{}={plies}, but a side without a king moves a man every turn, so this \
                         count is at most {most} here",
                        counter.id
                    )));
                }
            }
            Role::A if !counter.resets_on_man_move => {
                if let Some((other, n)) = material_count {
                    if n != plies {
                        return Err(CountsError::Inconsistent(format!(
                            "{other}={n} and {}={plies} both count from the material's start",
                            counter.id
                        )));
                    }
                }
                material_count = Some((counter.id, plies));
                state.a = min_opt(state.a, Some(left));
            }
            Role::A => {
                bound(counter.id, plies);
                state.a = min_opt(state.a, Some(left));
            }
            Role::Z => {
                bound(counter.id, plies);
                state.z = min_opt(state.z, Some(left));
            }
            Role::Condition => {
                let condition = counter.condition.expect("a condition counter");
                let shape = ConditionShape::new(rules, condition, strong_to_move, 0);
                if shape.restarts_on_leave && left > 0 && !shape.holds(board) {
                    return Err(CountsError::Inconsistent(format!(
                        "{}={plies}, but its condition does not hold here, and under these rules \
                         a move that leaves it stops the count (give {}=none)",
                        counter.id, counter.id
                    )));
                }
                bound(counter.id, plies);
                state.post = true;
                state.a = min_opt(state.a, Some(left));
            }
        }
    }
    if let Some((material, n)) = material_count {
        for &(id, plies) in &bounded_by_material[..bounded] {
            if plies > n {
                return Err(CountsError::Inconsistent(format!(
                    "{id}={plies} exceeds {material}={n}, the plies since the material arose"
                )));
            }
        }
    }
    // A dominated Z (see `MaterialShape::of`) is dropped the same way.
    if material.z_dropped {
        state.z = None;
    }
    state.z = min_opt_clamped(state.z, state.a);
    Ok(state)
}

/// A counter's count where its material arises on `board`: 0, or for a counter that starts on
/// a condition, 0 if the condition holds there (and the rules start it there), else not started.
fn start_count(
    rules: &DrawRules,
    counter: &DrawCounter,
    strong: Strong,
    board: &Board,
) -> Option<u16> {
    match counter.condition {
        None => Some(0),
        Some(condition) => {
            let shape = ConditionShape::new(rules, condition, strong == Strong::Mover, 0);
            (shape.starts_if_holding && shape.holds(board)).then_some(0)
        }
    }
}

/// The state of `board`, whose pure result for its mover is `pure`, with the running `counts`
/// (as [`state_from_counts`] takes them), under the counters that decide it: a counter read with
/// [`LimitOutcome::PureValue`] is left out where its strong side wins in the pure game
/// ([`DrawRules::set_aside`]) or where its count has passed its limit (the limit was reached in
/// a position the strong side won, so the count is over).
///
/// ```
/// use dprobe::draw::{deciding_state, DrawPreset, Interpretation};
/// use dprobe::{DrawCounts, DrawRules, Position, Variant, Wdl};
///
/// let mut reading = Interpretation::default();
/// reading.set("r4-limit-outcome=pure-value")?;
/// let rules = DrawRules::new(DrawPreset::Fmjd64, reading);
/// // The lone king on the long diagonal (a1) to move; rule 4 has run 10 plies, so the three kings'
/// // fifth move is made: its limit.
/// let position = Position::from_fen("B:WK1,K2,K3:BK29", &Variant::RUSSIAN)?;
/// let counts = DrawCounts::from_ids(
///     &rules,
///     &[
///         ("r1-three-kings", Some(10)),
///         ("r2-kings-only", Some(10)),
///         ("r3-kings-4-5-pieces", Some(10)),
///         ("r4-long-diagonal", Some(10)),
///     ],
/// )?;
/// // Won for the three kings in the pure game (lost for the mover): rule 4 is over, and play
/// // goes on.
/// assert!(!deciding_state(&rules, &position.board(), Wdl::Loss, &counts)?.at_limit());
/// // Not won: the limit draws.
/// assert!(deciding_state(&rules, &position.board(), Wdl::Draw, &counts)?.at_limit());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// As [`state_from_counts`].
pub fn deciding_state(
    rules: &DrawRules,
    board: &Board,
    pure: Wdl,
    counts: &DrawCounts,
) -> Result<DrawState, CountsError> {
    let material = MaterialCounters::for_counts(rules, Signature::of(board))?;
    deciding_state_of(rules, &material, board, pure, counts)
}

/// As [`deciding_state`], for a board of `material`.
pub(crate) fn deciding_state_of(
    rules: &DrawRules,
    material: &MaterialCounters,
    board: &Board,
    pure: Wdl,
    counts: &DrawCounts,
) -> Result<DrawState, CountsError> {
    state_with(
        rules,
        material,
        board,
        counts,
        material.sets_aside(rules, pure),
    )
}

/// The running counts after `mv`, a move of `board` that neither captures nor crowns: every
/// counter of the material with plies since it started (`None`: waiting for its condition), the
/// others at their start. `counts` are the counts before the move, as [`state_from_counts`]
/// takes them and accepts them. This is what an engine keeps from move to
/// move: a man move restarts a count that says "without a man move"; a count that waits starts
/// after the move that makes its condition hold; a count that stops off its condition
/// ([`DrawRules::restarts_on_leave`]) waits again after a move that leaves it, unless that move
/// reached its limit; every other count goes up by one.
///
/// ```
/// use dprobe::draw::{counts_after, DrawPreset, Interpretation};
/// use dprobe::rules::legal_moves;
/// use dprobe::{DrawCounts, DrawRules, Position, Variant};
///
/// let rules = DrawRules::new(DrawPreset::Fmjd64, Interpretation::default());
/// // Three kings against one on the long diagonal (a1), 8 plies after the material arose.
/// let position = Position::from_fen("W:WK1,K2,K3:BK29", &Variant::RUSSIAN)?;
/// let board = position.board();
/// let counts = DrawCounts::from_ids(
///     &rules,
///     &[
///         ("r1-three-kings", Some(8)),
///         ("r2-kings-only", Some(8)),
///         ("r3-kings-4-5-pieces", Some(8)),
///         ("r4-long-diagonal", Some(3)),
///     ],
/// )?;
/// let mut moves = Vec::new();
/// legal_moves(&board, &Variant::RUSSIAN.moves, &mut moves);
/// let after = counts_after(&rules, &board, &counts, &moves[0]);
/// assert_eq!(after.get(&rules, "r1-three-kings"), Some(Some(9)));
/// assert_eq!(after.get(&rules, "r4-long-diagonal"), Some(Some(4)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn counts_after(
    rules: &DrawRules,
    board: &Board,
    counts: &DrawCounts,
    mv: &Move,
) -> DrawCounts {
    let child = board.play(mv);
    let man = board.men & (1 << mv.from) != 0;
    let signature = Signature::of(board);
    let mut after = DrawCounts::new();
    for (k, counter) in rules.counters.iter().enumerate().take(MAX_COUNTERS) {
        let Some(strong) = counter.material.strong_side(&signature) else {
            continue;
        };
        let count = counts
            .count(k)
            .unwrap_or_else(|| start_count(rules, counter, strong, board));
        // The child is seen from the other side: the strong side is no longer the mover.
        let strong_moves_next = strong == Strong::Opponent;
        let holds = counter.condition.is_some_and(|condition| {
            ConditionShape::new(rules, condition, strong_moves_next, 0).holds(&child)
        });
        let next = if counter.resets_on_man_move && man {
            Some(0)
        } else {
            match count {
                Some(p) => {
                    let stops = counter
                        .condition
                        .is_some_and(|condition| rules.restarts_on_leave(condition));
                    let next = p.saturating_add(1);
                    let reached = remaining(counter.limit, next, strong_moves_next) == 0;
                    (!(stops && !holds && !reached)).then_some(next)
                }
                None => holds.then_some(0),
            }
        };
        after.set_count(k, next);
    }
    after
}

/// Plies left before a counter's limit, `plies` after it started (DRAW_RULES.md §1.3). With the
/// strong side to move it has made `floor(plies / 2)` moves, otherwise `ceil(plies / 2)`.
fn remaining(limit: Limit, plies: u16, strong_to_move: bool) -> u16 {
    match limit {
        Limit::Plies(l) => l.saturating_sub(plies),
        Limit::StrongMoves(n) => {
            let n = u16::from(n);
            if strong_to_move {
                (2 * n).saturating_sub(2 * (plies / 2) + 1)
            } else {
                (2 * n).saturating_sub(2 * plies.div_ceil(2))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::state::*;
    use crate::draw::*;
    use crate::draw::{DrawPreset, Interpretation};
    use crate::rules::geometry::LONG_DIAGONAL;

    fn shape(preset: DrawPreset, signature: &str) -> MaterialShape {
        let rules = DrawRules::new(preset, Interpretation::default());
        MaterialShape::of(&rules, signature.parse().unwrap()).unwrap()
    }

    #[test]
    fn shapes_follow_the_design_table() {
        use DrawPreset::{Cbd, Fmjd64, Fpd, Spanish};
        // Russian KKK v K: A is rule 1 (29 plies, strong to move), rule 4 a condition.
        let s = shape(Fmjd64, "KKKvK");
        assert_eq!((s.a_full, s.z_full), (Some(29), None));
        assert_eq!(
            s.condition.map(|c| (c.budget, c.strong_is_mover)),
            Some((9, true))
        );
        let s = shape(Fmjd64, "KvKKK");
        assert_eq!(s.a_full, Some(30));
        assert_eq!(s.condition.map(|c| c.budget), Some(10));
        // Both have kings and men: A = rule 3 (60), Z = rule 2 (30).
        let s = shape(Fmjd64, "KMvK");
        assert_eq!(
            (s.a_full, s.z_full),
            (Some(9), None),
            "rule 5 dominates rule 2"
        );
        let s = shape(Fmjd64, "KKvKM");
        assert_eq!((s.a_full, s.z_full), (Some(60), Some(30)));
        // A side without a king: nothing runs.
        assert!(shape(Fmjd64, "MvK").is_clockless());
        assert!(shape(Fmjd64, "KMvM").is_clockless());
        // CBD K K M v K: Z (40) before the lone king reaches the diagonal, A = 10 after.
        let s = shape(Cbd, "KKMvK");
        assert_eq!((s.a_full, s.z_full), (None, Some(40)));
        assert_eq!(s.condition.map(|c| c.budget), Some(10));
        // Portuguese K K K v K: no clock before the river is occupied.
        let s = shape(Fpd, "KKKvK");
        assert_eq!((s.a_full, s.z_full), (None, None));
        assert_eq!(s.condition.map(|c| c.budget), Some(23));
        assert_eq!(shape(Fpd, "KvKKK").condition.map(|c| c.budget), Some(24));
        assert_eq!(
            shape(Spanish, "KKKvK").condition.map(|c| c.budget),
            Some(25)
        );
    }

    /// `forcada_restart_on_leave`: a move off the river returns the state to `pre` (which holds
    /// no budget in the Forçada material) unless it used the last ply; a count cannot run off
    /// the river below its limit.
    #[test]
    fn leaving_the_river_stops_a_count_that_restarts() {
        let mut reading = Interpretation::default();
        reading.set("forcada-restart-on-leave=true").unwrap();
        let restart = DrawRules::new(DrawPreset::Fpd, reading);
        let runs_on = DrawRules::new(DrawPreset::Fpd, Interpretation::default());
        let flip: Signature = "KvKKK".parse().unwrap();
        let off: Vec<u32> = (0..32).filter(|s| LONG_DIAGONAL & 1 << s == 0).collect();
        let river = 1 << LONG_DIAGONAL.trailing_zeros();
        // After the strong side's move, from the lone king's view.
        let left = Board {
            men: 0,
            kings: 1 << off[0],
            opp_men: 0,
            opp_kings: 1 << off[1] | 1 << off[2] | 1 << off[3],
        };
        let stayed = Board {
            opp_kings: river | 1 << off[2] | 1 << off[3],
            ..left
        };
        let running = |a| DrawState {
            post: true,
            a: Some(a),
            z: None,
        };
        let pre = DrawState {
            post: false,
            a: None,
            z: None,
        };
        let shape = MaterialShape::of(&restart, flip).unwrap();
        assert_eq!(running(11).after(&shape, &left, false), pre);
        assert_eq!(running(11).after(&shape, &stayed, false), running(10));
        assert!(running(1).after(&shape, &left, false).at_limit());
        let shape = MaterialShape::of(&runs_on, flip).unwrap();
        assert_eq!(running(11).after(&shape, &left, false), running(10));

        // From the strong side's view, to move: off the river.
        let strong_view = Board {
            kings: left.opp_kings,
            opp_kings: left.kings,
            ..left
        };
        let counts =
            |plies| DrawCounts::from_ids(&restart, &[("p1-forcada", Some(plies))]).unwrap();
        assert!(matches!(
            state_from_counts(&restart, &strong_view, &counts(4)),
            Err(CountsError::Inconsistent(_))
        ));
        // 24 plies: the strong side's 12th move was made, at the limit.
        assert!(state_from_counts(&restart, &strong_view, &counts(24))
            .unwrap()
            .at_limit());
        assert_eq!(
            state_from_counts(&runs_on, &strong_view, &counts(4)).unwrap(),
            running(19)
        );
    }

    /// Rule 4 read as "reach a winning position": the pure result sets its count aside where the
    /// strong side wins, and a count past the limit no longer runs; RULES.md's reading refuses
    /// such a count.
    #[test]
    fn a_limit_that_passes_won_positions_is_set_aside_by_the_pure_result() {
        let mut reading = Interpretation::default();
        reading.set("r4-limit-outcome=pure-value").unwrap();
        let passing = DrawRules::new(DrawPreset::Fmjd64, reading);
        let drawing = DrawRules::new(DrawPreset::Fmjd64, Interpretation::default());
        // The lone king to move, on the long diagonal, against three kings off it.
        let off: Vec<u32> = (0..32).filter(|s| LONG_DIAGONAL & 1 << s == 0).collect();
        let board = Board {
            men: 0,
            kings: 1 << LONG_DIAGONAL.trailing_zeros(),
            opp_men: 0,
            opp_kings: 1 << off[0] | 1 << off[1] | 1 << off[2],
        };
        let ids = |r4| {
            [
                ("r1-three-kings", Some(12)),
                ("r2-kings-only", Some(12)),
                ("r3-kings-4-5-pieces", Some(12)),
                ("r4-long-diagonal", Some(r4)),
            ]
        };
        let counts = |r4| DrawCounts::from_ids(&passing, &ids(r4)).unwrap();
        let state = |rules, pure, r4| deciding_state(rules, &board, pure, &counts(r4));
        // The strong side wins in the pure game (the mover loses): rule 4 is left out.
        let aside = state(&passing, crate::Wdl::Loss, 10).unwrap();
        assert!(!aside.post && !aside.at_limit());
        assert_eq!(aside.a, Some(18));
        // The lone king wins: rule 4 at its limit draws, unless its count passed the limit.
        assert!(state(&passing, crate::Wdl::Win, 10).unwrap().at_limit());
        let passed = state(&passing, crate::Wdl::Win, 11).unwrap();
        assert!(!passed.post && !passed.at_limit());
        // A count set aside is still checked: a misspelt counter is named, one of a rule that
        // does not apply to the material too, and rule 4 cannot have run longer than the
        // material.
        assert!(matches!(
            DrawCounts::from_ids(&passing, &[("r1-three-king", Some(3))]),
            Err(CountsError::UnknownCounter {
                signature: None,
                ..
            })
        ));
        let small = DrawCounts::from_ids(&passing, &[("r5-small", Some(3))]).unwrap();
        assert!(matches!(
            deciding_state(&passing, &board, crate::Wdl::Loss, &small),
            Err(CountsError::UnknownCounter {
                signature: Some(_),
                ..
            })
        ));
        let mut longer = ids(11);
        for count in &mut longer[..3] {
            count.1 = Some(4);
        }
        let longer = DrawCounts::from_ids(&passing, &longer).unwrap();
        assert!(matches!(
            deciding_state(&passing, &board, crate::Wdl::Loss, &longer),
            Err(CountsError::Inconsistent(_))
        ));
        // Read as RULES.md does, the limit draws whoever wins, and a count past it is refused.
        assert!(state(&drawing, crate::Wdl::Loss, 10).unwrap().at_limit());
        assert!(matches!(
            state(&drawing, crate::Wdl::Loss, 11),
            Err(CountsError::PastLimit { .. })
        ));
    }

    #[test]
    fn remaining_plies_fall_by_one_each_ply() {
        let n = Limit::StrongMoves(5);
        // Started with the strong side to move: plies 0, 1, 2 alternate strong, weak, strong.
        assert_eq!(remaining(n, 0, true), 9);
        assert_eq!(remaining(n, 1, false), 8);
        assert_eq!(remaining(n, 2, true), 7);
        // Started with the weak side to move.
        assert_eq!(remaining(n, 0, false), 10);
        assert_eq!(remaining(n, 1, true), 9);
        // The strong side's fifth move made: at the limit.
        assert_eq!(remaining(n, 9, false), 0);
        assert_eq!(remaining(n, 10, false), 0);
        assert_eq!(remaining(Limit::Plies(30), 12, true), 18);
    }

    /// Typed counts: set by id or place, read back, carried over a quiet move as
    /// [`counts_after`] carries them, put back at their start by a capture, and refused by name
    /// where the rules lack the counter.
    #[test]
    fn typed_counts_follow_moves_in_place() {
        let rules = DrawRules::new(DrawPreset::Fmjd64, Interpretation::default());
        let variant = crate::rules::Variant::RUSSIAN;
        let mut counts = DrawCounts::new();
        assert_eq!(counts, DrawCounts::default());
        assert_eq!(counts.get(&rules, "r1-three-kings"), None);
        counts.set(&rules, "r1-three-kings", Some(8)).unwrap();
        counts.set(&rules, "r4-long-diagonal", None).unwrap();
        assert_eq!(counts.get(&rules, "r1-three-kings"), Some(Some(8)));
        assert_eq!(counts.get(&rules, "r4-long-diagonal"), Some(None));
        assert_eq!(counts.get(&rules, "no-such-counter"), None);
        // Counts too large to be true stay counts (refused later as past the limit).
        let mut huge = DrawCounts::new();
        huge.set_count(0, Some(u16::MAX));
        assert!(matches!(huge.count(0), Some(Some(n)) if n > 1000));
        assert!(matches!(
            counts.set(&rules, "r1-three-king", Some(1)),
            Err(CountsError::UnknownCounter {
                signature: None,
                ..
            })
        ));

        // Three kings against one off the long diagonal: every quiet move adds a ply.
        let position = crate::Position::from_fen("W:WK1,K2,K3:BK32", &variant).unwrap();
        let board = position.board();
        let mut moves = Vec::new();
        crate::rules::legal_moves(&board, &variant.moves, &mut moves);
        let quiet = moves.iter().find(|m| !m.is_capture()).unwrap();
        let mut played = counts;
        played.play(&rules, &board, quiet);
        assert_eq!(played, counts_after(&rules, &board, &counts, quiet));
        assert_eq!(played.get(&rules, "r1-three-kings"), Some(Some(9)));

        // A capture changes the material: every count back at its start.
        let position = crate::Position::from_fen("W:WK1,K2,K3:BK6", &variant).unwrap();
        let board = position.board();
        crate::rules::legal_moves(&board, &variant.moves, &mut moves);
        let capture = moves.iter().find(|m| m.is_capture()).unwrap();
        let mut played = counts;
        played.play(&rules, &board, capture);
        assert_eq!(played, DrawCounts::new());
    }
}
