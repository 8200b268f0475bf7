//! The writer of the published, compressed table files (`docs/FORMAT.md`): a WDL file (win, draw
//! or loss, two bits per position) and a DTW file (the distance, one or two bytes per
//! position), both cut into blocks that are zstd-compressed on their own, with a checksum per
//! block and one for the whole file.
//!
//! Positions where the mover has a capture are not needed (the probe follows the captures into
//! smaller tables), so their entries are "don't care", and so are draws in the DTW file (the
//! probe reads a position's WDL first): each gets its block's most common symbol (measured
//! against other fills in docs/PERFORMANCE.md).

use std::borrow::Cow;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use bitvec::slice::BitSlice;
use bitvec::vec::BitVec;
use dprobe::format::table::{
    BLOCK_ENTRY_LEN, HEADER_LEN, MAX_SYMBOL_TABLE, VERSION, VERSION_SYMBOL_TABLE,
};
use dprobe::format::{table_path, TableHeader, TableKind};
use dprobe::index::{Signature, TableIndex};
use dprobe::rules::{has_capture, MoveRules, RuleSetId};
use dprobe::Value;
use rayon::prelude::*;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::error::{io_error, Error};

/// How each block is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// The default, for the build's time: WDL files as [`Compression::Small`] makes them (they
    /// are probed during search, where their size is memory), DTW files (probed at the root;
    /// most of the compression time) with zstd's lazy parser, searching 4 candidates for
    /// matches of at least 6 bytes: somewhat larger DTW files for a much quicker build
    /// (docs/PERFORMANCE.md, "Writer and compression").
    Quick,
    /// The setting tuned for size per second on these tables: zstd level 15 with its parser
    /// switched from `btultra` to `btopt`, searching 4 candidates per position for matches of at
    /// least 5 bytes and taking matches of up to 999 bytes whole: nearly level 15's size in a
    /// fraction of its time.
    Small,
    /// A plain zstd level, 1 to 22.
    Level(i32),
}

impl Compression {
    /// A zstd context set up for this compression of a file of `kind`.
    pub fn compressor(self, kind: TableKind) -> io::Result<zstd::bulk::Compressor<'static>> {
        use zstd::stream::raw::CParameter;
        use zstd::zstd_safe::Strategy;
        let parameters = match (self, kind) {
            (Compression::Level(level), _) => return zstd::bulk::Compressor::new(level),
            // Level 15's optimal parser with exact prices (btultra) spends most of its time
            // re-pricing the long repeats of these tables; btopt's estimates lose little here.
            // Its match search is most of what is left: these tables repeat in long runs, so a
            // short search (log 2) for matches of 5 bytes or more finds nearly as much. These
            // were the best of the combinations tried for size per second.
            (Compression::Small, _) | (Compression::Quick, TableKind::Wdl) => [
                CParameter::Strategy(Strategy::ZSTD_btopt),
                CParameter::SearchLog(2),
                CParameter::MinMatch(5),
                CParameter::TargetLength(999),
            ],
            // The lazy parser is 6 to 7 times quicker than btopt on these blocks; of the
            // settings measured, matches of 6 bytes or more gave it the smallest files.
            (Compression::Quick, TableKind::Dtw) => [
                CParameter::Strategy(Strategy::ZSTD_lazy2),
                CParameter::SearchLog(2),
                CParameter::MinMatch(6),
                CParameter::TargetLength(999),
            ],
        };
        let mut compressor = zstd::bulk::Compressor::new(15)?;
        for parameter in parameters {
            compressor.set_parameter(parameter)?;
        }
        Ok(compressor)
    }
}

/// How a file is cut and compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Positions per block.
    pub positions_per_block: u32,
    /// How each block is compressed.
    pub compression: Compression,
}

impl Layout {
    /// The WDL layout chosen by measurement (docs/PERFORMANCE.md, "Writer and compression"): 32 768 positions (8 KiB
    /// unpacked) per block.
    pub const WDL: Layout = Layout {
        positions_per_block: 32_768,
        compression: Compression::Quick,
    };
    /// The DTW layout chosen by measurement: 8 192 positions per block.
    pub const DTW: Layout = Layout {
        positions_per_block: 8_192,
        compression: Compression::Quick,
    };
}

