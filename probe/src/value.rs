//! Game values: win, draw or loss for the side to move, with the distance in plies to the end of
//! the game under best play (the winner hurries, the loser holds out).

use std::fmt;

/// Win, draw or loss for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wdl {
    /// The side to move loses.
    Loss,
    /// Neither side can force a win: the game never ends.
    Draw,
    /// The side to move wins.
    Win,
}

impl Wdl {
    /// The lower-case name used in reports and JSON (`win`, `draw`, `loss`).
    pub const fn name(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        }
    }
}

/// The same result seen from the other side.
impl std::ops::Neg for Wdl {
    type Output = Wdl;

    fn neg(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A position's exact value: the result and, for a decided game, the number of plies to its end
/// (the position where the loser has no move).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move wins in this many plies (odd).
    Win(u16),
    /// A draw.
    Draw,
    /// The side to move loses in this many plies (even; 0: no legal move now).
    Loss(u16),
}

impl Value {
    /// The largest distance a packed value can hold.
    pub const MAX_DISTANCE: u16 = (u16::MAX - 3) / 2;

    /// The result without the distance.
    pub const fn wdl(self) -> Wdl {
        match self {
            Value::Win(_) => Wdl::Win,
            Value::Draw => Wdl::Draw,
            Value::Loss(_) => Wdl::Loss,
        }
    }

    /// The distance to the end of the game, `None` for a draw.
    pub const fn distance(self) -> Option<u16> {
        match self {
            Value::Win(d) | Value::Loss(d) => Some(d),
            Value::Draw => None,
        }
    }

    /// The value of a position one of whose moves leads to a position of value `self` (for the
    /// other side): a loss there is a win here one ply later, and so on.
    pub const fn one_ply_earlier(self) -> Value {
        match self {
            Value::Win(d) => Value::Loss(d + 1),
            Value::Draw => Value::Draw,
            Value::Loss(d) => Value::Win(d + 1),
        }
    }

    /// Whether the mover prefers `self` to `other`: a win to a draw to a loss, a faster win, a
    /// slower loss.
    pub const fn is_better_than(self, other: Value) -> bool {
        match (self, other) {
            (Value::Win(a), Value::Win(b)) => a < b,
            (Value::Loss(a), Value::Loss(b)) => a > b,
            _ => (self.wdl() as u8) > (other.wdl() as u8),
        }
    }

    /// The best of the values of a position's moves, each given from the mover's side (already
    /// passed through [`Value::one_ply_earlier`]); a position without moves is a loss in 0.
    pub fn best(values: impl IntoIterator<Item = Value>) -> Value {
        values
            .into_iter()
            .reduce(|best, v| if v.is_better_than(best) { v } else { best })
            .unwrap_or(Value::Loss(0))
    }

    /// The value packed in 16 bits: 0 is reserved (unknown), 1 a draw, then losses and wins by
    /// distance. Distances above [`Value::MAX_DISTANCE`] do not fit.
    pub const fn pack(self) -> u16 {
        match self {
            Value::Draw => 1,
            Value::Loss(d) => 2 + 2 * d,
            Value::Win(d) => 3 + 2 * d,
        }
    }

    /// The value a packed `u16` holds; `None` for 0 (unknown).
    pub const fn unpack(packed: u16) -> Option<Value> {
        match packed {
            0 => None,
            1 => Some(Value::Draw),
            p if p % 2 == 0 => Some(Value::Loss((p - 2) / 2)),
            p => Some(Value::Win((p - 3) / 2)),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(d) => write!(f, "win in {d} plies"),
            Value::Draw => f.write_str("draw"),
            Value::Loss(d) => write!(f, "loss in {d} plies"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips() {
        for v in [
            Value::Draw,
            Value::Loss(0),
            Value::Win(1),
            Value::Loss(Value::MAX_DISTANCE),
            Value::Win(Value::MAX_DISTANCE),
        ] {
            assert_eq!(Value::unpack(v.pack()), Some(v));
        }
        assert_eq!(Value::unpack(0), None);
    }

    #[test]
    fn preferences() {
        assert!(Value::Win(5).is_better_than(Value::Win(7)));
        assert!(Value::Win(99).is_better_than(Value::Draw));
        assert!(Value::Draw.is_better_than(Value::Loss(99)));
        assert!(Value::Loss(10).is_better_than(Value::Loss(2)));
        assert_eq!(
            Value::best([Value::Loss(4), Value::Draw, Value::Loss(8)]),
            Value::Draw
        );
        assert_eq!(Value::best([]), Value::Loss(0));
        assert_eq!(Value::Loss(0).one_ply_earlier(), Value::Win(1));
    }
}
