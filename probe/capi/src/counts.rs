//! The counted draw rules: the running counts as a plain C struct (`dprobe_draw_counts`), set by
//! counter id, carried over a move, and probed with.

use std::cell::RefCell;
use std::ffi::{c_char, c_int};

use dprobe::draw::MAX_COUNTERS;
use dprobe::rules::{legal_moves, Board};
use dprobe::{DrawCounts, DrawWdl, Move};

use crate::error::{guard, Failure, DPROBE_ERR_INVALID_POSITION, DPROBE_ERR_NULL, DPROBE_OK};
use crate::moves::MoveBuffers;
use crate::{handle, out, text, wdl_code, Handle};

/// Slots in `dprobe_draw_counts` (every preset has fewer counters).
pub const DPROBE_MAX_COUNTERS: usize = 16;
/// For [`dprobe_counts_set`] and [`dprobe_counts_get`]: a counter that waits for its position
/// condition (as the long-diagonal rules do) and has not started.
pub const DPROBE_COUNT_NOT_STARTED: c_int = -1;
/// For [`dprobe_counts_set`] and [`dprobe_counts_get`]: a counter at its start, as where the
/// material has just arisen.
pub const DPROBE_COUNT_AT_START: c_int = -2;

const _: () = assert!(DPROBE_MAX_COUNTERS == MAX_COUNTERS);

/// A slot's value for a counter at its start.
const SLOT_AT_START: u16 = 0xFFFF;
/// A slot's value for a counter not started.
const SLOT_NOT_STARTED: u16 = 0xFFFE;

/// The C struct `dprobe_draw_counts`: the running counts of the counted draw rules, plain data
/// an engine keeps per ply. Slot `k` is counter `k` of the rules ([`dprobe_counter_id`]):
/// plies since it started, `0xFFFE` not started, `0xFFFF` at its start.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawCountsC {
    /// One slot per counter.
    pub count: [u16; DPROBE_MAX_COUNTERS],
}

impl DrawCountsC {
    /// Every count at its start.
    pub const AT_START: DrawCountsC = DrawCountsC {
        count: [SLOT_AT_START; DPROBE_MAX_COUNTERS],
    };

    fn to_counts(self) -> DrawCounts {
        let mut counts = DrawCounts::new();
        for (k, &slot) in self.count.iter().enumerate() {
            match slot {
                SLOT_AT_START => {}
                SLOT_NOT_STARTED => counts.set_count(k, None),
                plies => counts.set_count(k, Some(plies)),
            }
        }
        counts
    }

    fn from_counts(counts: &DrawCounts) -> DrawCountsC {
        let mut out = DrawCountsC::AT_START;
        for (k, slot) in out.count.iter_mut().enumerate() {
            *slot = match counts.count(k) {
                None => SLOT_AT_START,
                Some(None) => SLOT_NOT_STARTED,
                Some(Some(plies)) => plies.min(SLOT_NOT_STARTED - 1),
            };
        }
        out
    }
}

/// Puts every count at its start, as where the material has just arisen (also after a capture
/// or a promotion).
///
/// # Safety
///
/// `counts` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn dprobe_counts_init(counts: *mut DrawCountsC) -> c_int {
    guard(|| {
        // SAFETY: as the caller promises.
        *unsafe { out(counts, "counts") }? = DrawCountsC::AT_START;
        Ok(DPROBE_OK)
    })
}

/// The number of counters of the variant's draw rules (slots used in `dprobe_draw_counts`), or
/// a negative code.
///
/// # Safety
///
/// `tb` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn dprobe_counters(tb: *const Handle) -> c_int {
    guard(|| {
        // SAFETY: as the caller promises.
        Ok(unsafe { handle(tb) }?.counter_ids.len() as c_int)
    })
}

/// The id of counter `k` (as `r1-three-kings`; `docs/DRAW_RULES.md` lists them), valid as long
/// as the handle; NULL with a message if `tb` is NULL or `k` is out of range.
///
/// # Safety
///
/// `tb` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn dprobe_counter_id(tb: *const Handle, k: c_int) -> *const c_char {
    let mut id = std::ptr::null();
    guard(|| {
        // SAFETY: as the caller promises.
        let tb = unsafe { handle(tb) }?;
        let name = usize::try_from(k)
            .ok()
            .and_then(|k| tb.counter_ids.get(k))
            .ok_or_else(|| {
                Failure::bad(format!(
                    "no counter {k}: the {} draw rules have {} (0 to {})",
                    tb.tables.draw_rules().directory_name(),
                    tb.counter_ids.len(),
                    tb.counter_ids.len().saturating_sub(1)
                ))
            })?;
        id = name.as_ptr();
        Ok(DPROBE_OK)
    });
    id
}