/// One flag per position of a table: whether the mover has a capture (those entries are
/// don't-care). The solver finds these flags as it goes; this is for tables already on disk.
pub fn capture_flags(rules: &MoveRules, index: &TableIndex) -> BitVec<u64> {
    crate::pure::solve::flags_by_chunks(
        index.size(),
        || (),
        |(), range, words| {
            for (offset, board) in index.boards(range).enumerate() {
                words[offset / 64] |= u64::from(has_capture(&board, rules)) << (offset % 64);
            }
        },
    )
}

/// One symbol per position: the WDL code (0 loss, 1 draw, 2 win) or the DTW code (distance + 1,
/// whose parity tells a win from a loss; 0 for a draw, an entry [`dont_care`] leaves out).
/// `None` if a packed value is invalid.
pub fn symbols(values: &[u16], kind: TableKind) -> Option<Vec<u16>> {
    values
        .par_iter()
        .map(|&packed| kind.symbol(Value::unpack(packed)?))
        .collect()
}

/// The entries of a file of `kind` that the probe never reads: positions where the mover has a
/// capture, and in a DTW file draws too (the probe takes them from the WDL file). Not storing
/// draws' distances makes the DTW files smaller and quicker to compress (docs/PERFORMANCE.md, "Writer and compression").
pub fn dont_care<'a>(
    kind: TableKind,
    values: &[u16],
    captures: &'a BitSlice<u64>,
) -> Cow<'a, BitSlice<u64>> {
    match kind {
        TableKind::Wdl => Cow::Borrowed(captures),
        TableKind::Dtw => {
            let mut mask = captures.to_bitvec();
            mask.as_raw_mut_slice()
                .par_iter_mut()
                .zip(values.par_chunks(64))
                .for_each(|(word, values)| {
                    for (bit, &value) in values.iter().enumerate() {
                        *word |= u64::from(is_dont_care(kind, value, false)) << bit;
                    }
                });
            Cow::Owned(mask)
        }
    }
}

/// Whether the entry of a position with the packed value `packed` (and a capture, if `capture`)
/// is don't-care in a file of `kind` (see [`dont_care`]).
#[inline]
fn is_dont_care(kind: TableKind, packed: u16, capture: bool) -> bool {
    capture || (kind == TableKind::Dtw && packed == Value::Draw.pack())
}

/// A file's entries as the encoder reads them, one position at a time: its symbol (see
/// [`symbols`]) and whether the probe never reads it (see [`dont_care`]).
trait Entries: Sync {
    /// The number of positions.
    fn positions(&self) -> usize;
    /// The symbol of position `i` and whether it is don't-care.
    fn entry(&self, i: usize) -> (u16, bool);

    /// The uncompressed bytes of the block of positions `range` (see [`pack_block`]) into
    /// `scratch.bytes`, don't-care entries given by `fill`; `max_symbol` is the file's largest
    /// symbol.
    fn pack(
        &self,
        range: Range<usize>,
        kind: TableKind,
        max_symbol: u16,
        fill: Fill,
        scratch: &mut Packing,
    ) {
        pack_entries(self, range, kind, max_symbol, fill, scratch);
    }
}

/// [`Entries::pack`] one entry at a time: the way for any entries, the fill any of [`Fill`].
fn pack_entries(
    entries: &(impl Entries + ?Sized),
    range: Range<usize>,
    kind: TableKind,
    max_symbol: u16,
    fill: Fill,
    scratch: &mut Packing,
) {
    let Packing {
        symbols,
        skip,
        counts,
        filled,
        bytes,
    } = scratch;
    symbols.clear();
    skip.clear();
    for i in range {
        let (symbol, skipped) = entries.entry(i);
        symbols.push(symbol);
        skip.push(skipped);
    }
    fill.apply(symbols, skip, counts, filled);
    pack_block(filled, kind, dtw_width(max_symbol), bytes);
}

/// Symbols and don't-care flags made beforehand.
struct ListedEntries<'a> {
    symbols: &'a [u16],
    dont_care: &'a BitSlice<u64>,
}

impl Entries for ListedEntries<'_> {
    fn positions(&self) -> usize {
        self.symbols.len()
    }

    fn entry(&self, i: usize) -> (u16, bool) {
        (self.symbols[i], self.dont_care[i])
    }

    fn pack(
        &self,
        range: Range<usize>,
        kind: TableKind,
        max_symbol: u16,
        fill: Fill,
        scratch: &mut Packing,
    ) {
        // Every fill leaves a block without don't-care entries as it is (most blocks of the
        // rule tables' result sections): packed straight from the list.
        if self.dont_care[range.clone()].not_any() {
            pack_block(
                &self.symbols[range],
                kind,
                dtw_width(max_symbol),
                &mut scratch.bytes,
            );
        } else {
            pack_entries(self, range, kind, max_symbol, fill, scratch);
        }
    }
}

