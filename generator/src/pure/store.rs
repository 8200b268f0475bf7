//! Solved tables in a simple raw format, the working files of a build: a 128-byte header (with
//! the table's statistics), one little-endian `u16` packed [`Value`] per position in index
//! order, and an xxh3-64 checksum of everything before it. The pairs still to be solved read
//! them; the probe reads the compressed files written from them.
//!
//! Files are written to a temporary name, fsynced and renamed, so a crash never leaves a file
//! that looks complete; a file is accepted only if its length, header and checksum agree. A
//! table whose raw file is gone (a finished build keeps only the published files) is rebuilt in
//! memory, in the same bytes, from its published files ([`crate::pure::unpack`]).

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use dprobe::format::raw_table_path;
use dprobe::{
    index::{Signature, TableIndex},
    rules::RuleSetId,
    Value,
};
use memmap2::Mmap;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::error::{io_error, Error};
use crate::pure::write::temporary_path;

const MAGIC: &[u8; 8] = b"DTBRAW\0\x01";
const FORMAT_VERSION: u8 = 1;
const HEADER_LEN: usize = 128;
const CHECKSUM_LEN: usize = 8;

/// Statistics of one table, from the mover's view, kept in its header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableStats {
    /// All positions, those with a capture included.
    pub positions: u64,
    /// Positions the mover wins.
    pub wins: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Positions the mover loses.
    pub losses: u64,
    /// Positions where the mover must capture.
    pub captures: u64,
    /// The longest win, in plies (0 if there is no win).
    pub max_dtw: u16,
    /// The index of one position with the longest win.
    pub max_dtw_index: u64,
}

impl TableStats {
    /// Adds the counts of `other` (a part of the same table) to these.
    pub fn merge(mut self, other: TableStats) -> TableStats {
        self.positions += other.positions;
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        self.captures += other.captures;
        if other.max_dtw > self.max_dtw {
            self.max_dtw = other.max_dtw;
            self.max_dtw_index = other.max_dtw_index;
        }
        self
    }

    /// Counts one position of the table.
    pub fn count(&mut self, index: u64, value: Value, capture: bool) {
        self.positions += 1;
        self.captures += u64::from(capture);
        match value {
            Value::Win(d) => {
                self.wins += 1;
                if d > self.max_dtw {
                    self.max_dtw = d;
                    self.max_dtw_index = index;
                }
            }
            Value::Draw => self.draws += 1,
            Value::Loss(_) => self.losses += 1,
        }
    }
}

fn header(rules: RuleSetId, signature: Signature, stats: &TableStats) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[0..8].copy_from_slice(MAGIC);
    h[8] = FORMAT_VERSION;
    h[9] = rules.code();
    h[10..14].copy_from_slice(&signature.counts());
    let fields = [
        stats.positions,
        stats.wins,
        stats.draws,
        stats.losses,
        stats.captures,
        u64::from(stats.max_dtw),
        stats.max_dtw_index,
    ];
    for (i, field) in fields.iter().enumerate() {
        h[16 + 8 * i..24 + 8 * i].copy_from_slice(&field.to_le_bytes());
    }
    h
}

/// Writes a solved table atomically: a temporary file, fsynced, then renamed into place.
pub fn write_table(
    dir: &Path,
    rules: RuleSetId,
    signature: Signature,
    values: impl Iterator<Item = u16>,
    stats: &TableStats,
) -> Result<PathBuf, Error> {
    let path = raw_table_path(dir, rules, signature);
    let parent = path.parent().unwrap_or(dir);
    fs::create_dir_all(parent).map_err(io_error(parent))?;
    let temporary = temporary_path(&path);
    let file = File::create(&temporary).map_err(io_error(&temporary))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut hasher = Xxh3::new();
    let head = header(rules, signature, stats);
    hasher.update(&head);
    out.write_all(&head).map_err(io_error(&temporary))?;
    let mut chunk = Vec::with_capacity(1 << 16);
    for value in values {
        chunk.extend_from_slice(&value.to_le_bytes());
        if chunk.len() >= 1 << 16 {
            hasher.update(&chunk);
            out.write_all(&chunk).map_err(io_error(&temporary))?;
            chunk.clear();
        }
    }
    hasher.update(&chunk);
    out.write_all(&chunk).map_err(io_error(&temporary))?;
    out.write_all(&hasher.digest().to_le_bytes())
        .map_err(io_error(&temporary))?;
    let file = out
        .into_inner()
        .map_err(|e| io_error(&temporary)(e.into_error()))?;
    file.sync_all().map_err(io_error(&temporary))?;
    drop(file);
    fs::rename(&temporary, &path).map_err(io_error(&path))?;
    // Make the rename itself durable.
    if let Ok(dir) = File::open(parent) {
        let _ = dir.sync_all();
    }
    Ok(path)
}

/// A solved table: its raw file memory-mapped, or the same bytes rebuilt in memory.
pub struct Table {
    /// The table's index.
    pub index: TableIndex,
    /// Its statistics, from the header.
    pub stats: TableStats,
    map: RawBytes,
}

