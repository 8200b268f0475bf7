//! The reader of the compressed table files specified in `docs/FORMAT.md`: the header is parsed
//! and every offset checked once, at open, so a lookup only slices, checks a block's checksum
//! and decompresses it. Every number read from a file is checked before use: no content makes
//! the reader panic or read out of bounds.

use std::cell::RefCell;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::Mmap;
use xxhash_rust::xxh3::xxh3_64;

use crate::error::{CorruptedTable, Corruption, ProbeError};
use crate::format::{TableKind, MAX_TABLE_PIECES};
use crate::index::Signature;
use crate::index::TableIndex;
use crate::rules::RuleSetId;

/// The first bytes of a table file.
pub const MAGIC: &[u8; 8] = b"DTBTABLE";
/// The version written. Version 2 made the draws of a DTW file don't-care.
pub const VERSION: u16 = 2;
/// The version of a file with a symbol table ([`TableHeader::symbol_table`]): a version-2 file
/// otherwise, written only where the table is used, so that other files stay as they were.
pub const VERSION_SYMBOL_TABLE: u16 = 3;
/// The versions this reader reads. The reader always takes draws from the WDL file, so
/// version 1's DTW files (draws stored) read the same as version 2's.
pub const READABLE_VERSIONS: std::ops::RangeInclusive<u16> = 1..=VERSION_SYMBOL_TABLE;
/// The most entries of a symbol table: one byte a position indexes it.
pub const MAX_SYMBOL_TABLE: u16 = 256;
/// Bytes of the header.
pub const HEADER_LEN: usize = 64;
/// Bytes per entry of the block table: the end offset of the block and its checksum.
pub const BLOCK_ENTRY_LEN: usize = 16;
/// Bytes of the whole-file checksum that ends a file.
pub const CHECKSUM_LEN: usize = 8;
/// The codec code of zstd, the only one.
pub const CODEC_ZSTD: u8 = 1;
/// The most positions a block may hold: bounds the memory one decompression takes (4 MiB at
/// one byte per position, 8 MiB at two).
const MAX_POSITIONS_PER_BLOCK: u32 = 1 << 22;

/// The header of a table file: what [`TableFile::header`] returns and `dtb info` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableHeader {
    /// The format version (docs/FORMAT.md): from 2 on, a DTW file stores no draws.
    pub version: u16,
    /// WDL or DTW.
    pub kind: TableKind,
    /// The move rules the table was solved under.
    pub rules: RuleSetId,
    /// The material, from the mover's view.
    pub signature: Signature,
    /// Positions (the index size).
    pub positions: u64,
    /// Positions per block (the last block may hold fewer).
    pub positions_per_block: u32,
    /// Number of blocks.
    pub blocks: u32,
    /// Bytes per position in a decompressed DTW block (1 or 2); 0 for WDL (2 bits each).
    pub dtw_width: u8,
    /// The largest stored symbol (WDL: 0–2; DTW: distance + 1, or 0 for a draw in version 1;
    /// with a symbol table, the largest of its symbols).
    pub max_symbol: u16,
    /// Entries of the file's symbol table (version 3), 0 for none: with one, each position
    /// holds one byte, the place in the table of its symbol (a file of a few distinct
    /// two-byte symbols, as the corners of a rule table, then compresses as one-byte values).
    pub symbol_table: u16,
    /// The length of the file in bytes.
    pub file_len: u64,
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    let mut b = [0u8; 2];
    b.copy_from_slice(&bytes[at..at + 2]);
    u16::from_le_bytes(b)
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(b)
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}

/// Where a file's bytes live.
enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
    /// A section of a mapped file holding several tables (a rule table file).
    Section(Arc<Mmap>, std::ops::Range<usize>),
}

impl Bytes {
    fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Owned(bytes) => bytes,
            Bytes::Section(map, range) => &map[range.clone()],
        }
    }
}

