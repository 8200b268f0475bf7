//! Rule table files (`docs/FORMAT.md`, "Rule tables"): for one signature under one set of counted
//! draw rules, the result with fresh counts and, per family, what decides running counts: a
//! threshold per position (one budget), or the corners of its staircase (`A` and `Z`). A file is
//! a small header listing sections, each section an ordinary compressed table (the format of
//! `.dtw` files), checked as those are.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::Mmap;
use xxhash_rust::xxh3::xxh3_64;

use crate::draw::{DrawPreset, MAX_COUNTERS};
use crate::draw::{DrawWdl, PlaneKind, MAX_STORED, NEVER};
use crate::error::{CorruptedTable, Corruption, ProbeError};
use crate::format::TableFile;
use crate::format::{TableKind, MAX_TABLE_PIECES};
use crate::index::Signature;
use crate::rules::RuleSetId;
use crate::value::Wdl;

/// The first bytes of a draw-rule table file.
pub const MAGIC: &[u8; 8] = b"DTBRULES";
/// The version written. Version 5 left the family entries of capture positions and pure draws
/// unspecified (no reader reads them); version 6 stores a family of layers' corners as one
/// byte a position indexing a symbol table where a section has at most 256 distinct corners;
/// version 7 names, without storing it, the results under a counter alone that follow from
/// those under all the rules ([`AloneImplied`]); version 8 stores no family for a material
/// where no count runs and no capture or crowning leads to a result the rules turn (the rules
/// leave its every value as the pure game has it). Versions 4 to 7 are still read.
pub const VERSION: u16 = 8;
/// The first version that may name results alone without storing them.
const FIRST_WITH_IMPLIED: u16 = 7;
/// The first version whose files may hold no family.
const FIRST_WITHOUT_FAMILY: u16 = 8;
/// The oldest version read.
const OLDEST_READ: u16 = 4;
/// Bytes before the section list.
pub const HEADER_LEN: usize = 32;
/// Bytes per section entry.
pub const SECTION_LEN: usize = 16;
/// The most layers a family holds (`A` from 0 to 120, the longest count of the presets).
pub const MAX_LAYERS: u16 = 121;
/// The most sections a file may list (fresh results, two families of at most one section per
/// layer, fresh results under each counter alone).
const MAX_SECTIONS: usize = 1 + 2 * MAX_LAYERS as usize + MAX_COUNTERS;

/// A staircase corner's code: `value` (the least `Z` that wins from layer `layer` on; never
/// [`NEVER`]) in the low byte, `layer` in bits 8–14, and bit 15 set if the position has a
/// further corner (in the next section of its family).
pub const fn corner_code(layer: u16, value: u8, more: bool) -> u16 {
    (layer << 8) | value as u16 | if more { 1 << 15 } else { 0 }
}

/// The code of "no corner": a position whose winner never wins in the family (or no further
/// corner where the previous said there is none).
pub const NO_CORNER: u16 = NEVER as u16;

/// The parts of a corner code ([`corner_code`]): layer, value and whether a further corner
/// follows. A value of [`NEVER`] is no corner.
#[inline(always)]
pub const fn corner_parts(code: u16) -> (u16, u8, bool) {
    ((code >> 8) & 0x7F, code as u8, code & (1 << 15) != 0)
}

/// What a section holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectionRole {
    /// The [`crate::DrawWdl`] code of every position with fresh counts.
    Fresh,
    /// Section `rank` of the family before the condition counter starts (or the only family).
    Pre(FamilySection),
    /// Section `rank` of the family after the condition counter started.
    Post(FamilySection),
    /// Whether counter `k` of the draw rules (in their order) alone turns each position's pure
    /// result into a draw ([`alone_symbol`]): what that rule by itself changes, for statistics.
    Alone(u16),
    /// The results under counter `k` alone, named but not stored (an empty section): they
    /// follow from the results under all the rules as the [`AloneImplied`] says.
    AloneImplied(u16, AloneImplied),
}

