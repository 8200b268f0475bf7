//! Variants as data: move rules, notation and draw rules, one value per variant.
//!
//! Move generation reads [`MoveRules`] and nothing else about a variant; notation reads
//! [`Notation`]. Adding a variant means adding a value here, not a branch elsewhere.

use std::fmt;
use std::str::FromStr;

use crate::draw::{DrawPreset, DrawRules, Interpretation};

/// Which captures a player may choose among (RULES.md §2, "choice between captures").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CapturePrecedence {
    /// Any legal capture sequence, finished to its end.
    Free,
    /// Must capture the most pieces (a king counts as one); ties are free.
    MostPieces,
    /// Most pieces; then, among those, the most kings; ties are free.
    MostPiecesThenKings,
}

/// What happens when a man reaches the far row in the middle of a capture (RULES.md §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PromotionInCapture {
    /// It is crowned at once and goes on capturing as a king in the same move (Russian).
    CrownAndContinue,
    /// If it can go on capturing as a man it must, and stays a man; it is crowned only if the
    /// move ends on the far row (Brazilian).
    PassThroughAsMan,
    /// The move ends there and the man is crowned (Portuguese, Spanish).
    Stop,
}

/// Identifies a set of move rules. Tables hold pure game values, which depend only on the move
/// rules, so they are keyed by this id rather than by a variant's name (RULES.md §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleSetId {
    /// Russian rules (FMJD-64).
    Russian,
    /// Brazilian rules (CBD).
    Brazilian,
    /// Portuguese and Spanish rules, which move identically.
    Iberian,
}

impl RuleSetId {
    /// The number that stands for the rule set in table files.
    pub const fn code(self) -> u8 {
        match self {
            RuleSetId::Russian => 1,
            RuleSetId::Brazilian => 2,
            RuleSetId::Iberian => 3,
        }
    }

    /// The rule set a table file's number stands for.
    pub const fn from_code(code: u8) -> Option<RuleSetId> {
        match code {
            1 => Some(RuleSetId::Russian),
            2 => Some(RuleSetId::Brazilian),
            3 => Some(RuleSetId::Iberian),
            _ => None,
        }
    }

    /// The short name used in file names and reports.
    pub const fn name(self) -> &'static str {
        match self {
            RuleSetId::Russian => "russian",
            RuleSetId::Brazilian => "brazilian",
            RuleSetId::Iberian => "iberian",
        }
    }
}

/// How pieces move and capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MoveRules {
    /// Which tables these rules share.
    pub id: RuleSetId,
    /// Whether men capture backward as well as forward.
    pub men_capture_backward: bool,
    /// Which capture sequences a player may choose.
    pub precedence: CapturePrecedence,
    /// A man reaching the far row during a capture.
    pub promotion_in_capture: PromotionInCapture,
}

/// How squares are numbered (RULES.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Numbering {
    /// Square 1 is b8, left to right as White sees it, top to bottom (Russian, Brazilian).
    FromBlackLeft,
    /// Square 1 is White's bottom-right corner, mirrored onto the internal geometry as a1;
    /// numbered along the rows from White's side (Portuguese, Spanish).
    FromWhiteRight,
}

/// How a variant writes squares, moves and positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Notation {
    /// Numbering used in position strings and numeric moves.
    pub numbering: Numbering,
    /// Moves are written with algebraic squares (`c3-d4`) rather than numbers.
    pub algebraic_moves: bool,
    /// Whether position strings may also use algebraic squares (`Wa1,c1`).
    pub algebraic_fen: bool,
    /// Separator printed between the squares of a capture (`:` or `x`).
    pub capture_separator: char,
    /// The PDN `GameType` number.
    pub pdn_game_type: u8,
}

/// One of the four variants: a value holding its rules and notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    /// Lower-case name, as typed on the command line.
    pub name: &'static str,
    /// How pieces move and capture.
    pub moves: MoveRules,
    /// How squares, moves and positions are written.
    pub notation: Notation,
    /// The federation's counted draw rules (RULES.md §5).
    pub draw_preset: DrawPreset,
}

const IBERIAN_MOVES: MoveRules = MoveRules {
    id: RuleSetId::Iberian,
    men_capture_backward: false,
    precedence: CapturePrecedence::MostPiecesThenKings,
    promotion_in_capture: PromotionInCapture::Stop,
};

impl Variant {
    /// Russian draughts (FMJD-64 rules).
    pub const RUSSIAN: Variant = Variant {
        name: "russian",
        moves: MoveRules {
            id: RuleSetId::Russian,
            men_capture_backward: true,
            precedence: CapturePrecedence::Free,
            promotion_in_capture: PromotionInCapture::CrownAndContinue,
        },
        notation: Notation {
            numbering: Numbering::FromBlackLeft,
            algebraic_moves: true,
            algebraic_fen: true,
            capture_separator: ':',
            pdn_game_type: 25,
        },
        draw_preset: DrawPreset::Fmjd64,
    };

    /// Brazilian draughts (CBD rules).
    pub const BRAZILIAN: Variant = Variant {
        name: "brazilian",
        moves: MoveRules {
            id: RuleSetId::Brazilian,
            men_capture_backward: true,
            precedence: CapturePrecedence::MostPieces,
            promotion_in_capture: PromotionInCapture::PassThroughAsMan,
        },
        notation: Notation {
            numbering: Numbering::FromBlackLeft,
            algebraic_moves: false,
            algebraic_fen: false,
            capture_separator: ':',
            pdn_game_type: 26,
        },
        draw_preset: DrawPreset::Cbd,
    };

    /// Portuguese draughts (FPD rules).
    pub const PORTUGUESE: Variant = Variant {
        name: "portuguese",
        moves: IBERIAN_MOVES,
        notation: Notation {
            numbering: Numbering::FromWhiteRight,
            algebraic_moves: false,
            algebraic_fen: false,
            capture_separator: 'x',
            pdn_game_type: 28,
        },
        draw_preset: DrawPreset::Fpd,
    };

    /// Spanish draughts.
    pub const SPANISH: Variant = Variant {
        name: "spanish",
        moves: IBERIAN_MOVES,
        notation: Notation {
            numbering: Numbering::FromWhiteRight,
            algebraic_moves: false,
            algebraic_fen: false,
            capture_separator: 'x',
            pdn_game_type: 24,
        },
        draw_preset: DrawPreset::Spanish,
    };

    /// Every variant, in a fixed order.
    pub const ALL: [Variant; 4] = [
        Variant::RUSSIAN,
        Variant::BRAZILIAN,
        Variant::PORTUGUESE,
        Variant::SPANISH,
    ];
}

impl Variant {
    /// The variant's counted draw rules, read as RULES.md reads them.
    pub fn draw_rules(&self) -> DrawRules {
        DrawRules::new(self.draw_preset, Interpretation::default())
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// The error for a variant name that is not one of the four.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant {0:?}: expected one of russian, brazilian, portuguese, spanish")]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        Variant::ALL
            .into_iter()
            .find(|v| v.name == lower)
            .ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back() {
        for v in Variant::ALL {
            assert_eq!(v.name.parse::<Variant>(), Ok(v));
        }
        assert!("checkers".parse::<Variant>().is_err());
    }

    #[test]
    fn portuguese_and_spanish_share_move_rules() {
        assert_eq!(Variant::PORTUGUESE.moves, Variant::SPANISH.moves);
        assert_ne!(Variant::RUSSIAN.moves.id, Variant::BRAZILIAN.moves.id);
    }
}
