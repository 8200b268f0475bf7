//! Probes under the counted draw rules: the result with fresh counts from a rule table's fresh
//! section, and with running counts from the threshold or staircase of the family their state
//! selects.

use super::{with_move_list, Tablebase};
use crate::draw::{
    counts_after, deciding_state, deciding_state_of, DrawCounts, DrawState, DrawWdl,
    MaterialCounters, NEVER,
};
use crate::error::{Corruption, ProbeError};
use crate::format::draw::{corner_parts, fresh_result, FamilyFile};
use crate::format::DrawFile;
use crate::index::Signature;
use crate::rules::{count_quiet_moves, has_capture, legal_moves, Board, Move, Position};
use crate::value::Wdl;

/// The result of a rule-aware probe ([`Tablebase::probe_draw`]), for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawProbe {
    /// The pure game's result (no counted rules).
    pub pure: Wdl,
    /// The result under the counted rules with every count at its start (as if the material
    /// had just arisen here).
    pub result: DrawWdl,
    /// The result under the counted rules with the counts given.
    pub now: Wdl,
    /// The counts given, reduced: plies left on the counters that decide the position (`A`:
    /// those that never reset, `Z`: the one a man move restarts) and whether the condition
    /// counter has started ([`crate::draw::deciding_state`]).
    pub state: DrawState,
}

/// One legal move with its results under the counted rules, from the view of the side playing
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawMove {
    /// The move (as [`Position::legal_moves`] gives it).
    pub mv: Move,
    /// The move's result with every count at its start before it.
    pub result: DrawWdl,
    /// The move's result with the counts given.
    pub now: Wdl,
}

/// A position without a capture found in its rule table: the file, its cache id, what the
/// counters make of its material, and the position's index (the same in every section).
struct QuietEntry<'a> {
    file: &'a DrawFile,
    id: u32,
    material: &'a MaterialCounters,
    index: u64,
}

