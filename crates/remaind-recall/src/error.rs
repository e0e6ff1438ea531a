//! The one error type of the recall layer.

use camino::Utf8PathBuf;

/// Why recall could not run. Display says what failed; the cause is in `source()`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The ledger could not be read.
    #[error("cannot read the ledger")]
    Ledger(#[from] remaind_ledger::Error),
    /// The index could not be opened or read.
    #[error("cannot read the index")]
    Index(#[from] remaind_index::Error),
    /// The session's record of what it was given could not be read or written.
    #[error("cannot keep what this session was given in {path}")]
    Session {
        /// The session's file.
        path: Utf8PathBuf,
        /// The cause.
        #[source]
        source: remaind_fs::Error,
    },
    /// `schemas/thresholds.json`'s `recall` settings are not valid.
    #[error("{path}: {reason}")]
    Config {
        /// The configuration file.
        path: Utf8PathBuf,
        /// What is wrong and how to fix it.
        reason: String,
    },
}

/// The recall layer's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;
