//! The counted draw rules reduced to what a value depends on (`docs/DRAW_RULES.md` §2): per
//! material a [`MaterialShape`] (the budgets a fresh position starts with), per game state a
//! [`DrawState`] (family and remaining budgets in plies), and how the stored thresholds of a rule
//! table decide a state ([`PlaneKind::wins`]).
//!
//! Every running counter is a countdown in plies: a "win within N moves" counter leaves `2N − 1`
//! plies if the strong side moves first, `2N` if the weak side does, and every ply lowers every
//! countdown by one. Counters that never reset are summed up by their minimum, `A`; the one that a
//! man move resets is `Z` (kept at most `A`); a counter that starts on a position condition
//! splits a material into two families, before it starts (`pre`) and after (`post`).

use std::fmt;

use crate::draw::{DrawRules, PositionCond, Strong};
use crate::index::Signature;
use crate::rules::geometry::LONG_DIAGONAL;
use crate::rules::Board;

/// A stored threshold meaning "never": the winner cannot win under the rules with any budget.
pub const NEVER: u8 = u8::MAX;
/// The largest finite threshold or distance a plane's byte holds.
pub const MAX_STORED: u16 = NEVER as u16 - 1;

/// The five results of a position under the counted rules, for the side to move, with every count
/// at its start (as if the material had just arisen).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DrawWdl {
    /// Lost under the rules.
    Loss,
    /// Lost in the pure game, drawn under the rules.
    BlessedLoss,
    /// Drawn in the pure game.
    Draw,
    /// Won in the pure game, drawn under the rules.
    CursedWin,
    /// Won under the rules.
    Win,
}

impl DrawWdl {
    /// Every result, by code.
    pub const ALL: [DrawWdl; 5] = [
        DrawWdl::Loss,
        DrawWdl::BlessedLoss,
        DrawWdl::Draw,
        DrawWdl::CursedWin,
        DrawWdl::Win,
    ];

    /// The name used in reports and JSON (`win`, `cursed-win`, `draw`, `blessed-loss`, `loss`).
    pub const fn name(self) -> &'static str {
        match self {
            DrawWdl::Loss => "loss",
            DrawWdl::BlessedLoss => "blessed-loss",
            DrawWdl::Draw => "draw",
            DrawWdl::CursedWin => "cursed-win",
            DrawWdl::Win => "win",
        }
    }

    /// The code stored in a rule table (0–4, in the order of [`DrawWdl::ALL`]).
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The result stored as `code`.
    pub fn from_code(code: u8) -> Option<DrawWdl> {
        DrawWdl::ALL.get(usize::from(code)).copied()
    }

    /// The result the rules give: win, draw or loss.
    pub const fn wdl(self) -> crate::Wdl {
        match self {
            DrawWdl::Loss => crate::Wdl::Loss,
            DrawWdl::Win => crate::Wdl::Win,
            _ => crate::Wdl::Draw,
        }
    }

    /// The result where the rules leave the pure game's `wdl` as it is.
    ///
    /// ```
    /// use dprobe::{DrawWdl, Wdl};
    /// assert_eq!(DrawWdl::unturned(Wdl::Win), DrawWdl::Win);
    /// assert_eq!(DrawWdl::unturned(Wdl::Draw).pure(), Wdl::Draw);
    /// ```
    pub const fn unturned(wdl: crate::Wdl) -> DrawWdl {
        match wdl {
            crate::Wdl::Win => DrawWdl::Win,
            crate::Wdl::Draw => DrawWdl::Draw,
            crate::Wdl::Loss => DrawWdl::Loss,
        }
    }

    /// The pure game's result.
    pub const fn pure(self) -> crate::Wdl {
        match self {
            DrawWdl::Loss | DrawWdl::BlessedLoss => crate::Wdl::Loss,
            DrawWdl::Draw => crate::Wdl::Draw,
            DrawWdl::CursedWin | DrawWdl::Win => crate::Wdl::Win,
        }
    }
}

/// The same result seen from the other side.
impl std::ops::Neg for DrawWdl {
    type Output = DrawWdl;

