//! Errors of probing: what the caller did or lacks ([`ProbeError`]) and what is wrong with a
//! file ([`CorruptedTable`], [`Corruption`]).

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use crate::format::TableKind;
use crate::index::Signature;

/// Why a probe failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ProbeError {
    /// The position needs a table that none of the added directories holds.
    #[error(
        "missing table {signature}.{kind} ({rules} rules); build it with `dtb generate --pieces \
         {pieces}` and add its directory"
    )]
    MissingTable {
        /// The signature of the table, from the mover's view.
        signature: Signature,
        /// Which file.
        kind: TableKind,
        /// The rule set (directory name) looked in.
        rules: &'static str,
        /// Its number of pieces.
        pieces: u32,
    },
    /// The position has more pieces than any table added.
    #[error("the position has {pieces} pieces; the tables added go up to {max}")]
    TooManyPieces {
        /// Pieces on the board.
        pieces: u32,
        /// The most pieces of any table added.
        max: u32,
    },
    /// The position cannot occur (see [`crate::rules::Board::is_valid`]).
    #[error("invalid position: {0}")]
    InvalidPosition(&'static str),
    /// The position needs a rule table that none of the added directories holds.
    #[error(
        "missing rule table {signature} ({rules} rules, {draw_rules} draw rules); build it with \
         `dtb generate --pieces {pieces}` and add its directory"
    )]
    MissingDrawTable {
        /// The signature of the table, from the mover's view.
        signature: Signature,
        /// The rule set.
        rules: &'static str,
        /// The draw rules' directory name.
        draw_rules: String,
        /// Its number of pieces.
        pieces: u32,
    },
    /// A rule table built under other draw rules (another preset or interpretation).
    #[error(
        "{path}: built under other draw rules (fingerprint {found:016x}, expected {expected:016x}); \
         build the tables for these rules with `dtb generate`"
    )]
    DrawRulesMismatch {
        /// The file.
        path: PathBuf,
        /// The fingerprint in the file.
        found: u64,
        /// The fingerprint of the rules probed with.
        expected: u64,
    },
    /// A cache-only probe ([`crate::Tablebase::probe_wdl_cached`]) needs a block that is not
    /// in memory: probe with [`crate::Tablebase::probe_wdl`], or
    /// load the tables first with [`crate::Tablebase::preload`].
    #[error(
        "not in the cache: the position needs a block that is not in memory (a cache-only probe \
         reads no file); probe it with probe_wdl or load the tables with preload"
    )]
    NotInCache,
    /// Running counts that do not fit the position.
    #[error(transparent)]
    Counts(#[from] crate::draw::CountsError),
    /// Draw rules the rule tables do not implement.
    #[error(transparent)]
    UnsupportedDrawRules(#[from] crate::draw::UnsupportedDrawRules),
    /// A table file is damaged, truncated or not the expected table.
    #[error(transparent)]
    Corrupted(#[from] CorruptedTable),
    /// Reading a file or directory failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error (shared: a failure to open is remembered).
        source: Arc<io::Error>,
    },
}

/// A table file that cannot be used, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{path}: {reason}; if it is one of your tables, delete it and run `dtb generate` to rebuild it"
)]
pub struct CorruptedTable {
    /// The file.
    pub path: PathBuf,
    /// What is wrong.
    pub reason: Corruption,
}

/// What is wrong with a table file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Corruption {
    /// The file has no bytes.
    #[error("the file is empty")]
    Empty,
    /// The file is shorter than its header says.
    #[error("truncated: {len} bytes, its header needs {needed}")]
    Truncated {
        /// The file's length.
        len: u64,
        /// The length its header implies.
        needed: u64,
    },
    /// The file is longer than its header says.
    #[error("{len} bytes, its header says {expected}")]
    TrailingBytes {
        /// The file's length.
        len: u64,
        /// The length its header implies.
        expected: u64,
    },
    /// Not a table file at all.
    #[error("not a dtb table file (bad magic)")]
    BadMagic,
    /// A format version this reader does not know.
    #[error("format version {0}, which this reader does not know; read it with the dtb version that wrote it, or regenerate the table")]
    UnsupportedVersion(u16),
    /// The header's checksum does not match.
    #[error("header checksum mismatch")]
    HeaderChecksum,
    /// A header field has an impossible value.
    #[error("bad header: {0}")]
    BadHeader(&'static str),
    /// A table of another rule set.
    #[error("a table of the {found} rule set, expected {expected}")]
    ForeignRuleSet {
        /// The rule set in the header.
        found: &'static str,
        /// The rule set expected.
        expected: &'static str,
    },
    /// A table of another signature.
    #[error("the table of {found}, expected {expected}")]
    ForeignSignature {
        /// The signature in the header.
        found: Signature,
        /// The signature expected.
        expected: Signature,
    },
    /// A file of the other kind.
    #[error("a .{found} file, expected .{expected}")]
    ForeignKind {
        /// The kind in the header.
        found: TableKind,
        /// The kind expected.
        expected: TableKind,
    },
    /// The block table's checksum does not match.
    #[error("block offset table checksum mismatch")]
    BlockTableChecksum,
    /// The block table's offsets are not in order or do not fit the file.
    #[error("block offset table out of order at block {0}")]
    BlockTableOrder(u32),
    /// A block's checksum does not match.
    #[error("block {0}: checksum mismatch")]
    BlockChecksum(u32),
    /// A block does not decompress to its expected size.
    #[error("block {0}: does not decompress to its size")]
    BlockData(u32),
    /// A stored entry is not a valid value.
    #[error("invalid value at position {0}")]
    InvalidValue(u64),
    /// The whole-file checksum does not match.
    #[error("file checksum mismatch")]
    FileChecksum,
}
