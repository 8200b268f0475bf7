//! [`Tablebase`]: the tables of one variant, opened lazily, probed from any thread.

use std::cell::RefCell;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::board::{Board, Move, Position};
use crate::cache::BlockCache;
use crate::draw_rules::DrawRules;
use crate::error::{Corruption, ProbeError, TableKind};
use crate::format::{decode_dtw, decode_wdl, TableFile, MAX_TABLE_PIECES};
use crate::movegen::{has_capture, legal_moves};
use crate::rule_file::RuleFile;
use crate::rule_state::{counts_after, deciding_state, MaterialShape, RuleState, RuleWdl};
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

/// A registered rule table file, opened on first use.
struct RuleEntry {
    path: PathBuf,
    signature: Signature,
    file: OnceLock<Result<RuleFile, ProbeError>>,
}

/// Cache ids of rule table sections: above every ordinary file's id.
const RULE_CACHE_BASE: u32 = 1 << 31;

/// The result of a rule-aware probe ([`Tablebase::probe_rules`]), for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleProbe {
    /// The pure game's result (no counted rules).
    pub pure: Wdl,
    /// The result under the counted rules with every count at its start (as if the material
    /// had just arisen here).
    pub result: RuleWdl,
    /// The result under the counted rules with the counts given.
    pub now: Wdl,
    /// The counts given, reduced: plies left on the counters that decide the position (`A`:
    /// those that never reset, `Z`: the one a man move restarts) and whether the condition
    /// counter has started ([`crate::deciding_state`]).
    pub state: RuleState,
}

