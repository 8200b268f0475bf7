//! Error codes, this thread's last message, and the guard every entry point runs in: a panic
//! is caught and becomes [`DPROBE_ERR_INTERNAL`], never an unwind into C.

use std::cell::RefCell;
use std::ffi::c_char;
use std::os::raw::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};

use dprobe::{FenError, ProbeError};

/// Success.
pub const DPROBE_OK: c_int = 0;
/// A table the position needs is not in the folder (or a smaller one a capture leads to).
pub const DPROBE_ERR_MISSING_TABLE: c_int = -1;
/// The position has more pieces than the largest table found.
pub const DPROBE_ERR_TOO_MANY_PIECES: c_int = -2;
/// The position cannot occur: two pieces on a square, a man on its own far row, more than 12
/// pieces a side, or the side that has just moved has no pieces.
pub const DPROBE_ERR_INVALID_POSITION: c_int = -3;
/// A table file is damaged, truncated, or not the table its name says.
pub const DPROBE_ERR_CORRUPTED: c_int = -4;
/// A file or folder cannot be read.
pub const DPROBE_ERR_IO: c_int = -5;
/// A required pointer argument is NULL.
pub const DPROBE_ERR_NULL: c_int = -6;
/// The cache-only probe's block is not in memory.
pub const DPROBE_ERR_NOT_IN_CACHE: c_int = -7;
/// An argument out of its range: unknown variant, unreadable position string, buffer too
/// small, unknown counter id or a count that does not fit the position.
pub const DPROBE_ERR_BAD_ARGUMENT: c_int = -8;
/// A bug in the library (a caught panic); the message says where.
pub const DPROBE_ERR_INTERNAL: c_int = -9;

/// A failed call: its code and what to tell the user.
pub(crate) struct Failure {
    pub(crate) code: c_int,
    pub(crate) message: Message,
}

/// A message: most are made only when a call fails, the frequent ones are static.
pub(crate) enum Message {
    Static(&'static str),
    Owned(String),
}

impl Failure {
    pub(crate) fn new(code: c_int, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: Message::Owned(message.into()),
        }
    }

    pub(crate) const fn fixed(code: c_int, message: &'static str) -> Failure {
        Failure {
            code,
            message: Message::Static(message),
        }
    }

    pub(crate) fn null(argument: &str) -> Failure {
        Failure::new(DPROBE_ERR_NULL, format!("{argument} is NULL"))
    }

    pub(crate) fn bad(message: impl Into<String>) -> Failure {
        Failure::new(DPROBE_ERR_BAD_ARGUMENT, message)
    }

    /// Makes this thread's last message and returns the code.
    #[cold]
    #[inline(never)]
    pub(crate) fn record(self) -> c_int {
        match &self.message {
            Message::Static(text) => set_last_error(text),
            Message::Owned(text) => set_last_error(text),
        }
        self.code
    }
}

/// The code of each kind of probe error.
pub(crate) fn probe_code(error: &ProbeError) -> c_int {
    match error {
        ProbeError::MissingTable { .. } | ProbeError::MissingDrawTable { .. } => {
            DPROBE_ERR_MISSING_TABLE
        }
        ProbeError::TooManyPieces { .. } => DPROBE_ERR_TOO_MANY_PIECES,
        ProbeError::InvalidPosition(_) => DPROBE_ERR_INVALID_POSITION,
        // A rule table of other draw rules cannot be used, as a damaged one cannot.
        ProbeError::Corrupted(_) | ProbeError::DrawRulesMismatch { .. } => DPROBE_ERR_CORRUPTED,
        ProbeError::Io { .. } => DPROBE_ERR_IO,
        ProbeError::NotInCache => DPROBE_ERR_NOT_IN_CACHE,
        ProbeError::Counts(_) | ProbeError::UnsupportedDrawRules(_) => DPROBE_ERR_BAD_ARGUMENT,
    }
}

impl From<ProbeError> for Failure {
    #[cold]
    #[inline(never)]
    fn from(error: ProbeError) -> Failure {
        match error {
            // The frequent miss of a search allocates nothing.
            ProbeError::NotInCache => NOT_IN_CACHE,
            error => Failure::new(probe_code(&error), error.to_string()),
        }
    }
}