    fn neg(self) -> DrawWdl {
        match self {
            DrawWdl::Loss => DrawWdl::Win,
            DrawWdl::BlessedLoss => DrawWdl::CursedWin,
            DrawWdl::Draw => DrawWdl::Draw,
            DrawWdl::CursedWin => DrawWdl::BlessedLoss,
            DrawWdl::Win => DrawWdl::Loss,
        }
    }
}

impl fmt::Display for DrawWdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A reading of the rules the solver does not implement yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("draw rules not supported by the rule-aware tables: {0}")]
pub struct UnsupportedDrawRules(pub &'static str);

/// The counter that starts on a position condition, as one material sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConditionShape {
    /// The condition.
    pub condition: PositionCond,
    /// The strong side is the side to move.
    pub strong_is_mover: bool,
    /// Its countdown in plies when it starts in a position of this signature.
    pub budget: u16,
    /// Where the condition holds as the material arises, the count starts there (RULES.md's
    /// reading); otherwise only after a move that makes it hold.
    pub starts_if_holding: bool,
    /// A move that leaves the condition false stops the count, which waits for the condition
    /// again (not RULES.md's reading: [`DrawRules::restarts_on_leave`]).
    pub restarts_on_leave: bool,
}

impl ConditionShape {
    /// The counter started by `condition` under `rules`, with its strong side to move or not,
    /// and `budget` plies when it starts.
    pub fn new(
        rules: &DrawRules,
        condition: PositionCond,
        strong_is_mover: bool,
        budget: u16,
    ) -> ConditionShape {
        ConditionShape {
            condition,
            strong_is_mover,
            budget,
            starts_if_holding: rules.starts_if_holding(condition),
            restarts_on_leave: rules.restarts_on_leave(condition),
        }
    }

    /// Whether the condition holds on `board` (a position of this signature).
    pub fn holds(&self, board: &Board) -> bool {
        let (strong_kings, weak_kings) = if self.strong_is_mover {
            (board.kings, board.opp_kings)
        } else {
            (board.opp_kings, board.kings)
        };
        match self.condition {
            PositionCond::WeakKingOnLongDiagonal => weak_kings & LONG_DIAGONAL != 0,
            PositionCond::StrongKingOnLongDiagonal => strong_kings & LONG_DIAGONAL != 0,
        }
    }
}

/// How one material's counters reduce (DRAW_RULES.md §2.2), for a signature from the mover's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaterialShape {
    /// Countdown of the counters that never reset, when the material arises here (`None`: none).
    pub a_full: Option<u16>,
    /// Countdown of the counter a man move restarts, if it can ever decide (`None`: none, or it
    /// never runs out before `A`).
    pub z_full: Option<u16>,
    /// The counter that starts on a position condition.
    pub condition: Option<ConditionShape>,
}

/// How a counter takes part in a material: in `A`, as `Z`, as the condition, or not at all.
pub(super) enum Role {
    A,
    Z,
    Condition,
    Dead,
}

impl MaterialShape {
    /// The shape of `signature` under `rules`.
    ///
    /// # Errors
    ///
    /// [`UnsupportedDrawRules`] for interpretations the tables do not implement yet.
    pub fn of(
        rules: &DrawRules,
        signature: Signature,
    ) -> Result<MaterialShape, UnsupportedDrawRules> {
        check_supported(rules)?;
        let mut shape = MaterialShape {
            a_full: None,
            z_full: None,
            condition: None,
        };
        for (counter, strong) in rules.active(&signature) {
            let strong_to_move = strong == Strong::Mover;
            let budget = counter.budget(strong_to_move);
            match role(counter, &signature) {
                Role::A => shape.a_full = Some(shape.a_full.map_or(budget, |a| a.min(budget))),
                Role::Z => shape.z_full = Some(shape.z_full.map_or(budget, |z| z.min(budget))),
                Role::Condition => {
                    if shape.condition.is_some() {
                        return Err(UnsupportedDrawRules(
                            "two position conditions in one material",
                        ));
                    }
                    let condition = counter.condition.expect("a condition counter");
                    shape.condition = Some(ConditionShape::new(
                        rules,
                        condition,
                        strong_to_move,
                        budget,
                    ));
                }
                Role::Dead => {}
            }
        }
        // Z never below A in any state: a reset sets it to its full value, at least A's.
        if let (Some(z), Some(a)) = (shape.z_full, shape.a_full) {
            let flip_a = MaterialShape::a_full_only(rules, signature.flipped());
            if z >= a && flip_a.is_none_or(|f| z >= f) {
                shape.z_full = None;
            }
        }
        Ok(shape)
    }