/// Results under one counter alone that a file names without storing them, because they follow
/// from the results under all the rules. Most counters of a preset change nothing in most
/// materials, and where one counter makes every change, it alone makes the same ones: a
/// section of either kind cost a compressed block per 32 768 positions, together about 8 % of
/// the Russian rule files up to 5 pieces (`docs/DRAW_RULES.md` §9.12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AloneImplied {
    /// The counter alone turns no position's pure result into a draw.
    NoneTurned,
    /// The counter alone turns exactly the positions the rules together turn.
    AsUnderAll,
}

impl AloneImplied {
    /// The code in a section entry's kind byte (0 is a stored section).
    const fn code(self) -> u8 {
        match self {
            AloneImplied::NoneTurned => 1,
            AloneImplied::AsUnderAll => 2,
        }
    }

    /// What results alone `turned` (one bit a position: the counter alone turns the pure
    /// result into a draw) are implied by the fresh results under all the rules (`fresh`,
    /// [`DrawWdl`] codes), if they are.
    pub fn of(turned: impl IntoIterator<Item = bool>, fresh: &[u8]) -> Option<AloneImplied> {
        let (mut none, mut as_all) = (true, true);
        for (turned, &all) in turned.into_iter().zip(fresh) {
            let by_all = DrawWdl::from_code(all).is_some_and(|r| fresh_symbol(r) == 1);
            none &= !turned;
            as_all &= turned == by_all;
            if !none && !as_all {
                return None;
            }
        }
        if none {
            Some(AloneImplied::NoneTurned)
        } else {
            Some(AloneImplied::AsUnderAll)
        }
    }
}

/// How a file keeps the results under one counter alone.
#[derive(Debug)]
enum AloneFile {
    Stored(Box<TableFile>),
    Implied(AloneImplied),
}

/// One section of a family: its kind, how many layers of `A` the family distinguishes (1 for a
/// family of one budget or none), and which section of the family it is. A family of thresholds
/// or distances has one section of one byte per position; a family of layers has one section per
/// rank of corner (section `r` holds every position's corner `r + 1`, where it has one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FamilySection {
    /// What the family holds.
    pub kind: PlaneKind,
    /// Layers of `A` the family distinguishes (layers past the last repeat it).
    pub layers: u16,
    /// The section's rank in its family.
    pub rank: u16,
}

impl SectionRole {
    /// The six bytes a section entry starts with: family, kind, rank or counter number (u16),
    /// layers (u16).
    pub fn encode(self) -> [u8; 6] {
        let (family, kind, number, layers) = match self {
            SectionRole::Fresh => (0, 0, 0, 0),
            SectionRole::Pre(f) => (1, f.kind.code(), f.rank, f.layers),
            SectionRole::Post(f) => (2, f.kind.code(), f.rank, f.layers),
            SectionRole::Alone(counter) => (3, 0, counter, 0),
            SectionRole::AloneImplied(counter, implied) => (3, implied.code(), counter, 0),
        };
        let (number, layers) = (number.to_le_bytes(), layers.to_le_bytes());
        [family, kind, number[0], number[1], layers[0], layers[1]]
    }

