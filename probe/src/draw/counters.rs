//! The federations' counted draw rules (RULES.md §5) as data: each rule a named counter with the
//! material it applies to, the position condition that starts it (if any), whether a man move
//! resets it, and its limit. Readings the rule texts leave open are [`Interpretation`] settings.
//!
//! This module states the rules; computing values under them is described in
//! `docs/DRAW_RULES.md`.

use crate::index::Signature;

/// Which federation's set of counted rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawPreset {
    /// No counted rules: the pure game value.
    None,
    /// FMJD-64 rules 7.2.4–7.2.8 (Russian; also used by some Brazilian events).
    Fmjd64,
    /// Brazilian confederation (CBD) rules, Anexo I, arts. 97b, 99, 100.
    Cbd,
    /// Portuguese federation (FPD) rules, art. 3.8.
    Fpd,
    /// Spanish rules (seed `002_…`).
    Spanish,
}

impl DrawPreset {
    /// Every preset.
    pub const ALL: [DrawPreset; 5] = [
        DrawPreset::None,
        DrawPreset::Fmjd64,
        DrawPreset::Cbd,
        DrawPreset::Fpd,
        DrawPreset::Spanish,
    ];

    /// The name used on the command line and for the rule tables' directory.
    pub const fn name(self) -> &'static str {
        match self {
            DrawPreset::None => "none",
            DrawPreset::Fmjd64 => "fmjd64",
            DrawPreset::Cbd => "cbd",
            DrawPreset::Fpd => "fpd",
            DrawPreset::Spanish => "spanish",
        }
    }

    /// The code stored in rule table files.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The preset stored as `code`.
    pub fn from_code(code: u8) -> Option<DrawPreset> {
        DrawPreset::ALL.get(usize::from(code)).copied()
    }
}

impl std::str::FromStr for DrawPreset {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        DrawPreset::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| {
                format!("unknown draw rules {name:?}: expected none, fmjd64, cbd, fpd or spanish")
            })
    }
}

/// Who must win within the limit: the side to move, its opponent, or both (rules that count
/// both sides' moves, and king against king).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strong {
    /// The side to move in the signature's view.
    Mover,
    /// The other side.
    Opponent,
    /// Both sides' moves count.
    Both,
}

/// Which materials a counter applies to. Materials are read from a [`Signature`] (the side to
/// move's view); `(kings, men)` pairs name the strong side's pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MaterialCond {
    /// Every material (a kings-only counter can only run once both sides have a king).
    Any {
        /// Not the three-kings-against-one material (Portuguese 2, Spanish 1).
        except_three_kings_v_king: bool,
    },
    /// Both sides have at least one king, and the board holds this many pieces.
    BothHaveKings {
        /// Fewest pieces on the board.
        min_pieces: u8,
        /// Most pieces on the board.
        max_pieces: u8,
    },
    /// The strong side has exactly one of these `(kings, men)` and the weak side a lone king.
    VsLoneKing {
        /// The strong side's material.
        strong: &'static [(u8, u8)],
    },
    /// The strong side has at least this many kings (and, if `no_men`, no men) against a lone
    /// king.
    KingsVsLoneKing {
        /// Fewest kings.
        min_kings: u8,
        /// The strong side has kings only.
        no_men: bool,
    },
    /// Each side has at most this many pieces and at least one king.
    EachSideAtMost {
        /// Most pieces per side.
        pieces: u8,
        /// Not the three-kings-against-one material.
        except_three_kings_v_king: bool,
    },
}

/// A position condition that starts a counter (RULES.md §5: "from the first position in which").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PositionCond {
    /// The weak side's lone king stands on the long diagonal.
    WeakKingOnLongDiagonal,
    /// A strong king stands on the long diagonal ("occupies the river").
    StrongKingOnLongDiagonal,
}

/// A counter's limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limit {
    /// The strong side must win within this many of its own moves.
    StrongMoves(u8),
    /// Drawn when this many plies have passed ("N moves each" is 2N plies).
    Plies(u16),
}

/// What happens when a counter reaches its limit (a setting only for Russian rule 4, the lone
/// king on the long diagonal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LimitOutcome {
    /// A draw: "win" means capture the lone king (RULES.md's reading).
    Draw,
    /// "Reach a winning position" (the rule text's wording): at the limit, a position the
    /// strong side wins in the pure game is not drawn; the count is over and play goes on under
    /// the other counters. Anywhere else the limit draws.
    PureValue,
}

