//! [`Tablebase`]: the tables of one variant, opened lazily, probed from any thread.
//!
//! This module keeps the registry of files (a slot per signature and kind, filled by scanning
//! the folders added) and the shared block cache; [`pure`] probes the pure game values and
//! [`draw`] the values under the counted draw rules.

use std::cell::RefCell;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::draw::DrawRules;
use crate::error::{Corruption, ProbeError};
use crate::format::{
    draw_dir, parse_draw_table_name, parse_table_name, rule_set_dir, DrawFile, TableFile,
    TableKind, MAX_TABLE_PIECES,
};
use crate::index::Signature;
use crate::rules::{Board, Move, Variant};

mod cache;
mod draw;
mod pure;

use cache::BlockCache;
pub use draw::{DrawMove, DrawProbe};

/// Each count of a signature is at most 12: slots by the four counts, then the kind.
const SLOTS: usize = Signature::SLOTS * 2;
/// No file registered in a slot.
const NO_FILE: u32 = u32::MAX;
/// The default cache budget.
const DEFAULT_CACHE_BYTES: usize = 64 << 20;
/// The block size the cache is laid out for (the writer's default, 8 KiB decompressed).
const TYPICAL_BLOCK_BYTES: usize = 8 << 10;

fn slot(signature: Signature, kind: TableKind) -> usize {
    (signature.slot() << 1) | kind as usize
}

/// A registered rule table file, opened on first use.
struct DrawEntry {
    path: PathBuf,
    signature: Signature,
    file: OnceLock<Result<DrawFile, ProbeError>>,
}

/// Cache ids of rule table sections: above every ordinary file's id.
const DRAW_CACHE_BASE: u32 = 1 << 31;

/// A registered file, opened on first use.
struct Entry {
    path: PathBuf,
    signature: Signature,
    kind: TableKind,
    file: OnceLock<Result<TableFile, ProbeError>>,
}

thread_local! {
    /// Move lists for following captures, one per recursion level, kept between probes so that
    /// a warm probe allocates nothing.
    static MOVE_LISTS: RefCell<Vec<Vec<Move>>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with an empty move list borrowed from this thread's pool.
fn with_move_list<R>(f: impl FnOnce(&mut Vec<Move>) -> R) -> R {
    let mut list = MOVE_LISTS
        .with(|pool| pool.borrow_mut().pop())
        .unwrap_or_default();
    list.clear();
    let result = f(&mut list);
    MOVE_LISTS.with(|pool| pool.borrow_mut().push(list));
    result
}

/// The endgame tables of one variant: win/draw/loss (`.wdl`) and distance-to-end (`.dtw`) files
/// found in one or more directories, opened (memory-mapped) on first use and probed from any
/// number of threads through a shared cache of decompressed blocks.
///
/// Positions where the side to move must capture are not stored in the files: they are resolved
/// by following the captures into the smaller tables, so every legal position with few enough
/// pieces can be probed.
///
/// ```no_run
/// use dprobe::{Position, Tablebase, Value, Variant, Wdl};
///
/// let mut tables = Tablebase::new(Variant::RUSSIAN);
/// tables.add_directory("tables")?;
/// // Three kings against one, the lone king off the long diagonal: a win.
/// let position = Position::from_fen("W:WK1,K2,K3:BK32", &Variant::RUSSIAN)?;
/// assert_eq!(tables.probe_wdl(&position)?, Wdl::Win);
/// if let Value::Win(plies) = tables.probe_dtw(&position)? {
///     println!("wins in {plies} plies");
/// }
/// let line = tables.principal_variation(&position)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Tablebase {
    variant: Variant,
    draw_rules: DrawRules,
    dirs: Vec<PathBuf>,
    draw_entries: Vec<DrawEntry>,
    draw_slots: Vec<u32>,
    entries: Vec<Entry>,
    slots: Vec<u32>,
    max_pieces: u32,
    cache: BlockCache,
}

impl Tablebase {
    /// An empty tablebase for `variant` (add directories with [`Tablebase::add_directory`]).
    pub fn new(variant: Variant) -> Tablebase {
        Tablebase {
            variant,
            draw_rules: variant.draw_rules(),
            dirs: Vec::new(),
            draw_entries: Vec::new(),
            draw_slots: vec![NO_FILE; Signature::SLOTS],
            entries: Vec::new(),
            slots: vec![NO_FILE; SLOTS],
            max_pieces: 0,
            cache: BlockCache::new(DEFAULT_CACHE_BYTES, TYPICAL_BLOCK_BYTES),
        }
    }

