//! Every legal move with its value, written into the caller's buffers.

use std::ffi::{c_char, c_int};

use crate::error::{guard, Failure, DPROBE_OK};
use crate::{dtw_code, handle, out, wdl_code, Handle};

/// The caller's buffers for a list of moves: the moves' text and two values per move.
pub(crate) struct MoveBuffers {
    pub(crate) text: *mut c_char,
    pub(crate) text_size: usize,
    pub(crate) first: *mut c_int,
    pub(crate) second: *mut c_int,
    pub(crate) capacity: usize,
    pub(crate) count: *mut usize,
}

impl MoveBuffers {
    /// The buffers, refused if one is NULL (before anything is probed).
    pub(crate) fn new(
        text: *mut c_char,
        text_size: usize,
        (first, second): (*mut c_int, *mut c_int),
        capacity: usize,
        count: *mut usize,
        names: [&'static str; 2],
    ) -> Result<MoveBuffers, Failure> {
        for (null, name) in [
            (text.is_null(), "moves"),
            (first.is_null(), names[0]),
            (second.is_null(), names[1]),
            (count.is_null(), "count"),
        ] {
            if null {
                return Err(Failure::null(name));
            }
        }
        Ok(MoveBuffers {
            text,
            text_size,
            first,
            second,
            capacity,
            count,
        })
    }

    /// Writes the moves (separated by single spaces, NUL-terminated) and their two values; sets
    /// `*count` to the number of moves even when a buffer is too small, and then writes nothing
    /// else.
    ///
    /// # Safety
    ///
    /// `text` is valid for `text_size` bytes, `first` and `second` for `capacity` values each,
    /// `count` for a write.
    pub(crate) unsafe fn write(
        &self,
        moves: impl Iterator<Item = (String, c_int, c_int)>,
    ) -> Result<(), Failure> {
        // SAFETY: as the caller promises.
        let count = unsafe { out(self.count, "count") }?;
        let moves: Vec<(String, c_int, c_int)> = moves.collect();
        *count = moves.len();
        if moves.len() > self.capacity {
            return Err(Failure::bad(format!(
                "room for {} moves, the position has {}",
                self.capacity,
                moves.len()
            )));
        }
        // The moves, a space between two, and the final NUL.
        let needed = moves.iter().map(|m| m.0.len() + 1).sum::<usize>().max(1);
        if needed > self.text_size {
            return Err(Failure::bad(format!(
                "a buffer of {} bytes is too small for the moves: {needed} bytes needed",
                self.text_size
            )));
        }
        // SAFETY: checked above: `needed` bytes fit the caller's buffer.
        let text = unsafe { std::slice::from_raw_parts_mut(self.text.cast::<u8>(), needed) };
        let mut at = 0;
        for (i, (name, first, second)) in moves.iter().enumerate() {
            if i > 0 {
                text[at] = b' ';
                at += 1;
            }
            text[at..at + name.len()].copy_from_slice(name.as_bytes());
            at += name.len();
            // SAFETY: i < moves.len() <= capacity.
            unsafe {
                self.first.add(i).write(*first);
                self.second.add(i).write(*second);
            }
        }
        text[at] = 0;
        Ok(())
    }
}

/// Every legal move at the root with its value for the side that plays it, best first (the
/// fastest win, then draws, then the slowest loss): the moves in the variant's notation,
/// separated by single spaces, into `moves` (NUL-terminated, at most `moves_size` bytes); move
/// `i`'s result and distance (as [`crate::dprobe_probe_dtw`] gives them) into `wdl[i]` and
/// `dtw[i]` (room for `capacity` each); the number of moves into `*count`. A buffer too small is
/// [`crate::DPROBE_ERR_BAD_ARGUMENT`] with `*count` set and nothing else written.
///
/// # Safety
///
/// `tb` is NULL or a live handle; `moves` is NULL or valid for `moves_size` bytes; `wdl` and
/// `dtw` are NULL or valid for `capacity` values each; `count` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn dprobe_probe_moves(
    tb: *const Handle,
    white_men: u32,
    white_kings: u32,
    black_men: u32,
    black_kings: u32,
    white_to_move: c_int,
    moves: *mut c_char,
    moves_size: usize,
    wdl: *mut c_int,
    dtw: *mut c_int,
    capacity: usize,
    count: *mut usize,
) -> c_int {
    guard(|| {
        // SAFETY: as the caller promises.
        let tb = unsafe { handle(tb) }?;
        let buffers = MoveBuffers::new(
            moves,
            moves_size,
            (wdl, dtw),
            capacity,
            count,
            ["wdl", "dtw"],
        )?;
        let position = tb.position(
            white_men,
            white_kings,
            black_men,
            black_kings,
            white_to_move,
        );
        let valued = tb.tables.probe_moves(&position)?;
        let list = valued.iter().map(|(mv, value)| {
            (
                position.move_to_string(&tb.variant, mv),
                wdl_code(value.wdl()),
                dtw_code(*value),
            )
        });
        // SAFETY: as the caller promises.
        unsafe { buffers.write(list) }?;
        Ok(DPROBE_OK)
    })
}