/// A cache-only probe's miss.
const NOT_IN_CACHE: Failure = Failure::fixed(
    DPROBE_ERR_NOT_IN_CACHE,
    "not in the cache: the position needs a block that is not in memory (the cache-only probe \
     reads no file); probe it with dprobe_probe_wdl, or load the tables with dprobe_preload",
);

impl From<FenError> for Failure {
    fn from(error: FenError) -> Failure {
        // A well-formed string of a position that cannot occur is an invalid position, as the
        // same position given by bitboards is.
        let code = match error {
            FenError::TwoPieces(_)
            | FenError::ManOnFarRow { .. }
            | FenError::TooManyPieces { .. } => DPROBE_ERR_INVALID_POSITION,
            _ => DPROBE_ERR_BAD_ARGUMENT,
        };
        Failure::new(code, error.to_string())
    }
}

thread_local! {
    /// This thread's last message, NUL-terminated; its allocation is reused.
    static LAST_ERROR: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Replaces this thread's last message (an interior NUL ends it early); nothing while the
/// thread is being torn down.
pub(crate) fn set_last_error(text: &str) {
    let _ = LAST_ERROR.try_with(|last| {
        if let Ok(mut last) = last.try_borrow_mut() {
            last.clear();
            last.extend(text.bytes().take_while(|&b| b != 0));
            last.push(0);
        }
    });
}

/// A pointer to this thread's last message, valid until the next call on this thread ("" if
/// none, or while the thread is being torn down).
pub(crate) fn last_error() -> *const c_char {
    LAST_ERROR
        .try_with(|last| match last.try_borrow() {
            Ok(last) if !last.is_empty() => last.as_ptr().cast(),
            _ => c"".as_ptr(),
        })
        .unwrap_or(c"".as_ptr())
}

/// What a caught panic said.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    if let Some(text) = payload.downcast_ref::<&str>() {
        text
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text
    } else {
        "unknown panic"
    }
}

/// Runs an entry point's body: its code on success, else the failure's code with this thread's
/// message set. No panic leaves it. The hot path (a probe that succeeds) returns a plain code
/// from inside the catch; a failure is recorded out of line.
#[inline(always)]
pub(crate) fn guard(body: impl FnOnce() -> Result<c_int, Failure>) -> c_int {
    let caught = catch_unwind(AssertUnwindSafe(|| match body() {
        Ok(code) => code,
        Err(failure) => failure.record(),
    }));
    match caught {
        Ok(code) => code,
        Err(payload) => internal(&*payload),
    }
}

/// As [`guard`], for the entry points that return a pointer (NULL on failure).
pub(crate) fn guard_ptr<T>(body: impl FnOnce() -> Result<*mut T, Failure>) -> *mut T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(pointer)) => pointer,
        Ok(Err(failure)) => {
            failure.record();
            std::ptr::null_mut()
        }
        Err(payload) => {
            internal(&*payload);
            std::ptr::null_mut()
        }
    }
}

#[cold]
fn internal(payload: &(dyn std::any::Any + Send)) -> c_int {
    set_last_error(&format!(
        "internal error (a bug in dprobe; please report it): {}",
        panic_text(payload)
    ));
    DPROBE_ERR_INTERNAL
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn message() -> String {
        // SAFETY: the pointer is this thread's message, valid until the next call.
        unsafe { CStr::from_ptr(last_error()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn a_panic_becomes_the_internal_code_with_its_message() {
        let code = guard(|| panic!("an invariant broke"));
        assert_eq!(code, DPROBE_ERR_INTERNAL);
        assert!(message().contains("an invariant broke"), "{}", message());
        let pointer: *mut u8 = guard_ptr(|| panic!("again"));
        assert!(pointer.is_null());
        assert!(message().contains("again"));
    }

    #[test]
    fn failures_set_this_threads_message_and_successes_keep_it() {
        assert_eq!(message(), "");
        assert_eq!(
            guard(|| Err(Failure::bad("too small"))),
            DPROBE_ERR_BAD_ARGUMENT
        );
        assert_eq!(message(), "too small");
        assert_eq!(guard(|| Ok(DPROBE_OK)), DPROBE_OK);
        assert_eq!(message(), "too small");
        std::thread::spawn(|| assert_eq!(message(), ""))
            .join()
            .unwrap();
        assert_eq!(
            guard(|| Err(ProbeError::NotInCache.into())),
            DPROBE_ERR_NOT_IN_CACHE
        );
        assert!(message().contains("dprobe_preload"));
    }
}
