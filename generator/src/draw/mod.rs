//! Values under the federations' counted draw rules (`docs/DRAW_RULES.md`): the solver, the
//! writer of `.rules` files, the build of a set after the pure tables, the independent
//! verifier, and the statistics `dtb stats` reports.

pub mod build;
pub mod results;
pub mod solve;
pub mod stairs;
pub mod stats;
pub mod tables;
pub mod verify;
pub mod write;