/// A solved table's packed values, their symbols and don't-care flags made as each block is
/// encoded: no table-sized copy is made.
struct SolvedEntries<'a> {
    kind: TableKind,
    values: &'a [u16],
    /// The capture flags, 64 positions a word.
    captures: &'a [u64],
}

/// The symbol (see [`symbols`]) of a packed value, which must be valid (not 0). The packing
/// (`Value::pack`: draw 1, loss in `d` 2 + 2d, win in `d` 3 + 2d) lets both be computed without
/// unpacking: a DTW symbol, distance + 1 (0 for a draw), is the packed value halved.
#[inline(always)]
fn packed_symbol(kind: TableKind, packed: u16) -> u16 {
    match kind {
        // Even: a loss (0); 1: a draw (1); any other odd value: a win (2).
        TableKind::Wdl => ((packed & 1) << 1) - u16::from(packed == 1),
        TableKind::Dtw => packed >> 1,
    }
}

impl SolvedEntries<'_> {
    /// The largest symbol, or `None` if a value is invalid (0: never decided).
    fn max_symbol(&self) -> Option<u16> {
        let (least, most) = self
            .values
            .par_chunks(1 << 16)
            .map(|values| {
                values.iter().fold((u16::MAX, 0), |(least, most), &packed| {
                    (
                        least.min(packed),
                        most.max(packed_symbol(self.kind, packed)),
                    )
                })
            })
            .reduce(|| (u16::MAX, 0), |a, b| (a.0.min(b.0), a.1.max(b.1)));
        (least != 0).then_some(most)
    }
}

impl Entries for SolvedEntries<'_> {
    fn positions(&self) -> usize {
        self.values.len()
    }

    #[inline]
    fn entry(&self, i: usize) -> (u16, bool) {
        let capture = self.captures[i / 64] >> (i % 64) & 1 != 0;
        let packed = self.values[i];
        (
            packed_symbol(self.kind, packed),
            is_dont_care(self.kind, packed, capture),
        )
    }

    /// The chosen fill straight from the packed values, in two passes over the block (count
    /// the symbols, then write the bytes) instead of [`pack_entries`]'s five: those took longer
    /// than a fast zstd parser does on the same blocks.
    fn pack(
        &self,
        range: Range<usize>,
        kind: TableKind,
        max_symbol: u16,
        fill: Fill,
        scratch: &mut Packing,
    ) {
        // Blocks start on a word of capture flags (block sizes are multiples of 64); another
        // fill or a block that does not goes the general way.
        if fill != Fill::Majority || range.start % 64 != 0 {
            return pack_entries(self, range, kind, max_symbol, fill, scratch);
        }
        let width = dtw_width(max_symbol);
        let values = &self.values[range.clone()];
        let captures = &self.captures[range.start / 64..range.end.div_ceil(64)];
        let skipped =
            |word: u64, bit: usize, packed: u16| is_dont_care(kind, packed, word >> bit & 1 != 0);
        let counts = &mut scratch.counts;
        counts.clear();
        counts.resize(usize::from(max_symbol) + 1, 0);
        for (values, &word) in values.chunks(64).zip(captures) {
            for (bit, &packed) in values.iter().enumerate() {
                let symbol = usize::from(packed_symbol(kind, packed));
                counts[symbol] += u32::from(!skipped(word, bit, packed));
            }
        }
        // The most common symbol, the smallest one on a tie (as `Fill::apply`; symbols above the
        // block's own, counted 0, lose every tie to a smaller one).
        let most = (0..counts.len())
            .max_by_key(|&s| (counts[s], std::cmp::Reverse(s)))
            .map_or(0, |s| s as u16);
        let filled = |word: u64, bit: usize, packed: u16| {
            if skipped(word, bit, packed) {
                most
            } else {
                packed_symbol(kind, packed)
            }
        };
        let bytes = &mut scratch.bytes;
        bytes.clear();
        for (values, &word) in values.chunks(64).zip(captures) {
            match (kind, width) {
                (TableKind::Wdl, _) => {
                    for (quad, four) in values.chunks(4).enumerate() {
                        let byte = four.iter().enumerate().fold(0u8, |byte, (k, &packed)| {
                            byte | (filled(word, 4 * quad + k, packed) as u8) << (2 * k)
                        });
                        bytes.push(byte);
                    }
                }
                (TableKind::Dtw, 1) => bytes.extend(
                    values
                        .iter()
                        .enumerate()
                        .map(|(bit, &packed)| filled(word, bit, packed) as u8),
                ),
                (TableKind::Dtw, _) => {
                    for (bit, &packed) in values.iter().enumerate() {
                        bytes.extend_from_slice(&filled(word, bit, packed).to_le_bytes());
                    }
                }
            }
        }
    }
}

