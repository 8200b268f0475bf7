//! The tablebase generator: retrograde solvers, table files, build scheduling and independent
//! verification, for the pure game values ([`pure`]) and for the values under the counted draw
//! rules ([`draw`]). The `dtb` program is a thin command line over this library.

pub mod draw;
mod error;
pub mod progress;
pub mod pure;

pub use error::Error;
