//! The crate's one error type.

use camino::Utf8PathBuf;

/// What can stop a compaction before a verdict exists.
///
/// A candidate that is bad (unreadable files, a failing command, garbage output, a failed
/// check) is never an error: it is a rejected [`remaind_validate::Verdict`]. Errors are
/// usage problems ([`Error::InvalidInput`], the CLI's exit 2) and runtime failures (exit 1).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The caller asked for something impossible; nothing was written.
    #[error("{field}: {reason}")]
    InvalidInput {
        /// The offending option, e.g. `through_seq`.
        field: &'static str,
        /// Why, and how to fix it.
        reason: String,
    },
    /// The ledger could not be read or appended to.
    #[error("{action} {path}")]
    Ledger {
        /// The ledger's log file.
        path: Utf8PathBuf,
        /// What was being done.
        action: &'static str,
        /// The underlying error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The derived-file store (`active/`) could not be read or written.
    #[error("{action} {path}")]
    Store {
        /// The file involved.
        path: Utf8PathBuf,
        /// What was being done.
        action: &'static str,
        /// The underlying error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The prior accepted `state.json` is not a valid state.
    #[error("{path}: the prior accepted state is corrupt: {reason}")]
    CorruptState {
        /// The file.
        path: Utf8PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The compactor command could not be started (not found, not executable): nothing was
    /// judged and nothing appended. A typo in `--compactor` is not a rejected candidate.
    #[error("{reason}")]
    CompactorCannotRun {
        /// The command and what the shell said.
        reason: String,
    },
    /// The continuity flush could not propose to long-term memory (nothing of the
    /// compaction was written).
    #[error("the continuity flush to long-term memory")]
    Memory(#[source] Box<remaind_memory::Error>),
}

impl Error {
    /// True for usage errors (the CLI's exit 2); false for runtime failures (exit 1).
    pub fn is_invalid_input(&self) -> bool {
        matches!(self, Error::InvalidInput { .. })
    }
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