/// What a don't-care entry (see [`dont_care`]) is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// The symbol of the position before it: lengthens runs.
    Previous,
    /// The most common symbol of the block's other positions.
    Majority,
    /// The solver's own value (no don't-care at all; for measurements).
    Solved,
}

impl Fill {
    /// The fill the writer uses. Measured (docs/PERFORMANCE.md, "Writer and compression"): the most common symbol
    /// compresses better than repeating the previous one on every table tried, and trying both
    /// per block gains under 0.5% for twice the time.
    pub const CHOSEN: Fill = Fill::Majority;

    /// Writes the symbols of one block into `filled`, don't-care entries (`skip`) filled in;
    /// `counts` is working space.
    fn apply(self, block: &[u16], skip: &[bool], counts: &mut Vec<u32>, filled: &mut Vec<u16>) {
        filled.clear();
        match self {
            Fill::Solved => filled.extend_from_slice(block),
            Fill::Previous => {
                let first = block.iter().zip(skip).find(|&(_, &skip)| !skip);
                let mut previous = first.map_or(0, |(&s, _)| s);
                filled.extend(block.iter().zip(skip).map(|(&s, &skip)| {
                    if !skip {
                        previous = s;
                    }
                    previous
                }));
            }
            Fill::Majority => {
                counts.clear();
                counts.resize(usize::from(block.iter().copied().max().unwrap_or(0)) + 1, 0);
                for (&s, _) in block.iter().zip(skip).filter(|&(_, &skip)| !skip) {
                    counts[usize::from(s)] += 1;
                }
                // The most common symbol, the smallest one on a tie.
                let most = (0..counts.len())
                    .max_by_key(|&s| (counts[s], std::cmp::Reverse(s)))
                    .map_or(0, |s| s as u16);
                filled.extend(
                    block
                        .iter()
                        .zip(skip)
                        .map(|(&s, &skip)| if skip { most } else { s }),
                );
            }
        }
    }
}

/// Bytes per position of a DTW file whose largest symbol is `max_symbol`.
const fn dtw_width(max_symbol: u16) -> usize {
    if max_symbol <= u8::MAX as u16 {
        1
    } else {
        2
    }
}

/// The uncompressed bytes of one block of symbols, into `bytes`: WDL two bits per position,
/// four per byte, the first position in the low bits; DTW one or two bytes (little-endian) per
/// position.
fn pack_block(symbols: &[u16], kind: TableKind, width: usize, bytes: &mut Vec<u8>) {
    bytes.clear();
    match kind {
        TableKind::Wdl => bytes.extend(
            symbols
                .chunks(4)
                .map(|four| four.iter().rev().fold(0u8, |byte, &s| byte << 2 | s as u8)),
        ),
        TableKind::Dtw if width == 1 => bytes.extend(symbols.iter().map(|&s| s as u8)),
        TableKind::Dtw => bytes.extend(symbols.iter().flat_map(|s| s.to_le_bytes())),
    }
}

/// Working space for making a block's uncompressed bytes, reused from block to block.
#[derive(Default)]
struct Packing {
    symbols: Vec<u16>,
    skip: Vec<bool>,
    counts: Vec<u32>,
    filled: Vec<u16>,
    bytes: Vec<u8>,
}

/// Working space of one encoding thread, reused from block to block.
struct BlockScratch {
    /// One compression context per worker: a fresh one per block would allocate and clear its
    /// tables every time.
    compressor: io::Result<zstd::bulk::Compressor<'static>>,
    packing: Packing,
}