    /// `a_full` alone (without the dominance check, which looks at the colour flip).
    fn a_full_only(rules: &DrawRules, signature: Signature) -> Option<u16> {
        rules
            .active(&signature)
            .filter(|(c, _)| matches!(role(c, &signature), Role::A))
            .map(|(c, s)| c.budget(s == Strong::Mover))
            .min()
    }

    /// No counter can decide anything in this material: values only depend on its exits.
    pub const fn is_clockless(&self) -> bool {
        self.a_full.is_none() && self.z_full.is_none() && self.condition.is_none()
    }

    /// The state of `board` with every count at its start.
    pub fn fresh(&self, board: &Board) -> DrawState {
        self.fresh_where(self.condition.is_some_and(|c| c.holds(board)))
    }

    /// The state with every count at its start of a position where the condition counter's
    /// condition holds or not (`holds`; [`ConditionShape::holds`]): for passes that know it
    /// without the board.
    pub fn fresh_where(&self, holds: bool) -> DrawState {
        let post = holds && self.condition.is_some_and(|c| c.starts_if_holding);
        let a = match (self.a_full, post) {
            (a, false) => a,
            (a, true) => {
                let c = self.condition.map(|c| c.budget);
                min_opt(a, c)
            }
        };
        DrawState {
            post,
            a,
            z: min_opt_clamped(self.z_full, a),
        }
    }
}

impl DrawRules {
    /// Whether the rule-aware tables implement these rules' readings.
    ///
    /// # Errors
    ///
    /// [`UnsupportedDrawRules`], naming the reading that is not implemented.
    pub fn check_supported(&self) -> Result<(), UnsupportedDrawRules> {
        check_supported(self)
    }
}

/// Readings the rule-aware tables implement.
fn check_supported(rules: &DrawRules) -> Result<(), UnsupportedDrawRules> {
    let i = &rules.interpretation;
    // Leaving the river returns a state to the `pre` family, which must then hold no budget:
    // one that ran on beside the Forçada would need a dimension of its own.
    let restarts = rules.counters.iter().any(|c| {
        c.condition
            .is_some_and(|cond| rules.restarts_on_leave(cond))
    });
    if restarts && !i.kings_rule_excludes_three_kings {
        return Err(UnsupportedDrawRules(
            "forcada-restart-on-leave=true with kings-rule-excludes-three-kings=false",
        ));
    }
    if restarts && !i.forcada_exactly_three_kings {
        return Err(UnsupportedDrawRules(
            "forcada-restart-on-leave=true with forcada-exactly-three-kings=false",
        ));
    }
    Ok(())
}

pub(super) fn role(counter: &crate::draw::DrawCounter, signature: &Signature) -> Role {
    if counter.condition.is_some() {
        return Role::Condition;
    }
    if !counter.resets_on_man_move {
        return Role::A;
    }
    let men = signature.mover_men + signature.opp_men;
    let both_have_kings = signature.mover_kings > 0 && signature.opp_kings > 0;
    if !both_have_kings {
        // A side without kings moves a man every turn: the count never passes 1.
        Role::Dead
    } else if men == 0 {
        // Nothing can reset it: it runs from the material's start like the others.
        Role::A
    } else {
        Role::Z
    }
}

pub(super) fn min_opt(a: Option<u16>, b: Option<u16>) -> Option<u16> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

pub(super) fn min_opt_clamped(z: Option<u16>, a: Option<u16>) -> Option<u16> {
    z.map(|z| a.map_or(z, |a| z.min(a)))
}

/// The state a value depends on: the family (the condition counter has started or not) and the
/// plies left before the first limit (`A`: counters that never reset; `Z`: the one a man move
/// restarts, at most `A`). `None` is unlimited. A state with a budget at 0 is at a limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DrawState {
    /// The condition counter has started.
    pub post: bool,
    /// Plies left on the counters that never reset.
    pub a: Option<u16>,
    /// Plies left on the counter a man move restarts.
    pub z: Option<u16>,
}