/// One compressed table file, opened and checked: header, block table and length. Block
/// contents are checked (checksum, size) when they are read.
pub struct TableFile {
    path: PathBuf,
    bytes: Bytes,
    header: TableHeader,
    index: TableIndex,
    /// The symbol table (empty without one).
    symbols: Vec<u16>,
    /// Where the block table starts.
    table_start: usize,
    /// Where the compressed blocks start.
    data_start: usize,
}

impl std::fmt::Debug for TableFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableFile")
            .field("path", &self.path)
            .field("header", &self.header)
            .finish()
    }
}

thread_local! {
    /// A zstd decompression context per thread, created once.
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { RefCell::new(None) };
}

impl TableFile {
    /// Opens a table file by memory-mapping it, and checks its header, block table and length.
    ///
    /// # Errors
    ///
    /// [`ProbeError::Io`] if it cannot be read, [`ProbeError::Corrupted`] if it is not an intact
    /// table file.
    pub fn open(path: &Path) -> Result<TableFile, ProbeError> {
        let io_error = |source: io::Error| ProbeError::Io {
            path: path.to_path_buf(),
            source: Arc::new(source),
        };
        let file = File::open(path).map_err(io_error)?;
        let len = file.metadata().map_err(io_error)?.len();
        let bytes = if len == 0 {
            // An empty file cannot be mapped on every system; it is reported as empty below.
            Bytes::Owned(Vec::new())
        } else {
            // SAFETY: table files are written under a temporary name and renamed into place,
            // never modified afterwards; the mapping's length is checked against the header
            // before any byte past the header is used, so a truncated file is an error.
            Bytes::Mapped(unsafe { Mmap::map(&file) }.map_err(io_error)?)
        };
        TableFile::parse(path.to_path_buf(), bytes).map_err(ProbeError::from)
    }

    /// Reads a table file from bytes in memory (`name` is used in errors): the same checks as
    /// [`TableFile::open`].
    ///
    /// # Errors
    ///
    /// [`CorruptedTable`] if the bytes are not an intact table file.
    pub fn from_bytes(
        name: impl Into<PathBuf>,
        bytes: Vec<u8>,
    ) -> Result<TableFile, CorruptedTable> {
        TableFile::parse(name.into(), Bytes::Owned(bytes))
    }

    /// Reads a table stored in `range` of a mapped file (`range` must lie inside it).
    pub(crate) fn from_section(
        path: PathBuf,
        map: Arc<Mmap>,
        range: std::ops::Range<usize>,
    ) -> Result<TableFile, CorruptedTable> {
        TableFile::parse(path, Bytes::Section(map, range))
    }

