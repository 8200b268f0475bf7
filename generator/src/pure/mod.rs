//! The pure game values (a game that never ends is a draw): the retrograde solver, the raw
//! working store and the tables read from it (or rebuilt from the published files), the writer of the published `.wdl` and `.dtw`
//! files, the build of a set in dependency order, the independent verifier, and the facts mined
//! from the tables (longest wins, mutual zugzwangs).

mod buckets;
pub mod build;
mod exits;
pub mod find;
pub mod parts;
mod slices;
mod slot;
pub mod solve;
pub mod store;
pub mod tableset;
pub mod units;
pub mod unpack;
pub mod verify;
pub mod write;
