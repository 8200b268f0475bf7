//! [`Tablebase`]: the tables of one variant, opened when added, probed from any thread.
//!
//! This module keeps the registry of files (a slot per signature and kind, filled by scanning
//! the folders added) and the shared block cache; [`pure`] probes the pure game values and
//! [`draw`] the values under the counted draw rules.

use std::cell::RefCell;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use crate::draw::{DrawRules, MaterialCounters, UnsupportedDrawRules};
use crate::error::{Corruption, ProbeError};
use crate::format::{
    draw_dir, parse_draw_table_name, parse_table_name, rule_set_dir, DrawFile, TableFile,
    TableKind, MAX_TABLE_PIECES,
};
use crate::index::Signature;
use crate::rules::{Board, Move, Variant};
use crate::value::Wdl;

mod cache;
mod draw;
mod pure;

use cache::{with_scratch, BlockCache, Insertion, PAGE_BYTES};
pub use draw::{DrawMove, DrawProbe};

/// Each count of a signature is at most 12: slots by the four counts, then the kind.
const SLOTS: usize = Signature::SLOTS * 2;
/// No file registered in a slot.
const NO_FILE: u32 = u32::MAX;
/// The default cache budget.
const DEFAULT_CACHE_BYTES: usize = 64 << 20;

fn slot(signature: Signature, kind: TableKind) -> usize {
    (signature.slot() << 1) | kind as usize
}

/// A registered rule table file: opened, mapped and checked when it was added, or the error
/// that gave (kept for the probes that need the file).
struct DrawEntry {
    /// The file, and what the counters make of its material (worked out once, not per probe).
    file: Result<(DrawFile, MaterialCounters), ProbeError>,
}

/// Cache ids of rule table sections: above every ordinary file's id.
const DRAW_CACHE_BASE: u32 = 1 << 31;