    fn decode(bytes: &[u8]) -> Option<SectionRole> {
        let number = u16::from_le_bytes([bytes[2], bytes[3]]);
        let family = |bytes: &[u8]| {
            Some(FamilySection {
                kind: PlaneKind::from_code(bytes[1])?,
                layers: u16::from_le_bytes([bytes[4], bytes[5]]),
                rank: number,
            })
        };
        match bytes[0] {
            0 => Some(SectionRole::Fresh),
            1 => Some(SectionRole::Pre(family(bytes)?)),
            2 => Some(SectionRole::Post(family(bytes)?)),
            3 => match bytes[1] {
                0 => Some(SectionRole::Alone(number)),
                1 => Some(SectionRole::AloneImplied(number, AloneImplied::NoneTurned)),
                2 => Some(SectionRole::AloneImplied(number, AloneImplied::AsUnderAll)),
                _ => None,
            },
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
        entry[0..6].copy_from_slice(&role.encode());
        entry[8..16].copy_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&entry);
    }
    let checksum = xxh3_64(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

/// The sections of one family.
#[derive(Debug)]
pub(crate) struct FamilyFile {
    pub(crate) kind: PlaneKind,
    pub(crate) layers: u16,
    /// The number of its first section in the file.
    pub(crate) first_section: u32,
    pub(crate) sections: Vec<TableFile>,
}

impl FamilyFile {
    /// Whether its sections hold corners (a family of layers) rather than one value each.
    pub(crate) fn holds_corners(&self) -> bool {
        self.kind == PlaneKind::LayersAz
    }
}

/// The staircases of one family of a rule table ([`DrawFile::corners`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FamilyCorners {
    /// Layers of `A` the family distinguishes (layers past the last repeat it).
    pub layers: u16,
    /// Per position its first corner: a [`corner_code`], with the flag of a further corner, or
    /// [`NO_CORNER`]. In a family of one layer, the threshold or distance itself.
    pub first: Vec<u16>,
    /// The corners after the first, as (position, code), sorted by position and then layer.
    pub further: Vec<(u32, u16)>,
}

/// An opened, checked rule table file.
#[derive(Debug)]
pub struct DrawFile {
    /// The format version it was written in ([`VERSION`] or an older one still read).
    pub version: u16,
    /// The move rules.
    pub rules: RuleSetId,
    /// The counted draw rules' preset.
    pub preset: DrawPreset,
    /// The fingerprint of the draw rules (preset and interpretation).
    pub fingerprint: u64,
    /// The signature, from the mover's view.
    pub signature: Signature,
    pub(crate) fresh: TableFile,
    /// `None` where the rules leave the material as the pure game has it (version 8 on): then
    /// the fresh results say everything, in every state.
    pub(crate) pre: Option<FamilyFile>,
    pub(crate) post: Option<FamilyFile>,
    /// Fresh results under each counter alone, in the counters' order (none if the rules have
    /// a single counter: then they are the fresh results).
    alone: Vec<AloneFile>,
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
        if !(OLDEST_READ..=VERSION).contains(&version) {
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
        for (number, entry) in data[HEADER_LEN..table_end]
            .chunks_exact(SECTION_LEN)
            .enumerate()
        {
            let role =
                SectionRole::decode(entry).ok_or(corrupt(Corruption::BadHeader("section")))?;
            let mut length = [0u8; 8];
            length.copy_from_slice(&entry[8..16]);
            let length = u64::from_le_bytes(length);
            let mut read = || -> Result<TableFile, CorruptedTable> {
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
                Ok(table)
            };
            match role {
                SectionRole::Fresh => fresh = Some(read()?),
                SectionRole::Alone(counter) | SectionRole::AloneImplied(counter, _)
                    if usize::from(counter) != alone.len() =>
                {
                    return Err(corrupt(Corruption::BadHeader("sections out of order")));
                }
                SectionRole::Alone(_) => alone.push(AloneFile::Stored(Box::new(read()?))),
                SectionRole::AloneImplied(_, implied) => {
                    if version < FIRST_WITH_IMPLIED || length != 0 {
                        return Err(corrupt(Corruption::BadHeader("section")));
                    }
                    alone.push(AloneFile::Implied(implied));
                }
                SectionRole::Pre(section) | SectionRole::Post(section) => {
                    let table = read()?;
                    let family = if matches!(role, SectionRole::Pre(..)) {
                        &mut pre
                    } else {
                        &mut post
                    };
                    let family = family.get_or_insert(FamilyFile {
                        kind: section.kind,
                        layers: section.layers,
                        first_section: number as u32,
                        sections: Vec::new(),
                    });
                    let fits = family.kind == section.kind
                        && family.layers == section.layers
                        && usize::from(section.rank) == family.sections.len();
                    if !fits {
                        return Err(corrupt(Corruption::BadHeader("sections out of order")));
                    }
                    let one_byte = section.rank == 0
                        && section.layers == 1
                        && table.header().dtw_width == 1
                        && table.header().symbol_table == 0;
                    if !family.holds_corners() && !one_byte {
                        return Err(corrupt(Corruption::BadHeader(
                            "a family of one budget is one section of one byte a position",
                        )));
                    }
                    if section.layers == 0 || section.layers > MAX_LAYERS {
                        return Err(corrupt(Corruption::BadHeader("layers")));
                    }
                    family.sections.push(table);
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
            version,
            rules,
            preset,
            fingerprint,
            signature,
            fresh: fresh.ok_or(corrupt(Corruption::BadHeader("no fresh results")))?,
            pre: match pre {
                None if version < FIRST_WITHOUT_FAMILY || post.is_some() => {
                    return Err(corrupt(Corruption::BadHeader("no family")))
                }
                pre => pre,
            },
            post,
            alone,
        })
    }

    /// The [`crate::DrawWdl`] code of every position with fresh counts, in index order, from
    /// `pure`, the pure game's result of every position (the table's `.wdl` values, captures
    /// resolved): the section stores only where the rules turn it into a draw
    /// ([`fresh_symbol`]).
    ///
    /// # Errors
    ///
    /// [`CorruptedTable`] if a block is damaged, a symbol is not one of [`fresh_symbol`]'s, or
    /// `pure` is not one result a position.
    pub fn fresh_results(&self, pure: &[Wdl]) -> Result<Vec<u8>, CorruptedTable> {
        let symbols = section_bytes(&self.fresh)?;
        if symbols.len() != pure.len() {
            return Err(self
                .fresh
                .corrupt(Corruption::BadHeader("fresh results for another table")));
        }
        symbols
            .iter()
            .zip(pure)
            .enumerate()
            .map(|(i, (&symbol, &pure))| {
                fresh_result(pure, symbol)
                    .map(DrawWdl::code)
                    .ok_or_else(|| self.fresh.corrupt(Corruption::InvalidValue(i as u64)))
            })
            .collect()
    }

    /// How many counters the file holds results alone for: the number of counters of its draw
    /// rules, or 0 if they have one counter (or none).
    pub fn counters_alone(&self) -> usize {
        self.alone.len()
    }

    /// As [`DrawFile::fresh_results`], under counter `counter` of the draw rules alone, `None`
    /// past [`DrawFile::counters_alone`]; `fresh` is what [`DrawFile::fresh_results`] gives. A
    /// section alone stores, per position, only whether that counter by itself turns its pure
    /// result into a draw (1) or not (0), or is named without being stored
    /// ([`AloneImplied`]).
    ///
    /// # Errors
    ///
    /// [`CorruptedTable`] if a block is damaged, `fresh` is not one result a position, or a
    /// position the pure game draws is marked turned.
    pub fn fresh_results_alone(
        &self,
        counter: usize,
        fresh: &[u8],
    ) -> Option<Result<Vec<u8>, CorruptedTable>> {
        let table = match self.alone.get(counter)? {
            AloneFile::Stored(table) => table,
            AloneFile::Implied(implied) => {
                let implied = *implied;
                return Some(
                    fresh
                        .iter()
                        .enumerate()
                        .map(|(i, &all)| {
                            let result = match implied {
                                AloneImplied::NoneTurned => alone_result(all, 0),
                                AloneImplied::AsUnderAll => DrawWdl::from_code(all),
                            };
                            result.map(DrawWdl::code).ok_or_else(|| {
                                self.fresh.corrupt(Corruption::InvalidValue(i as u64))
                            })
                        })
                        .collect(),
                );
            }
        };
        Some((|| {
            let turned = section_bytes(table)?;
            if turned.len() != fresh.len() {
                return Err(table.corrupt(Corruption::BadHeader("results alone for another table")));
            }
            fresh
                .iter()
                .zip(&turned)
                .enumerate()
                .map(|(i, (&all, &turned))| {
                    alone_result(all, turned)
                        .map(DrawWdl::code)
                        .ok_or_else(|| table.corrupt(Corruption::InvalidValue(i as u64)))
                })
                .collect()
        })())
    }

    /// The kind and number of layers of the family before the condition counter starts (or
    /// the only family; `post` false) or after it started (`post` true; `None` if the material
    /// has no condition counter).
    pub fn family(&self, post: bool) -> Option<(PlaneKind, usize)> {
        let family = if post { &self.post } else { &self.pre }.as_ref()?;
        Some((family.kind, usize::from(family.layers)))
    }

    /// The staircases of a family ([`DrawFile::family`]) as stored, checked: layers rising and
    /// values falling from one corner to the next, within the family's layers. A family of one
    /// budget or none has one layer: each position's threshold or distance is its only corner.
    /// Holds two bytes a position and six a further corner, where [`DrawFile::layers`] holds a
    /// byte a position per layer. From version 5 the staircases of capture positions and pure
    /// draws are filler, not values (their values follow from the fresh results).
    ///
    /// # Errors
    ///
    /// [`CorruptedTable`] if a block is damaged, the family does not exist, or its corners do not
    /// form staircases.
    pub fn corners(&self, post: bool) -> Result<FamilyCorners, CorruptedTable> {
        let family = if post { &self.post } else { &self.pre }
            .as_ref()
            .ok_or_else(|| self.fresh.corrupt(Corruption::BadHeader("no such family")))?;
        let size = self.fresh.header().positions as usize;
        let length = |symbols: &[u16], section: &TableFile| {
            if symbols.len() == size {
                Ok(())
            } else {
                Err(section.corrupt(Corruption::BadHeader("section length")))
            }
        };
        if !family.holds_corners() {
            let first: Vec<u16> = section_bytes(&family.sections[0])?
                .into_iter()
                .map(u16::from)
                .collect();
            length(&first, &family.sections[0])?;
            return Ok(FamilyCorners {
                layers: 1,
                first,
                further: Vec::new(),
            });
        }
        let layers = family.layers;
        let ranks = family.sections.len();
        // A corner continues a staircase whose last corner is (`from`, `value`) if it lies on a
        // later layer with a smaller value, and says a further corner follows only if a
        // section of the next rank exists.
        let fits = |rank: usize, code: u16, from: Option<(u16, u8)>| {
            let (layer, value, more) = corner_parts(code);
            from.is_none_or(|(from, above)| layer > from && value < above)
                && layer < layers
                && u16::from(value) <= MAX_STORED
                && (!more || rank + 1 < ranks)
        };
        let first = section_symbols(&family.sections[0])?;
        length(&first, &family.sections[0])?;
        // Positions whose last corner read says a further one follows, with that corner.
        let mut pending: Vec<(u32, u16, u8)> = Vec::new();
        for (i, &code) in first.iter().enumerate() {
            let (layer, value, more) = corner_parts(code);
            if value == NEVER {
                continue;
            }
            if !fits(0, code, None) {
                return Err(family.sections[0].corrupt(Corruption::InvalidValue(i as u64)));
            }
            if more {
                pending.push((i as u32, layer, value));
            }
        }
        let mut further = Vec::new();
        for (rank, section) in family.sections.iter().enumerate().skip(1) {
            let symbols = section_symbols(section)?;
            length(&symbols, section)?;
            let mut next = Vec::new();
            for (i, from, above) in pending {
                let code = symbols[i as usize];
                let (layer, value, more) = corner_parts(code);
                if value == NEVER {
                    continue;
                }
                if !fits(rank, code, Some((from, above))) {
                    return Err(section.corrupt(Corruption::InvalidValue(u64::from(i))));
                }
                further.push((i, code));
                if more {
                    next.push((i, layer, value));
                }
            }
            pending = next;
        }
        // Ranks were read one after the other: a stable sort by position keeps each position's
        // corners in the order of their layers.
        further.sort_by_key(|&(i, _)| i);
        Ok(FamilyCorners {
            layers,
            first,
            further,
        })
    }

    /// Every layer of a family ([`DrawFile::family`]), each with one entry per position in index
    /// order: a family of one budget or none has one layer, its thresholds or distances; a family
    /// of layers has, in layer `k`, the least `Z` that wins with `A = k`, worked out from the
    /// corners ([`DrawFile::corners`]; filler for capture positions and pure draws from version
    /// 5). Meant for checks of small tables: a byte a position per layer.
    ///
    /// # Errors
    ///
    /// As [`DrawFile::corners`].
    pub fn layers(&self, post: bool) -> Result<Vec<Vec<u8>>, CorruptedTable> {
        let corners = self.corners(post)?;
        let mut out = vec![vec![NEVER; corners.first.len()]; usize::from(corners.layers)];
        let mut further = corners.further.iter().peekable();
        for (i, &code) in corners.first.iter().enumerate() {
            let mut paint = |code: u16| {
                let (layer, value, _) = corner_parts(code);
                if value != NEVER {
                    for plane in &mut out[usize::from(layer)..] {
                        plane[i] = value;
                    }
                }
            };
            paint(code);
            while let Some(&(_, code)) = further.next_if(|&&(j, _)| j as usize == i) {
                paint(code);
            }
        }
        Ok(out)
    }

    /// Every section stored with what it holds, in the order of the file: the fresh results,
    /// the family before the condition counter starts, the family after it, the results alone.
    /// Each is a compressed table of its own (its header gives its size, in `file_len`). The
    /// results alone named without being stored are [`DrawFile::alone_implied`].
    pub fn sections(&self) -> Vec<(SectionRole, &TableFile)> {
        let mut sections = vec![(SectionRole::Fresh, &self.fresh)];
        let families = [(false, self.pre.as_ref()), (true, self.post.as_ref())];
        for (post, family) in families {
            let Some(family) = family else { continue };
            for (rank, table) in family.sections.iter().enumerate() {
                let section = FamilySection {
                    kind: family.kind,
                    layers: family.layers,
                    rank: rank as u16,
                };
                let role = if post {
                    SectionRole::Post(section)
                } else {
                    SectionRole::Pre(section)
                };
                sections.push((role, table));
            }
        }
        for (counter, alone) in (0..).zip(&self.alone) {
            if let AloneFile::Stored(table) = alone {
                sections.push((SectionRole::Alone(counter), table));
            }
        }
        sections
    }

    /// The counters whose results alone the file names without storing them, with what they
    /// are.
    pub fn alone_implied(&self) -> Vec<(u16, AloneImplied)> {
        (0..)
            .zip(&self.alone)
            .filter_map(|(counter, alone)| match alone {
                AloneFile::Implied(implied) => Some((counter, *implied)),
                AloneFile::Stored(_) => None,
            })
            .collect()
    }

    /// Checks every section completely (checksums and block contents).
    ///
    /// # Errors
    ///
    /// [`CorruptedTable`] with the first problem found.
    pub fn verify(&self) -> Result<(), CorruptedTable> {
        self.fresh.verify()?;
        for family in self.pre.iter().chain(&self.post) {
            for section in &family.sections {
                section.verify()?;
            }
        }
        for alone in &self.alone {
            if let AloneFile::Stored(table) = alone {
                table.verify()?;
            }
        }
        Ok(())
    }
}

/// The symbol the fresh section stores for a position's result with fresh counts: 1 where the
/// rules turn its pure result into a draw (a cursed win or a blessed loss), else 0. The pure
/// result itself is the `.wdl` file's; where it is a draw the symbol is not read (don't-care).
pub fn fresh_symbol(result: DrawWdl) -> u8 {
    u8::from(matches!(result, DrawWdl::CursedWin | DrawWdl::BlessedLoss))
}

/// The result with fresh counts of a position whose pure result is `pure` and whose fresh
/// section holds `symbol`: the inverse of [`fresh_symbol`]. `None` for a symbol above 1.
#[inline]
pub fn fresh_result(pure: Wdl, symbol: u8) -> Option<DrawWdl> {
    Some(match (pure, symbol) {
        (_, 2..) => return None,
        (Wdl::Draw, _) => DrawWdl::Draw,
        (Wdl::Win, 0) => DrawWdl::Win,
        (Wdl::Win, _) => DrawWdl::CursedWin,
        (Wdl::Loss, 0) => DrawWdl::Loss,
        (Wdl::Loss, _) => DrawWdl::BlessedLoss,
    })
}

/// The symbol a section alone stores for `alone`, the result under one counter by itself, where
/// the result under all the rules is `all`: 1 if that counter turns the pure result into a draw,
/// else 0. `None` if the two do not share a pure result (no counter changes it).
pub fn alone_symbol(all: DrawWdl, alone: DrawWdl) -> Option<u8> {
    (all.pure() == alone.pure()).then_some(u8::from(matches!(
        alone,
        DrawWdl::CursedWin | DrawWdl::BlessedLoss
    )))
}

/// The result under one counter alone from its section's symbol `turned` and the result under
/// all the rules (`all`, a code): the inverse of [`alone_symbol`]. `None` if `all` is no code,
/// or a draw turned.
pub fn alone_result(all: u8, turned: u8) -> Option<DrawWdl> {
    Some(match (DrawWdl::from_code(all)?.pure(), turned) {
        (Wdl::Win, 0) => DrawWdl::Win,
        (Wdl::Win, 1) => DrawWdl::CursedWin,
        (Wdl::Loss, 0) => DrawWdl::Loss,
        (Wdl::Loss, 1) => DrawWdl::BlessedLoss,
        (Wdl::Draw, 0) => DrawWdl::Draw,
        _ => return None,
    })
}

/// Every entry of a section (one byte per position), in index order.
fn section_bytes(table: &TableFile) -> Result<Vec<u8>, CorruptedTable> {
    let header = table.header();
    if header.dtw_width != 1 || header.symbol_table != 0 {
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

/// Every entry of a section (one or two bytes per position), in index order.
fn section_symbols(table: &TableFile) -> Result<Vec<u16>, CorruptedTable> {
    let header = table.header();
    let mut out = Vec::with_capacity(header.positions as usize);
    let mut block = Vec::new();
    for b in 0..header.blocks {
        table.block_symbols(b, &mut block)?;
        out.extend_from_slice(&block);
    }
    if out.len() as u64 != header.positions {
        return Err(table.corrupt(Corruption::BadHeader("section length")));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_alone_are_implied_only_when_none_or_all_are_turned() {
        let codes = |results: &[DrawWdl]| results.iter().map(|r| r.code()).collect::<Vec<u8>>();
        let fresh = codes(&[
            DrawWdl::Win,
            DrawWdl::CursedWin,
            DrawWdl::Draw,
            DrawWdl::BlessedLoss,
            DrawWdl::Loss,
        ]);
        let of = |turned: [bool; 5]| AloneImplied::of(turned, &fresh);
        assert_eq!(of([false; 5]), Some(AloneImplied::NoneTurned));
        assert_eq!(
            of([false, true, false, true, false]),
            Some(AloneImplied::AsUnderAll)
        );
        assert_eq!(of([false, true, false, false, false]), None, "one of two");
        assert_eq!(of([true, true, false, true, false]), None, "a win turned");
        // Where the rules together turn nothing, turning nothing is both; it is named as such.
        let untouched = codes(&[DrawWdl::Win, DrawWdl::Loss]);
        assert_eq!(
            AloneImplied::of([false, false], &untouched),
            Some(AloneImplied::NoneTurned)
        );
        for role in [
            SectionRole::AloneImplied(3, AloneImplied::NoneTurned),
            SectionRole::AloneImplied(4, AloneImplied::AsUnderAll),
            SectionRole::Alone(5),
        ] {
            assert_eq!(SectionRole::decode(&role.encode()), Some(role));
        }
    }

    #[test]
    fn a_fresh_result_is_its_pure_result_and_one_symbol() {
        for result in [
            DrawWdl::Loss,
            DrawWdl::BlessedLoss,
            DrawWdl::Draw,
            DrawWdl::CursedWin,
            DrawWdl::Win,
        ] {
            let symbol = fresh_symbol(result);
            assert!(symbol <= 1);
            assert_eq!(fresh_result(result.pure(), symbol), Some(result));
        }
        // A pure draw stays a draw whatever its (don't-care) symbol; no symbol above 1 is read.
        assert_eq!(fresh_result(Wdl::Draw, 1), Some(DrawWdl::Draw));
        assert_eq!(fresh_result(Wdl::Win, 2), None);
        assert_eq!(fresh_result(Wdl::Draw, 7), None);
    }
}
