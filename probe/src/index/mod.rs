//! Material signatures and the dense position index: a bijection between the positions of a
//! [`Signature`] and `0..size`, with no holes, that the solver and the table files share.

mod dense;
mod signature;

pub use dense::{binomial, positions_with_pieces, MenRank, MenRun, OneKingMoving, TableIndex};
pub use signature::{BadSignature, Signature};