/// Compresses a whole table of symbols (see [`symbols`]) into the bytes of a file; entries
/// flagged in `dont_care` (see [`dont_care`]) are filled by whichever of `fills` compresses
/// each block best (the writer passes one).
pub fn encode(
    rules: RuleSetId,
    signature: Signature,
    kind: TableKind,
    (symbols, dont_care): (&[u16], &BitSlice<u64>),
    layout: Layout,
    fills: &[Fill],
) -> io::Result<Vec<u8>> {
    let max_symbol = symbols.par_iter().copied().max().unwrap_or(0);
    let entries = ListedEntries { symbols, dont_care };
    encode_entries(
        rules,
        signature,
        kind,
        &entries,
        max_symbol,
        &[],
        layout,
        fills,
    )
}

/// [`encode`] for a DTW-kind table of two-byte symbols of which few are distinct (the corners of
/// a rule table): where the entries that are not don't-care hold at most
/// [`MAX_SYMBOL_TABLE`] distinct symbols, the file stores them in a symbol table, most common
/// first, and each position as one byte, its symbol's place there (`docs/FORMAT.md`, "Symbol
/// table"); else as [`encode`] does. The places are written over `symbols`, which a large
/// section would otherwise hold twice.
pub fn encode_with_symbol_table(
    rules: RuleSetId,
    signature: Signature,
    (mut symbols, dont_care): (Vec<u16>, &BitSlice<u64>),
    layout: Layout,
    fills: &[Fill],
) -> io::Result<Vec<u8>> {
    let counts = symbols
        .par_chunks(1 << 16)
        .enumerate()
        .fold(
            || vec![0u64; 1 << 16],
            |mut counts, (chunk, part)| {
                let start = chunk << 16;
                for (j, &symbol) in part.iter().enumerate() {
                    if !dont_care.get(start + j).is_some_and(|skip| *skip) {
                        counts[usize::from(symbol)] += 1;
                    }
                }
                counts
            },
        )
        .reduce(
            || vec![0u64; 1 << 16],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
                a
            },
        );
    let mut table: Vec<u16> = (0..=u16::MAX)
        .filter(|&s| counts[usize::from(s)] > 0)
        .collect();
    if table.len() > usize::from(MAX_SYMBOL_TABLE) {
        return encode(
            rules,
            signature,
            TableKind::Dtw,
            (&symbols, dont_care),
            layout,
            fills,
        );
    }
    if table.is_empty() {
        table.push(0);
    }
    // Most common first, the smaller symbol on a tie: the places compress best in that order.
    table.sort_by_key(|&s| (std::cmp::Reverse(counts[usize::from(s)]), s));
    let mut place = vec![0u16; 1 << 16];
    for (at, &symbol) in table.iter().enumerate() {
        place[usize::from(symbol)] = at as u16;
    }
    symbols
        .par_iter_mut()
        .for_each(|s| *s = place[usize::from(*s)]);
    let entries = ListedEntries {
        symbols: &symbols,
        dont_care,
    };
    let max_place = table.len() as u16 - 1;
    // A block of places holds as many bytes unpacked as a block of the two-byte symbols did.
    let layout = Layout {
        positions_per_block: layout.positions_per_block * 2,
        ..layout
    };
    encode_entries(
        rules,
        signature,
        TableKind::Dtw,
        &entries,
        max_place,
        &table,
        layout,
        fills,
    )
}

