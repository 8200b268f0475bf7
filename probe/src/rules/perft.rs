//! Perft: the number of move sequences of a given length, the standard check of a move generator
//! against other programs (RULES.md §3 counts moves distinct by their result).

use crate::rules::MoveRules;
use crate::rules::{count_legal_moves, legal_moves};
use crate::rules::{Board, Move};

/// Reusable move buffers, one per ply, so that counting allocates nothing once warm.
#[derive(Default)]
pub struct Perft {
    buffers: Vec<Vec<Move>>,
}

impl Perft {
    /// An empty counter; buffers grow on first use.
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of leaf positions `depth` plies below `board`. The last ply is counted in
    /// bulk, without playing its moves.
    pub fn count(&mut self, board: &Board, rules: &MoveRules, depth: u32) -> u64 {
        let depth = depth as usize;
        if self.buffers.len() < depth.max(1) {
            self.buffers.resize_with(depth.max(1), Vec::new);
        }
        count_below(board, rules, depth, &mut self.buffers)
    }

    /// The count below each legal move of `board`, in generation order.
    pub fn divide(&mut self, board: &Board, rules: &MoveRules, depth: u32) -> Vec<(Move, u64)> {
        let mut moves = Vec::new();
        legal_moves(board, rules, &mut moves);
        moves
            .into_iter()
            .map(|mv| {
                let below = self.count(&board.play(&mv), rules, depth.saturating_sub(1));
                (mv, below)
            })
            .collect()
    }
}

fn count_below(board: &Board, rules: &MoveRules, depth: usize, buffers: &mut [Vec<Move>]) -> u64 {
    match depth {
        0 => 1,
        1 => count_legal_moves(board, rules, &mut buffers[0]),
        _ => {
            let (moves, deeper) = buffers.split_first_mut().expect("one buffer per ply");
            moves.clear();
            legal_moves(board, rules, moves);
            let mut total = 0;
            for mv in moves.iter() {
                total += count_below(&board.play(mv), rules, depth - 1, deeper);
            }
            total
        }
    }
}
