//! Solved tables in a simple raw format, the working files of a build: a 128-byte header (with
//! the table's statistics), the packed [`Value`] of every position in index order, and an
//! xxh3-64 checksum of everything before it. The pairs still to be solved read them; the probe
//! reads the compressed files written from them.
//!
//! A value takes one byte where every distance of the table allows it (format 2: a win's
//! distance is odd and a loss's even, so half the packed `u16` keeps it whole up to 254 plies),
//! two little-endian bytes otherwise (format 1). One byte halves the disk a build's working
//! files take (docs/PERFORMANCE.md, "Disk: raw working files"). Both formats give the same
//! [`Table::checksum`]: that of the table's format-1 file, which a format-2 header records, so
//! that a table's checksum names its values, whatever the width they were stored in.
//!
//! Files are written to a temporary name, fsynced and renamed, so a crash never leaves a file
//! that looks complete; a file is accepted only if its length, header and checksum agree. A
//! table whose raw file is gone (a finished build keeps only the published files) is rebuilt in
//! memory, in the same bytes, from its published files ([`crate::pure::unpack`]).

use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use dprobe::format::raw_table_path;
use dprobe::{
    index::{Signature, TableIndex},
    rules::RuleSetId,
    Value, Wdl,
};
use memmap2::Mmap;
use rayon::prelude::*;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::error::{io_error, Error};
use crate::pure::write::temporary_path;

const MAGIC: &[u8; 8] = b"DTBRAW\0\x01";
/// Two bytes a value.
const FORMAT_TWO_BYTES: u8 = 1;
/// One byte a value (the packed value halved); the header keeps the format-1 checksum.
const FORMAT_ONE_BYTE: u8 = 2;
const HEADER_LEN: usize = 128;
const CHECKSUM_LEN: usize = 8;
/// Where a format-2 header keeps the checksum of the format-1 file of the same values.
const VALUE_CHECKSUM_AT: usize = 72;
/// Bytes hashed and written at a time.
const CHUNK_BYTES: usize = 1 << 16;

/// The byte that stores `packed` in a format-2 file, if it fits one: a draw is 0, a loss in
/// `d` plies (even) `1 + d`, a win in `d` plies (odd) `1 + d`.
#[inline]
fn to_byte(packed: u16) -> Option<u8> {
    let byte = u8::try_from(packed >> 1).ok()?;
    (from_byte(byte) == packed).then_some(byte)
}

/// Stores `packed` in `slot`, one or two bytes wide (see [`Table::in_memory`]); `false` if it
/// does not fit one byte.
#[inline]
pub fn store_value(slot: &mut [u8], packed: u16) -> bool {
    match slot {
        [byte] => to_byte(packed).map(|b| *byte = b).is_some(),
        _ => {
            slot.copy_from_slice(&packed.to_le_bytes());
            true
        }
    }
}

/// The packed value a format-2 byte stores: a draw (0) and a win (even) are twice the byte plus
/// one, a loss (odd) twice the byte. Without a branch: the solver reads values of every kind
/// mixed.
#[inline(always)]
fn from_byte(byte: u8) -> u16 {
    2 * u16::from(byte) + u16::from(!byte & 1)
}

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

fn header(
    format: u8,
    rules: RuleSetId,
    signature: Signature,
    stats: &TableStats,
) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[0..8].copy_from_slice(MAGIC);
    h[8] = format;
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

/// The header of a raw file of one or two bytes a value; a one-byte file's records
/// `value_checksum`, the checksum of the two-byte file of the same values.
fn header_of_width(
    one_byte: bool,
    rules: RuleSetId,
    signature: Signature,
    stats: &TableStats,
    value_checksum: u64,
) -> [u8; HEADER_LEN] {
    if !one_byte {
        return header(FORMAT_TWO_BYTES, rules, signature, stats);
    }
    let mut head = header(FORMAT_ONE_BYTE, rules, signature, stats);
    head[VALUE_CHECKSUM_AT..VALUE_CHECKSUM_AT + 8].copy_from_slice(&value_checksum.to_le_bytes());
    head
}

