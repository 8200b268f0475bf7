//! [`Tablebase`]: the tables of one variant, opened lazily, probed from any thread.

use std::cell::RefCell;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::board::{Board, Move, Position};
use crate::cache::BlockCache;
use crate::error::{Corruption, ProbeError, TableKind};
use crate::format::{decode_dtw, decode_wdl, TableFile, MAX_TABLE_PIECES};
use crate::movegen::{has_capture, legal_moves};
use crate::signature::Signature;
use crate::value::{Value, Wdl};
use crate::variant::Variant;

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
        let mut added = 0;
        let nested = dir.join(self.variant.moves.id.name());
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
                if let Some((signature, kind)) = table_name(&path) {
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

    /// Win, draw or loss for the side to move.
    ///
    /// # Errors
    ///
    /// [`ProbeError::InvalidPosition`], [`ProbeError::TooManyPieces`],
    /// [`ProbeError::MissingTable`] (a `.wdl` file of this or a smaller table a capture leads
    /// to), [`ProbeError::Corrupted`] or [`ProbeError::Io`].
    pub fn probe_wdl(&self, position: &Position) -> Result<Wdl, ProbeError> {
        let board = position.board();
        self.check(&board)?;
        self.wdl(&board)
    }

    /// The exact value for the side to move: win or loss with the distance in plies to the end
    /// of the game under best play, or draw.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_wdl`], with `.dtw` files.
    pub fn probe_dtw(&self, position: &Position) -> Result<Value, ProbeError> {
        let board = position.board();
        self.check(&board)?;
        self.dtw(&board)
    }

    /// Every legal move with its value for the side that plays it, best first (the fastest
    /// win, then draws, then the slowest loss); moves of equal value keep the move generator's
    /// order.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_dtw`].
    pub fn probe_moves(&self, position: &Position) -> Result<Vec<(Move, Value)>, ProbeError> {
        let board = position.board();
        self.check(&board)?;
        let mut moves = Vec::new();
        legal_moves(&board, &self.variant.moves, &mut moves);
        let mut valued = Vec::with_capacity(moves.len());
        for mv in moves {
            let value = self.dtw(&board.play(&mv))?.one_ply_earlier();
            valued.push((position.orient_move(&mv), value));
        }
        valued.sort_by_key(|&(_, value)| std::cmp::Reverse(rank(value)));
        Ok(valued)
    }

    /// The best move (fastest win, else a draw, else the slowest loss) and its value, `None`
    /// when the side to move has no move (it has lost).
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_dtw`].
    pub fn best_move(&self, position: &Position) -> Result<Option<(Move, Value)>, ProbeError> {
        Ok(self.probe_moves(position)?.into_iter().next())
    }

    /// The principal variation: best moves of both sides from `position` to the end of the
    /// game (the position where the loser has no move). A drawn game has no end: for a draw
    /// the line is empty.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_dtw`].
    pub fn principal_variation(&self, position: &Position) -> Result<Vec<Move>, ProbeError> {
        let mut line = Vec::new();
        let mut position = *position;
        if self.probe_dtw(&position)? == Value::Draw {
            return Ok(line);
        }
        while let Some((mv, _)) = self.best_move(&position)? {
            line.push(mv);
            position = position.play(&mv);
        }
        Ok(line)
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

    fn wdl(&self, board: &Board) -> Result<Wdl, ProbeError> {
        if board.own() == 0 {
            return Ok(Wdl::Loss);
        }
        let rules = &self.variant.moves;
        if has_capture(board, rules) {
            return with_move_list(|moves| {
                legal_moves(board, rules, moves);
                let mut best = Wdl::Loss;
                for mv in moves.iter() {
                    let result = match self.wdl(&board.play(mv))? {
                        Wdl::Loss => return Ok(Wdl::Win),
                        Wdl::Draw => Wdl::Draw,
                        Wdl::Win => Wdl::Loss,
                    };
                    best = best.max(result);
                }
                Ok(best)
            });
        }
        let (symbol, index) = self.lookup(board, TableKind::Wdl)?;
        decode_wdl(symbol, TableKind::Wdl).ok_or_else(|| self.invalid_value(board, index))
    }

    fn dtw(&self, board: &Board) -> Result<Value, ProbeError> {
        if board.own() == 0 {
            return Ok(Value::Loss(0));
        }
        let rules = &self.variant.moves;
        if has_capture(board, rules) {
            return with_move_list(|moves| {
                legal_moves(board, rules, moves);
                let mut best = Value::Loss(0);
                for mv in moves.iter() {
                    let value = self.dtw(&board.play(mv))?.one_ply_earlier();
                    if value.is_better_than(best) {
                        best = value;
                    }
                }
                Ok(best)
            });
        }
        Ok(decode_dtw(self.lookup(board, TableKind::Dtw)?.0))
    }

    fn invalid_value(&self, board: &Board, index: u64) -> ProbeError {
        let path = self
            .entry(Signature::of(board), TableKind::Wdl)
            .map_or_else(|_| PathBuf::new(), |(entry, _)| entry.path.clone());
        ProbeError::Corrupted(crate::error::CorruptedTable {
            path,
            reason: Corruption::InvalidValue(index),
        })
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
        let (entry, id) = self.entry(Signature::of(board), kind)?;
        let file = entry
            .file
            .get_or_init(|| {
                let file = TableFile::open(&entry.path)?;
                file.expect(entry.kind, self.variant.moves.id, entry.signature)?;
                Ok(file)
            })
            .as_ref()
            .map_err(Clone::clone)?;
        let index = file.index().index(board);
        let (block, offset) = file.locate(index);
        let symbol = self.cache.with_block(
            BlockCache::key(id, block),
            |out| file.read_block(block, out),
            |bytes| file.symbol(bytes, offset),
        )?;
        let symbol = symbol.ok_or_else(|| file.corrupt(Corruption::BlockData(block)))?;
        Ok((symbol, index))
    }
}

/// Orders values from the mover's view: larger is better.
fn rank(value: Value) -> i32 {
    match value {
        Value::Win(d) => 1_000_000 - i32::from(d),
        Value::Draw => 0,
        Value::Loss(d) => -1_000_000 + i32::from(d),
    }
}

/// The signature and kind a file name such as `KKMvK.wdl` stands for.
fn table_name(path: &Path) -> Option<(Signature, TableKind)> {
    let kind = match path.extension()?.to_str()? {
        "wdl" => TableKind::Wdl,
        "dtw" => TableKind::Dtw,
        _ => return None,
    };
    let signature: Signature = path.file_stem()?.to_str()?.parse().ok()?;
    (signature.pieces() <= MAX_TABLE_PIECES).then_some((signature, kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tablebase_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Tablebase>();
    }

    #[test]
    fn ranks_order_values_as_the_mover_prefers() {
        let values = [
            Value::Win(1),
            Value::Win(9),
            Value::Draw,
            Value::Loss(30),
            Value::Loss(0),
        ];
        for pair in values.windows(2) {
            assert!(rank(pair[0]) > rank(pair[1]));
            assert!(pair[0].is_better_than(pair[1]));
        }
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