/// The bytes of a raw table.
enum RawBytes {
    Mapped(Mmap),
    InMemory(Vec<u8>),
}

impl std::ops::Deref for RawBytes {
    type Target = [u8];

    #[inline(always)]
    fn deref(&self) -> &[u8] {
        match self {
            RawBytes::Mapped(map) => map,
            RawBytes::InMemory(bytes) => bytes,
        }
    }
}

impl Table {
    /// Opens and checks a table file: length, header and (if `check_sum`) checksum.
    pub fn open(
        dir: &Path,
        rules: RuleSetId,
        signature: Signature,
        check_sum: bool,
    ) -> Result<Table, Error> {
        let path = raw_table_path(dir, rules, signature);
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(Error::Missing { signature, path })
            }
            Err(e) => return Err(io_error(&path)(e)),
        };
        // SAFETY: table files are only ever created by renaming a complete file into place and
        // are never modified afterwards, so the mapping does not change under us; its length is
        // checked below before any value is read.
        let map = unsafe { Mmap::map(&file) }.map_err(io_error(&path))?;
        let corrupt = |reason: String| Error::Corrupt {
            path: path.clone(),
            reason,
        };
        let index = TableIndex::new(signature);
        let expected_len = index
            .size()
            .checked_mul(2)
            .and_then(|n| n.checked_add((HEADER_LEN + CHECKSUM_LEN) as u64));
        if Some(map.len() as u64) != expected_len {
            return Err(corrupt(format!(
                "length {} bytes, expected {} (truncated or not a table)",
                map.len(),
                expected_len.unwrap_or(0)
            )));
        }
        if &map[0..8] != MAGIC || map[8] != FORMAT_VERSION {
            return Err(corrupt("not a dtb raw table (bad magic or version)".into()));
        }
        if map[9] != rules.code() {
            return Err(corrupt(format!(
                "table of another rule set (code {}), expected {}",
                map[9],
                rules.name()
            )));
        }
        let stored_signature = Signature::from_counts([map[10], map[11], map[12], map[13]]);
        if stored_signature != signature {
            return Err(corrupt(format!(
                "holds the table of another signature, expected {signature}"
            )));
        }
        let body_end = map.len() - CHECKSUM_LEN;
        if check_sum {
            let stored = u64::from_le_bytes(map[body_end..].try_into().unwrap_or_default());
            if xxh3_64(&map[..body_end]) != stored {
                return Err(corrupt("checksum mismatch: the file is damaged".into()));
            }
        }
        let field = |i: usize| {
            u64::from_le_bytes(map[16 + 8 * i..24 + 8 * i].try_into().unwrap_or_default())
        };
        let stats = TableStats {
            positions: field(0),
            wins: field(1),
            draws: field(2),
            losses: field(3),
            captures: field(4),
            max_dtw: field(5) as u16,
            max_dtw_index: field(6),
        };
        Ok(Table {
            index,
            stats,
            map: RawBytes::Mapped(map),
        })
    }

    /// A table built in memory, byte for byte what [`write_table`] would write: `fill` stores
    /// the table's packed values, little-endian, into the slice it is given (two bytes a
    /// position, in index order) and returns their statistics.
    ///
    /// # Errors
    ///
    /// What `fill` returns.
    pub fn in_memory(
        rules: RuleSetId,
        signature: Signature,
        fill: impl FnOnce(&mut [u8]) -> Result<TableStats, Error>,
    ) -> Result<Table, Error> {
        let index = TableIndex::new(signature);
        let body_end = HEADER_LEN + 2 * index.size() as usize;
        let mut bytes = vec![0u8; body_end + CHECKSUM_LEN];
        let stats = fill(&mut bytes[HEADER_LEN..body_end])?;
        bytes[..HEADER_LEN].copy_from_slice(&header(rules, signature, &stats));
        let checksum = xxh3_64(&bytes[..body_end]);
        bytes[body_end..].copy_from_slice(&checksum.to_le_bytes());
        Ok(Table {
            index,
            stats,
            map: RawBytes::InMemory(bytes),
        })
    }

    /// Whether the table was rebuilt in memory rather than mapped from its raw file.
    pub fn is_in_memory(&self) -> bool {
        matches!(self.map, RawBytes::InMemory(_))
    }

    /// The packed value at `index` (which must be below the table's size).
    #[inline(always)]
    pub fn packed(&self, index: u64) -> u16 {
        let at = HEADER_LEN + 2 * index as usize;
        u16::from_le_bytes([self.map[at], self.map[at + 1]])
    }

    /// The file's stored checksum (xxh3-64 of its header and values): two builds of a table
    /// agree exactly when their checksums do, which is what `tables/manifest.json` records.
    pub fn checksum(&self) -> u64 {
        let end = self.map.len();
        let mut trailer = [0u8; CHECKSUM_LEN];
        trailer.copy_from_slice(&self.map[end - CHECKSUM_LEN..]);
        u64::from_le_bytes(trailer)
    }

    /// The value at `index`, `None` if the stored value is not a valid one.
    #[inline]
    pub fn value(&self, index: u64) -> Option<Value> {
        Value::unpack(self.packed(index))
    }
}