impl Tablebase {
    /// The result under the counted draw rules ([`Tablebase::draw_rules`]) with the running
    /// `counts` ([`DrawCounts`]: per counter, plies since it started, or not started for a
    /// counter that starts on a position condition; counters not given are at their start).
    /// Allocates nothing once warm.
    ///
    /// ```no_run
    /// use dprobe::{DrawCounts, DrawWdl, Position, Tablebase, Variant, Wdl};
    ///
    /// let mut tables = Tablebase::new(Variant::RUSSIAN);
    /// tables.add_directory("tables")?;
    /// let position = Position::from_fen("W:WK1,K2,K3:BK32", &Variant::RUSSIAN)?;
    /// let fresh = tables.probe_draw(&position, &DrawCounts::new())?;
    /// println!("{} in the pure game, {} under the rules", fresh.pure, fresh.result);
    /// // Twenty plies into the fifteen-move rule.
    /// let mut counts = DrawCounts::new();
    /// for id in ["r1-three-kings", "r2-kings-only", "r3-kings-4-5-pieces"] {
    ///     // These count from the material's start: their counts are equal.
    ///     counts.set(tables.draw_rules(), id, Some(20))?;
    /// }
    /// let late = tables.probe_draw(&position, &counts)?;
    /// if late.now == Wdl::Draw && fresh.result == DrawWdl::Win {
    ///     println!("too late to win");
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_wdl`], and [`ProbeError::Counts`] for counts that do not fit the
    /// position, [`ProbeError::MissingDrawTable`], [`ProbeError::DrawRulesMismatch`],
    /// [`ProbeError::UnsupportedDrawRules`].
    pub fn probe_draw(
        &self,
        position: &Position,
        counts: &DrawCounts,
    ) -> Result<DrawProbe, ProbeError> {
        let board = position.board();
        self.check(&board)?;
        self.draw_rules_supported?;
        let (result, state, now) = if board.own() != 0 && !has_capture(&board, &self.variant.moves)
        {
            // The common case: one look-up of the rule table and one index serve every read.
            let entry = self.quiet_entry(&board)?;
            let result = self.fresh_of(&board, &entry)?;
            let state = deciding_state_of(
                &self.draw_rules,
                entry.material,
                &board,
                result.pure(),
                counts,
            )?;
            let now = self.quiet_value(&board, &entry, &state, result)?;
            (result, state, now)
        } else {
            let result = self.draw_fresh(&board)?;
            let state = self.deciding_state(&board, result.pure(), counts)?;
            (result, state, self.draw_value(&board, &state, result)?)
        };
        Ok(DrawProbe {
            // A rule result carries the pure game's (`rule_verify` checks they agree).
            pure: result.pure(),
            result,
            now,
            state,
        })
    }

    /// Every legal move with its results under the counted rules (see
    /// [`Tablebase::probe_draw`] for `counts`).
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_draw`].
    pub fn draw_moves(
        &self,
        position: &Position,
        counts: &DrawCounts,
    ) -> Result<Vec<DrawMove>, ProbeError> {
        let board = position.board();
        self.check(&board)?;
        self.draw_rules_supported?;
        let pure = self.wdl(&board)?;
        let state = self.deciding_state(&board, pure, counts)?;
        let mut moves = Vec::new();
        legal_moves(&board, &self.variant.moves, &mut moves);
        moves
            .iter()
            .map(|mv| {
                let child = board.play(mv);
                let (result, now) = if mv.is_capture() || mv.crowned {
                    let result = -self.draw_fresh(&child)?;
                    (result, result.wdl())
                } else {
                    // The child's counts, then its state under the counters that decide it:
                    // a count set aside by the pure result may matter again after a move that
                    // gives the win away, so the counts are followed, not the reduced state.
                    let child_fresh = self.draw_fresh(&child)?;
                    let child_pure = child_fresh.pure();
                    let value_after = |counts: &DrawCounts| {
                        let after = counts_after(&self.draw_rules, &board, counts, mv);
                        let state = self.deciding_state(&child, child_pure, &after)?;
                        Ok::<_, ProbeError>(-self.draw_value(&child, &state, child_fresh)?)
                    };
                    let pure = -child_pure;
                    let fresh_now = value_after(&DrawCounts::new())?;
                    let result = match (pure, fresh_now) {
                        (Wdl::Win, Wdl::Win) => DrawWdl::Win,
                        (Wdl::Win, _) => DrawWdl::CursedWin,
                        (Wdl::Loss, Wdl::Loss) => DrawWdl::Loss,
                        (Wdl::Loss, _) => DrawWdl::BlessedLoss,
                        _ => DrawWdl::Draw,
                    };
                    let now = if state.at_limit() {
                        Wdl::Draw
                    } else {
                        value_after(counts)?
                    };
                    (result, now)
                };
                Ok(DrawMove {
                    mv: position.orient_move(mv),
                    result,
                    now,
                })
            })
            .collect()
    }

    /// The state of `board` with the running `counts` under the counters that decide it
    /// ([`deciding_state`]), with what the counters make of its material read from its rule
    /// table where that is open.
    fn deciding_state(
        &self,
        board: &Board,
        pure: Wdl,
        counts: &DrawCounts,
    ) -> Result<DrawState, ProbeError> {
        Ok(match self.draw_file(Signature::of(board)) {
            Ok((_, _, material)) => {
                deciding_state_of(&self.draw_rules, material, board, pure, counts)?
            }
            // A capture position, whose own rule table is not read.
            Err(_) => deciding_state(&self.draw_rules, board, pure, counts)?,
        })
    }

    /// The result under the rules with fresh counts.
    pub(super) fn draw_fresh(&self, board: &Board) -> Result<DrawWdl, ProbeError> {
        if board.own() == 0 {
            return Ok(DrawWdl::Loss);
        }
        let rules = &self.variant.moves;
        if has_capture(board, rules) {
            return with_move_list(|moves| {
                legal_moves(board, rules, moves);
                let mut best = DrawWdl::Loss;
                for mv in moves.iter() {
                    best = best.max(-self.draw_fresh(&board.play(mv))?);
                }
                Ok(best)
            });
        }
        self.stored_fresh(board)
    }

    /// The fresh result stored for `board`, a position without a capture.
    pub(super) fn stored_fresh(&self, board: &Board) -> Result<DrawWdl, ProbeError> {
        self.fresh_of(board, &self.quiet_entry(board)?)
    }

    /// Where a position without a capture is in its rule table.
    fn quiet_entry(&self, board: &Board) -> Result<QuietEntry<'_>, ProbeError> {
        let (file, id, material) = self.draw_file(Signature::of(board))?;
        Ok(QuietEntry {
            file,
            id,
            material,
            // Every section of a rule table shares its signature's index.
            index: file.fresh.index().index(board),
        })
    }

    /// The fresh result of `board`, at `entry` of its rule table: its pure result, and whether
    /// the rules turn it into a draw.
    fn fresh_of(&self, board: &Board, entry: &QuietEntry<'_>) -> Result<DrawWdl, ProbeError> {
        let pure = self.wdl_at(board, entry.index)?;
        let file = entry.file;
        let symbol = self.section_symbol(&file.fresh, entry.id, 0, entry.index)?;
        u8::try_from(symbol)
            .ok()
            .and_then(|symbol| fresh_result(pure, symbol))
            .ok_or_else(|| {
                ProbeError::Corrupted(file.fresh.corrupt(Corruption::InvalidValue(entry.index)))
            })
    }

    /// The result under the rules in `state`; `fresh` is the position's result with every count
    /// at its start ([`Tablebase::draw_fresh`]), which decides captures (they leave the
    /// material, so the counts do not matter) and draws.
    pub(super) fn draw_value(
        &self,
        board: &Board,
        state: &DrawState,
        fresh: DrawWdl,
    ) -> Result<Wdl, ProbeError> {
        if board.own() == 0 {
            return Ok(Wdl::Loss);
        }
        if has_capture(board, &self.variant.moves) {
            return Ok(if state.at_limit() {
                Wdl::Draw
            } else {
                fresh.wdl()
            });
        }
        self.quiet_value(board, &self.quiet_entry(board)?, state, fresh)
    }

    /// As [`Tablebase::draw_value`], for a position with pieces and without a capture, at
    /// `entry` of its rule table.
    fn quiet_value(
        &self,
        board: &Board,
        entry: &QuietEntry<'_>,
        state: &DrawState,
        fresh: DrawWdl,
    ) -> Result<Wdl, ProbeError> {
        if count_quiet_moves(board) == 0 {
            return Ok(Wdl::Loss);
        }
        if state.at_limit() {
            return Ok(Wdl::Draw);
        }
        if fresh.pure() == Wdl::Draw {
            return Ok(fresh.wdl());
        }
        let file = entry.file;
        let family = match (&file.post, state.post) {
            (Some(post), true) => post,
            (None, true) => {
                return Err(ProbeError::Corrupted(file.fresh.corrupt(
                    Corruption::BadHeader("no family for a started condition"),
                )))
            }
            (_, false) => match &file.pre {
                Some(pre) => pre,
                // No count runs in the material: the fresh result holds in every state.
                None => return Ok(fresh.wdl()),
            },
        };
        let stored = self.family_entry(entry, family, state.a)?;
        let wins = family.kind.wins(stored, state);
        Ok(match (fresh.pure(), wins) {
            (Wdl::Win, true) => Wdl::Win,
            (Wdl::Loss, true) => Wdl::Loss,
            _ => Wdl::Draw,
        })
    }

    /// The entry of `family` at `entry` for budget `a`: its threshold or distance, or for a family
    /// of layers the least `Z` that wins with `A = a`, the value of the last corner at or below
    /// that layer.
    fn family_entry(
        &self,
        entry: &QuietEntry<'_>,
        family: &FamilyFile,
        a: Option<u16>,
    ) -> Result<u8, ProbeError> {
        let read = |rank: usize| {
            let section = &family.sections[rank];
            let number = family.first_section + rank as u32;
            Ok::<_, ProbeError>((
                section,
                self.section_symbol(section, entry.id, number, entry.index)?,
            ))
        };
        if !family.holds_corners() {
            return Ok(read(0)?.1.min(255) as u8);
        }
        let layer = family.kind.plane_for(a, usize::from(family.layers)) as u16;
        let mut value = NEVER;
        for rank in 0..family.sections.len() {
            let (section, code) = read(rank)?;
            let (from, next, more) = corner_parts(code);
            if next == NEVER || from > layer {
                break;
            }
            if next >= value || more && rank + 1 == family.sections.len() {
                return Err(ProbeError::Corrupted(
                    section.corrupt(Corruption::InvalidValue(entry.index)),
                ));
            }
            value = next;
            if !more {
                break;
            }
        }
        Ok(value)
    }
}
