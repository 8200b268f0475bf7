//! The C interface to the draughts tablebase prober: the functions `include/dprobe.h` declares,
//! built as a shared library (`libdprobe_c.so`), a static one (`libdprobe_c.a`) and an rlib.
//!
//! Every entry point checks its pointers, runs inside [`std::panic::catch_unwind`] (a panic is
//! reported as [`DPROBE_ERR_INTERNAL`], never unwound into C) and returns a `DPROBE_ERR_*` code
//! with this thread's message ([`dprobe_last_error`]) on failure. Bitboards are in the variant's
//! own numbering: bit `n − 1` is square `n` of RULES.md §4. `docs/ENGINES.md` shows how engines
//! use it.
//!
//! From Rust, the same functions can be called through the rlib (the crate's benchmark does);
//! a Rust engine should use the `dprobe` crate directly.

// The argument lists are the C header's.
#![allow(clippy::too_many_arguments)]
#![deny(unsafe_op_in_unsafe_fn)]

mod counts;
mod error;
mod moves;
mod verify;

use std::ffi::{c_char, c_int, CStr, CString};
use std::path::PathBuf;

use dprobe::rules::Numbering;
use dprobe::{Color, Position, Tablebase, Value, Variant, Wdl};

pub use counts::{
    dprobe_counter_id, dprobe_counters, dprobe_counts_get, dprobe_counts_init, dprobe_counts_play,
    dprobe_counts_set, dprobe_probe_draw, dprobe_probe_draw_moves, DrawCountsC,
    DPROBE_COUNT_AT_START, DPROBE_COUNT_NOT_STARTED, DPROBE_MAX_COUNTERS,
};
pub use error::{
    DPROBE_ERR_BAD_ARGUMENT, DPROBE_ERR_CORRUPTED, DPROBE_ERR_INTERNAL,
    DPROBE_ERR_INVALID_POSITION, DPROBE_ERR_IO, DPROBE_ERR_MISSING_TABLE, DPROBE_ERR_NOT_IN_CACHE,
    DPROBE_ERR_NULL, DPROBE_ERR_TOO_MANY_PIECES, DPROBE_OK,
};
pub use moves::dprobe_probe_moves;
pub use verify::dprobe_verify;

use error::{guard, guard_ptr, Failure};

/// An opened tablebase: the C type `dprobe_tablebase`. Shared by any number of threads.
pub struct Handle {
    tables: Tablebase,
    variant: Variant,
    numbering: Numbering,
    dir: PathBuf,
    /// The draw rules' counter ids, NUL-terminated for [`dprobe_counter_id`].
    counter_ids: Vec<CString>,
}

impl Handle {
    /// The position given by bitboards in the variant's numbering.
    #[inline(always)]
    fn position(&self, wm: u32, wk: u32, bm: u32, bk: u32, white_to_move: c_int) -> Position {
        let n = self.numbering;
        Position {
            white_men: n.squares_of(wm),
            white_kings: n.squares_of(wk),
            black_men: n.squares_of(bm),
            black_kings: n.squares_of(bk),
            side_to_move: if white_to_move != 0 {
                Color::White
            } else {
                Color::Black
            },
        }
    }
}

/// The handle behind `tb`.
///
/// # Safety
///
/// `tb` is NULL or a pointer [`dprobe_open`] returned and [`dprobe_close`] has not freed.
#[inline(always)]
unsafe fn handle<'a>(tb: *const Handle) -> Result<&'a Handle, Failure> {
    // SAFETY: as the caller promises.
    unsafe { tb.as_ref() }.ok_or(Failure::fixed(error::DPROBE_ERR_NULL, "tb is NULL"))
}

/// Where to write one result.
///
/// # Safety
///
/// `ptr` is NULL or valid for a write of a `T`.
#[inline(always)]
unsafe fn out<'a, T>(ptr: *mut T, name: &'static str) -> Result<&'a mut T, Failure> {
    // SAFETY: as the caller promises.
    unsafe { ptr.as_mut() }.ok_or_else(|| Failure::null(name))
}

/// A NUL-terminated argument as text.
///
/// # Safety
///
/// `ptr` is NULL or points to a NUL-terminated string.
unsafe fn text<'a>(ptr: *const c_char, name: &'static str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err(Failure::null(name));
    }
    // SAFETY: as the caller promises.
    let bytes = unsafe { CStr::from_ptr(ptr) };
    bytes
        .to_str()
        .map_err(|_| Failure::bad(format!("{name} is not UTF-8 text")))
}

