//! The generator's one error type: what stops a build, a check or a statistics run.

use std::io;
use std::path::PathBuf;

use dprobe::draw::UnsupportedDrawRules;
use dprobe::index::Signature;
use dprobe::ProbeError;

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A file is not a complete, intact table of the expected kind.
    #[error("{path}: {reason}; delete it and run `dtb generate` again to rebuild it")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A table needed is not there.
    #[error("missing table {signature} ({path}); run `dtb generate` with enough pieces first")]
    Missing {
        /// The table's signature.
        signature: Signature,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// A published file of a built table is not there.
    #[error("missing {path}; run `dtb generate` again to write it")]
    MissingPublished {
        /// Where it should be.
        path: PathBuf,
    },
    /// A published file holds a table other than the one its name says.
    #[error("{path}: holds another table")]
    ForeignPublished {
        /// The file.
        path: PathBuf,
    },
    /// A published file holds, at a position the probe reads, another value than the raw
    /// working file it was written from.
    #[error(
        "{path}: position {index} does not hold the raw table's value {value:?}; run `dtb generate` again after deleting it"
    )]
    WrongPublished {
        /// The file.
        path: PathBuf,
        /// The first position that disagrees.
        index: u64,
        /// The raw file's value there.
        value: Option<dprobe::Value>,
    },
    /// A unit of a build plan reads a table whose unit has not run yet.
    #[error(
        "unit {unit} reads table {table} ({path}), which is not built yet: run its unit first (`dtb plan` gives the order)"
    )]
    UnitNotReady {
        /// The unit asked for.
        unit: String,
        /// The table it lacks.
        table: Signature,
        /// Where that table's published file was looked for.
        path: PathBuf,
    },
    /// A part of a pair built in parts reads the part file of the level above, not written yet.
    #[error(
        "unit {unit} reads the part of {pair} that solves level {level} ({folder}/{pair}.levels-{level}-….part), which is not built yet: run its unit first (`dtb plan` gives the order)"
    )]
    PartNotReady {
        /// The unit asked for.
        unit: String,
        /// The pair built in parts.
        pair: Signature,
        /// The lowest level of the part file it lacks.
        level: usize,
        /// The folder the part file was looked for in.
        folder: PathBuf,
    },
    /// A unit id that the build plan does not have.
    #[error("no unit {unit} in the plan up to {pieces} pieces; `dtb plan` lists the units")]
    UnknownUnit {
        /// The id asked for.
        unit: String,
        /// The plan's piece count.
        pieces: u32,
    },
    /// A build asked for something this version cannot do: a table too large for the index,
    /// or a combination of draw rules the draw-rule solver does not implement.
    #[error("{0}")]
    Unsupported(String),
    /// The draw rules cannot be represented in draw-rule tables.
    #[error(transparent)]
    UnsupportedDrawRules(#[from] UnsupportedDrawRules),
    /// A table contradicts itself or the tables it was built from, or the solver's own
    /// bookkeeping failed: a damaged file or a bug, which `dtb verify` helps to tell apart.
    #[error("{0}")]
    Invariant(String),
    /// A published file could not be read.
    #[error(transparent)]
    Probe(#[from] ProbeError),
}

/// Wraps an I/O error with the file it concerns, for `map_err`.
pub(crate) fn io_error(path: &std::path::Path) -> impl FnOnce(io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl From<dprobe::CorruptedTable> for Error {
    fn from(corrupted: dprobe::CorruptedTable) -> Error {
        Error::Probe(ProbeError::Corrupted(corrupted))
    }
}
