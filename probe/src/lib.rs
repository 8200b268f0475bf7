//! Rules, notation, move generation and endgame tablebase probing for 8×8 draughts with flying
//! kings — Russian, Brazilian, Portuguese and Spanish.
//!
//! A [`Variant`] is a value holding its rules; [`Position`] is a position as players see it and
//! [`Board`] the same position seen from the side to move, which is what move generation,
//! indexing and tables use. A [`Tablebase`] probes the compressed table files that `dtb
//! generate` writes (format: `docs/FORMAT.md`): win/draw/loss, distance to the end of the game,
//! the best move and the principal variation.
//!
//! ```
//! use dprobe::{Position, Variant};
//! let variant = Variant::RUSSIAN;
//! let pos = Position::from_fen("W:Wc3:Bd4,f6", &variant).unwrap();
//! let moves = pos.legal_moves(&variant);
//! assert_eq!(moves.len(), 1);
//! assert_eq!(pos.move_to_string(&variant, &moves[0]), "c3:e5:g7");
//! ```

mod board;
mod cache;
mod draw_rules;
mod error;
mod format;
pub mod geometry;
mod index;
mod movegen;
mod notation;
mod perft;
mod rule_file;
mod rule_state;
mod signature;
mod tablebase;
mod value;
mod variant;

pub use board::{Board, Color, Move, Position};
pub use draw_rules::{
    BadSetting, DrawCounter, DrawPreset, DrawRules, Interpretation, Limit, LimitOutcome,
    MaterialCond, PositionCond, Strong, SETTINGS,
};
pub use error::{CorruptedTable, Corruption, ProbeError, TableKind};
pub use format::{TableFile, TableHeader};
pub use index::{binomial, positions_with_pieces, MenRank, MenRun, TableIndex};
pub use movegen::{
    capture_moves, count_legal_moves, count_quiet_moves, has_capture, legal_moves, move_paths,
};
pub use notation::{algebraic, FenError, MoveError};
pub use perft::Perft;
pub use rule_file::{
    RuleFile, SectionRole, RULE_FORMAT_VERSION, RULE_HEADER_LEN, RULE_MAGIC, RULE_SECTION_LEN,
};
pub use rule_state::{
    counts_after, deciding_state, state_from_counts, ConditionShape, CountsError, MaterialShape,
    PlaneKind, RuleState, RuleWdl, UnsupportedRules, NEVER,
};
pub use signature::{BadSignature, Signature};
pub use tablebase::{RuleMove, RuleProbe, Tablebase};
pub use value::{Value, Wdl};
pub use variant::{
    CapturePrecedence, MoveRules, Notation, Numbering, PromotionInCapture, RuleSetId,
    UnknownVariant, Variant,
};
