//! Rule table files (`docs/FORMAT.md`, "Rule tables"): for one signature under one set of counted
//! draw rules, the result with fresh counts and the planes of thresholds that decide running
//! counts. A file is a small header listing sections, each section an ordinary compressed table
//! (the format of `.dtw` files with one byte per position), checked as those are.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::Mmap;
use xxhash_rust::xxh3::xxh3_64;

use crate::draw::PlaneKind;
use crate::draw::{DrawPreset, MAX_COUNTERS};
use crate::error::{CorruptedTable, Corruption, ProbeError};
use crate::format::TableFile;
use crate::format::{TableKind, MAX_TABLE_PIECES};
use crate::index::Signature;
use crate::rules::RuleSetId;

/// The first bytes of a draw-rule table file.
pub const MAGIC: &[u8; 8] = b"DTBRULES";
/// The version written.
pub const VERSION: u16 = 2;
/// Bytes before the section list.
pub const HEADER_LEN: usize = 32;
/// Bytes per section entry.
pub const SECTION_LEN: usize = 16;
/// The most sections a file may list (fresh results, two families of at most 121 planes, fresh
/// results under each counter alone).
const MAX_SECTIONS: usize = 1 + 2 * 121 + MAX_COUNTERS;

/// What a section holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectionRole {
    /// The [`crate::DrawWdl`] code of every position with fresh counts.
    Fresh,
    /// Plane `plane` of the family before the condition counter starts (or the only family).
    Pre(PlaneKind, u16),
    /// Plane `plane` of the family after the condition counter started.
    Post(PlaneKind, u16),
    /// The [`crate::DrawWdl`] code of every position with fresh counts under counter `k` of the
    /// draw rules (in their order) alone: what that rule by itself changes, for statistics.
    Alone(u16),
}

impl SectionRole {
    /// The three bytes a section entry starts with: family, plane kind, plane number.
    pub fn encode(self) -> [u8; 4] {
        let (family, kind, plane) = match self {
            SectionRole::Fresh => (0, 0, 0),
            SectionRole::Pre(kind, plane) => (1, kind.code(), plane),
            SectionRole::Post(kind, plane) => (2, kind.code(), plane),
            SectionRole::Alone(counter) => (3, 0, counter),
        };
        let plane = plane.to_le_bytes();
        [family, kind, plane[0], plane[1]]
    }

    fn decode(bytes: &[u8]) -> Option<SectionRole> {
        let plane = u16::from_le_bytes([bytes[2], bytes[3]]);
        match bytes[0] {
            0 => Some(SectionRole::Fresh),
            1 => Some(SectionRole::Pre(PlaneKind::from_code(bytes[1])?, plane)),
            2 => Some(SectionRole::Post(PlaneKind::from_code(bytes[1])?, plane)),
            3 => Some(SectionRole::Alone(plane)),
            _ => None,
        }
    }
}