/// [`encode`] over entries read a block at a time; `max_symbol` is the largest symbol, don't-care
/// entries included; with a `symbol_table` (non-empty), the entries are places in it.
#[allow(clippy::too_many_arguments)]
fn encode_entries(
    rules: RuleSetId,
    signature: Signature,
    kind: TableKind,
    entries: &impl Entries,
    max_symbol: u16,
    symbol_table: &[u16],
    layout: Layout,
    fills: &[Fill],
) -> io::Result<Vec<u8>> {
    let positions = entries.positions();
    let width = dtw_width(max_symbol);
    let per_block = layout.positions_per_block as usize;
    let blocks: Vec<Vec<u8>> = (0..positions.div_ceil(per_block))
        .into_par_iter()
        .map_init(
            || BlockScratch {
                compressor: layout.compression.compressor(kind),
                packing: Packing::default(),
            },
            |BlockScratch {
                 compressor,
                 packing,
             },
             number| {
                let compressor = compressor
                    .as_mut()
                    .map_err(|e| io::Error::new(e.kind(), e.to_string()))?;
                let start = number * per_block;
                let range = start..(start + per_block).min(positions);
                let mut best: Option<Vec<u8>> = None;
                for &fill in fills {
                    entries.pack(range.clone(), kind, max_symbol, fill, packing);
                    let compressed = compressor.compress(&packing.bytes)?;
                    if best.as_ref().is_none_or(|b| compressed.len() < b.len()) {
                        best = Some(compressed);
                    }
                }
                best.ok_or_else(|| io::Error::other("no fill to try"))
            },
        )
        .collect::<io::Result<_>>()?;
    let block_count = u32::try_from(blocks.len()).map_err(io::Error::other)?;

    let mut table = Vec::with_capacity(symbol_table.len() * 2 + blocks.len() * BLOCK_ENTRY_LEN);
    for symbol in symbol_table {
        table.extend_from_slice(&symbol.to_le_bytes());
    }
    let mut end = 0u64;
    for block in &blocks {
        end += block.len() as u64;
        table.extend_from_slice(&end.to_le_bytes());
        table.extend_from_slice(&xxh3_64(block).to_le_bytes());
    }

    let header = TableHeader {
        version: if symbol_table.is_empty() {
            VERSION
        } else {
            VERSION_SYMBOL_TABLE
        },
        kind,
        rules,
        signature,
        positions: positions as u64,
        positions_per_block: layout.positions_per_block,
        blocks: block_count,
        dtw_width: width as u8,
        max_symbol: symbol_table.iter().copied().max().unwrap_or(max_symbol),
        symbol_table: symbol_table.len() as u16,
        file_len: 0,
    }
    .encode(xxh3_64(&table));
    let mut file = Vec::with_capacity(HEADER_LEN + table.len() + end as usize + 8);
    file.extend_from_slice(&header);
    file.extend_from_slice(&table);
    for block in &blocks {
        file.extend_from_slice(block);
    }
    let mut hasher = Xxh3::new();
    hasher.update(&file);
    file.extend_from_slice(&hasher.digest().to_le_bytes());
    Ok(file)
}

/// The name a file is written under before it is renamed to `path`: unique to this process, so
/// that two jobs on a shared folder (a unit run twice by a scheduler) never write one file.
pub(crate) fn temporary_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".{}.partial", std::process::id()));
    PathBuf::from(name)
}

/// Deletes the files a killed run left half written in `folder` (`<table>.<ext>.<pid>.partial`,
/// [`temporary_path`]): every one, or those of the tables of `only`.
pub fn remove_partial_files(folder: &Path, only: Option<&[Signature]>) -> Result<(), Error> {
    let Ok(entries) = fs::read_dir(folder) else {
        return Ok(());
    };
    for entry in entries {
        let path = entry.map_err(io_error(folder))?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let table = name.split('.').next().unwrap_or("");
        let ours = only.is_none_or(|pair| pair.iter().any(|s| s.to_string() == table));
        if name.ends_with(".partial") && ours {
            fs::remove_file(&path).map_err(io_error(&path))?;
        }
    }
    Ok(())
}