    /// The variant probed.
    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    /// Sets the budget of the block cache in bytes (default 64 MiB), emptying it.
    pub fn set_cache_size(&mut self, bytes: usize) {
        self.cache = BlockCache::new(bytes, TYPICAL_BLOCK_BYTES);
    }

    /// The most pieces of any table added (0 before any).
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// Registers the table files of this variant's rule set found in `dir`: in its
    /// sub-directory named after the rule set (`russian`, `brazilian` or `iberian`, as `dtb
    /// generate` writes them) and in `dir` itself. A table already registered from an earlier
    /// directory is kept. Files are opened on first use. Returns the number of files added.
    ///
    /// # Errors
    ///
    /// [`ProbeError::Io`] if `dir` cannot be read.
    pub fn add_directory(&mut self, dir: impl AsRef<Path>) -> Result<usize, ProbeError> {
        let dir = dir.as_ref();
        let io_error = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ProbeError::Io {
                path,
                source: Arc::new(source),
            }
        };
        let mut added = self.add_draw_directory(dir)?;
        self.dirs.push(dir.to_path_buf());
        let nested = rule_set_dir(dir, self.variant.moves.id);
        let mut dirs = vec![dir.to_path_buf()];
        if nested.is_dir() {
            dirs.insert(0, nested);
        }
        for dir in dirs {
            let mut names: Vec<PathBuf> = fs::read_dir(&dir)
                .map_err(io_error(&dir))?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .collect();
            names.sort();
            for path in names {
                if let Some((signature, kind)) = parse_table_name(&path) {
                    let slot = slot(signature, kind);
                    if self.slots[slot] == NO_FILE {
                        self.slots[slot] = self.entries.len() as u32;
                        self.entries.push(Entry {
                            path,
                            signature,
                            kind,
                            file: OnceLock::new(),
                        });
                        self.max_pieces = self.max_pieces.max(signature.pieces());
                        added += 1;
                    }
                }
            }
        }
        Ok(added)
    }

    /// The counted draw rules probed with (the variant's, RULES.md's reading, by default).
    pub fn draw_rules(&self) -> &DrawRules {
        &self.draw_rules
    }

    /// Probes under other counted draw rules (another preset, such as FMJD-64 for Brazilian, or
    /// another interpretation): rule tables are then looked for in the rules' own directory
    /// (`<dir>/<rule set>/<draw rules>/`) of every directory added.
    ///
    /// # Errors
    ///
    /// [`ProbeError::Io`] if an added directory can no longer be read.
    pub fn set_draw_rules(&mut self, rules: DrawRules) -> Result<(), ProbeError> {
        self.draw_rules = rules;
        self.draw_entries.clear();
        self.draw_slots.fill(NO_FILE);
        for dir in self.dirs.clone() {
            self.add_draw_directory(&dir)?;
        }
        Ok(())
    }

    /// Registers the rule tables (`*.rules`) of the current draw rules under `dir`.
    fn add_draw_directory(&mut self, dir: &Path) -> Result<usize, ProbeError> {
        let folder = draw_dir(dir, self.variant.moves.id, &self.draw_rules);
        if !folder.is_dir() {
            return Ok(0);
        }
        let mut names: Vec<PathBuf> = fs::read_dir(&folder)
            .map_err(|source| ProbeError::Io {
                path: folder.clone(),
                source: Arc::new(source),
            })?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .collect();
        names.sort();
        let mut added = 0;
        for path in names {
            let Some(signature) = parse_draw_table_name(&path) else {
                continue;
            };
            let slot = &mut self.draw_slots[signature.slot()];
            if *slot == NO_FILE {
                *slot = self.draw_entries.len() as u32;
                self.draw_entries.push(DrawEntry {
                    path,
                    signature,
                    file: OnceLock::new(),
                });
                added += 1;
            }
        }
        Ok(added)
    }

    /// The opened rule table of `signature`, and its id.
    fn draw_file(&self, signature: Signature) -> Result<(&DrawFile, u32), ProbeError> {
        let id = self.draw_slots[signature.slot()];
        let entry =
            self.draw_entries
                .get(id as usize)
                .ok_or_else(|| ProbeError::MissingDrawTable {
                    signature,
                    rules: self.variant.moves.id.name(),
                    draw_rules: self.draw_rules.directory_name(),
                    pieces: signature.pieces(),
                })?;
        let file = entry
            .file
            .get_or_init(|| {
                let file = DrawFile::open(&entry.path)?;
                let corrupt = |reason| {
                    ProbeError::Corrupted(crate::error::CorruptedTable {
                        path: entry.path.clone(),
                        reason,
                    })
                };
                if file.signature != entry.signature {
                    return Err(corrupt(Corruption::ForeignSignature {
                        found: file.signature,
                        expected: entry.signature,
                    }));
                }
                if file.rules != self.variant.moves.id {
                    return Err(corrupt(Corruption::ForeignRuleSet {
                        found: file.rules.name(),
                        expected: self.variant.moves.id.name(),
                    }));
                }
                if file.fingerprint != self.draw_rules.fingerprint() {
                    return Err(ProbeError::DrawRulesMismatch {
                        path: entry.path.clone(),
                        found: file.fingerprint,
                        expected: self.draw_rules.fingerprint(),
                    });
                }
                Ok(file)
            })
            .as_ref()
            .map_err(Clone::clone)?;
        Ok((file, id))
    }

    /// Symbol `index` of one section of a rule table.
    fn section_symbol(
        &self,
        table: &TableFile,
        file_id: u32,
        section: u32,
        index: u64,
    ) -> Result<u16, ProbeError> {
        let (block, offset) = table.locate(index);
        // Sections of one file share its id; blocks are numbered per section.
        let cache_id = DRAW_CACHE_BASE | file_id << 8 | section.min(255);
        let symbol = self.cache.with_block(
            BlockCache::key(cache_id, block),
            |out| table.read_block(block, out),
            |bytes| table.symbol(bytes, offset),
        )?;
        symbol.ok_or_else(|| ProbeError::Corrupted(table.corrupt(Corruption::BlockData(block))))
    }

    /// Checks a position given by the caller.
    fn check(&self, board: &Board) -> Result<(), ProbeError> {
        if !board.is_valid() {
            return Err(ProbeError::InvalidPosition(
                "two pieces on a square, a man on its far row or more than 12 pieces a side",
            ));
        }
        if board.opp() == 0 {
            return Err(ProbeError::InvalidPosition(
                "the side that has just moved has no pieces",
            ));
        }
        let pieces = board.occupied().count_ones();
        if pieces > self.max_pieces || pieces > MAX_TABLE_PIECES {
            return Err(ProbeError::TooManyPieces {
                pieces,
                max: self.max_pieces,
            });
        }
        Ok(())
    }

    /// The registered, opened file of a table.
    fn entry(&self, signature: Signature, kind: TableKind) -> Result<(&Entry, u32), ProbeError> {
        let id = self.slots[slot(signature, kind)];
        let missing = || ProbeError::MissingTable {
            signature,
            kind,
            rules: self.variant.moves.id.name(),
            pieces: signature.pieces(),
        };
        let entry = self.entries.get(id as usize).ok_or_else(missing)?;
        Ok((entry, id))
    }

    /// The stored symbol of a position without a capture, and its index.
    #[inline]
    fn lookup(&self, board: &Board, kind: TableKind) -> Result<(u16, u64), ProbeError> {
        let (file, id) = self.file(Signature::of(board), kind)?;
        let index = file.index().index(board);
        Ok((self.symbol_at(file, id, index)?, index))
    }

    /// The opened file of a table, and its id in the block cache.
    #[inline]
    fn file(&self, signature: Signature, kind: TableKind) -> Result<(&TableFile, u32), ProbeError> {
        let (entry, id) = self.entry(signature, kind)?;
        let file = entry
            .file
            .get_or_init(|| {
                let file = TableFile::open(&entry.path)?;
                file.expect(entry.kind, self.variant.moves.id, entry.signature)?;
                Ok(file)
            })
            .as_ref()
            .map_err(Clone::clone)?;
        Ok((file, id))
    }

    /// The symbol stored at `index` of `file`.
    #[inline]
    fn symbol_at(&self, file: &TableFile, id: u32, index: u64) -> Result<u16, ProbeError> {
        let (block, offset) = file.locate(index);
        let symbol = self.cache.with_block(
            BlockCache::key(id, block),
            |out| file.read_block(block, out),
            |bytes| file.symbol(bytes, offset),
        )?;
        Ok(symbol.ok_or_else(|| file.corrupt(Corruption::BlockData(block)))?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Position;

    #[test]
    fn tablebase_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Tablebase>();
    }

    #[test]
    fn empty_tablebase_reports_too_many_pieces() {
        let tables = Tablebase::new(Variant::RUSSIAN);
        let position = Position::from_fen("W:WK1:BK32", &Variant::RUSSIAN).unwrap();
        assert!(matches!(
            tables.probe_wdl(&position),
            Err(ProbeError::TooManyPieces { pieces: 2, max: 0 })
        ));
    }
}
