//! The tablebase generator: retrograde solver, build scheduling, table files and verification.
//! The `dtb` program is a thin command line over this library.

pub mod compress;
pub mod generate;
pub mod progress;
pub mod rule_files;
pub mod rule_solve;
pub mod rule_stats;
pub mod rule_verify;
pub mod solve;
pub mod store;
pub mod tableset;
pub mod verify;
