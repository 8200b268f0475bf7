//! Endgame tablebase probing, rules, notation and move generation for 8×8 draughts with flying
//! kings — Russian, Brazilian, Portuguese and Spanish.
//!
//! An engine opens the tables that `dtb generate` wrote, then asks for the value of a position
//! (win, draw or loss; the distance in plies to the end of the game) or the best move:
//!
//! ```no_run
//! use dprobe::{Position, Tablebase, Value, Variant, Wdl};
//!
//! let mut tables = Tablebase::new(Variant::RUSSIAN);
//! tables.add_directory("tables")?;
//! let position = Position::from_fen("W:WK1,K2,K3:BK32", &Variant::RUSSIAN)?;
//! assert_eq!(tables.probe_wdl(&position)?, Wdl::Win); // in search
//! if let Some((best, Value::Win(plies))) = tables.best_move(&position)? {
//!     // at the root
//!     println!("{} wins in {plies} plies", position.move_to_string(&Variant::RUSSIAN, &best));
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Values come in two kinds: the *pure* game value ([`Wdl`], [`Value`]: a game that never ends
//! is a draw) and the value under the variant's counted draw rules ([`DrawWdl`], probed with
//! [`Tablebase::probe_draw`] and the game's running counts).
//!
//! The crate root holds what an engine calls. The layers below it are public too, each in its
//! module: [`rules`] (move rules as data, [`rules::Board`], move generation, perft),
//! [`notation`] (position strings and moves in each variant's notation), [`index`] (material
//! signatures and the dense position index), [`format`](mod@format) (the table files), [`draw`] (the
//! counted draw rules and the state they reduce to).
//!
//! Positions as players write them (PDN FEN, moves) are parsed without any table:
//!
//! ```
//! use dprobe::{Position, Variant};
//! let variant = Variant::RUSSIAN;
//! let pos = Position::from_fen("W:Wc3:Bd4,f6", &variant).unwrap();
//! let moves = pos.legal_moves(&variant);
//! assert_eq!(moves.len(), 1);
//! assert_eq!(pos.move_to_string(&variant, &moves[0]), "c3:e5:g7");
//! ```

#![warn(missing_docs)]

pub mod draw;
mod error;
pub mod format;
pub mod index;
pub mod notation;
pub mod rules;
mod tablebase;
mod value;

pub use draw::{DrawCounts, DrawRules, DrawWdl};
pub use error::{CorruptedTable, Corruption, ProbeError};
pub use notation::{FenError, MoveError};
pub use rules::{Color, Move, Position, Variant};
pub use tablebase::{DrawMove, DrawProbe, Tablebase};
pub use value::{Value, Wdl};
