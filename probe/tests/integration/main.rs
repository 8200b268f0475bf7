//! The probe crate's integration tests, in one binary (one link instead of one per file): the
//! rules and notation against hand-made positions and reference perft counts, property tests of
//! the move generator, and the probe against tables the generator builds.

mod allocations;
mod cache;
mod notation;
mod perft;
mod properties;
mod rules;
mod tablebase;
