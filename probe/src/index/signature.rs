//! Material signatures: how many men and kings each side has, from the side to move's view.

use std::fmt;
use std::str::FromStr;

use crate::rules::Board;

/// The material of a position from the side to move's view: (mover's men, mover's kings,
/// opponent's men, opponent's kings). Each table holds one signature.
///
/// Its name lists the mover's pieces, `v`, then the opponent's, kings (`K`) before men (`M`):
/// `KKMvK` is two kings and a man to move against a lone king.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature {
    /// The mover's men.
    pub mover_men: u8,
    /// The mover's kings.
    pub mover_kings: u8,
    /// The opponent's men.
    pub opp_men: u8,
    /// The opponent's kings.
    pub opp_kings: u8,
}

impl Signature {
    /// The signature of a board.
    pub const fn of(board: &Board) -> Signature {
        Signature {
            mover_men: board.men.count_ones() as u8,
            mover_kings: board.kings.count_ones() as u8,
            opp_men: board.opp_men.count_ones() as u8,
            opp_kings: board.opp_kings.count_ones() as u8,
        }
    }

    /// The four counts in file order: mover's men, mover's kings, opponent's men, opponent's
    /// kings.
    pub const fn counts(&self) -> [u8; 4] {
        [
            self.mover_men,
            self.mover_kings,
            self.opp_men,
            self.opp_kings,
        ]
    }

    /// The signature with these counts (in the order of [`Signature::counts`]).
    pub const fn from_counts(counts: [u8; 4]) -> Signature {
        Signature {
            mover_men: counts[0],
            mover_kings: counts[1],
            opp_men: counts[2],
            opp_kings: counts[3],
        }
    }

    /// How many slots [`Signature::slot`] numbers.
    pub const SLOTS: usize = 13 * 13 * 13 * 13;

    /// A dense number below [`Signature::SLOTS`] for a signature of possible counts (each at
    /// most 12; larger counts share the last slot of their digit), for tables kept in arrays.
    pub const fn slot(&self) -> usize {
        let mut slot = 0;
        let counts = self.counts();
        let mut i = 0;
        while i < 4 {
            let c = if counts[i] > 12 { 12 } else { counts[i] };
            slot = slot * 13 + c as usize;
            i += 1;
        }
        slot
    }

    /// All pieces on the board.
    pub const fn pieces(&self) -> u32 {
        self.mover_men as u32
            + self.mover_kings as u32
            + self.opp_men as u32
            + self.opp_kings as u32
    }

    /// The signature with the other side to move.
    pub const fn flipped(&self) -> Signature {
        Signature {
            mover_men: self.opp_men,
            mover_kings: self.opp_kings,
            opp_men: self.mover_men,
            opp_kings: self.mover_kings,
        }
    }

    /// Whether positions of this signature can exist: both sides present, at most 12 pieces a
    /// side, men fitting on the 28 squares open to them.
    pub const fn is_possible(&self) -> bool {
        let mover = self.mover_men as u32 + self.mover_kings as u32;
        let opp = self.opp_men as u32 + self.opp_kings as u32;
        mover >= 1 && opp >= 1 && mover <= 12 && opp <= 12
    }

    /// Every possible signature with exactly `pieces` pieces, in a fixed order.
    pub fn with_pieces(pieces: u32) -> Vec<Signature> {
        let mut all = Vec::new();
        let n = pieces.min(24) as u8;
        for mover_men in 0..=n {
            for mover_kings in 0..=n - mover_men {
                for opp_men in 0..=n - mover_men - mover_kings {
                    let opp_kings = n - mover_men - mover_kings - opp_men;
                    let sig = Signature {
                        mover_men,
                        mover_kings,
                        opp_men,
                        opp_kings,
                    };
                    if sig.pieces() == pieces && sig.is_possible() {
                        all.push(sig);
                    }
                }
            }
        }
        all
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |kings: u8, men: u8| "K".repeat(kings as usize) + &"M".repeat(men as usize);
        write!(
            f,
            "{}v{}",
            side(self.mover_kings, self.mover_men),
            side(self.opp_kings, self.opp_men)
        )
    }
}

/// The error for a signature name that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad material signature {0:?}: expected kings (K) then men (M) for the side to move, 'v', \
     then the opponent's, such as KKMvK"
)]
pub struct BadSignature(pub String);

impl FromStr for Signature {
    type Err = BadSignature;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadSignature(s.to_string());
        let (mover, opp) = s.trim().split_once(['v', 'V']).ok_or_else(bad)?;
        let side = |text: &str| -> Option<(u8, u8)> {
            let kings = text.chars().take_while(|&c| c == 'K').count();
            let men = text[kings..].chars().take_while(|&c| c == 'M').count();
            (kings + men == text.len() && text.len() <= 12).then_some((kings as u8, men as u8))
        };
        let (mover_kings, mover_men) = side(mover).ok_or_else(bad)?;
        let (opp_kings, opp_men) = side(opp).ok_or_else(bad)?;
        let sig = Signature {
            mover_men,
            mover_kings,
            opp_men,
            opp_kings,
        };
        if sig.is_possible() {
            Ok(sig)
        } else {
            Err(bad())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for pieces in 2..=6 {
            for sig in Signature::with_pieces(pieces) {
                assert_eq!(sig.to_string().parse::<Signature>(), Ok(sig));
            }
        }
        assert_eq!(
            "KKMvK".parse::<Signature>().unwrap(),
            Signature {
                mover_men: 1,
                mover_kings: 2,
                opp_men: 0,
                opp_kings: 1
            }
        );
        for bad in ["", "KvK v", "MKvK", "Kv", "vK", "KXvK"] {
            assert!(bad.parse::<Signature>().is_err(), "{bad}");
        }
    }

    #[test]
    fn counts_signatures() {
        // Two pieces: each side has exactly one, a man or a king: 4 signatures.
        assert_eq!(Signature::with_pieces(2).len(), 4);
        // Three pieces: (2,1) or (1,2) split, 3 x 2 + 2 x 3 = 12 signatures.
        assert_eq!(Signature::with_pieces(3).len(), 12);
    }
}