/// The readings RULES.md marks **\[interpretation\]**, and the figures a user may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Interpretation {
    /// Russian rule 4: what reaching the limit means.
    pub r4_limit_outcome: LimitOutcome,
    /// Russian rule 1 needs the strong side to have kings only ("no men").
    pub r1_requires_no_men: bool,
    /// The Forçada and the Spanish three-kings rule apply to exactly three kings (not more).
    pub forcada_exactly_three_kings: bool,
    /// Leaving the river restarts the Forçada count (RULES.md: it does not).
    pub forcada_restart_on_leave: bool,
    /// If the river is occupied when the material arises, counting starts there.
    pub forcada_start_if_occupied: bool,
    /// Moves the Portuguese Forçada allows.
    pub forcada_moves: u8,
    /// Moves the Spanish three-kings rule allows (the seed says 13, a summary says 12).
    pub spanish_three_kings_moves: u8,
    /// The "moves without a man move" rules of Portugal and Spain exclude three kings against
    /// one.
    pub kings_rule_excludes_three_kings: bool,
}

impl Default for Interpretation {
    /// The readings of RULES.md.
    fn default() -> Self {
        Interpretation {
            r4_limit_outcome: LimitOutcome::Draw,
            r1_requires_no_men: true,
            forcada_exactly_three_kings: true,
            forcada_restart_on_leave: false,
            forcada_start_if_occupied: true,
            forcada_moves: 12,
            spanish_three_kings_moves: 13,
            kings_rule_excludes_three_kings: true,
        }
    }
}

/// A setting of [`Interpretation`] that could not be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("rule setting {setting:?}: {reason}")]
pub struct BadSetting {
    /// The `name=value` text given.
    pub setting: String,
    /// What is wrong with it, and what is accepted.
    pub reason: String,
}

/// The settings of [`Interpretation`] by name, with the values each takes: what
/// [`Interpretation::set`] accepts (`dtb --rule-setting name=value`).
pub const SETTINGS: &[(&str, &str)] = &[
    ("r4-limit-outcome", "draw | pure-value"),
    ("r1-requires-no-men", "true | false"),
    ("forcada-exactly-three-kings", "true | false"),
    ("forcada-restart-on-leave", "true | false"),
    ("forcada-start-if-occupied", "true | false"),
    ("forcada-moves", "moves, 1 to 60"),
    ("spanish-three-kings-moves", "moves, 1 to 60"),
    ("kings-rule-excludes-three-kings", "true | false"),
];

impl Interpretation {
    /// Changes one setting, given as `name=value` with a name of [`SETTINGS`].
    ///
    /// ```
    /// use dprobe::draw::{DrawPreset, Interpretation};
    /// use dprobe::DrawRules;
    ///
    /// let mut reading = Interpretation::default();
    /// reading.set("spanish-three-kings-moves=12").unwrap();
    /// assert_eq!(reading.spanish_three_kings_moves, 12);
    /// assert!(reading.set("spanish-three-kings-moves=0").is_err());
    /// assert!(reading.set("no-such-setting=1").is_err());
    /// // Other readings are other rules: their tables live in a directory of their own.
    /// let rules = DrawRules::new(DrawPreset::Spanish, reading);
    /// assert_ne!(rules.directory_name(), "spanish");
    /// ```
    ///
    /// # Errors
    ///
    /// [`BadSetting`], naming the setting and what it accepts.
    pub fn set(&mut self, setting: &str) -> Result<(), BadSetting> {
        let bad = |reason: String| BadSetting {
            setting: setting.to_string(),
            reason,
        };
        let (name, value) = setting
            .split_once('=')
            .map(|(n, v)| (n.trim(), v.trim()))
            .ok_or_else(|| bad("expected name=value, e.g. forcada-moves=12".into()))?;
        let no_such = || {
            let names: Vec<&str> = SETTINGS.iter().map(|(n, _)| *n).collect();
            bad(format!(
                "no such setting; the settings are {}",
                names.join(", ")
            ))
        };
        let accepted = SETTINGS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, a)| *a)
            .ok_or_else(no_such)?;
        let wrong = || bad(format!("{value:?} is not accepted; expected {accepted}"));
        let flag = || match value {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(wrong()),
        };
        let moves = || match value.parse::<u8>() {
            Ok(n @ 1..=60) => Ok(n),
            _ => Err(wrong()),
        };
        match name {
            "r4-limit-outcome" => {
                self.r4_limit_outcome = match value {
                    "draw" => LimitOutcome::Draw,
                    "pure-value" => LimitOutcome::PureValue,
                    _ => return Err(wrong()),
                }
            }
            "r1-requires-no-men" => self.r1_requires_no_men = flag()?,
            "forcada-exactly-three-kings" => self.forcada_exactly_three_kings = flag()?,
            "forcada-restart-on-leave" => self.forcada_restart_on_leave = flag()?,
            "forcada-start-if-occupied" => self.forcada_start_if_occupied = flag()?,
            "forcada-moves" => self.forcada_moves = moves()?,
            "spanish-three-kings-moves" => self.spanish_three_kings_moves = moves()?,
            "kings-rule-excludes-three-kings" => self.kings_rule_excludes_three_kings = flag()?,
            _ => return Err(no_such()),
        }
        Ok(())
    }
}

