//! The federations' counted draw rules (RULES.md §5): the rules as data ([`DrawRules`], each
//! rule a named [`DrawCounter`]), and the state a value under them depends on ([`DrawState`]:
//! the family and the budgets left, in plies), reduced from a game's running counts.
//!
//! How values under these rules are computed and stored is in `docs/DRAW_RULES.md`.

mod counters;
mod counts;
mod state;

pub use counters::{
    BadSetting, DrawCounter, DrawPreset, DrawRules, Interpretation, Limit, LimitOutcome,
    MaterialCond, PositionCond, Strong, SETTINGS,
};
pub use counts::{
    counts_after, deciding_state, state_from_counts, CountsError, DrawCounts, MAX_COUNTERS,
};
pub(crate) use counts::{deciding_state_of, MaterialCounters};
pub use state::{
    ConditionShape, DrawState, DrawWdl, MaterialShape, PlaneKind, UnsupportedDrawRules, MAX_STORED,
    NEVER,
};
