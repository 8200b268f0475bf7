//! The solver's working state of one position, in the 16 bits that end up holding its packed
//! value.
//!
//! A position the passes have not decided needs its count of moves not yet answered; one that is
//! decided needs its value, and whether that value is a provisional win (a move out of its slice
//! wins, and a king move inside it may still win faster). The two never coexist: an undecided
//! position has no value, and a provisional win's count is never read again (a win is not
//! counted down). So both live in one `u16` per position, where a separate counter array would
//! cost a byte more per position and a second cache line for every predecessor a pass counts
//! down:
//!
//! | slot | meaning |
//! |---|---|
//! | `0` | not yet initialised |
//! | `1 ..= 0x7FFF` | a final value, packed ([`Value::pack`]), of at most [`LONGEST_DISTANCE`] plies |
//! | `0x8000 + 2·m` | undecided, `m` (1–255) moves still to be counted down |
//! | `0x8000 + p`, `p` odd | a provisional win, `p` its packed value |
//!
//! Packed wins are odd and the counts even, so the flag bit tells the working states from final
//! values and the low bit tells a count from a provisional win. A slice's slots are all final
//! once it is solved ([`finish`]), before any other slice reads them.

use dprobe::Value;

/// The flag of the working states (undecided, provisional win).
const WORKING: u16 = 0x8000;

/// The longest distance a slot holds, in plies: every packed value, final or provisional, must
/// stay below [`WORKING`]. (The longest win up to 7 pieces is under 300 plies; the solver
/// refuses a pair that would go further.)
pub(super) const LONGEST_DISTANCE: u16 = (WORKING - 1 - 3) / 2;

/// An undecided position with `moves` (at least 1) moves still to be counted down.
#[inline(always)]
pub(super) fn undecided(moves: u8) -> u16 {
    debug_assert!(moves > 0);
    WORKING | u16::from(moves) << 1
}

/// A provisional win in `distance` plies, at most [`LONGEST_DISTANCE`].
#[inline(always)]
pub(super) fn provisional_win(distance: u16) -> u16 {
    debug_assert!(distance <= LONGEST_DISTANCE);
    WORKING | Value::Win(distance).pack()
}

/// Whether `slot` is an undecided position.
#[inline(always)]
pub(super) fn is_undecided(slot: u16) -> bool {
    slot & (WORKING | 1) == WORKING
}

/// The moves an undecided position's `slot` still has to count down.
#[inline(always)]
pub(super) fn moves_left(slot: u16) -> u8 {
    debug_assert!(is_undecided(slot));
    (slot >> 1) as u8
}

/// `slot` with one move fewer to count down (it has at least two).
#[inline(always)]
pub(super) fn one_move_fewer(slot: u16) -> u16 {
    debug_assert!(moves_left(slot) > 1);
    slot - 2
}

/// The distance of a provisional win, `None` for any other slot.
#[inline(always)]
pub(super) fn provisional_distance(slot: u16) -> Option<u16> {
    (slot & (WORKING | 1) == WORKING | 1).then(|| (slot - WORKING - 3) / 2)
}

/// The value a slot holds, final or provisional; `None` while undecided or uninitialised.
#[inline(always)]
pub(super) fn value(slot: u16) -> Option<Value> {
    if is_undecided(slot) {
        None
    } else {
        Value::unpack(slot & !WORKING)
    }
}

/// The final value of a slot once its slice's passes are done: a provisional win is final, and
/// a position still undecided never ends, a draw.
#[inline(always)]
pub(super) fn finish(slot: u16) -> u16 {
    if slot == 0 || is_undecided(slot) {
        Value::Draw.pack()
    } else {
        slot & !WORKING
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_reads_back_and_none_is_taken_for_another() {
        for moves in 1..=u8::MAX {
            let slot = undecided(moves);
            assert!(is_undecided(slot));
            assert_eq!(moves_left(slot), moves);
            assert_eq!(value(slot), None);
            assert_eq!(provisional_distance(slot), None);
            assert_eq!(finish(slot), Value::Draw.pack());
            if moves > 1 {
                assert_eq!(moves_left(one_move_fewer(slot)), moves - 1);
            }
        }
        for distance in [1, 2, 77, LONGEST_DISTANCE] {
            let slot = provisional_win(distance);
            assert!(!is_undecided(slot));
            assert_eq!(provisional_distance(slot), Some(distance));
            assert_eq!(value(slot), Some(Value::Win(distance)));
            assert_eq!(finish(slot), Value::Win(distance).pack());
        }
        for longest in [Value::Win(LONGEST_DISTANCE), Value::Loss(LONGEST_DISTANCE)] {
            assert!(longest.pack() < WORKING);
        }
        assert!(Value::Loss(LONGEST_DISTANCE + 1).pack() >= WORKING);
        for final_value in [
            Value::Draw,
            Value::Loss(0),
            Value::Win(1),
            Value::Loss(LONGEST_DISTANCE),
        ] {
            let slot = final_value.pack();
            assert!(slot < WORKING);
            assert!(!is_undecided(slot));
            assert_eq!(provisional_distance(slot), None);
            assert_eq!(value(slot), Some(final_value));
            assert_eq!(finish(slot), slot);
        }
        assert_eq!(value(0), None);
        assert_eq!(finish(0), Value::Draw.pack());
    }
}