    fn parse(path: PathBuf, bytes: Bytes) -> Result<TableFile, CorruptedTable> {
        let corrupt = |reason| CorruptedTable {
            path: path.clone(),
            reason,
        };
        let data = bytes.as_slice();
        let len = data.len() as u64;
        if data.is_empty() {
            return Err(corrupt(Corruption::Empty));
        }
        if data.len() < HEADER_LEN + CHECKSUM_LEN {
            if !MAGIC.starts_with(&data[..data.len().min(MAGIC.len())]) {
                return Err(corrupt(Corruption::BadMagic));
            }
            return Err(corrupt(Corruption::Truncated {
                len,
                needed: (HEADER_LEN + CHECKSUM_LEN) as u64,
            }));
        }
        if &data[0..8] != MAGIC {
            return Err(corrupt(Corruption::BadMagic));
        }
        let version = u16_at(data, 8);
        if !READABLE_VERSIONS.contains(&version) {
            return Err(corrupt(Corruption::UnsupportedVersion(version)));
        }
        if xxh3_64(&data[..56]) != u64_at(data, 56) {
            return Err(corrupt(Corruption::HeaderChecksum));
        }
        let header = parse_header(data, len).map_err(corrupt)?;
        let index = TableIndex::new(header.signature);
        if index.size() != header.positions {
            return Err(corrupt(Corruption::BadHeader(
                "position count does not match the signature",
            )));
        }
        let table_len = (header.blocks as usize)
            .checked_mul(BLOCK_ENTRY_LEN)
            .ok_or(corrupt(Corruption::BadHeader("block count")))?;
        let table_start = HEADER_LEN + 2 * usize::from(header.symbol_table);
        let data_start = table_start + table_len;
        let min_len = (data_start + CHECKSUM_LEN) as u64;
        if len < min_len {
            return Err(corrupt(Corruption::Truncated {
                len,
                needed: min_len,
            }));
        }
        // The checksum covers the symbol table and the block table.
        if xxh3_64(&data[HEADER_LEN..data_start]) != u64_at(data, 48) {
            return Err(corrupt(Corruption::BlockTableChecksum));
        }
        let symbols: Vec<u16> = data[HEADER_LEN..table_start]
            .chunks_exact(2)
            .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
            .collect();
        let table = &data[table_start..data_start];
        let mut previous_end = 0u64;
        for (block, entry) in table.chunks_exact(BLOCK_ENTRY_LEN).enumerate() {
            let end = u64_at(entry, 0);
            if end < previous_end {
                return Err(corrupt(Corruption::BlockTableOrder(block as u32)));
            }
            previous_end = end;
        }
        let expected = previous_end
            .checked_add(min_len)
            .ok_or(corrupt(Corruption::BlockTableOrder(header.blocks)))?;
        if len < expected {
            return Err(corrupt(Corruption::Truncated {
                len,
                needed: expected,
            }));
        }
        if len > expected {
            return Err(corrupt(Corruption::TrailingBytes { len, expected }));
        }
        Ok(TableFile {
            path,
            bytes,
            header,
            index,
            symbols,
            table_start,
            data_start,
        })
    }

    /// The file's header.
    pub fn header(&self) -> &TableHeader {
        &self.header
    }

    /// The file's path (or the name given to [`TableFile::from_bytes`]).
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn index(&self) -> &TableIndex {
        &self.index
    }

    pub(crate) fn corrupt(&self, reason: Corruption) -> CorruptedTable {
        CorruptedTable {
            path: self.path.clone(),
            reason,
        }
    }

    /// Checks that the file holds the table expected under its name.
    pub(crate) fn expect(
        &self,
        kind: TableKind,
        rules: RuleSetId,
        signature: Signature,
    ) -> Result<(), CorruptedTable> {
        let h = &self.header;
        if h.kind != kind {
            return Err(self.corrupt(Corruption::ForeignKind {
                found: h.kind,
                expected: kind,
            }));
        }
        if h.rules != rules {
            return Err(self.corrupt(Corruption::ForeignRuleSet {
                found: h.rules.name(),
                expected: rules.name(),
            }));
        }
        if h.signature != signature {
            return Err(self.corrupt(Corruption::ForeignSignature {
                found: h.signature,
                expected: signature,
            }));
        }
        Ok(())
    }

    /// The block holding position `index`, and the position's place in it.
    #[inline]
    pub(crate) fn locate(&self, index: u64) -> (u32, usize) {
        let per_block = u64::from(self.header.positions_per_block);
        ((index / per_block) as u32, (index % per_block) as usize)
    }

    /// Positions in block `block`.
    fn positions_in(&self, block: u32) -> u64 {
        let per_block = u64::from(self.header.positions_per_block);
        let start = u64::from(block) * per_block;
        self.header.positions.saturating_sub(start).min(per_block)
    }

    /// Decompressed bytes of block `block`.
    fn block_len(&self, block: u32) -> usize {
        let positions = self.positions_in(block) as usize;
        match self.header.kind {
            TableKind::Wdl => positions.div_ceil(4),
            TableKind::Dtw => positions * usize::from(self.header.dtw_width),
        }
    }