/// Whether every one of `values` fits a byte, and the checksum of the format-1 file of the
/// table (what [`Table::checksum`] gives).
fn check_values(
    rules: RuleSetId,
    signature: Signature,
    stats: &TableStats,
    values: impl Iterator<Item = u16>,
) -> (bool, u64) {
    let mut hasher = Xxh3::new();
    hasher.update(&header(FORMAT_TWO_BYTES, rules, signature, stats));
    let mut fits = true;
    let mut chunk = Vec::with_capacity(CHUNK_BYTES);
    for value in values {
        fits &= to_byte(value).is_some();
        chunk.extend_from_slice(&value.to_le_bytes());
        if chunk.len() == CHUNK_BYTES {
            hasher.update(&chunk);
            chunk.clear();
        }
    }
    hasher.update(&chunk);
    (fits, hasher.digest())
}

/// The checksum of a solved table's values, the one its raw file would record
/// ([`Table::checksum`]), without writing it.
pub fn value_checksum(
    rules: RuleSetId,
    signature: Signature,
    stats: &TableStats,
    values: impl Iterator<Item = u16>,
) -> u64 {
    check_values(rules, signature, stats, values).1
}

/// Writes a solved table atomically: a temporary file, fsynced, then renamed into place; one
/// byte a value if every value fits one, else two. Returns the table's checksum
/// ([`Table::checksum`]).
pub fn write_table(
    dir: &Path,
    rules: RuleSetId,
    signature: Signature,
    values: impl Iterator<Item = u16> + Clone,
    stats: &TableStats,
) -> Result<u64, Error> {
    let (one_byte, value_checksum) = check_values(rules, signature, stats, values.clone());
    let head = header_of_width(one_byte, rules, signature, stats, value_checksum);

    let path = raw_table_path(dir, rules, signature);
    let parent = path.parent().unwrap_or(dir);
    fs::create_dir_all(parent).map_err(io_error(parent))?;
    let temporary = temporary_path(&path);
    let file = File::create(&temporary).map_err(io_error(&temporary))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut hasher = Xxh3::new();
    hasher.update(&head);
    out.write_all(&head).map_err(io_error(&temporary))?;
    let mut chunk = Vec::with_capacity(CHUNK_BYTES);
    for value in values {
        if one_byte {
            chunk.push(to_byte(value).unwrap_or_default());
        } else {
            chunk.extend_from_slice(&value.to_le_bytes());
        }
        if chunk.len() >= CHUNK_BYTES {
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
    Ok(value_checksum)
}

/// The xxh3-64 of the first `len` bytes of `file`, read through a buffer rather than the
/// mapping: a page read through the mapping stays resident in the process until it is unmapped,
/// so checking a table would count all of it in the build's resident size, where the solver
/// touches only the pages it reads.
fn file_checksum(mut file: &File, len: usize) -> io::Result<u64> {
    file.seek(SeekFrom::Start(0))?;
    let mut hasher = Xxh3::new();
    let mut buffer = vec![0u8; len.min(CHUNK_BYTES * 16)];
    let mut left = len;
    while left > 0 {
        let chunk = &mut buffer[..left.min(CHUNK_BYTES * 16)];
        file.read_exact(chunk)?;
        hasher.update(chunk);
        left -= chunk.len();
    }
    Ok(hasher.digest())
}

/// A solved table: its raw file memory-mapped, or the same bytes rebuilt in memory.
pub struct Table {
    /// The table's index.
    pub index: TableIndex,
    /// Its statistics, from the header.
    pub stats: TableStats,
    map: RawBytes,
    /// One byte a value (format 2), else two.
    one_byte: bool,
}

/// Asks the processor to fetch `item` into its caches without waiting for it, so that a later
/// read finds it there: reads of scattered entries then overlap their cache misses.
#[inline(always)]
pub(crate) fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the caches; it reads nothing and never faults, and the SSE
    // instructions it needs are part of every x86-64 processor.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((item as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
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
        if map.len() < HEADER_LEN || &map[0..8] != MAGIC {
            return Err(corrupt(
                "not a dtb raw table (too short or bad magic)".into(),
            ));
        }
        let one_byte = match map[8] {
            FORMAT_ONE_BYTE => true,
            FORMAT_TWO_BYTES => false,
            other => {
                return Err(corrupt(format!(
                    "raw format {other}, which this version does not read: build the table again"
                )))
            }
        };
        let expected_len = index
            .size()
            .checked_mul(if one_byte { 1 } else { 2 })
            .and_then(|n| n.checked_add((HEADER_LEN + CHECKSUM_LEN) as u64));
        if Some(map.len() as u64) != expected_len {
            return Err(corrupt(format!(
                "length {} bytes, expected {} (truncated or not a table)",
                map.len(),
                expected_len.unwrap_or(0)
            )));
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
            if file_checksum(&file, body_end).map_err(io_error(&path))? != stored {
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
            one_byte,
        })
    }

    /// A table built in memory, byte for byte the raw file [`write_table`] would write of its
    /// values: one byte a value where every value fits one, else two. `fill` stores the table's
    /// packed values in index order into the slice it is given, through [`store_value`] (the
    /// slice holds `width` bytes a position), and returns their statistics, or `None` if a
    /// value did not fit one byte: it is then called again with two.
    ///
    /// # Errors
    ///
    /// What `fill` returns.
    pub fn in_memory(
        rules: RuleSetId,
        signature: Signature,
        fill: impl Fn(&mut [u8], usize) -> Result<Option<TableStats>, Error>,
    ) -> Result<Table, Error> {
        let index = TableIndex::new(signature);
        for width in [1, 2] {
            let body_end = HEADER_LEN + width * index.size() as usize;
            let mut bytes = vec![0u8; body_end + CHECKSUM_LEN];
            let Some(stats) = fill(&mut bytes[HEADER_LEN..body_end], width)? else {
                continue;
            };
            let one_byte = width == 1;
            // A two-byte file's header records no checksum (its trailer is the one).
            let value_checksum = if one_byte {
                let values = bytes[HEADER_LEN..body_end].iter().map(|&b| from_byte(b));
                value_checksum(rules, signature, &stats, values)
            } else {
                0
            };
            let head = header_of_width(one_byte, rules, signature, &stats, value_checksum);
            bytes[..HEADER_LEN].copy_from_slice(&head);
            let checksum = xxh3_64(&bytes[..body_end]);
            bytes[body_end..].copy_from_slice(&checksum.to_le_bytes());
            return Ok(Table {
                index,
                stats,
                map: RawBytes::InMemory(bytes),
                one_byte,
            });
        }
        Err(Error::Invariant(format!(
            "{signature}: a value did not fit two bytes"
        )))
    }

    /// Drops the table's mapped pages from the process's resident set (they stay in the page
    /// cache, and a later read maps them again from there): the solver calls this between
    /// levels of slices, each of which reads its own part of the smaller tables, so that the
    /// pages of the parts read before do not count in the build's resident size. A table
    /// rebuilt in memory keeps its pages.
    pub fn release_pages(&self) {
        if let RawBytes::Mapped(map) = &self.map {
            // SAFETY: the mapping is a shared, read-only one of a file that is never modified
            // once renamed into place, so a page read after this is mapped again with the same
            // bytes; nothing written to the mapping is lost, as nothing is ever written. The
            // advice failing leaves the pages resident, which is harmless.
            let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }

    /// Whether the table was rebuilt in memory rather than mapped from its raw file: only
    /// [`crate::pure::unpack`] builds tables in memory, from the published files, with the value
    /// of every position that has a capture worked out from its captures.
    pub fn is_in_memory(&self) -> bool {
        matches!(self.map, RawBytes::InMemory(_))
    }

    /// The packed value at `index` (which must be below the table's size).
    #[inline(always)]
    pub fn packed(&self, index: u64) -> u16 {
        if self.one_byte {
            from_byte(self.map[HEADER_LEN + index as usize])
        } else {
            let at = HEADER_LEN + 2 * index as usize;
            u16::from_le_bytes([self.map[at], self.map[at + 1]])
        }
    }

    /// Asks the processor to fetch the entry at `index` into its caches, without waiting for it:
    /// a later [`Table::packed`] of it then finds it there.
    #[inline(always)]
    pub fn prefetch(&self, index: u64) {
        let at = HEADER_LEN + if self.one_byte { index } else { 2 * index } as usize;
        prefetch(&self.map[at]);
    }

    /// The checksum of the table's format-1 file (xxh3-64 of its header and two-byte values),
    /// whichever format holds it: two builds of a table agree exactly when their checksums do,
    /// which is what `tables/manifest.json` records.
    pub fn checksum(&self) -> u64 {
        let at = if self.one_byte {
            VALUE_CHECKSUM_AT
        } else {
            self.map.len() - CHECKSUM_LEN
        };
        let mut checksum = [0u8; 8];
        checksum.copy_from_slice(&self.map[at..at + 8]);
        u64::from_le_bytes(checksum)
    }

    /// The value at `index`, `None` if the stored value is not a valid one.
    #[inline]
    pub fn value(&self, index: u64) -> Option<Value> {
        Value::unpack(self.packed(index))
    }

    /// The longest distance of a decided position, in plies: no game from a position of the
    /// table lasts longer when its winner plays the quickest win. `None` if a stored value is not
    /// a valid one.
    pub fn longest_distance(&self) -> Option<u16> {
        (0..self.index.size())
            .into_par_iter()
            .map(|i| {
                self.value(i).map(|v| match v {
                    Value::Win(d) | Value::Loss(d) => d,
                    Value::Draw => 0,
                })
            })
            .try_reduce(|| 0, |a, b| Some(a.max(b)))
    }

    /// The pure result of every position, in index order (what a rule table's fresh results
    /// are read against); `None` if a stored value is not a valid one.
    pub fn results(&self) -> Option<Vec<Wdl>> {
        (0..self.index.size())
            .into_par_iter()
            .map(|i| self.value(i).map(|v| v.wdl()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_holds_every_value_up_to_254_plies_and_nothing_else() {
        let mut fitting = 0;
        for d in 0..=Value::MAX_DISTANCE {
            // A win's distance is odd, a loss's even: only those are values of a table.
            let value = if d % 2 == 1 {
                Value::Win(d)
            } else {
                Value::Loss(d)
            };
            match to_byte(value.pack()) {
                Some(byte) => {
                    assert_eq!(from_byte(byte), value.pack(), "{value}");
                    fitting += 1;
                }
                None => assert!(d > 254, "{value} should fit a byte"),
            }
        }
        assert_eq!(fitting, 255);
        assert_eq!(to_byte(Value::Draw.pack()), Some(0));
        // The unknown value and distances of the wrong parity never pass for others.
        assert_eq!(to_byte(0), None);
        assert_eq!(to_byte(Value::Win(2).pack()), None);
        assert_eq!(to_byte(Value::Loss(3).pack()), None);
    }

    /// Writes `values` as the raw table `signature` and opens it again.
    fn round_trip(dir: &Path, signature: Signature, values: &[u16]) -> (Table, u64) {
        let rules = RuleSetId::Russian;
        let stats = TableStats {
            positions: values.len() as u64,
            ..TableStats::default()
        };
        let checksum = write_table(dir, rules, signature, values.iter().copied(), &stats).unwrap();
        let table = Table::open(dir, rules, signature, true).unwrap();
        assert_eq!(table.checksum(), checksum);
        assert_eq!(
            value_checksum(rules, signature, &stats, values.iter().copied()),
            checksum
        );
        // The checksum of the format-1 file of these values, whatever was written.
        let mut format_one = header(FORMAT_TWO_BYTES, rules, signature, &stats).to_vec();
        format_one.extend(values.iter().flat_map(|v| v.to_le_bytes()));
        assert_eq!(table.checksum(), xxh3_64(&format_one));
        let len = fs::metadata(raw_table_path(dir, rules, signature))
            .unwrap()
            .len();
        (table, len)
    }

    #[test]
    fn values_are_stored_in_one_byte_where_they_fit_and_read_back_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let signature: Signature = "KMvK".parse().unwrap();
        let size = TableIndex::new(signature).size() as usize;
        let fitting: Vec<u16> = (0..size)
            .map(|i| match i % 3 {
                0 => Value::Draw,
                // Up to the longest that fit: a win in 253 plies, a loss in 254.
                1 => Value::Win((i % 254) as u16 | 1),
                _ => Value::Loss((i % 256) as u16 & !1),
            })
            .map(Value::pack)
            .collect();
        let (table, len) = round_trip(dir.path(), signature, &fitting);
        assert_eq!(len as usize, HEADER_LEN + size + CHECKSUM_LEN);
        assert!((0..size).all(|i| table.packed(i as u64) == fitting[i]));
        // One win too long for a byte: the whole table takes two.
        let mut long = fitting.clone();
        long[size / 2] = Value::Win(301).pack();
        let (table, len) = round_trip(dir.path(), signature, &long);
        assert_eq!(len as usize, HEADER_LEN + 2 * size + CHECKSUM_LEN);
        assert!((0..size).all(|i| table.packed(i as u64) == long[i]));
    }

    #[test]
    fn a_table_built_in_memory_is_its_raw_file_in_one_byte_or_two() {
        let dir = tempfile::tempdir().unwrap();
        let signature: Signature = "KKvK".parse().unwrap();
        let size = TableIndex::new(signature).size() as usize;
        let short: Vec<u16> = (0..size)
            .map(|i| Value::Loss((i % 100) as u16 * 2).pack())
            .collect();
        let mut long = short.clone();
        long[size - 1] = Value::Loss(300).pack();
        for (values, width) in [(short, 1), (long, 2)] {
            let stats = TableStats {
                positions: size as u64,
                ..TableStats::default()
            };
            let table = Table::in_memory(RuleSetId::Iberian, signature, |out, w| {
                for (slot, &value) in out.chunks_exact_mut(w).zip(&values) {
                    if !store_value(slot, value) {
                        return Ok(None);
                    }
                }
                Ok(Some(stats))
            })
            .unwrap();
            assert_eq!(table.map.len(), HEADER_LEN + width * size + CHECKSUM_LEN);
            assert!((0..size).all(|i| table.packed(i as u64) == values[i]));
            // What the raw file of these values records, and the same bytes.
            write_table(
                dir.path(),
                RuleSetId::Iberian,
                signature,
                values.iter().copied(),
                &stats,
            )
            .unwrap();
            let raw = Table::open(dir.path(), RuleSetId::Iberian, signature, true).unwrap();
            assert_eq!(table.checksum(), raw.checksum());
            assert!(*table.map == *raw.map);
        }
    }

    #[test]
    fn a_damaged_one_byte_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let signature: Signature = "KvK".parse().unwrap();
        let size = TableIndex::new(signature).size() as usize;
        round_trip(dir.path(), signature, &vec![Value::Draw.pack(); size]);
        let path = raw_table_path(dir.path(), RuleSetId::Russian, signature);
        let mut bytes = fs::read(&path).unwrap();
        bytes[HEADER_LEN + size / 2] ^= 1;
        fs::write(&path, &bytes).unwrap();
        let error = Table::open(dir.path(), RuleSetId::Russian, signature, true).err();
        assert!(
            error.is_some_and(|e| e.to_string().contains("checksum")),
            "a flipped value bit must fail the checksum"
        );
        fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        let error = Table::open(dir.path(), RuleSetId::Russian, signature, false).err();
        assert!(error.is_some_and(|e| e.to_string().contains("truncated")));
    }
}