/// One counted rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DrawCounter {
    /// Stable name, as `--counts` and reports use it.
    pub id: &'static str,
    /// Where the rule comes from.
    pub rule: &'static str,
    /// The materials it applies to.
    pub material: MaterialCond,
    /// `None`: it starts where the material arises; otherwise in the first position of the
    /// material where this holds (and keeps running if it later stops holding, unless
    /// [`DrawRules::restarts_on_leave`] says otherwise).
    pub condition: Option<PositionCond>,
    /// A man move starts it again ("without a man move").
    pub resets_on_man_move: bool,
    /// Its limit.
    pub limit: Limit,
    /// What reaching the limit does.
    pub limit_outcome: LimitOutcome,
}

const THREE_KINGS_LONG_DIAGONAL: &[(u8, u8)] = &[(3, 0), (2, 1), (1, 2)];
const SMALL: &[(u8, u8)] = &[(2, 0), (1, 1)];
const KING: &[(u8, u8)] = &[(1, 0)];
const SMALL_OR_KING: &[(u8, u8)] = &[(2, 0), (1, 1), (1, 0)];

/// Whether the sides `(kings, men)` are three or more kings against a lone king.
const fn is_three_kings_v_king(a: (u8, u8), b: (u8, u8)) -> bool {
    (a.0 == 3 && a.1 == 0 && b.0 == 1 && b.1 == 0) || (b.0 == 3 && b.1 == 0 && a.0 == 1 && a.1 == 0)
}

impl MaterialCond {
    /// Whether the counter applies to `signature`, and if so which side is strong.
    #[inline]
    pub fn strong_side(&self, signature: &Signature) -> Option<Strong> {
        let mover = (signature.mover_kings, signature.mover_men);
        let opp = (signature.opp_kings, signature.opp_men);
        let lone = |side: (u8, u8)| side == (1, 0);
        #[inline(always)]
        fn one_sided(
            mover: (u8, u8),
            opp: (u8, u8),
            fits: impl Fn((u8, u8)) -> bool,
        ) -> Option<Strong> {
            if fits(mover) && opp == (1, 0) {
                Some(Strong::Mover)
            } else if fits(opp) && mover == (1, 0) {
                Some(Strong::Opponent)
            } else {
                None
            }
        }
        match *self {
            MaterialCond::Any {
                except_three_kings_v_king,
            } => (!(except_three_kings_v_king && is_three_kings_v_king(mover, opp)))
                .then_some(Strong::Both),
            MaterialCond::BothHaveKings {
                min_pieces,
                max_pieces,
            } => {
                let pieces = signature.pieces();
                (mover.0 > 0
                    && opp.0 > 0
                    && (u32::from(min_pieces)..=u32::from(max_pieces)).contains(&pieces))
                .then_some(Strong::Both)
            }
            MaterialCond::VsLoneKing { strong } => {
                if strong.contains(&(1, 0)) && lone(mover) && lone(opp) {
                    // A king against a king: both sides count.
                    return Some(Strong::Both);
                }
                one_sided(mover, opp, |side| strong.contains(&side))
            }
            MaterialCond::KingsVsLoneKing { min_kings, no_men } => {
                one_sided(mover, opp, |side: (u8, u8)| {
                    side.0 >= min_kings && (!no_men || side.1 == 0)
                })
            }
            MaterialCond::EachSideAtMost {
                pieces,
                except_three_kings_v_king,
            } => {
                let fits = |side: (u8, u8)| side.0 >= 1 && side.0 + side.1 <= pieces;
                (fits(mover)
                    && fits(opp)
                    && !(except_three_kings_v_king && is_three_kings_v_king(mover, opp)))
                .then_some(Strong::Both)
            }
        }
    }
}

