//! The writer of the published, compressed table files (`docs/FORMAT.md`): a WDL file (win, draw
//! or loss, two bits per position) and a DTW file (the distance, one or two bytes per
//! position), both cut into blocks that are zstd-compressed on their own, with a checksum per
//! block and one for the whole file.
//!
//! Positions where the mover has a capture are not needed (the probe follows the captures into
//! smaller tables), so their entries are "don't care", and so are draws in the DTW file (the
//! probe reads a position's WDL first): each gets its block's most common symbol (measured
//! against other fills in the README).

use std::borrow::Cow;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use bitvec::slice::BitSlice;
use bitvec::vec::BitVec;
use dprobe::{has_capture, MoveRules, RuleSetId, Signature, TableIndex, Value};
use rayon::prelude::*;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::store::StoreError;

const MAGIC: &[u8; 8] = b"DTBTABLE";
/// Version 2: draws are don't-care in DTW files.
const FORMAT_VERSION: u16 = 2;
const HEADER_LEN: usize = 64;
const BLOCK_ENTRY_LEN: usize = 16;
const CODEC_ZSTD: u8 = 1;

/// The two kinds of compressed file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Win, draw or loss: two bits per position.
    Wdl,
    /// Distance to the end of the game: one (or two) bytes per position.
    Dtw,
}

impl Kind {
    /// The file name extension.
    pub const fn extension(self) -> &'static str {
        match self {
            Kind::Wdl => "wdl",
            Kind::Dtw => "dtw",
        }
    }

    const fn code(self) -> u8 {
        match self {
            Kind::Wdl => 1,
            Kind::Dtw => 2,
        }
    }
}

/// How each block is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// The setting tuned on these tables (the default): zstd level 15 with its parser switched
    /// from `btultra` to `btopt`, searching 4 candidates per position for matches of at least
    /// 5 bytes and taking matches of up to 999 bytes whole. Measured on the Russian tables
    /// (README, "Table files"): files 1.5 to 2 % larger than level 15's in about 30 % of its
    /// time.
    Tuned,
    /// A plain zstd level, 1 to 22.
    Level(i32),
}

impl Compression {
    /// A zstd context set up for this compression.
    pub fn compressor(self) -> io::Result<zstd::bulk::Compressor<'static>> {
        use zstd::stream::raw::CParameter;
        use zstd::zstd_safe::Strategy;
        match self {
            Compression::Level(level) => zstd::bulk::Compressor::new(level),
            Compression::Tuned => {
                let mut compressor = zstd::bulk::Compressor::new(15)?;
                // Level 15's optimal parser with exact prices (btultra) spends most of its
                // time re-pricing the long repeats of these tables; btopt's estimates lose
                // little here. Its match search is most of what is left: these tables repeat
                // in long runs, so a short search (log 2) for matches of 5 bytes or more
                // finds nearly as much. These were the best of the combinations tried for
                // size per second.
                for parameter in [
                    CParameter::Strategy(Strategy::ZSTD_btopt),
                    CParameter::SearchLog(2),
                    CParameter::MinMatch(5),
                    CParameter::TargetLength(999),
                ] {
                    compressor.set_parameter(parameter)?;
                }
                Ok(compressor)
            }
        }
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
    /// The WDL layout chosen by measurement (README, "Table files"): 32 768 positions (8 KiB
    /// unpacked) per block.
    pub const WDL: Layout = Layout {
        positions_per_block: 32_768,
        compression: Compression::Tuned,
    };
    /// The DTW layout chosen by measurement: 8 192 positions per block.
    pub const DTW: Layout = Layout {
        positions_per_block: 8_192,
        compression: Compression::Tuned,
    };
}

/// The compressed file of one table in `dir`.
pub fn compressed_path(dir: &Path, rules: RuleSetId, signature: Signature, kind: Kind) -> PathBuf {
    dir.join(rules.name())
        .join(format!("{signature}.{}", kind.extension()))
}

