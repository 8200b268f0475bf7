//! The C interface's integration tests, in one binary: C programs compiled with the system's C
//! compiler against `include/dprobe.h` and the static library, compared with the Rust API on
//! tables built in temporary folders; the header against the library's exports.

mod c_program;
mod header;
mod support;