impl DrawCounter {
    /// Its limit in plies since it started: the largest count a position before or at the limit
    /// has ("win within N moves": `2N`, whoever moved first).
    pub const fn limit_plies(&self) -> u16 {
        match self.limit {
            Limit::StrongMoves(n) => 2 * n as u16,
            Limit::Plies(plies) => plies,
        }
    }

    /// The plies the strong side has before the limit, counted from the counter's start:
    /// "win within N moves" leaves `2N − 1` plies when the strong side moves first (its N-th
    /// move is the last) and `2N` when the weak side does; "N moves each" is `2N` plies.
    pub const fn budget(&self, strong_to_move: bool) -> u16 {
        match self.limit {
            Limit::StrongMoves(n) => 2 * n as u16 - if strong_to_move { 1 } else { 0 },
            Limit::Plies(plies) => plies,
        }
    }
}

/// A set of counted rules: a preset read with a set of interpretations.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DrawRules {
    /// The federation's set.
    pub preset: DrawPreset,
    /// The readings used.
    pub interpretation: Interpretation,
    /// The counters, in the order the rules list them.
    pub counters: Vec<DrawCounter>,
}

impl DrawRules {
    /// The counters of `preset` under `interpretation`.
    pub fn new(preset: DrawPreset, interpretation: Interpretation) -> DrawRules {
        let i = interpretation;
        let forcada = |id, rule, moves| DrawCounter {
            id,
            rule,
            material: MaterialCond::KingsVsLoneKing {
                min_kings: 3,
                no_men: true,
            },
            condition: Some(PositionCond::StrongKingOnLongDiagonal),
            resets_on_man_move: false,
            limit: Limit::StrongMoves(moves),
            limit_outcome: LimitOutcome::Draw,
        };
        let kings_only = |id, rule, except| DrawCounter {
            id,
            rule,
            material: MaterialCond::Any {
                except_three_kings_v_king: except,
            },
            condition: None,
            resets_on_man_move: true,
            limit: Limit::Plies(40),
            limit_outcome: LimitOutcome::Draw,
        };
        let counters = match preset {
            DrawPreset::None => Vec::new(),
            DrawPreset::Fmjd64 => vec![
                DrawCounter {
                    id: "r1-three-kings",
                    rule: "FMJD-64 7.2.4",
                    material: MaterialCond::KingsVsLoneKing {
                        min_kings: 3,
                        no_men: i.r1_requires_no_men,
                    },
                    condition: None,
                    resets_on_man_move: false,
                    limit: Limit::StrongMoves(15),
                    limit_outcome: LimitOutcome::Draw,
                },
                DrawCounter {
                    id: "r2-kings-only",
                    rule: "FMJD-64 7.2.5",
                    material: MaterialCond::Any {
                        except_three_kings_v_king: false,
                    },
                    condition: None,
                    resets_on_man_move: true,
                    limit: Limit::Plies(30),
                    limit_outcome: LimitOutcome::Draw,
                },
                DrawCounter {
                    id: "r3-kings-4-5-pieces",
                    rule: "FMJD-64 7.2.6",
                    material: MaterialCond::BothHaveKings {
                        min_pieces: 4,
                        max_pieces: 5,
                    },
                    condition: None,
                    resets_on_man_move: false,
                    limit: Limit::Plies(60),
                    limit_outcome: LimitOutcome::Draw,
                },
                DrawCounter {
                    id: "r3-kings-6-7-pieces",
                    rule: "FMJD-64 7.2.6",
                    material: MaterialCond::BothHaveKings {
                        min_pieces: 6,
                        max_pieces: 7,
                    },
                    condition: None,
                    resets_on_man_move: false,
                    limit: Limit::Plies(120),
                    limit_outcome: LimitOutcome::Draw,
                },
                DrawCounter {
                    id: "r4-long-diagonal",
                    rule: "FMJD-64 7.2.7",
                    material: MaterialCond::VsLoneKing {
                        strong: THREE_KINGS_LONG_DIAGONAL,
                    },
                    condition: Some(PositionCond::WeakKingOnLongDiagonal),
                    resets_on_man_move: false,
                    limit: Limit::StrongMoves(5),
                    limit_outcome: i.r4_limit_outcome,
                },
                DrawCounter {
                    id: "r5-small",
                    rule: "FMJD-64 7.2.8",
                    material: MaterialCond::VsLoneKing { strong: SMALL },
                    condition: None,
                    resets_on_man_move: false,
                    limit: Limit::StrongMoves(5),
                    limit_outcome: LimitOutcome::Draw,
                },
                DrawCounter {
                    id: "r5-king-v-king",
                    rule: "FMJD-64 7.2.8",
                    material: MaterialCond::VsLoneKing { strong: KING },
                    condition: None,
                    resets_on_man_move: false,
                    limit: Limit::Plies(10),
                    limit_outcome: LimitOutcome::Draw,
                },
            ],
            DrawPreset::Cbd => vec![
                kings_only("b1-kings-only", "CBD art. 97b", false),
                DrawCounter {
                    id: "b2-small",
                    rule: "CBD art. 99",
                    material: MaterialCond::VsLoneKing {
                        strong: SMALL_OR_KING,
                    },
                    condition: None,
                    resets_on_man_move: false,
                    limit: Limit::Plies(10),
                    limit_outcome: LimitOutcome::Draw,
                },
                DrawCounter {
                    id: "b3-long-diagonal",
                    rule: "CBD art. 100",
                    material: MaterialCond::VsLoneKing {
                        strong: THREE_KINGS_LONG_DIAGONAL,
                    },
                    condition: Some(PositionCond::WeakKingOnLongDiagonal),
                    resets_on_man_move: false,
                    limit: Limit::Plies(10),
                    limit_outcome: LimitOutcome::Draw,
                },
            ],
            DrawPreset::Fpd => vec![
                forcada("p1-forcada", "FPD art. 3.8", i.forcada_moves),
                DrawCounter {
                    id: "p2-kings",
                    rule: "FPD art. 3.8",
                    material: MaterialCond::EachSideAtMost {
                        pieces: 4,
                        except_three_kings_v_king: i.kings_rule_excludes_three_kings,
                    },
                    condition: None,
                    resets_on_man_move: true,
                    limit: Limit::Plies(40),
                    limit_outcome: LimitOutcome::Draw,
                },
            ],
            DrawPreset::Spanish => vec![
                kings_only(
                    "s1-king-moves",
                    "Spanish seed 002",
                    i.kings_rule_excludes_three_kings,
                ),
                forcada(
                    "s2-three-kings",
                    "Spanish seed 002",
                    i.spanish_three_kings_moves,
                ),
            ],
        };
        let mut rules = DrawRules {
            preset,
            interpretation,
            counters,
        };
        if interpretation.forcada_exactly_three_kings {
            for counter in &mut rules.counters {
                if counter.condition == Some(PositionCond::StrongKingOnLongDiagonal) {
                    counter.material = MaterialCond::VsLoneKing { strong: &[(3, 0)] };
                }
            }
        }
        rules
    }