/// The bytes a draw-rule table file starts with: its header, the list of its sections (each
/// with its role and its length in bytes) and the checksum of both. The sections' compressed
/// tables follow in the order listed.
pub fn encode_header(
    rules: RuleSetId,
    preset: DrawPreset,
    fingerprint: u64,
    signature: Signature,
    sections: &[(SectionRole, u64)],
) -> Vec<u8> {
    let mut out = vec![0u8; HEADER_LEN];
    out[0..8].copy_from_slice(MAGIC);
    out[8..10].copy_from_slice(&VERSION.to_le_bytes());
    out[10] = rules.code();
    out[11] = preset.code();
    out[12..16].copy_from_slice(&signature.counts());
    out[16..24].copy_from_slice(&fingerprint.to_le_bytes());
    out[24..26].copy_from_slice(&(sections.len() as u16).to_le_bytes());
    for &(role, len) in sections {
        let mut entry = [0u8; SECTION_LEN];
        entry[0..4].copy_from_slice(&role.encode());
        entry[8..16].copy_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&entry);
    }
    let checksum = xxh3_64(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

/// The planes of one family.
#[derive(Debug)]
pub(crate) struct FamilyFile {
    pub(crate) kind: PlaneKind,
    pub(crate) planes: Vec<TableFile>,
}

/// An opened, checked rule table file.
#[derive(Debug)]
pub struct DrawFile {
    /// The move rules.
    pub rules: RuleSetId,
    /// The counted draw rules' preset.
    pub preset: DrawPreset,
    /// The fingerprint of the draw rules (preset and interpretation).
    pub fingerprint: u64,
    /// The signature, from the mover's view.
    pub signature: Signature,
    pub(crate) fresh: TableFile,
    pub(crate) pre: FamilyFile,
    pub(crate) post: Option<FamilyFile>,
    /// Fresh results under each counter alone, in the counters' order (none if the rules have
    /// a single counter: then they are the fresh results).
    alone: Vec<TableFile>,
}

impl DrawFile {
    /// Opens a rule table file and checks its header and every section's header.
    ///
    /// # Errors
    ///
    /// [`ProbeError::Io`] if it cannot be read, [`ProbeError::Corrupted`] if it is not an intact
    /// rule table file.
    pub fn open(path: &Path) -> Result<DrawFile, ProbeError> {
        let io_error = |source: io::Error| ProbeError::Io {
            path: path.to_path_buf(),
            source: Arc::new(source),
        };
        let file = File::open(path).map_err(io_error)?;
        let corrupt = |reason| {
            ProbeError::Corrupted(CorruptedTable {
                path: path.to_path_buf(),
                reason,
            })
        };
        if file.metadata().map_err(io_error)?.len() == 0 {
            return Err(corrupt(Corruption::Empty));
        }
        // SAFETY: rule files are written under a temporary name and renamed into place, never
        // modified afterwards; every offset is checked against the mapping's length below.
        let map = Arc::new(unsafe { Mmap::map(&file) }.map_err(io_error)?);
        DrawFile::parse(path.to_path_buf(), map).map_err(ProbeError::from)
    }

    fn parse(path: PathBuf, map: Arc<Mmap>) -> Result<DrawFile, CorruptedTable> {
        let corrupt = |reason| CorruptedTable {
            path: path.clone(),
            reason,
        };
        let data: &[u8] = &map;
        let len = data.len() as u64;
        if data.len() < HEADER_LEN + 8 {
            if !MAGIC.starts_with(&data[..data.len().min(8)]) {
                return Err(corrupt(Corruption::BadMagic));
            }
            return Err(corrupt(Corruption::Truncated {
                len,
                needed: (HEADER_LEN + 8) as u64,
            }));
        }
        if &data[0..8] != MAGIC {
            return Err(corrupt(Corruption::BadMagic));
        }
        let version = u16::from_le_bytes([data[8], data[9]]);
        if version != VERSION {
            return Err(corrupt(Corruption::UnsupportedVersion(version)));
        }
        let sections = usize::from(u16::from_le_bytes([data[24], data[25]]));
        if sections == 0 || sections > MAX_SECTIONS {
            return Err(corrupt(Corruption::BadHeader("section count")));
        }
        let table_end = HEADER_LEN + sections * SECTION_LEN;
        if data.len() < table_end + 8 {
            return Err(corrupt(Corruption::Truncated {
                len,
                needed: (table_end + 8) as u64,
            }));
        }
        let mut stored = [0u8; 8];
        stored.copy_from_slice(&data[table_end..table_end + 8]);
        if xxh3_64(&data[..table_end]) != u64::from_le_bytes(stored) {
            return Err(corrupt(Corruption::HeaderChecksum));
        }
        let rules =
            RuleSetId::from_code(data[10]).ok_or(corrupt(Corruption::BadHeader("rule set")))?;
        let preset =
            DrawPreset::from_code(data[11]).ok_or(corrupt(Corruption::BadHeader("draw rules")))?;
        let signature = Signature::from_counts([data[12], data[13], data[14], data[15]]);
        if !signature.is_possible() || signature.pieces() > MAX_TABLE_PIECES {
            return Err(corrupt(Corruption::BadHeader("impossible signature")));
        }
        let mut fingerprint = [0u8; 8];
        fingerprint.copy_from_slice(&data[16..24]);
        let fingerprint = u64::from_le_bytes(fingerprint);

        let mut at = table_end + 8;
        let mut fresh = None;
        let mut pre: Option<FamilyFile> = None;
        let mut post: Option<FamilyFile> = None;
        let mut alone = Vec::new();
        for entry in data[HEADER_LEN..table_end].chunks_exact(SECTION_LEN) {
            let role =
                SectionRole::decode(entry).ok_or(corrupt(Corruption::BadHeader("section")))?;
            let mut length = [0u8; 8];
            length.copy_from_slice(&entry[8..16]);
            let length = u64::from_le_bytes(length);
            let end = (at as u64)
                .checked_add(length)
                .filter(|&end| end <= len)
                .ok_or(corrupt(Corruption::Truncated {
                    len,
                    needed: at as u64 + length,
                }))? as usize;
            let table = TableFile::from_section(path.clone(), map.clone(), at..end)?;
            table.expect(TableKind::Dtw, rules, signature)?;
            at = end;
            match role {
                SectionRole::Fresh => fresh = Some(table),
                SectionRole::Alone(counter) => {
                    if usize::from(counter) != alone.len() {
                        return Err(corrupt(Corruption::BadHeader("sections out of order")));
                    }
                    alone.push(table);
                }
                SectionRole::Pre(kind, plane) | SectionRole::Post(kind, plane) => {
                    let family = if matches!(role, SectionRole::Pre(..)) {
                        &mut pre
                    } else {
                        &mut post
                    };
                    let family = family.get_or_insert(FamilyFile {
                        kind,
                        planes: Vec::new(),
                    });
                    if family.kind != kind || usize::from(plane) != family.planes.len() {
                        return Err(corrupt(Corruption::BadHeader("sections out of order")));
                    }
                    family.planes.push(table);
                }
            }
        }
        if at as u64 != len {
            return Err(corrupt(Corruption::TrailingBytes {
                len,
                expected: at as u64,
            }));
        }
        Ok(DrawFile {
            rules,
            preset,
            fingerprint,
            signature,
            fresh: fresh.ok_or(corrupt(Corruption::BadHeader("no fresh results")))?,
            pre: pre.ok_or(corrupt(Corruption::BadHeader("no planes")))?,
            post,
            alone,
        })
    }

    /// The [`crate::DrawWdl`] code of every position with fresh counts, in index order.
    ///
    /// # Errors
    ///
    /// [`CorruptedTable`] if a block is damaged.
    pub fn fresh_results(&self) -> Result<Vec<u8>, CorruptedTable> {
        read_codes(&self.fresh)
    }

    /// How many counters the file holds results alone for: the number of counters of its draw
    /// rules, or 0 if they have one counter (or none).
    pub fn counters_alone(&self) -> usize {
        self.alone.len()
    }

    /// As [`DrawFile::fresh_results`], under counter `counter` of the draw rules alone, `None`
    /// past [`DrawFile::counters_alone`].
    ///
    /// # Errors
    ///
    /// [`CorruptedTable`] if a block is damaged.
    pub fn fresh_results_alone(&self, counter: usize) -> Option<Result<Vec<u8>, CorruptedTable>> {
        self.alone.get(counter).map(read_codes)
    }

    /// The kind and number of planes of the family before the condition counter starts (or the
    /// only family; `post` false) or after it started (`post` true; `None` if the material has
    /// no condition counter).
    pub fn family(&self, post: bool) -> Option<(PlaneKind, usize)> {
        let family = if post { self.post.as_ref()? } else { &self.pre };
        Some((family.kind, family.planes.len()))
    }

    /// Every entry of one plane of a family ([`DrawFile::family`]), in index order.
    ///
    /// # Errors
    ///
    /// [`CorruptedTable`] if a block is damaged or the plane does not exist.
    pub fn plane(&self, post: bool, plane: usize) -> Result<Vec<u8>, CorruptedTable> {
        let family = if post {
            self.post.as_ref()
        } else {
            Some(&self.pre)
        };
        let table = family
            .and_then(|f| f.planes.get(plane))
            .ok_or_else(|| self.fresh.corrupt(Corruption::BadHeader("no such plane")))?;
        section_bytes(table)
    }

    /// Checks every section completely (checksums and block contents).
    ///
    /// # Errors
    ///
    /// [`CorruptedTable`] with the first problem found.
    pub fn verify(&self) -> Result<(), CorruptedTable> {
        self.fresh.verify()?;
        for family in std::iter::once(&self.pre).chain(self.post.as_ref()) {
            for plane in &family.planes {
                plane.verify()?;
            }
        }
        for table in &self.alone {
            table.verify()?;
        }
        Ok(())
    }
}

/// Every entry of a section (one byte per position), in index order.
fn section_bytes(table: &TableFile) -> Result<Vec<u8>, CorruptedTable> {
    let header = table.header();
    if header.dtw_width != 1 {
        return Err(table.corrupt(Corruption::BadHeader("rule entries wider than a byte")));
    }
    let mut out = Vec::with_capacity(header.positions as usize);
    let mut block = Vec::new();
    for b in 0..header.blocks {
        table.read_block(b, &mut block)?;
        out.extend_from_slice(&block);
    }
    if out.len() as u64 != header.positions {
        return Err(table.corrupt(Corruption::BadHeader("section length")));
    }
    Ok(out)
}

/// Every [`crate::DrawWdl`] code of a section, in index order.
fn read_codes(table: &TableFile) -> Result<Vec<u8>, CorruptedTable> {
    let out = section_bytes(table)?;
    if out.iter().any(|&c| c > 4) {
        return Err(table.corrupt(Corruption::BadHeader("fresh results")));
    }
    Ok(out)
}
