//! The move rules as data and everything that plays by them: the board's geometry, positions
//! and moves, legal move generation and perft.
//!
//! A [`Variant`] holds its [`MoveRules`] (which way men capture, which captures take precedence,
//! what a man crowned during a capture does), its notation and its draw rules; move generation
//! reads the move rules in one place ([`legal_moves`]). Positions are kept from the side to
//! move's view ([`Board`], the mover always moving "up"), so one generator serves both colours.

mod board;
pub mod geometry;
mod movegen;
mod perft;
mod variant;

pub use board::{Board, Color, Move, Position};
pub(crate) use movegen::squares;
pub use movegen::{
    capture_moves, count_legal_moves, count_quiet_moves, has_capture, king_moves_unless_capture,
    legal_moves, move_paths, quiet_moves,
};
pub use perft::Perft;
pub use variant::{
    CapturePrecedence, MoveRules, Notation, Numbering, PromotionInCapture, RuleSetId,
    UnknownVariant, Variant,
};