/// A registered file: opened, mapped and checked when it was added, or the error that gave
/// (kept for the probes that need the file).
struct Entry {
    signature: Signature,
    kind: TableKind,
    file: Result<TableFile, ProbeError>,
    /// At least the number of this file's pages in the block cache (raised before a page is
    /// stored, lowered after one is evicted): at zero, a probe knows without computing the
    /// position's index that no page of the table is cached.
    cached_pages: AtomicU32,
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
/// found in one or more directories, opened (memory-mapped) when added and probed from any
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
    /// Whether the rule tables implement `draw_rules` (checked once, not per probe).
    draw_rules_supported: Result<(), UnsupportedDrawRules>,
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
            draw_rules_supported: variant.draw_rules().check_supported(),
            dirs: Vec::new(),
            draw_entries: Vec::new(),
            draw_slots: vec![NO_FILE; Signature::SLOTS],
            entries: Vec::new(),
            slots: vec![NO_FILE; SLOTS],
            max_pieces: 0,
            cache: BlockCache::new(DEFAULT_CACHE_BYTES),
        }
    }

    /// The variant probed.
    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    /// Sets the budget of the block cache in bytes (default 64 MiB), emptying it.
    ///
    /// The whole budget is one cache shared by every thread: pages of 8 KiB of decompressed
    /// blocks (a block of the default layout is one page, 32 768 positions of a `.wdl` file,
    /// or one or two pages, 8 192 positions of a `.dtw` file), in sets of 8 pages (the budget
    /// is rounded down to a multiple of 64 KiB, and is at least 64 KiB), plus less than 1% for
    /// their bookkeeping. A page's memory is taken when it is first filled, so a cache that is
    /// not full holds less. There are no per-thread caches: outside
    /// the budget, each probing thread keeps only a buffer of one block (where a block is
    /// decompressed before it enters the cache), a zstd decompression context and a few move
    /// lists. The mapped table files are not counted either: the system pages them in and out.
    pub fn set_cache_size(&mut self, bytes: usize) {
        self.cache = BlockCache::new(bytes);
        for entry in &mut self.entries {
            *entry.cached_pages.get_mut() = 0;
        }
    }

    /// The most pieces of any table added (0 before any).
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// Registers the table files of this variant's rule set found in `dir`: in its
    /// sub-directory named after the rule set (`russian`, `brazilian` or `iberian`, as `dtb
    /// generate` writes them) and in `dir` itself. A table already registered from an earlier
    /// directory is kept. Returns the number of files added.
    ///
    /// Each file is opened, memory-mapped and its header and block table checked here, once,
    /// so that no probe pays for it (the first probe of a table reads one block, not the
    /// file's layout; a file descriptor is not kept, only the mapping). A file that fails these
    /// checks is still registered: the probes that need it return its error
    /// ([`ProbeError::Corrupted`] or [`ProbeError::Io`]), the others are unaffected.
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
                        let file = TableFile::open(&path).and_then(|file| {
                            file.expect(kind, self.variant.moves.id, signature)?;
                            Ok(file)
                        });
                        self.entries.push(Entry {
                            signature,
                            kind,
                            file,
                            cached_pages: AtomicU32::new(0),
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
        self.draw_rules_supported = rules.check_supported();
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
                let file = open_draw_file(&path, signature, &self.variant, &self.draw_rules);
                self.draw_entries.push(DrawEntry { file });
                added += 1;
            }
        }
        Ok(added)
    }

    /// The opened rule table of `signature`, and its id.
    fn draw_file(
        &self,
        signature: Signature,
    ) -> Result<(&DrawFile, u32, &MaterialCounters), ProbeError> {
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
        let (file, counters) = entry.file.as_ref().map_err(Clone::clone)?;
        Ok((file, id, counters))
    }

    /// Symbol `index` of one section of a rule table.
    fn section_symbol(
        &self,
        table: &TableFile,
        file_id: u32,
        section: u32,
        index: u64,
    ) -> Result<u16, ProbeError> {
        // Each section has its own id: rule tables are fewer than 2¹⁵ (one per signature) and
        // list fewer than 2¹⁶ sections. Blocks are numbered per section.
        let cache_id = DRAW_CACHE_BASE | (file_id << 16) | (section & 0xFFFF);
        self.symbol_at::<false>(table, cache_id, index)
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

    /// The stored symbol of a position without a capture, and its index. With `CACHED`, only
    /// from blocks in the cache ([`ProbeError::NotInCache`] otherwise).
    #[inline]
    fn lookup<const CACHED: bool>(
        &self,
        board: &Board,
        kind: TableKind,
    ) -> Result<(u16, u64), ProbeError> {
        let (file, id) = self.file(Signature::of(board), kind)?;
        let index = file.index().index(board);
        Ok((self.symbol_at::<CACHED>(file, id, index)?, index))
    }

    /// The file of a table and its id in the block cache.
    #[inline]
    fn file(&self, signature: Signature, kind: TableKind) -> Result<(&TableFile, u32), ProbeError> {
        let (entry, id) = self.entry(signature, kind)?;
        Ok((entry.file.as_ref().map_err(Clone::clone)?, id))
    }

    /// The symbol stored at `index` of `file` (cache id `id`): from the cache, else (unless
    /// `CACHED`, then [`ProbeError::NotInCache`]) from its block, read and decompressed now and
    /// kept in the cache.
    #[inline]
    fn symbol_at<const CACHED: bool>(
        &self,
        file: &TableFile,
        id: u32,
        index: u64,
    ) -> Result<u16, ProbeError> {
        if let Some(symbol) = self.cached_symbol(file, id, index) {
            return Ok(symbol);
        }
        let (block, offset) = locate(file, index);
        if CACHED {
            let spot = Spot::of(file, offset);
            let cached = page_key(file, id, block, spot.byte / PAGE_BYTES)
                .and_then(|key| self.cache.get(key, spot.byte % PAGE_BYTES / 8));
            return Err(match cached {
                // Cached, but too short for the position (it was so when it was read).
                Some(_) => file.corrupt(Corruption::BlockData(block)).into(),
                None => ProbeError::NotInCache,
            });
        }
        let symbol = self.load_block(file, id, block, |bytes| file.symbol(bytes, offset))?;
        Ok(symbol.ok_or_else(|| file.corrupt(Corruption::BlockData(block)))?)
    }

    /// The symbol stored at `index` of `file` (cache id `id`) if its page is in the cache (and
    /// holds the position): the warm path, a handful of loads and no lock.
    #[inline]
    fn cached_symbol(&self, file: &TableFile, id: u32, index: u64) -> Option<u16> {
        let (block, offset) = locate(file, index);
        let spot = Spot::of(file, offset);
        let key = page_key(file, id, block, spot.byte / PAGE_BYTES)?;
        let (word, len) = self.cache.get(key, spot.byte % PAGE_BYTES / 8)?;
        (spot.byte % PAGE_BYTES + spot.width <= len as usize)
            .then(|| spot.decode(word))
            .and_then(|stored| file.symbol_stored_as(stored))
    }

    /// The `.wdl` value of `board`, a position without a capture, if its file is open and its
    /// page is in the cache: the warm path of [`Tablebase::probe_wdl`] and
    /// [`Tablebase::probe_wdl_cached`], with no error to carry. `Err(true)`: the page is not
    /// cached; `Err(false)`: something else (the caller's slower path
    /// tells what).
    #[inline]
    fn cached_wdl(&self, board: &Board) -> Result<Wdl, bool> {
        let id = self.slots[slot(Signature::of(board), TableKind::Wdl)];
        let entry = self.entries.get(id as usize).ok_or(false)?;
        if entry.cached_pages.load(Ordering::Relaxed) == 0 {
            // Nothing of the table is cached: no need to locate the position.
            return Err(true);
        }
        let file = entry.file.as_ref().map_err(|_| false)?;
        let index = file.index().index(board);
        let (block, offset) = locate(file, index);
        let spot = Spot::wdl(offset);
        let key = page_key(file, id, block, spot.byte / PAGE_BYTES).ok_or(true)?;
        let (word, len) = self
            .cache
            .get(key, spot.byte % PAGE_BYTES / 8)
            .ok_or(true)?;
        if spot.byte % PAGE_BYTES + spot.width > len as usize {
            return Err(false);
        }
        TableKind::Wdl.wdl_of(spot.decode(word)).ok_or(false)
    }

    /// Reads and decompresses block `block` of `file` (cache id `id`), stores its pages in the
    /// cache and gives its bytes to `read`.
    fn load_block<R>(
        &self,
        file: &TableFile,
        id: u32,
        block: u32,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, ProbeError> {
        with_scratch(|bytes| {
            file.read_block(block, bytes)?;
            for (page, chunk) in bytes.chunks(PAGE_BYTES).enumerate() {
                if let Some(key) = page_key(file, id, block, page) {
                    // Counted before it can be found, uncounted after it is gone: the count is
                    // never below the pages held (a probe reading zero while a page is being
                    // stored misses it, as it would have a moment earlier).
                    self.count_pages(id, 1);
                    match self.cache.insert(key, chunk) {
                        Insertion::Added => {}
                        Insertion::AlreadyHeld => self.count_pages(id, -1),
                        Insertion::Replaced(old) => self.count_pages((old >> 32) as u32, -1),
                    }
                }
            }
            Ok(read(bytes))
        })
    }

    /// Adds `change` to the count of cached pages of the file with cache id `id` (rule table
    /// sections are not counted: their probes do not ask).
    fn count_pages(&self, id: u32, change: i32) {
        if let Some(entry) = self.entries.get(id as usize) {
            entry
                .cached_pages
                .fetch_add(change as u32, Ordering::Relaxed);
        }
    }

    /// Whether every page of block `block` of `file` (cache id `id`) is in the cache.
    fn block_cached(&self, file: &TableFile, id: u32, block: u32) -> bool {
        let pages = block_bytes(file, block).div_ceil(PAGE_BYTES).max(1);
        (0..pages)
            .all(|page| page_key(file, id, block, page).is_some_and(|key| self.cache.contains(key)))
    }

    /// Decompresses every block of every `.wdl` table of at most `max_pieces` pieces into the
    /// block cache, the smaller tables first, so that [`Tablebase::probe_wdl_cached`] answers
    /// every position of those tables (and [`Tablebase::probe_wdl`] never reads their files
    /// again). Returns the number of their blocks in the cache when it is done.
    ///
    /// It opens the files and reads them whole: call it once, at start-up, before the search.
    /// The cache must be large enough ([`Tablebase::set_cache_size`], default 64 MiB): the
    /// tables take 8 KiB per block of 32 768 positions (about `positions / 4` bytes, smaller
    /// tables one page each), and the cache should hold a quarter more than that (it places
    /// pages by a hash: it keeps every page up to about 80% full, then replaces a few). With less, it loads
    /// as much as fits, and the count it returns tells how much that is. `.dtw` files and rule
    /// tables are not loaded: [`Tablebase::probe_wdl_cached`] reads only `.wdl` files.
    ///
    /// ```no_run
    /// use dprobe::{Tablebase, Variant};
    ///
    /// let mut tables = Tablebase::new(Variant::RUSSIAN);
    /// tables.add_directory("tables")?;
    /// tables.set_cache_size(256 << 20);
    /// let blocks = tables.preload(5)?;
    /// println!("{blocks} blocks in memory");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ProbeError::Io`] or [`ProbeError::Corrupted`] if a file cannot be read or is damaged
    /// (it stops at the first).
    pub fn preload(&self, max_pieces: u32) -> Result<usize, ProbeError> {
        let mut tables: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|e| e.kind == TableKind::Wdl && e.signature.pieces() <= max_pieces)
            .collect();
        tables.sort_by_key(|e| e.signature.pieces());
        let capacity = self.cache.capacity();
        let mut pages = 0;
        let mut opened = Vec::new();
        'tables: for entry in tables {
            let (file, id) = self.file(entry.signature, entry.kind)?;
            opened.push((file, id));
            for block in 0..file.header().blocks {
                pages += block_bytes(file, block).div_ceil(PAGE_BYTES).max(1);
                if pages > capacity {
                    break 'tables;
                }
                if !self.block_cached(file, id, block) {
                    self.load_block(file, id, block, |_| ())?;
                }
            }
        }
        Ok(opened
            .into_iter()
            .map(|(file, id)| {
                (0..file.header().blocks)
                    .filter(|&block| self.block_cached(file, id, block))
                    .count()
            })
            .sum())
    }
}