/// One legal move with its results under the counted rules, from the view of the side playing
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleMove {
    /// The move (as [`Position::legal_moves`] gives it).
    pub mv: Move,
    /// The move's result with every count at its start before it.
    pub result: RuleWdl,
    /// The move's result with the counts given.
    pub now: Wdl,
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
    draw_rules: DrawRules,
    dirs: Vec<PathBuf>,
    rule_entries: Vec<RuleEntry>,
    rule_slots: Vec<u32>,
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
            rule_entries: Vec::new(),
            rule_slots: vec![NO_FILE; Signature::SLOTS],
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
        let mut added = self.add_rule_directory(dir)?;
        self.dirs.push(dir.to_path_buf());
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
        self.rule_entries.clear();
        self.rule_slots.fill(NO_FILE);
        for dir in self.dirs.clone() {
            self.add_rule_directory(&dir)?;
        }
        Ok(())
    }

    /// Registers the rule tables (`*.rules`) of the current draw rules under `dir`.
    fn add_rule_directory(&mut self, dir: &Path) -> Result<usize, ProbeError> {
        let rule_dir = dir
            .join(self.variant.moves.id.name())
            .join(self.draw_rules.directory_name());
        if !rule_dir.is_dir() {
            return Ok(0);
        }
        let mut names: Vec<PathBuf> = fs::read_dir(&rule_dir)
            .map_err(|source| ProbeError::Io {
                path: rule_dir.clone(),
                source: Arc::new(source),
            })?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .collect();
        names.sort();
        let mut added = 0;
        for path in names {
            let Some(signature) = rule_table_name(&path) else {
                continue;
            };
            let slot = &mut self.rule_slots[signature.slot()];
            if *slot == NO_FILE {
                *slot = self.rule_entries.len() as u32;
                self.rule_entries.push(RuleEntry {
                    path,
                    signature,
                    file: OnceLock::new(),
                });
                added += 1;
            }
        }
        Ok(added)
    }

    /// The result under the counted draw rules ([`Tablebase::draw_rules`]) with the running
    /// `counts`: per counter id, plies since it started (`None`: not started, for a counter
    /// that starts on a position condition). Counters not listed are at their start.
    ///
    /// ```no_run
    /// use dprobe::{Position, Tablebase, Variant, Wdl, RuleWdl};
    ///
    /// let mut tables = Tablebase::new(Variant::RUSSIAN);
    /// tables.add_directory("tables")?;
    /// let position = Position::from_fen("W:WK1,K2,K3:BK32", &Variant::RUSSIAN)?;
    /// let fresh = tables.probe_rules(&position, &[])?;
    /// println!("{} in the pure game, {} under the rules", fresh.pure, fresh.result);
    /// // Twenty plies into the fifteen-move rule.
    /// let late = tables.probe_rules(&position, &[("r1-three-kings", Some(20))])?;
    /// if late.now == Wdl::Draw && fresh.result == RuleWdl::Win {
    ///     println!("too late to win");
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_wdl`], and [`ProbeError::Counts`] for counts that do not fit the
    /// position, [`ProbeError::MissingRuleTable`], [`ProbeError::DrawRulesMismatch`],
    /// [`ProbeError::UnsupportedRules`].
    pub fn probe_rules(
        &self,
        position: &Position,
        counts: &[(&str, Option<u16>)],
    ) -> Result<RuleProbe, ProbeError> {
        let board = position.board();
        self.check(&board)?;
        MaterialShape::of(&self.draw_rules, Signature::of(&board))?;
        let result = self.rule_fresh(&board)?;
        let state = deciding_state(&self.draw_rules, &board, result.pure(), counts)?;
        Ok(RuleProbe {
            // A rule result carries the pure game's (`rule_verify` checks they agree).
            pure: result.pure(),
            result,
            now: self.rule_value(&board, &state)?,
            state,
        })
    }

    /// Every legal move with its results under the counted rules (see
    /// [`Tablebase::probe_rules`] for `counts`).
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_rules`].
    pub fn rule_moves(
        &self,
        position: &Position,
        counts: &[(&str, Option<u16>)],
    ) -> Result<Vec<RuleMove>, ProbeError> {
        let board = position.board();
        self.check(&board)?;
        MaterialShape::of(&self.draw_rules, Signature::of(&board))?;
        let pure = self.wdl(&board)?;
        let state = deciding_state(&self.draw_rules, &board, pure, counts)?;
        let mut moves = Vec::new();
        legal_moves(&board, &self.variant.moves, &mut moves);
        moves
            .iter()
            .map(|mv| {
                let child = board.play(mv);
                let (result, now) = if mv.is_capture() || mv.crowned {
                    let result = negate(self.rule_fresh(&child)?);
                    (result, result.wdl())
                } else {
                    // The child's counts, then its state under the counters that decide it:
                    // a count set aside by the pure result may matter again after a move that
                    // gives the win away, so the counts are followed, not the reduced state.
                    let child_pure = self.wdl(&child)?;
                    let value_after = |counts: &[(&str, Option<u16>)]| {
                        let after = counts_after(&self.draw_rules, &board, counts, mv);
                        let state = deciding_state(&self.draw_rules, &child, child_pure, &after)?;
                        Ok::<_, ProbeError>(negate_wdl(self.rule_value(&child, &state)?))
                    };
                    let pure = negate_wdl(child_pure);
                    let fresh_now = value_after(&[])?;
                    let result = match (pure, fresh_now) {
                        (Wdl::Win, Wdl::Win) => RuleWdl::Win,
                        (Wdl::Win, _) => RuleWdl::CursedWin,
                        (Wdl::Loss, Wdl::Loss) => RuleWdl::Loss,
                        (Wdl::Loss, _) => RuleWdl::BlessedLoss,
                        _ => RuleWdl::Draw,
                    };
                    let now = if state.at_limit() {
                        Wdl::Draw
                    } else {
                        value_after(counts)?
                    };
                    (result, now)
                };
                Ok(RuleMove {
                    mv: position.orient_move(mv),
                    result,
                    now,
                })
            })
            .collect()
    }

    /// The result under the rules with fresh counts.
    fn rule_fresh(&self, board: &Board) -> Result<RuleWdl, ProbeError> {
        if board.own() == 0 {
            return Ok(RuleWdl::Loss);
        }
        let rules = &self.variant.moves;
        if has_capture(board, rules) {
            return with_move_list(|moves| {
                legal_moves(board, rules, moves);
                let mut best = RuleWdl::Loss;
                for mv in moves.iter() {
                    best = best.max(negate(self.rule_fresh(&board.play(mv))?));
                }
                Ok(best)
            });
        }
        self.stored_fresh(board)
    }

    /// The fresh result stored for `board`, a position without a capture.
    fn stored_fresh(&self, board: &Board) -> Result<RuleWdl, ProbeError> {
        let (file, id) = self.rule_file(Signature::of(board))?;
        let index = file.fresh.index().index(board);
        let symbol = self.section_symbol(&file.fresh, id, 0, index)?;
        RuleWdl::from_code(symbol as u8)
            .filter(|_| symbol < 5)
            .ok_or_else(|| {
                ProbeError::Corrupted(file.fresh.corrupt(Corruption::InvalidValue(index)))
            })
    }

    /// The result under the rules in `state`.
    fn rule_value(&self, board: &Board, state: &RuleState) -> Result<Wdl, ProbeError> {
        if board.own() == 0 {
            return Ok(Wdl::Loss);
        }
        // One move list tells both: no move, or a capture (compulsory, so the first move is one
        // if any is).
        let (no_move, capture) = with_move_list(|moves| {
            legal_moves(board, &self.variant.moves, moves);
            (
                moves.is_empty(),
                moves.first().is_some_and(Move::is_capture),
            )
        });
        if no_move {
            return Ok(Wdl::Loss);
        }
        if state.at_limit() {
            return Ok(Wdl::Draw);
        }
        if capture {
            // Captures leave the material: the counts do not matter.
            return Ok(self.rule_fresh(board)?.wdl());
        }
        let fresh = self.stored_fresh(board)?;
        if fresh.pure() == Wdl::Draw {
            return Ok(fresh.wdl());
        }
        let (file, id) = self.rule_file(Signature::of(board))?;
        let (family, section_base) = match (&file.post, state.post) {
            (Some(post), true) => (post, 1 + file.pre.planes.len() as u32),
            (None, true) => {
                return Err(ProbeError::Corrupted(file.fresh.corrupt(
                    Corruption::BadHeader("no planes for a started condition"),
                )))
            }
            (_, false) => (&file.pre, 1),
        };
        let plane = family.kind.plane_for(state.a, family.planes.len());
        let table = &family.planes[plane];
        let index = table.index().index(board);
        let entry = self.section_symbol(table, id, section_base + plane as u32, index)?;
        let wins = family.kind.wins(entry.min(255) as u8, state);
        Ok(match (fresh.pure(), wins) {
            (Wdl::Win, true) => Wdl::Win,
            (Wdl::Loss, true) => Wdl::Loss,
            _ => Wdl::Draw,
        })
    }

    /// The opened rule table of `signature`, and its id.
    fn rule_file(&self, signature: Signature) -> Result<(&RuleFile, u32), ProbeError> {
        let id = self.rule_slots[signature.slot()];
        let entry =
            self.rule_entries
                .get(id as usize)
                .ok_or_else(|| ProbeError::MissingRuleTable {
                    signature,
                    rules: self.variant.moves.id.name(),
                    draw_rules: self.draw_rules.directory_name(),
                    pieces: signature.pieces(),
                })?;
        let file = entry
            .file
            .get_or_init(|| {
                let file = RuleFile::open(&entry.path)?;
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
        let cache_id = RULE_CACHE_BASE | file_id << 8 | section.min(255);
        let symbol = self.cache.with_block(
            BlockCache::key(cache_id, block),
            |out| table.read_block(block, out),
            |bytes| table.symbol(bytes, offset),
        )?;
        symbol.ok_or_else(|| ProbeError::Corrupted(table.corrupt(Corruption::BlockData(block))))
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
    /// of the game under best play, or draw. It reads the `.wdl` file first: a `.dtw` file
    /// stores no draws (FORMAT.md), so it needs both.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_wdl`], with `.dtw` files too; [`ProbeError::Corrupted`] also when
    /// the two files disagree on a position.
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
        Ok(self.stored_wdl(board)?.0)
    }

    /// The `.wdl` entry of a position without a capture, and its index.
    fn stored_wdl(&self, board: &Board) -> Result<(Wdl, u64), ProbeError> {
        let (symbol, index) = self.lookup(board, TableKind::Wdl)?;
        let wdl = decode_wdl(symbol, TableKind::Wdl)
            .ok_or_else(|| self.invalid_value(board, index, TableKind::Wdl))?;
        Ok((wdl, index))
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
        // A DTW file's draw entries are don't-care (FORMAT.md): the WDL file tells draws apart,
        // and the distance's parity must agree with it.
        let (wdl, index) = self.stored_wdl(board)?;
        if wdl == Wdl::Draw {
            return Ok(Value::Draw);
        }
        // Both files of a table share its index: the position's is computed once.
        let (file, id) = self.file(Signature::of(board), TableKind::Dtw)?;
        match decode_dtw(self.symbol_at(file, id, index)?) {
            value if value.wdl() == wdl => Ok(value),
            _ => Err(self.invalid_value(board, index, TableKind::Dtw)),
        }
    }

    fn invalid_value(&self, board: &Board, index: u64, kind: TableKind) -> ProbeError {
        let path = self
            .entry(Signature::of(board), kind)
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

/// A rule result seen from the other side.
fn negate(result: RuleWdl) -> RuleWdl {
    match result {
        RuleWdl::Loss => RuleWdl::Win,
        RuleWdl::BlessedLoss => RuleWdl::CursedWin,
        RuleWdl::Draw => RuleWdl::Draw,
        RuleWdl::CursedWin => RuleWdl::BlessedLoss,
        RuleWdl::Win => RuleWdl::Loss,
    }
}

/// A result seen from the other side.
fn negate_wdl(result: Wdl) -> Wdl {
    match result {
        Wdl::Loss => Wdl::Win,
        Wdl::Draw => Wdl::Draw,
        Wdl::Win => Wdl::Loss,
    }
}

/// The signature a rule table file name such as `KKKvK.rules` stands for.
fn rule_table_name(path: &Path) -> Option<Signature> {
    if path.extension()?.to_str()? != "rules" {
        return None;
    }
    let signature: Signature = path.file_stem()?.to_str()?.parse().ok()?;
    (signature.pieces() <= MAX_TABLE_PIECES).then_some(signature)
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