/// The place of counter `id` in the rules.
fn counter_index(tb: &Handle, id: &str) -> Result<usize, Failure> {
    tb.counter_ids
        .iter()
        .position(|c| c.to_bytes() == id.as_bytes())
        .ok_or_else(|| {
            let known: Vec<&str> = tb
                .tables
                .draw_rules()
                .counters
                .iter()
                .map(|c| c.id)
                .collect();
            Failure::bad(format!(
                "no counter {id:?} in the {} draw rules; their counters are: {}",
                tb.tables.draw_rules().directory_name(),
                known.join(", ")
            ))
        })
}

/// Sets counter `id`'s count: `plies` since it started (0 to 65533),
/// [`DPROBE_COUNT_NOT_STARTED`] or [`DPROBE_COUNT_AT_START`].
///
/// # Safety
///
/// `tb` is NULL or a live handle; `counts` is NULL or valid; `id` is NULL or a NUL-terminated
/// string.
#[no_mangle]
pub unsafe extern "C" fn dprobe_counts_set(
    tb: *const Handle,
    counts: *mut DrawCountsC,
    id: *const c_char,
    plies: c_int,
) -> c_int {
    guard(|| {
        // SAFETY: as the caller promises.
        let (tb, counts, id) = unsafe { (handle(tb)?, out(counts, "counts")?, text(id, "id")?) };
        let k = counter_index(tb, id)?;
        counts.count[k] = match plies {
            DPROBE_COUNT_AT_START => SLOT_AT_START,
            DPROBE_COUNT_NOT_STARTED => SLOT_NOT_STARTED,
            p if (0..c_int::from(SLOT_NOT_STARTED)).contains(&p) => p as u16,
            p => {
                return Err(Failure::bad(format!(
                    "count {p} for {id}: give plies 0 to {}, DPROBE_COUNT_NOT_STARTED or \
                     DPROBE_COUNT_AT_START",
                    SLOT_NOT_STARTED - 1
                )))
            }
        };
        Ok(DPROBE_OK)
    })
}

/// Counter `id`'s count into `*plies`: plies since it started, [`DPROBE_COUNT_NOT_STARTED`] or
/// [`DPROBE_COUNT_AT_START`].
///
/// # Safety
///
/// `tb` is NULL or a live handle; `counts` is NULL or valid; `id` is NULL or a NUL-terminated
/// string; `plies` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn dprobe_counts_get(
    tb: *const Handle,
    counts: *const DrawCountsC,
    id: *const c_char,
    plies: *mut c_int,
) -> c_int {
    guard(|| {
        // SAFETY: as the caller promises.
        let (tb, counts, id, plies) = unsafe {
            (
                handle(tb)?,
                counts.as_ref().ok_or_else(|| Failure::null("counts"))?,
                text(id, "id")?,
                out(plies, "plies")?,
            )
        };
        *plies = match counts.count[counter_index(tb, id)?] {
            SLOT_AT_START => DPROBE_COUNT_AT_START,
            SLOT_NOT_STARTED => DPROBE_COUNT_NOT_STARTED,
            p => c_int::from(p),
        };
        Ok(DPROBE_OK)
    })
}

thread_local! {
    /// A move list kept between calls, so that carrying the counts allocates nothing.
    static MOVES: RefCell<Vec<Move>> = const { RefCell::new(Vec::new()) };
}

/// Carries the counts over a move: given the position before it (bitboards and side to move)
/// and after it (the other side to move), `*counts` become the counts after the move — all at
/// their start after a capture or a promotion. [`crate::DPROBE_ERR_BAD_ARGUMENT`] if no legal
/// move leads from one position to the other.
///
/// # Safety
///
/// `tb` is NULL or a live handle; `counts` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn dprobe_counts_play(
    tb: *const Handle,
    counts: *mut DrawCountsC,
    white_men: u32,
    white_kings: u32,
    black_men: u32,
    black_kings: u32,
    white_to_move: c_int,
    after_white_men: u32,
    after_white_kings: u32,
    after_black_men: u32,
    after_black_kings: u32,
) -> c_int {
    guard(|| {
        // SAFETY: as the caller promises.
        let (tb, counts) = unsafe { (handle(tb)?, out(counts, "counts")?) };
        let before = tb.position(
            white_men,
            white_kings,
            black_men,
            black_kings,
            white_to_move,
        );
        let after = tb.position(
            after_white_men,
            after_white_kings,
            after_black_men,
            after_black_kings,
            c_int::from(white_to_move == 0),
        );
        let board = before.board();
        if !board.is_valid() {
            return Err(Failure::fixed(
                DPROBE_ERR_INVALID_POSITION,
                "invalid position before the move: two pieces on a square, a man on its far row \
                 or more than 12 pieces a side",
            ));
        }
        let mv = find_move(tb, &board, &after.board()).ok_or_else(|| {
            Failure::bad(format!(
                "no legal move leads from {} to {}",
                before.to_fen(&tb.variant),
                after.to_fen(&tb.variant)
            ))
        })?;
        let mut running = counts.to_counts();
        running.play(tb.tables.draw_rules(), &board, &mv);
        *counts = DrawCountsC::from_counts(&running);
        Ok(DPROBE_OK)
    })
}