    /// A number that changes with any setting that changes values: stored in rule tables so
    /// that a table is never read under other rules.
    pub fn fingerprint(&self) -> u64 {
        let i = &self.interpretation;
        let bytes = [
            self.preset.code(),
            i.r4_limit_outcome as u8,
            u8::from(i.r1_requires_no_men),
            u8::from(i.forcada_exactly_three_kings),
            u8::from(i.forcada_restart_on_leave),
            u8::from(i.forcada_start_if_occupied),
            i.forcada_moves,
            i.spanish_three_kings_moves,
            u8::from(i.kings_rule_excludes_three_kings),
        ];
        xxhash_rust::xxh3::xxh3_64(&bytes)
    }

    /// The directory name of these rules' tables: the preset's name, followed by the
    /// fingerprint if the interpretation is not RULES.md's.
    pub fn directory_name(&self) -> String {
        if self.interpretation == Interpretation::default() {
            self.preset.name().to_string()
        } else {
            format!("{}-{:016x}", self.preset.name(), self.fingerprint())
        }
    }

    /// Whether a counter started by `condition` starts where its material arises if the
    /// condition already holds there. Only the Forçada's (a strong king on the river) has a
    /// setting: with `forcada_start_if_occupied` false it starts only after a move that leaves
    /// the river occupied.
    pub fn starts_if_holding(&self, condition: PositionCond) -> bool {
        condition != PositionCond::StrongKingOnLongDiagonal
            || self.interpretation.forcada_start_if_occupied
    }