/// Opens the rule table at `path` and checks that it is the table of `signature` under these
/// move and draw rules, and that the rule tables implement those rules for its material.
fn open_draw_file(
    path: &Path,
    signature: Signature,
    variant: &Variant,
    draw_rules: &DrawRules,
) -> Result<(DrawFile, MaterialCounters), ProbeError> {
    let counters = MaterialCounters::of(draw_rules, signature)?;
    let file = DrawFile::open(path)?;
    let corrupt = |reason| {
        ProbeError::Corrupted(crate::error::CorruptedTable {
            path: path.to_path_buf(),
            reason,
        })
    };
    if file.signature != signature {
        return Err(corrupt(Corruption::ForeignSignature {
            found: file.signature,
            expected: signature,
        }));
    }
    if file.rules != variant.moves.id {
        return Err(corrupt(Corruption::ForeignRuleSet {
            found: file.rules.name(),
            expected: variant.moves.id.name(),
        }));
    }
    if file.fingerprint != draw_rules.fingerprint() {
        return Err(ProbeError::DrawRulesMismatch {
            path: path.to_path_buf(),
            found: file.fingerprint,
            expected: draw_rules.fingerprint(),
        });
    }
    Ok((file, counters))
}

/// Where the symbol of a position lies in its decompressed block (as [`TableFile::symbol`]
/// reads it).
#[derive(Clone, Copy)]
struct Spot {
    /// Its first byte in the block.
    byte: usize,
    /// Its bytes.
    width: usize,
    /// Its first bit in the byte.
    shift: u32,
    /// Its bits.
    mask: u16,
}