impl DrawState {
    /// The state after a move that neither captures nor crowns, to `child` (a position of the
    /// same material, whose shape is `child_shape`); `man`: the move was a man's.
    ///
    /// Where the condition counter stops on a move that leaves its condition
    /// ([`ConditionShape::restarts_on_leave`]), such a move returns the state to the `pre`
    /// family, which then holds no budget ([`DrawRules::check_supported`]), unless the move
    /// used the last ply the counts allowed.
    pub fn after(&self, child_shape: &MaterialShape, child: &Board, man: bool) -> DrawState {
        let a = self.a.map(|a| a.saturating_sub(1));
        let mut z = match (self.z, child_shape.z_full) {
            (Some(_), Some(full)) if man => Some(full),
            (z, _) => z.map(|z| z.saturating_sub(1)),
        };
        let mut next = DrawState {
            post: self.post,
            a,
            z,
        };
        match child_shape.condition {
            Some(condition) if !self.post && condition.holds(child) => {
                next.post = true;
                next.a = min_opt(next.a, Some(condition.budget));
            }
            Some(condition)
                if self.post
                    && condition.restarts_on_leave
                    && !condition.holds(child)
                    && !next.at_limit() =>
            {
                debug_assert!(child_shape.a_full.is_none() && child_shape.z_full.is_none());
                return DrawState {
                    post: false,
                    a: None,
                    z: None,
                };
            }
            _ => {}
        }
        z = min_opt_clamped(z, next.a);
        next.z = z;
        next
    }

    /// A limit has been reached: the game is drawn unless the side to move has no move.
    pub fn at_limit(&self) -> bool {
        self.a == Some(0) || self.z == Some(0)
    }
}

/// What one family of a rule table stores, per position, for the pure winner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlaneKind {
    /// Layer `k` holds the least `Z` with which the winner wins when `A = k` (layers past the
    /// last equal the last); the file keeps the corners where it falls.
    LayersAz,
    /// One layer: the least `A` with which the winner wins.
    ThresholdA,
    /// One layer: the least `Z` with which the winner wins.
    ThresholdZ,
    /// One layer: with no count running, the winner's fewest plies (the loser's most) to an
    /// exit that keeps the win; [`NEVER`] if none does.
    Distance,
}

impl PlaneKind {
    /// The kind for a family where `A` and `Z` are (or are not) in force.
    pub const fn for_budgets(a: bool, z: bool) -> PlaneKind {
        match (a, z) {
            (true, true) => PlaneKind::LayersAz,
            (true, false) => PlaneKind::ThresholdA,
            (false, true) => PlaneKind::ThresholdZ,
            (false, false) => PlaneKind::Distance,
        }
    }

    /// The code stored in a rule table.
    pub const fn code(self) -> u8 {
        match self {
            PlaneKind::LayersAz => 1,
            PlaneKind::ThresholdA => 2,
            PlaneKind::ThresholdZ => 3,
            PlaneKind::Distance => 4,
        }
    }

    /// The kind stored as `code`.
    pub const fn from_code(code: u8) -> Option<PlaneKind> {
        Some(match code {
            1 => PlaneKind::LayersAz,
            2 => PlaneKind::ThresholdA,
            3 => PlaneKind::ThresholdZ,
            4 => PlaneKind::Distance,
            _ => return None,
        })
    }

    /// Which layer holds the answer for budget `a` (`planes` layers in the family).
    pub fn plane_for(self, a: Option<u16>, planes: usize) -> usize {
        match (self, a) {
            (PlaneKind::LayersAz, Some(a)) => usize::from(a).min(planes.saturating_sub(1)),
            _ => 0,
        }
    }

    /// Whether the pure winner wins in `state` (not at a limit), given the entry of the layer
    /// [`PlaneKind::plane_for`] chose.
    pub fn wins(self, entry: u8, state: &DrawState) -> bool {
        if entry == NEVER {
            return false;
        }
        let entry = u16::from(entry);
        match self {
            PlaneKind::LayersAz | PlaneKind::ThresholdZ => state.z.is_some_and(|z| entry <= z),
            PlaneKind::ThresholdA => state.a.is_some_and(|a| entry <= a),
            PlaneKind::Distance => true,
        }
    }
}