/// A NUL-terminated path argument (any bytes on Unix).
///
/// # Safety
///
/// As [`text`].
unsafe fn path(ptr: *const c_char, name: &'static str) -> Result<PathBuf, Failure> {
    if ptr.is_null() {
        return Err(Failure::null(name));
    }
    // SAFETY: as the caller promises.
    let bytes = unsafe { CStr::from_ptr(ptr) };
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(PathBuf::from(std::ffi::OsStr::from_bytes(bytes.to_bytes())))
    }
    #[cfg(not(unix))]
    {
        bytes
            .to_str()
            .map(PathBuf::from)
            .map_err(|_| Failure::bad(format!("{name} is not UTF-8 text")))
    }
}

/// 1 win, 0 draw, -1 loss.
#[inline(always)]
pub(crate) fn wdl_code(wdl: Wdl) -> c_int {
    match wdl {
        Wdl::Win => 1,
        Wdl::Draw => 0,
        Wdl::Loss => -1,
    }
}

/// Plies to the end of the game, -1 for a draw.
pub(crate) fn dtw_code(value: Value) -> c_int {
    value.distance().map_or(-1, c_int::from)
}

/// Opens the tables of `variant` (`russian`, `brazilian`, `portuguese` or `spanish`) that
/// `dtb generate --dir directory` wrote, with a block cache of about `cache_bytes` bytes (0: the
/// default, 64 MiB). Every file is opened, mapped and checked here. Returns NULL with this thread's message
/// set if an argument is NULL, the variant is unknown, or the folder cannot be read or holds no
/// table of the variant.
///
/// # Safety
///
/// `variant` and `directory` are NULL or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn dprobe_open(
    variant: *const c_char,
    directory: *const c_char,
    cache_bytes: usize,
) -> *mut Handle {
    guard_ptr(|| {
        // SAFETY: as the caller promises.
        let name = unsafe { text(variant, "variant") }?;
        // SAFETY: as the caller promises.
        let dir = unsafe { path(directory, "directory") }?;
        let variant: Variant = name
            .parse()
            .map_err(|e: dprobe::rules::UnknownVariant| Failure::bad(e.to_string()))?;
        let build = format!(
            "build them with `dtb generate --variant {} --pieces 4 --dir {}`",
            variant.name,
            dir.display()
        );
        if !dir.is_dir() {
            return Err(Failure::new(
                error::DPROBE_ERR_IO,
                format!("{}: no such folder; {build}", dir.display()),
            ));
        }
        let mut tables = Tablebase::new(variant);
        if cache_bytes != 0 {
            tables.set_cache_size(cache_bytes);
        }
        tables.add_directory(&dir)?;
        if tables.max_pieces() == 0 {
            return Err(Failure::new(
                error::DPROBE_ERR_MISSING_TABLE,
                format!(
                    "no {} tables in {}; {build}",
                    variant.moves.id.name(),
                    dir.display()
                ),
            ));
        }
        let counter_ids = tables
            .draw_rules()
            .counters
            .iter()
            .map(|c| CString::new(c.id).unwrap_or_default())
            .collect();
        Ok(Box::into_raw(Box::new(Handle {
            numbering: variant.notation.numbering,
            variant,
            tables,
            dir,
            counter_ids,
        })))
    })
}

/// Frees a handle (NULL is a no-op). No other thread may be using it.
///
/// # Safety
///
/// `tb` is NULL or a pointer [`dprobe_open`] returned, not freed yet.
#[no_mangle]
pub unsafe extern "C" fn dprobe_close(tb: *mut Handle) {
    if tb.is_null() {
        return;
    }
    guard(|| {
        // SAFETY: as the caller promises: it came from `Box::into_raw`.
        drop(unsafe { Box::from_raw(tb) });
        Ok(error::DPROBE_OK)
    });
}

/// This thread's last message: what the last failed call on this thread said ("" if none). It
/// stays valid until the next `dprobe_` call on this thread.
#[no_mangle]
pub extern "C" fn dprobe_last_error() -> *const c_char {
    error::last_error()
}

/// The most pieces of any table found, or a negative code.
///
/// # Safety
///
/// `tb` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn dprobe_max_pieces(tb: *const Handle) -> c_int {
    guard(|| {
        // SAFETY: as the caller promises.
        let tb = unsafe { handle(tb) }?;
        Ok(tb.tables.max_pieces() as c_int)
    })
}

/// Win (1), draw (0) or loss (-1) for the side to move into `*wdl`. Reads `.wdl` files only.
///
/// # Safety
///
/// `tb` is NULL or a live handle; `wdl` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn dprobe_probe_wdl(
    tb: *const Handle,
    white_men: u32,
    white_kings: u32,
    black_men: u32,
    black_kings: u32,
    white_to_move: c_int,
    wdl: *mut c_int,
) -> c_int {
    let bitboards = [white_men, white_kings, black_men, black_kings];
    // SAFETY: as the caller promises.
    unsafe { wdl_by(tb, bitboards, white_to_move, wdl, Tablebase::probe_wdl) }
}