/// The legal move of `board` that leads to `after` (both seen from their side to move).
fn find_move(tb: &Handle, board: &Board, after: &Board) -> Option<Move> {
    MOVES.with(|moves| {
        let mut moves = moves.borrow_mut();
        moves.clear();
        legal_moves(board, &tb.variant.moves, &mut moves);
        moves.iter().copied().find(|mv| board.play(mv) == *after)
    })
}

/// 2 win, 1 cursed win, 0 draw, -1 blessed loss, -2 loss.
fn draw_code(result: DrawWdl) -> c_int {
    c_int::from(result.code()) - 2
}

/// The value under the variant's counted draw rules: into `*result` the result with every count
/// at its start (2 win, 1 cursed win: won in the pure game but drawn under the rules, 0 draw,
/// -1 blessed loss, -2 loss), into `*wdl` the result (1, 0, -1) with the running `counts`.
/// Reads the `.wdl` files and the rule tables (`.rules`).
///
/// # Safety
///
/// `tb` is NULL or a live handle; `counts` is NULL or valid; `result` and `wdl` are NULL or
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn dprobe_probe_draw(
    tb: *const Handle,
    white_men: u32,
    white_kings: u32,
    black_men: u32,
    black_kings: u32,
    white_to_move: c_int,
    counts: *const DrawCountsC,
    result: *mut c_int,
    wdl: *mut c_int,
) -> c_int {
    guard(|| {
        // SAFETY: as the caller promises.
        let (tb, counts, result, wdl) = unsafe {
            (
                handle(tb)?,
                counts.as_ref().ok_or_else(|| Failure::null("counts"))?,
                out(result, "result")?,
                out(wdl, "wdl")?,
            )
        };
        let position = tb.position(
            white_men,
            white_kings,
            black_men,
            black_kings,
            white_to_move,
        );
        let probe = tb.tables.probe_draw(&position, &counts.to_counts())?;
        *result = draw_code(probe.result);
        *wdl = wdl_code(probe.now);
        Ok(DPROBE_OK)
    })
}

/// Every legal move with its values under the counted rules, for the side that plays it, in
/// the move generator's order: the moves into `moves` as [`crate::dprobe_probe_moves`] writes
/// them; move `i`'s result with every count at its start before it into `result[i]` (2 to -2,
/// as [`dprobe_probe_draw`]) and its result with the running `counts` into `wdl[i]` (1, 0, -1).
///
/// # Safety
///
/// As [`crate::dprobe_probe_moves`]; `counts` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn dprobe_probe_draw_moves(
    tb: *const Handle,
    white_men: u32,
    white_kings: u32,
    black_men: u32,
    black_kings: u32,
    white_to_move: c_int,
    counts: *const DrawCountsC,
    moves: *mut c_char,
    moves_size: usize,
    result: *mut c_int,
    wdl: *mut c_int,
    capacity: usize,
    count: *mut usize,
) -> c_int {
    guard(|| {
        // SAFETY: as the caller promises.
        let tb = unsafe { handle(tb) }?;
        // SAFETY: as the caller promises.
        let counts =
            unsafe { counts.as_ref() }.ok_or(Failure::fixed(DPROBE_ERR_NULL, "counts is NULL"))?;
        let buffers = MoveBuffers::new(
            moves,
            moves_size,
            (result, wdl),
            capacity,
            count,
            ["result", "wdl"],
        )?;
        let position = tb.position(
            white_men,
            white_kings,
            black_men,
            black_kings,
            white_to_move,
        );
        let list = tb.tables.draw_moves(&position, &counts.to_counts())?;
        let list = list.iter().map(|m| {
            (
                position.move_to_string(&tb.variant, &m.mv),
                draw_code(m.result),
                wdl_code(m.now),
            )
        });
        // SAFETY: as the caller promises.
        unsafe { buffers.write(list) }?;
        Ok(DPROBE_OK)
    })
}