    /// Checks block `block`'s checksum and decompresses it into `out`.
    pub(crate) fn read_block(&self, block: u32, out: &mut Vec<u8>) -> Result<(), CorruptedTable> {
        let data = self.bytes.as_slice();
        let entry = self.table_start + block as usize * BLOCK_ENTRY_LEN;
        let start = match block {
            0 => 0,
            _ => u64_at(data, entry - BLOCK_ENTRY_LEN),
        } as usize;
        let end = u64_at(data, entry) as usize;
        // Offsets were checked in order and inside the file at open.
        let compressed = &data[self.data_start + start..self.data_start + end];
        if xxh3_64(compressed) != u64_at(data, entry + 8) {
            return Err(self.corrupt(Corruption::BlockChecksum(block)));
        }
        let expected = self.block_len(block);
        out.clear();
        out.resize(expected, 0);
        let written = DECOMPRESSOR.with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                *slot = zstd::bulk::Decompressor::new().ok();
            }
            slot.as_mut()
                .and_then(|d| d.decompress_to_buffer(compressed, &mut out[..]).ok())
        });
        if written != Some(expected) {
            return Err(self.corrupt(Corruption::BlockData(block)));
        }
        Ok(())
    }

    /// The symbol of the position at `offset` in a decompressed block.
    #[inline]
    pub(crate) fn symbol(&self, block: &[u8], offset: usize) -> Option<u16> {
        match self.header.kind {
            TableKind::Wdl => block
                .get(offset / 4)
                .map(|&byte| u16::from((byte >> (2 * (offset % 4))) & 3)),
            TableKind::Dtw if self.header.dtw_width == 1 => block
                .get(offset)
                .and_then(|&b| self.symbol_stored_as(b.into())),
            TableKind::Dtw => {
                let at = offset.checked_mul(2)?;
                let pair = block.get(at..at.checked_add(2)?)?;
                Some(u16::from_le_bytes([pair[0], pair[1]]))
            }
        }
    }

    /// The symbol a position whose stored value is `stored` holds: `stored` itself, or with a
    /// symbol table the symbol at that place of it (`None` past its end).
    #[inline]
    pub(crate) fn symbol_stored_as(&self, stored: u16) -> Option<u16> {
        if self.symbols.is_empty() {
            Some(stored)
        } else {
            self.symbols.get(usize::from(stored)).copied()
        }
    }

    /// The stored symbols of block `block` (see docs/FORMAT.md, "Blocks"), in index order, into
    /// `symbols`; returns the index of the block's first position. Don't-care entries come out
    /// as stored. For tools that compare a whole file with other data (`dtb verify` checks the
    /// files against the generator's raw values); probing reads single positions instead.
    ///
    /// ```no_run
    /// use dprobe::format::TableFile;
    ///
    /// let file = TableFile::open("tables/russian/KKvK.wdl".as_ref())?;
    /// let mut symbols = Vec::new();
    /// for block in 0..file.header().blocks {
    ///     let first = file.block_symbols(block, &mut symbols)?;
    ///     let draws = symbols.iter().filter(|&&s| s == 1).count();
    ///     println!("positions {first}..: {draws} stored draws");
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`CorruptedTable`] if the block's checksum or size is wrong, or `block` is past the last.
    pub fn block_symbols(&self, block: u32, symbols: &mut Vec<u16>) -> Result<u64, CorruptedTable> {
        if block >= self.header.blocks {
            return Err(self.corrupt(Corruption::BlockData(block)));
        }
        let mut bytes = Vec::new();
        self.read_block(block, &mut bytes)?;
        symbols.clear();
        for offset in 0..self.positions_in(block) as usize {
            let symbol = self.symbol(&bytes, offset);
            symbols.push(symbol.ok_or_else(|| self.corrupt(Corruption::BlockData(block)))?);
        }
        Ok(u64::from(block) * u64::from(self.header.positions_per_block))
    }

    /// Checks the whole file: its checksum, then every block (checksum, size, values).
    ///
    /// # Errors
    ///
    /// [`CorruptedTable`] with the first problem found.
    pub fn verify(&self) -> Result<(), CorruptedTable> {
        self.verify_file_checksum()?;
        let mut symbols = Vec::new();
        for block in 0..self.header.blocks {
            self.verify_block(block, &mut symbols)?;
        }
        Ok(())
    }

    /// The first part of [`TableFile::verify`]: the checksum of the whole file.
    ///
    /// # Errors
    ///
    /// [`CorruptedTable`] if the file's bytes are not those its checksum was taken of.
    pub fn verify_file_checksum(&self) -> Result<(), CorruptedTable> {
        let data = self.bytes.as_slice();
        let body = data.len() - CHECKSUM_LEN;
        if xxh3_64(&data[..body]) != u64_at(data, body) {
            return Err(self.corrupt(Corruption::FileChecksum));
        }
        Ok(())
    }

    /// The rest of [`TableFile::verify`], one block at a time, so that a caller with threads
    /// can check blocks in parallel: block `block`'s checksum and size, and every symbol a valid
    /// one. Leaves the block's symbols in `symbols`, as [`TableFile::block_symbols`] does, and
    /// returns the index of its first position.
    ///
    /// ```no_run
    /// use dprobe::format::TableFile;
    ///
    /// let file = TableFile::open("tables/russian/KKvK.wdl".as_ref())?;
    /// file.verify_file_checksum()?;
    /// let mut symbols = Vec::new();
    /// for block in 0..file.header().blocks {
    ///     file.verify_block(block, &mut symbols)?;
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`CorruptedTable`] with the first problem found in the block.
    pub fn verify_block(&self, block: u32, symbols: &mut Vec<u16>) -> Result<u64, CorruptedTable> {
        let first = self.block_symbols(block, symbols)?;
        let invalid = symbols
            .iter()
            .position(|&s| self.header.kind.wdl_of(s).is_none());
        match invalid {
            Some(offset) => Err(self.corrupt(Corruption::InvalidValue(first + offset as u64))),
            None => Ok(first),
        }
    }
}