    /// Whether a counter started by `condition` stops, to wait for the condition again, after a
    /// move that leaves the condition false. Only the Forçada's has a setting:
    /// `forcada_restart_on_leave` (RULES.md: it keeps running). The move that leaves is counted
    /// first, so if it was the last one allowed the game is drawn.
    pub fn restarts_on_leave(&self, condition: PositionCond) -> bool {
        condition == PositionCond::StrongKingOnLongDiagonal
            && self.interpretation.forcada_restart_on_leave
    }

    /// The counter of a position of `signature` that its pure result sets aside: one read with
    /// [`LimitOutcome::PureValue`], where `pure` (the mover's pure result) is a win for its
    /// strong side. Such a counter never decides the position: at its limit the position is still
    /// won for the strong side in the pure game (the loser's moves keep it so, and the winner only
    /// wins by moves that do), so the count ends there and play goes on without it.
    pub fn set_aside(&self, signature: &Signature, pure: crate::Wdl) -> Option<&DrawCounter> {
        self.active(signature).find_map(|(counter, strong)| {
            let strong_wins = match strong {
                Strong::Mover => pure == crate::Wdl::Win,
                Strong::Opponent => pure == crate::Wdl::Loss,
                Strong::Both => false,
            };
            (counter.limit_outcome == LimitOutcome::PureValue && strong_wins).then_some(counter)
        })
    }

    /// These rules without the counters read with [`LimitOutcome::PureValue`]: the rules of the
    /// positions whose pure winner is such a counter's strong side, or whose count has passed
    /// its limit.
    pub fn without_pure_value_limits(&self) -> DrawRules {
        DrawRules {
            counters: self
                .counters
                .iter()
                .filter(|c| c.limit_outcome != LimitOutcome::PureValue)
                .copied()
                .collect(),
            ..self.clone()
        }
    }

    /// These rules with only counter `k` kept: what that rule changes by itself. Their
    /// fingerprint and directory name stay those of the whole set, so tables solved under them
    /// must never be written as tables of these rules (rule table files keep their results in
    /// sections of their own, for statistics).
    ///
    /// # Panics
    ///
    /// If there is no counter `k`.
    pub fn only_counter(&self, k: usize) -> DrawRules {
        DrawRules {
            counters: vec![self.counters[k]],
            ..self.clone()
        }
    }