/// Writes `bytes` atomically: a temporary file, fsynced, then renamed into place.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let parent = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(io_error(parent))?;
    let temporary = temporary_path(path);
    let file = File::create(&temporary).map_err(io_error(&temporary))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    out.write_all(bytes).map_err(io_error(&temporary))?;
    let file = out
        .into_inner()
        .map_err(|e| io_error(&temporary)(e.into_error()))?;
    file.sync_all().map_err(io_error(&temporary))?;
    drop(file);
    fs::rename(&temporary, path).map_err(io_error(path))?;
    if let Ok(dir) = File::open(parent) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Writes the WDL and DTW files of one solved table (packed values in index order, and
/// whether the mover has a capture at each: [`capture_flags`]).
pub fn write_compressed(
    dir: &Path,
    rules: &MoveRules,
    signature: Signature,
    (values, captures): (&[u16], &BitVec<u64>),
    compression: Compression,
) -> Result<[PathBuf; 2], Error> {
    // The flags by word, the first position in the low bit of the first word (a slice that
    // starts inside a word is copied to start at its first bit).
    let realigned: Vec<u64>;
    let captures_by_word = if captures.as_bitptr().bit().into_inner() == 0 {
        captures.as_raw_slice()
    } else {
        realigned = captures
            .iter()
            .by_vals()
            .collect::<BitVec<u64>>()
            .into_vec();
        &realigned
    };
    let mut paths = Vec::with_capacity(2);
    for (kind, layout) in [(TableKind::Wdl, Layout::WDL), (TableKind::Dtw, Layout::DTW)] {
        let layout = Layout {
            compression,
            ..layout
        };
        let path = table_path(dir, rules.id, signature, kind);
        let entries = SolvedEntries {
            kind,
            values,
            captures: captures_by_word,
        };
        let max_symbol = entries.max_symbol().ok_or_else(|| Error::Corrupt {
            path: dprobe::format::raw_table_path(dir, rules.id, signature),
            reason: "holds an invalid value".into(),
        })?;
        let bytes = encode_entries(
            rules.id,
            signature,
            kind,
            &entries,
            max_symbol,
            &[],
            layout,
            &[Fill::CHOSEN],
        )
        .map_err(io_error(&path))?;
        write_atomically(&path, &bytes)?;
        paths.push(path);
    }
    Ok([paths[0].clone(), paths[1].clone()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitvec::bitvec;
    use bitvec::order::Lsb0;

    #[test]
    fn dtw_files_skip_draws_and_captures_wdl_files_only_captures() {
        // 130 positions: three words of flags, the last one partial.
        let values: Vec<u16> = (0..130u16)
            .map(|i| match i % 3 {
                0 => Value::Draw,
                1 => Value::Win(i),
                _ => Value::Loss(i),
            })
            .map(Value::pack)
            .collect();
        let mut captures = bitvec![u64, Lsb0; 0; values.len()];
        for i in (0..values.len()).step_by(5) {
            captures.set(i, true);
        }
        assert_eq!(*dont_care(TableKind::Wdl, &values, &captures), *captures);
        let dtw = dont_care(TableKind::Dtw, &values, &captures);
        for (i, skipped) in dtw.iter().by_vals().enumerate() {
            assert_eq!(skipped, i % 3 == 0 || i % 5 == 0, "position {i}");
        }
    }

    #[test]
    fn solved_values_encode_as_their_listed_symbols_do() {
        // Three WDL blocks and a partial one (twelve DTW blocks and a partial one), a capture
        // every seventh position; DTW distances past one byte, then within it.
        for longest in [300, 100] {
            let values: Vec<u16> = (0..(3 * 32_768 + 100) as u32)
                .map(|i| match i % 5 {
                    0 | 3 => Value::Draw,
                    1 => Value::Win((2 * (i % longest) + 1) as u16),
                    _ => Value::Loss((2 * (i % 7)) as u16),
                })
                .map(Value::pack)
                .collect();
            let mut captures = bitvec![u64, Lsb0; 0; values.len()];
            for i in (0..values.len()).step_by(7) {
                captures.set(i, true);
            }
            let signature: Signature = "KKvK".parse().unwrap();
            let rules = RuleSetId::Russian;
            for kind in [TableKind::Wdl, TableKind::Dtw] {
                let layout = if kind == TableKind::Wdl {
                    Layout::WDL
                } else {
                    Layout::DTW
                };
                let listed = encode(
                    rules,
                    signature,
                    kind,
                    (
                        &symbols(&values, kind).unwrap(),
                        &dont_care(kind, &values, &captures),
                    ),
                    layout,
                    &[Fill::CHOSEN],
                )
                .unwrap();
                let solved = SolvedEntries {
                    kind,
                    values: &values,
                    captures: captures.as_raw_slice(),
                };
                let max_symbol = solved.max_symbol().unwrap();
                assert_eq!(
                    kind == TableKind::Dtw && longest == 300,
                    max_symbol > 255,
                    "{kind:?}"
                );
                let streamed = encode_entries(
                    rules,
                    signature,
                    kind,
                    &solved,
                    max_symbol,
                    &[],
                    layout,
                    &[Fill::CHOSEN],
                )
                .unwrap();
                assert!(listed == streamed, "{kind:?} files differ ({longest})");
            }
        }
    }

    /// The symbols of every position of an encoded DTW-kind file, as a reader sees them.
    fn read_back(bytes: Vec<u8>) -> Result<(TableHeader, Vec<u16>), dprobe::CorruptedTable> {
        let file = dprobe::format::TableFile::from_bytes("t", bytes)?;
        let mut all = Vec::new();
        let mut block = Vec::new();
        for b in 0..file.header().blocks {
            file.block_symbols(b, &mut block)?;
            all.extend_from_slice(&block);
        }
        Ok((*file.header(), all))
    }

    #[test]
    fn few_distinct_symbols_are_stored_as_places_in_a_symbol_table() {
        let signature: Signature = "KKvKM".parse().unwrap();
        let size = TableIndex::new(signature).size() as usize;
        // Corner-like codes: 120 distinct two-byte symbols; every eleventh entry don't-care.
        let symbols: Vec<u16> = (0..size)
            .map(|i| 0x8000 | ((i * 7 % 40) as u16) << 8 | (i % 3) as u16)
            .collect();
        let mut dont_care = bitvec![u64, Lsb0; 0; size];
        for i in (0..size).step_by(11) {
            dont_care.set(i, true);
        }
        let entries = (symbols.as_slice(), dont_care.as_bitslice());
        let rules = RuleSetId::Russian;
        let with_table = |symbols: Vec<u16>, dont_care: &BitSlice<u64>| {
            encode_with_symbol_table(
                rules,
                signature,
                (symbols, dont_care),
                Layout::DTW,
                &[Fill::CHOSEN],
            )
            .unwrap()
        };
        let tabled = with_table(symbols.clone(), &dont_care);
        let plain = encode(
            rules,
            signature,
            TableKind::Dtw,
            entries,
            Layout::DTW,
            &[Fill::CHOSEN],
        )
        .unwrap();
        assert!(
            tabled.len() < plain.len(),
            "{} against {}",
            tabled.len(),
            plain.len()
        );
        let (header, read) = read_back(tabled).unwrap();
        assert_eq!(
            (header.version, header.symbol_table, header.dtw_width),
            (VERSION_SYMBOL_TABLE, 120, 1)
        );
        assert_eq!(header.max_symbol, symbols.iter().copied().max().unwrap());
        for (i, (&written, &read)) in symbols.iter().zip(&read).enumerate() {
            assert!(
                dont_care[i] || written == read,
                "position {i}: {written} read as {read}"
            );
        }

        // Past 256 distinct symbols the file is an ordinary one of two-byte symbols.
        let many: Vec<u16> = (0..size).map(|i| (i % 300) as u16).collect();
        let none = bitvec![u64, Lsb0; 0; size];
        let wide = with_table(many.clone(), &none);
        let (header, read) = read_back(wide).unwrap();
        assert_eq!(
            (header.version, header.symbol_table, header.dtw_width),
            (VERSION, 0, 2)
        );
        assert_eq!(read, many);
    }

    #[test]
    fn a_place_past_the_symbol_table_or_a_changed_table_is_a_typed_error() {
        let signature: Signature = "KKvK".parse().unwrap();
        let size = TableIndex::new(signature).size() as usize;
        let places: Vec<u16> = (0..size).map(|i| (i % 4) as u16).collect();
        let none = bitvec![u64, Lsb0; 0; size];
        let entries = ListedEntries {
            symbols: &places,
            dont_care: &none,
        };
        let encode_with = |table: &[u16]| {
            encode_entries(
                RuleSetId::Russian,
                signature,
                TableKind::Dtw,
                &entries,
                3,
                table,
                Layout::DTW,
                &[Fill::CHOSEN],
            )
            .unwrap()
        };
        let (_, read) = read_back(encode_with(&[10, 20, 30, 40])).unwrap();
        assert_eq!(read[..5], [10, 20, 30, 40, 10]);
        // Places 2 and 3 have no symbol in a table of two.
        let error = read_back(encode_with(&[10, 20])).unwrap_err();
        assert!(
            matches!(error.reason, dprobe::Corruption::BlockData(0)),
            "{error}"
        );
        // The block table's checksum covers the symbol table.
        let mut changed = encode_with(&[10, 20, 30, 40]);
        changed[HEADER_LEN] ^= 1;
        let error = read_back(changed).unwrap_err();
        assert_eq!(error.reason, dprobe::Corruption::BlockTableChecksum);
    }

    #[test]
    fn symbols_straight_from_packed_values_are_the_values_symbols() {
        for packed in 1..=u16::MAX {
            let value = Value::unpack(packed).unwrap();
            for kind in [TableKind::Wdl, TableKind::Dtw] {
                assert_eq!(
                    Some(packed_symbol(kind, packed)),
                    kind.symbol(value),
                    "{kind:?} {value:?}"
                );
            }
        }
    }

    #[test]
    fn an_invalid_value_has_no_symbol() {
        // 0 is no value: a position the solver never decided.
        let values = [Value::Draw.pack(), 0];
        let solved = SolvedEntries {
            kind: TableKind::Wdl,
            values: &values,
            captures: &[0],
        };
        assert_eq!(solved.max_symbol(), None);
    }
}