/// One flag per position of a table: whether the mover has a capture (those entries are
/// don't-care). The solver finds these flags as it goes; this is for tables already on disk.
pub fn capture_flags(rules: &MoveRules, index: &TableIndex) -> BitVec<u64> {
    crate::solve::flags_by_chunks(
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
pub fn symbols(values: &[u16], kind: Kind) -> Option<Vec<u16>> {
    values
        .par_iter()
        .map(|&packed| symbol(kind, Value::unpack(packed)?))
        .collect()
}

/// The symbol of one value (see [`symbols`]); `None` if the distance does not fit.
pub fn symbol(kind: Kind, value: Value) -> Option<u16> {
    Some(match (kind, value) {
        (Kind::Wdl, Value::Loss(_)) => 0,
        (Kind::Wdl, Value::Draw) => 1,
        (Kind::Wdl, Value::Win(_)) => 2,
        (Kind::Dtw, Value::Draw) => 0,
        (Kind::Dtw, Value::Win(d) | Value::Loss(d)) => d.checked_add(1)?,
    })
}

/// The entries of a file of `kind` that the probe never reads: positions where the mover has a
/// capture, and in a DTW file draws too (the probe takes them from the WDL file). Not storing
/// draws' distances makes the DTW files smaller and quicker to compress (README, "Table files").
pub fn dont_care<'a>(
    kind: Kind,
    values: &[u16],
    captures: &'a BitSlice<u64>,
) -> Cow<'a, BitSlice<u64>> {
    match kind {
        Kind::Wdl => Cow::Borrowed(captures),
        Kind::Dtw => {
            let draw = Value::Draw.pack();
            let mut mask = captures.to_bitvec();
            mask.as_raw_mut_slice()
                .par_iter_mut()
                .zip(values.par_chunks(64))
                .for_each(|(word, values)| {
                    for (bit, &value) in values.iter().enumerate() {
                        *word |= u64::from(value == draw) << bit;
                    }
                });
            Cow::Owned(mask)
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
    /// The fill the writer uses. Measured (README, "Table files"): the most common symbol
    /// compresses better than repeating the previous one on every table tried, and trying both
    /// per block gains under 0.5% for twice the time.
    pub const CHOSEN: Fill = Fill::Majority;

    fn apply(self, block: &[u16], dont_care: &BitSlice<u64>) -> Vec<u16> {
        let cared = || {
            block
                .iter()
                .zip(dont_care.iter().by_vals())
                .filter(|&(_, c)| !c)
                .map(|(&s, _)| s)
        };
        match self {
            Fill::Solved => block.to_vec(),
            Fill::Previous => {
                let mut previous = cared().next().unwrap_or(0);
                block
                    .iter()
                    .zip(dont_care.iter().by_vals())
                    .map(|(&s, skip)| {
                        if !skip {
                            previous = s;
                        }
                        previous
                    })
                    .collect()
            }
            Fill::Majority => {
                let mut counts =
                    vec![0u32; usize::from(block.iter().copied().max().unwrap_or(0)) + 1];
                for s in cared() {
                    counts[usize::from(s)] += 1;
                }
                // The most common symbol, the smallest one on a tie.
                let most = (0..counts.len())
                    .max_by_key(|&s| (counts[s], std::cmp::Reverse(s)))
                    .map_or(0, |s| s as u16);
                block
                    .iter()
                    .zip(dont_care.iter().by_vals())
                    .map(|(&s, skip)| if skip { most } else { s })
                    .collect()
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

/// The uncompressed bytes of one block of symbols: WDL two bits per position, four per byte,
/// the first position in the low bits; DTW one or two bytes (little-endian) per position.
fn pack_block(symbols: &[u16], kind: Kind, width: usize) -> Vec<u8> {
    match kind {
        Kind::Wdl => symbols
            .chunks(4)
            .map(|four| four.iter().rev().fold(0u8, |byte, &s| byte << 2 | s as u8))
            .collect(),
        Kind::Dtw if width == 1 => symbols.iter().map(|&s| s as u8).collect(),
        Kind::Dtw => symbols.iter().flat_map(|s| s.to_le_bytes()).collect(),
    }
}

/// Compresses a whole table of symbols (see [`symbols`]) into the bytes of a file; entries
/// flagged in `dont_care` (see [`dont_care`]) are filled by whichever of `fills` compresses
/// each block best (the writer passes one).
pub fn encode(
    rules: RuleSetId,
    signature: Signature,
    kind: Kind,
    (symbols, dont_care): (&[u16], &BitSlice<u64>),
    layout: Layout,
    fills: &[Fill],
) -> io::Result<Vec<u8>> {
    let max_symbol = symbols.par_iter().copied().max().unwrap_or(0);
    let width = dtw_width(max_symbol);
    let per_block = layout.positions_per_block as usize;
    let blocks: Vec<Vec<u8>> = symbols
        .par_chunks(per_block)
        .enumerate()
        .map_init(
            // One compression context per worker: a fresh one per block would allocate and
            // clear its tables every time.
            || layout.compression.compressor(),
            |compressor, (number, block)| {
                let compressor = compressor
                    .as_mut()
                    .map_err(|e| io::Error::new(e.kind(), e.to_string()))?;
                let dont_care = &dont_care[number * per_block..][..block.len()];
                let mut best: Option<Vec<u8>> = None;
                for fill in fills {
                    let packed = pack_block(&fill.apply(block, dont_care), kind, width);
                    let compressed = compressor.compress(&packed)?;
                    if best.as_ref().is_none_or(|b| compressed.len() < b.len()) {
                        best = Some(compressed);
                    }
                }
                best.ok_or_else(|| io::Error::other("no fill to try"))
            },
        )
        .collect::<io::Result<_>>()?;
    let block_count = u32::try_from(blocks.len()).map_err(io::Error::other)?;

    let mut table = Vec::with_capacity(blocks.len() * BLOCK_ENTRY_LEN);
    let mut end = 0u64;
    for block in &blocks {
        end += block.len() as u64;
        table.extend_from_slice(&end.to_le_bytes());
        table.extend_from_slice(&xxh3_64(block).to_le_bytes());
    }

    let mut header = [0u8; HEADER_LEN];
    header[0..8].copy_from_slice(MAGIC);
    header[8..10].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    header[10] = kind.code();
    header[11] = rules.code();
    header[12..16].copy_from_slice(&signature.counts());
    header[16..24].copy_from_slice(&(symbols.len() as u64).to_le_bytes());
    header[24..28].copy_from_slice(&layout.positions_per_block.to_le_bytes());
    header[28..32].copy_from_slice(&block_count.to_le_bytes());
    header[32] = CODEC_ZSTD;
    header[33] = match kind {
        Kind::Wdl => 1,
        Kind::Dtw => width as u8,
    };
    header[34..36].copy_from_slice(&max_symbol.to_le_bytes());
    header[48..56].copy_from_slice(&xxh3_64(&table).to_le_bytes());
    let header_sum = xxh3_64(&header[..56]);
    header[56..64].copy_from_slice(&header_sum.to_le_bytes());

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

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `bytes` atomically: a temporary file, fsynced, then renamed into place.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let parent = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(io_error(parent))?;
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".partial");
    let temporary = PathBuf::from(temporary);
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
    (values, captures): (&[u16], &BitSlice<u64>),
    compression: Compression,
) -> Result<[PathBuf; 2], StoreError> {
    let mut paths = Vec::with_capacity(2);
    for (kind, layout) in [(Kind::Wdl, Layout::WDL), (Kind::Dtw, Layout::DTW)] {
        let layout = Layout {
            compression,
            ..layout
        };
        let path = compressed_path(dir, rules.id, signature, kind);
        let symbols = symbols(values, kind).ok_or_else(|| StoreError::Corrupt {
            path: crate::store::table_path(dir, rules.id, signature),
            reason: "holds an invalid value".into(),
        })?;
        let bytes = encode(
            rules.id,
            signature,
            kind,
            (&symbols, &dont_care(kind, values, captures)),
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
        assert_eq!(*dont_care(Kind::Wdl, &values, &captures), *captures);
        let dtw = dont_care(Kind::Dtw, &values, &captures);
        for (i, skipped) in dtw.iter().by_vals().enumerate() {
            assert_eq!(skipped, i % 3 == 0 || i % 5 == 0, "position {i}");
        }
    }
}