    /// The counters that apply to a material, each with its strong side.
    pub fn active(&self, signature: &Signature) -> impl Iterator<Item = (&DrawCounter, Strong)> {
        let signature = *signature;
        self.counters
            .iter()
            .filter_map(move |c| c.material.strong_side(&signature).map(|s| (c, s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_setting_changes_the_rules() {
        for &(name, accepted) in SETTINGS {
            // A value other than RULES.md's: the other flag, or another number.
            let defaults = DrawRules::new(DrawPreset::Fpd, Interpretation::default());
            let value = match accepted {
                "true | false" => {
                    let mut probe = Interpretation::default();
                    probe.set(&format!("{name}=true")).unwrap();
                    if probe == Interpretation::default() {
                        "false"
                    } else {
                        "true"
                    }
                }
                "draw | pure-value" => "pure-value",
                _ => "7",
            };
            let mut reading = Interpretation::default();
            reading.set(&format!("{name}={value}")).unwrap();
            assert_ne!(reading, Interpretation::default(), "{name}={value}");
            let rules = DrawRules::new(DrawPreset::Fpd, reading);
            assert_ne!(
                rules.fingerprint(),
                defaults.fingerprint(),
                "{name}={value}"
            );
            assert!(reading.set(&format!("{name}=maybe")).is_err());
        }
    }

    fn ids(rules: &DrawRules, signature: &str) -> Vec<(&'static str, Strong)> {
        rules
            .active(&signature.parse().unwrap())
            .map(|(c, s)| (c.id, s))
            .collect()
    }

    #[test]
    fn russian_counters_by_material() {
        let rules = DrawRules::new(DrawPreset::Fmjd64, Interpretation::default());
        use Strong::*;
        assert_eq!(
            ids(&rules, "KKKvK"),
            [
                ("r1-three-kings", Mover),
                ("r2-kings-only", Both),
                ("r3-kings-4-5-pieces", Both),
                ("r4-long-diagonal", Mover)
            ]
        );
        assert_eq!(
            ids(&rules, "KvKKK")[0],
            ("r1-three-kings", Opponent),
            "the strong side may be the one not to move"
        );
        assert_eq!(
            ids(&rules, "KMvK"),
            [("r2-kings-only", Both), ("r5-small", Mover)],
            "three pieces: the 4-5 piece rule does not apply"
        );
        assert_eq!(
            ids(&rules, "KvK"),
            [("r2-kings-only", Both), ("r5-king-v-king", Both)]
        );
        assert_eq!(
            ids(&rules, "KKKKvKK"),
            [("r2-kings-only", Both), ("r3-kings-6-7-pieces", Both)]
        );
        // Three kings and a man against a king: rule 1 needs kings only.
        assert_eq!(
            ids(&rules, "KKKMvK"),
            [("r2-kings-only", Both), ("r3-kings-4-5-pieces", Both)]
        );
        let loose = DrawRules::new(
            DrawPreset::Fmjd64,
            Interpretation {
                r1_requires_no_men: false,
                ..Interpretation::default()
            },
        );
        assert_eq!(ids(&loose, "KKKMvK")[0], ("r1-three-kings", Mover));
    }

    #[test]
    fn limits_in_plies() {
        let rules = DrawRules::new(DrawPreset::Fmjd64, Interpretation::default());
        let budget = |id: &str, strong_to_move| {
            rules
                .counters
                .iter()
                .find(|c| c.id == id)
                .unwrap()
                .budget(strong_to_move)
        };
        // 15 moves of the strong side: its 15th move is ply 29 if it moves first.
        assert_eq!(budget("r1-three-kings", true), 29);
        assert_eq!(budget("r1-three-kings", false), 30);
        assert_eq!(budget("r2-kings-only", true), 30);
        assert_eq!(budget("r3-kings-6-7-pieces", false), 120);
        assert_eq!(budget("r4-long-diagonal", true), 9);
        assert_eq!(budget("r5-king-v-king", true), 10);
    }

    #[test]
    fn brazilian_portuguese_and_spanish_counters() {
        use Strong::*;
        let cbd = DrawRules::new(DrawPreset::Cbd, Interpretation::default());
        assert_eq!(
            ids(&cbd, "KKMvK"),
            [("b1-kings-only", Both), ("b3-long-diagonal", Mover)]
        );
        assert_eq!(
            ids(&cbd, "KvK"),
            [("b1-kings-only", Both), ("b2-small", Both)]
        );

        let fpd = DrawRules::new(DrawPreset::Fpd, Interpretation::default());
        assert_eq!(ids(&fpd, "KKKvK"), [("p1-forcada", Mover)]);
        assert_eq!(
            ids(&fpd, "KKKKvK"),
            [("p2-kings", Both)],
            "four kings: not the Forçada"
        );
        assert_eq!(
            ids(&fpd, "KKKKKvK"),
            [],
            "five pieces on one side: neither rule"
        );
        assert_eq!(ids(&fpd, "KKMvKM"), [("p2-kings", Both)]);
        assert_eq!(ids(&fpd, "MMvKM"), [], "a side without a king");
        let forcada = fpd.counters[0];
        assert_eq!(
            forcada.condition,
            Some(PositionCond::StrongKingOnLongDiagonal)
        );
        // The count starts after the occupying move, with the weak side to move: 24 plies.
        assert_eq!(forcada.budget(false), 24);

        let spanish = DrawRules::new(DrawPreset::Spanish, Interpretation::default());
        assert_eq!(ids(&spanish, "KvKKK"), [("s2-three-kings", Opponent)]);
        assert_eq!(spanish.counters[1].budget(true), 25);
        let twelve = DrawRules::new(
            DrawPreset::Spanish,
            Interpretation {
                spanish_three_kings_moves: 12,
                kings_rule_excludes_three_kings: false,
                ..Interpretation::default()
            },
        );
        assert_eq!(twelve.counters[1].budget(true), 23);
        assert_eq!(ids(&twelve, "KKKvK").len(), 2);
    }
}