impl TableHeader {
    /// The header's bytes as a file starts with them, given the checksum of the block table
    /// that follows; `file_len` is not stored (the reader takes the file's own length).
    pub fn encode(&self, block_table_checksum: u64) -> [u8; HEADER_LEN] {
        let mut header = [0u8; HEADER_LEN];
        header[0..8].copy_from_slice(MAGIC);
        header[8..10].copy_from_slice(&self.version.to_le_bytes());
        header[10] = self.kind.code();
        header[11] = self.rules.code();
        header[12..16].copy_from_slice(&self.signature.counts());
        header[16..24].copy_from_slice(&self.positions.to_le_bytes());
        header[24..28].copy_from_slice(&self.positions_per_block.to_le_bytes());
        header[28..32].copy_from_slice(&self.blocks.to_le_bytes());
        header[32] = CODEC_ZSTD;
        // The value encoding: 1 for WDL's two bits, else the DTW width in bytes, or 3 for one
        // byte indexing the symbol table.
        header[33] = match self.kind {
            TableKind::Wdl => 1,
            TableKind::Dtw if self.symbol_table > 0 => 3,
            TableKind::Dtw => self.dtw_width,
        };
        header[34..36].copy_from_slice(&self.max_symbol.to_le_bytes());
        header[36..38].copy_from_slice(&self.symbol_table.to_le_bytes());
        header[48..56].copy_from_slice(&block_table_checksum.to_le_bytes());
        let header_sum = xxh3_64(&header[..56]);
        header[56..64].copy_from_slice(&header_sum.to_le_bytes());
        header
    }
}

