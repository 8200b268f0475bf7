//! Probes of the pure game values: win/draw/loss, distance, moves and the principal variation.

use super::{with_move_list, Tablebase};
use crate::error::{Corruption, ProbeError};
use crate::format::{dtw_value, TableKind};
use crate::index::Signature;
use crate::rules::{has_capture, legal_moves, Board, Move, Position};
use crate::value::{Value, Wdl};

impl Tablebase {
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

    /// Win, draw or loss for the side to move, from the blocks already in memory only: the
    /// probe an engine calls deep in its search, where waiting for a disk read or a
    /// decompression costs more than the answer is worth. It reads no byte of a file and
    /// decompresses nothing: if a block it needs (of this table, or of a smaller table a
    /// capture leads to) is not in the block cache, it returns [`ProbeError::NotInCache`] at
    /// once; a table none of whose blocks is cached is known as such before the position's
    /// index is computed. It takes no lock and writes nothing shared, and allocates nothing once
    /// its thread has probed before (following captures borrows move lists kept per thread).
    ///
    /// Blocks enter the cache through [`Tablebase::probe_wdl`] (and the other probes) or all
    /// at once through [`Tablebase::preload`]. An engine typically calls this inside its
    /// search, and [`Tablebase::probe_wdl`] at the root or at shallow depths, where it can
    /// afford a cold read.
    ///
    /// ```no_run
    /// use dprobe::{Position, ProbeError, Tablebase, Variant, Wdl};
    ///
    /// let mut tables = Tablebase::new(Variant::RUSSIAN);
    /// tables.add_directory("tables")?;
    /// tables.preload(4)?;
    /// let position = Position::from_fen("W:WK1,K2,K3:BK32", &Variant::RUSSIAN)?;
    /// match tables.probe_wdl_cached(&position) {
    ///     Ok(wdl) => println!("{wdl}"),
    ///     Err(ProbeError::NotInCache) => { /* search on */ }
    ///     Err(e) => return Err(e.into()),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ProbeError::NotInCache`] as above; otherwise as [`Tablebase::probe_wdl`] (a table
    /// whose file failed its checks when it was added gives that error; a block not read
    /// cannot be found corrupted).
    pub fn probe_wdl_cached(&self, position: &Position) -> Result<Wdl, ProbeError> {
        let board = position.board();
        self.check(&board)?;
        self.wdl_in::<true>(&board)
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
    pub(super) fn wdl(&self, board: &Board) -> Result<Wdl, ProbeError> {
        self.wdl_in::<false>(board)
    }

    /// [`Tablebase::wdl`], with `CACHED` from cached blocks only.
    fn wdl_in<const CACHED: bool>(&self, board: &Board) -> Result<Wdl, ProbeError> {
        if board.own() == 0 {
            return Ok(Wdl::Loss);
        }
        let rules = &self.variant.moves;
        if has_capture(board, rules) {
            return with_move_list(|moves| {
                legal_moves(board, rules, moves);
                let mut best = Wdl::Loss;
                for mv in moves.iter() {
                    let result = match self.wdl_in::<CACHED>(&board.play(mv))? {
                        Wdl::Loss => return Ok(Wdl::Win),
                        Wdl::Draw => Wdl::Draw,
                        Wdl::Win => Wdl::Loss,
                    };
                    best = best.max(result);
                }
                Ok(best)
            });
        }
        match self.cached_wdl(board) {
            Ok(wdl) => Ok(wdl),
            Err(true) if CACHED => Err(ProbeError::NotInCache),
            // Not cached (read it now), or an error to tell.
            Err(_) => Ok(self.stored_wdl_in::<CACHED>(board)?.0),
        }
    }

    /// The `.wdl` value of `board`, a position with pieces and without a capture whose index
    /// in its table is known (`index`: a rule table shares it).
    #[inline]
    pub(super) fn wdl_at(&self, board: &Board, index: u64) -> Result<Wdl, ProbeError> {
        let (file, id) = self.file(Signature::of(board), TableKind::Wdl)?;
        TableKind::Wdl
            .wdl_of(self.symbol_at::<false>(file, id, index)?)
            .ok_or_else(|| self.invalid_value(board, index, TableKind::Wdl))
    }

    /// The `.wdl` entry of a position without a capture, and its index.
    pub(super) fn stored_wdl(&self, board: &Board) -> Result<(Wdl, u64), ProbeError> {
        self.stored_wdl_in::<false>(board)
    }

    /// [`Tablebase::stored_wdl`], with `CACHED` from cached blocks only.
    #[inline]
    fn stored_wdl_in<const CACHED: bool>(&self, board: &Board) -> Result<(Wdl, u64), ProbeError> {
        let (symbol, index) = self.lookup::<CACHED>(board, TableKind::Wdl)?;
        let wdl = TableKind::Wdl
            .wdl_of(symbol)
            .ok_or_else(|| self.invalid_value(board, index, TableKind::Wdl))?;
        Ok((wdl, index))
    }

    pub(super) fn dtw(&self, board: &Board) -> Result<Value, ProbeError> {
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
        match dtw_value(self.symbol_at::<false>(file, id, index)?) {
            value if value.wdl() == wdl => Ok(value),
            _ => Err(self.invalid_value(board, index, TableKind::Dtw)),
        }
    }

    pub(super) fn invalid_value(&self, board: &Board, index: u64, kind: TableKind) -> ProbeError {
        match self.file(Signature::of(board), kind) {
            Ok((file, _)) => file.corrupt(Corruption::InvalidValue(index)).into(),
            Err(error) => error,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn ranks_order_values_as_the_mover_prefers() {
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
}