impl Spot {
    #[inline]
    fn of(file: &TableFile, offset: usize) -> Spot {
        let header = file.header();
        match header.kind {
            TableKind::Wdl => Spot::wdl(offset),
            TableKind::Dtw if header.dtw_width == 1 => Spot {
                byte: offset,
                width: 1,
                shift: 0,
                mask: 0xFF,
            },
            TableKind::Dtw => Spot {
                byte: offset * 2,
                width: 2,
                shift: 0,
                mask: 0xFFFF,
            },
        }
    }

    /// The spot of a `.wdl` file's symbol: four a byte.
    #[inline]
    fn wdl(offset: usize) -> Spot {
        Spot {
            byte: offset / 4,
            width: 1,
            shift: 2 * (offset % 4) as u32,
            mask: 3,
        }
    }

    /// The symbol, from the little-endian word of the page that holds its byte (a two-byte
    /// symbol starts at an even byte, so it never straddles two words).
    #[inline]
    fn decode(self, word: u64) -> u16 {
        (word >> (8 * (self.byte % 8) as u32 + self.shift)) as u16 & self.mask
    }
}

/// The block holding position `index`, and the position's place in it ([`TableFile::locate`],
/// with a shift instead of a division for the usual power-of-two block sizes).
#[inline]
fn locate(file: &TableFile, index: u64) -> (u32, usize) {
    let per_block = file.header().positions_per_block;
    if per_block.is_power_of_two() {
        let shift = per_block.trailing_zeros();
        (
            (index >> shift) as u32,
            (index & u64::from(per_block - 1)) as usize,
        )
    } else {
        file.locate(index)
    }
}

/// Decompressed bytes of block `block` of `file`.
fn block_bytes(file: &TableFile, block: u32) -> usize {
    let header = file.header();
    let per_block = u64::from(header.positions_per_block);
    let positions = header
        .positions
        .saturating_sub(u64::from(block) * per_block)
        .min(per_block) as usize;
    match header.kind {
        TableKind::Wdl => positions.div_ceil(4),
        TableKind::Dtw => positions * usize::from(header.dtw_width),
    }
}

/// The cache key of page `page` of block `block` of the file with cache id `id`: the id, and
/// the page's place among the file's pages. `None` for a page beyond 2³² − 1 in its file (a
/// table of more than 32 TiB decompressed, larger than any 8×8 table): such pages are read
/// without the cache.
#[inline]
fn page_key(file: &TableFile, id: u32, block: u32, page: usize) -> Option<u64> {
    let header = file.header();
    let block_bytes = match header.kind {
        TableKind::Wdl => u64::from(header.positions_per_block).div_ceil(4),
        TableKind::Dtw => u64::from(header.positions_per_block) * u64::from(header.dtw_width),
    };
    let pages_per_block = block_bytes.div_ceil(PAGE_BYTES as u64);
    let place = u64::from(block) * pages_per_block + page as u64;
    (place < u64::from(u32::MAX)).then_some(u64::from(id) << 32 | place)
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