/// The body of the two WDL probes by bitboards, `probe` the one that answers.
///
/// # Safety
///
/// As [`dprobe_probe_wdl`].
#[inline(always)]
unsafe fn wdl_by(
    tb: *const Handle,
    [white_men, white_kings, black_men, black_kings]: [u32; 4],
    white_to_move: c_int,
    wdl: *mut c_int,
    probe: impl Fn(&Tablebase, &Position) -> Result<Wdl, dprobe::ProbeError>,
) -> c_int {
    guard(|| {
        // SAFETY: as the caller promises.
        let (tb, wdl) = unsafe { (handle(tb)?, out(wdl, "wdl")?) };
        let position = tb.position(
            white_men,
            white_kings,
            black_men,
            black_kings,
            white_to_move,
        );
        *wdl = wdl_code(probe(&tb.tables, &position)?);
        Ok(error::DPROBE_OK)
    })
}

/// As [`dprobe_probe_wdl`], answered only from blocks already in memory: never reads a file,
/// never waits for a decompression; [`DPROBE_ERR_NOT_IN_CACHE`] otherwise.
///
/// # Safety
///
/// As [`dprobe_probe_wdl`].
#[no_mangle]
pub unsafe extern "C" fn dprobe_probe_wdl_cached(
    tb: *const Handle,
    white_men: u32,
    white_kings: u32,
    black_men: u32,
    black_kings: u32,
    white_to_move: c_int,
    wdl: *mut c_int,
) -> c_int {
    let bitboards = [white_men, white_kings, black_men, black_kings];
    // SAFETY: as the caller promises.
    unsafe {
        wdl_by(
            tb,
            bitboards,
            white_to_move,
            wdl,
            Tablebase::probe_wdl_cached,
        )
    }
}

/// Loads every block of every `.wdl` table of up to `max_pieces` pieces into the cache, the
/// smaller tables first and as far as the cache budget of [`dprobe_open`] allows, so that
/// [`dprobe_probe_wdl_cached`] answers for them. Reads the files whole: call it once, at
/// start-up. Returns the number of those tables' blocks in the cache (8 KiB of memory each),
/// or a negative code.
///
/// # Safety
///
/// `tb` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn dprobe_preload(tb: *const Handle, max_pieces: c_int) -> c_int {
    guard(|| {
        // SAFETY: as the caller promises.
        let tb = unsafe { handle(tb) }?;
        let max_pieces = u32::try_from(max_pieces)
            .map_err(|_| Failure::bad(format!("max_pieces {max_pieces} is negative")))?;
        let blocks = tb.tables.preload(max_pieces)?;
        Ok(c_int::try_from(blocks).unwrap_or(c_int::MAX))
    })
}

/// The result and the distance to the end of the game in plies (-1 for a draw) into `*wdl` and
/// `*dtw`. Reads `.wdl` and `.dtw` files.
///
/// # Safety
///
/// `tb` is NULL or a live handle; `wdl` and `dtw` are NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn dprobe_probe_dtw(
    tb: *const Handle,
    white_men: u32,
    white_kings: u32,
    black_men: u32,
    black_kings: u32,
    white_to_move: c_int,
    wdl: *mut c_int,
    dtw: *mut c_int,
) -> c_int {
    guard(|| {
        // SAFETY: as the caller promises.
        let (tb, wdl, dtw) = unsafe { (handle(tb)?, out(wdl, "wdl")?, out(dtw, "dtw")?) };
        let position = tb.position(
            white_men,
            white_kings,
            black_men,
            black_kings,
            white_to_move,
        );
        let value = tb.tables.probe_dtw(&position)?;
        *wdl = wdl_code(value.wdl());
        *dtw = dtw_code(value);
        Ok(error::DPROBE_OK)
    })
}

/// The position string `fen` (PDN FEN in the variant's numbering, as `W:W21,22,K30:B1,2,K5`)
/// probed: `*wdl`, and `*dtw` unless `dtw` is NULL (then only `.wdl` files are read).
///
/// # Safety
///
/// `tb` is NULL or a live handle; `fen` is NULL or a NUL-terminated string; `wdl` and `dtw` are
/// NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn dprobe_probe_fen(
    tb: *const Handle,
    fen: *const c_char,
    wdl: *mut c_int,
    dtw: *mut c_int,
) -> c_int {
    guard(|| {
        // SAFETY: as the caller promises.
        let (tb, fen, wdl) = unsafe { (handle(tb)?, text(fen, "fen")?, out(wdl, "wdl")?) };
        let position = Position::from_fen(fen, &tb.variant)?;
        // SAFETY: as the caller promises.
        match unsafe { dtw.as_mut() } {
            Some(dtw) => {
                let value = tb.tables.probe_dtw(&position)?;
                *wdl = wdl_code(value.wdl());
                *dtw = dtw_code(value);
            }
            None => *wdl = wdl_code(tb.tables.probe_wdl(&position)?),
        }
        Ok(error::DPROBE_OK)
    })
}
