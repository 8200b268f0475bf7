//! The pure game values (a game that never ends is a draw): the retrograde solver, the raw
//! working store and the tables read from it (or rebuilt from the published files), the writer of the published `.wdl` and `.dtw`
//! files, the build of a set in dependency order, and the independent verifier.

mod buckets;
pub mod build;
mod exits;
mod slices;
pub mod solve;
pub mod store;
pub mod tableset;
pub mod units;
pub mod unpack;
pub mod verify;
pub mod write;