fn parse_header(data: &[u8], len: u64) -> Result<TableHeader, Corruption> {
    let kind = TableKind::from_code(data[10]).ok_or(Corruption::BadHeader("unknown table kind"))?;
    let rules = RuleSetId::from_code(data[11]).ok_or(Corruption::BadHeader("unknown rule set"))?;
    let signature = Signature::from_counts([data[12], data[13], data[14], data[15]]);
    let counts_fit = [data[12], data[13], data[14], data[15]]
        .iter()
        .all(|&c| u32::from(c) <= MAX_TABLE_PIECES);
    if !counts_fit || !signature.is_possible() || signature.pieces() > MAX_TABLE_PIECES {
        return Err(Corruption::BadHeader("impossible signature"));
    }
    let positions = u64_at(data, 16);
    let positions_per_block = u32_at(data, 24);
    if positions_per_block == 0 || positions_per_block > MAX_POSITIONS_PER_BLOCK {
        return Err(Corruption::BadHeader("positions per block out of range"));
    }
    let blocks = u32_at(data, 28);
    if positions.div_ceil(u64::from(positions_per_block)) != u64::from(blocks) {
        return Err(Corruption::BadHeader(
            "block count does not match the positions",
        ));
    }
    if data[32] != CODEC_ZSTD {
        return Err(Corruption::BadHeader("unknown codec"));
    }
    let version = u16_at(data, 8);
    let (dtw_width, symbol_table) = match (kind, data[33]) {
        (TableKind::Wdl, 1) => (0, 0),
        (TableKind::Dtw, width @ (1 | 2)) => (width, 0),
        (TableKind::Dtw, 3) if version >= VERSION_SYMBOL_TABLE => {
            let entries = u16_at(data, 36);
            if entries == 0 || entries > MAX_SYMBOL_TABLE {
                return Err(Corruption::BadHeader("symbol table size"));
            }
            (1, entries)
        }
        _ => return Err(Corruption::BadHeader("unknown value encoding")),
    };
    Ok(TableHeader {
        version,
        kind,
        rules,
        signature,
        positions,
        positions_per_block,
        blocks,
        dtw_width,
        max_symbol: u16_at(data, 34),
        symbol_table,
        file_len: len,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_foreign_bytes_are_typed_errors() {
        let reason = |bytes: Vec<u8>| TableFile::from_bytes("t", bytes).unwrap_err().reason;
        assert_eq!(reason(vec![]), Corruption::Empty);
        assert!(matches!(
            reason(b"DTB".to_vec()),
            Corruption::Truncated { .. }
        ));
        assert_eq!(reason(b"hello".to_vec()), Corruption::BadMagic);
        assert_eq!(reason(vec![0; 200]), Corruption::BadMagic);
        let mut header = vec![0u8; 200];
        header[..8].copy_from_slice(MAGIC);
        header[8] = 1;
        assert_eq!(reason(header), Corruption::HeaderChecksum);
    }

    #[test]
    fn a_symbol_table_is_read_only_from_version_3_and_within_256_entries() {
        let with = |version: u16, entries: u16| {
            let header = TableHeader {
                version,
                kind: TableKind::Dtw,
                rules: RuleSetId::Russian,
                signature: "KvK".parse().unwrap(),
                positions: TableIndex::new("KvK".parse().unwrap()).size(),
                positions_per_block: 1 << 14,
                blocks: 1,
                dtw_width: 1,
                max_symbol: 9,
                symbol_table: entries,
                file_len: 0,
            };
            let mut bytes = header.encode(0).to_vec();
            bytes.resize(400, 0);
            TableFile::from_bytes("t", bytes).unwrap_err().reason
        };
        let encoding = Corruption::BadHeader("unknown value encoding");
        assert_eq!(with(VERSION, 4), encoding);
        let size = Corruption::BadHeader("symbol table size");
        assert_eq!(with(VERSION_SYMBOL_TABLE, MAX_SYMBOL_TABLE + 1), size);
        // A table within the limit gets past the header to the block table's checksum.
        assert_eq!(
            with(VERSION_SYMBOL_TABLE, 4),
            Corruption::BlockTableChecksum
        );
    }
}
