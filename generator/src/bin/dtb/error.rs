//! What stops a `dtb` command: the libraries' errors, carried whole so that their messages reach
//! the user as the libraries word them, and the problems only the command line can have.

use dprobe::draw::{BadSetting, UnsupportedDrawRules};
use dprobe::{FenError, ProbeError};

/// Why a command failed; `main` prints it after `error:`.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Building, checking or reading tables failed.
    #[error(transparent)]
    Generator(#[from] draughts_generator::Error),
    /// Probing or opening a published file failed.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// The position given is not a valid FEN string.
    #[error(transparent)]
    Fen(#[from] FenError),
    /// A `--rule-setting` that names no setting or gives it a value it does not take.
    #[error(transparent)]
    BadSetting(#[from] BadSetting),
    /// Draw rules the rule tables do not implement; the hint points at the way out, since the
    /// user reached them through `--rule-setting`.
    #[error(
        "{0}; leave that setting at RULES.md's reading (`dtb generate --help` lists the settings)"
    )]
    UnsupportedDrawRules(#[from] UnsupportedDrawRules),
    /// The worker pool of `--threads` could not be started.
    #[error("cannot start {threads} threads: {source}")]
    Threads {
        /// The threads asked for.
        threads: usize,
        /// Why rayon refused.
        source: rayon::ThreadPoolBuildError,
    },
    /// The folder holds no table of the variant's rules.
    #[error(
        "no {rules} table files in {dir}; run `dtb generate --variant {variant} --pieces N --dir {dir}` first",
        dir = dir.display()
    )]
    NoTables {
        /// The move-rule set's name.
        rules: &'static str,
        /// The folder.
        dir: std::path::PathBuf,
        /// The variant asked for.
        variant: String,
    },
    /// The explorer's server could not listen on its address.
    #[error("cannot serve on {address}: {source}; choose another --port or --bind")]
    Listen {
        /// The address asked for.
        address: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// Writing JSON output failed.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A problem of the command line itself (an argument out of range, no tables where the
    /// command needs some), worded for the user.
    #[error("{0}")]
    Message(String),
}
