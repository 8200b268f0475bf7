//! The generator's integration tests, in one binary (one link instead of one per file): the
//! solvers against brute force, the manifest, the `dtb` program, sets of published files, builds cut into units, the explorer's server,
//! endgame theory, and the draw-rule tables' exactness and verification.

mod bruteforce;
mod cli;
mod draw_rules_bruteforce;
mod draw_rules_exact;
mod explorer;
#[path = "support/full_state.rs"]
mod full_state;
mod manifest;
mod published;
mod rule_verify;
mod theory;
mod units;
