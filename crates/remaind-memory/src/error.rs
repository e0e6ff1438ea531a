//! The one error type of the memory layer.

use camino::Utf8PathBuf;

/// Why a memory operation failed. Display says what failed; the cause is in `source()`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The caller's input was refused; nothing was written.
    #[error("field `{field}`: {reason}")]
    Invalid {
        /// The field or argument at fault.
        field: &'static str,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// No proposal or node has this id.
    #[error("no {what} `{id}`; {hint}")]
    NotFound {
        /// `proposal` or `node`.
        what: &'static str,
        /// The id asked for.
        id: String,
        /// How to find the right one.
        hint: &'static str,
    },
    /// The ledger could not be read or appended to.
    #[error("cannot read or record memory events in the ledger")]
    Ledger(#[from] remaind_ledger::Error),
    /// A memory file could not be read or written.
    #[error("cannot update the memory files")]
    File {
        /// The file or folder.
        path: Utf8PathBuf,
        /// The cause.
        #[source]
        source: remaind_fs::Error,
    },
    /// The memory folder's atomic, history-keeping writes or reads failed.
    #[error("cannot read or write the memory files' history")]
    History {
        /// The file or folder.
        path: Utf8PathBuf,
        /// The cause.
        #[source]
        source: remaind_atomic::Error,
    },
    /// `schemas/memory.json` is not a valid memory configuration; nothing was written.
    #[error("{path}: {reason}")]
    Config {
        /// The file.
        path: Utf8PathBuf,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// A memory file holds something unreadable.
    #[error("{path}: {reason}")]
    Damaged {
        /// The file.
        path: Utf8PathBuf,
        /// What is wrong.
        reason: String,
    },
}

impl Error {
    /// True when the caller's input was refused and nothing was written (exit 2).
    pub fn is_invalid_input(&self) -> bool {
        match self {
            Error::Invalid { .. } | Error::NotFound { .. } | Error::Config { .. } => true,
            Error::Ledger(e) => e.is_invalid_input(),
            Error::File { .. } | Error::History { .. } | Error::Damaged { .. } => false,
        }
    }

    pub(crate) fn invalid(field: &'static str, reason: impl Into<String>) -> Error {
        Error::Invalid {
            field,
            reason: reason.into(),
        }
    }

    pub(crate) fn file(path: impl Into<Utf8PathBuf>) -> impl FnOnce(remaind_fs::Error) -> Error {
        let path = path.into();
        move |source| Error::File { path, source }
    }
}

impl Error {
    pub(crate) fn history(
        path: impl Into<Utf8PathBuf>,
    ) -> impl FnOnce(remaind_atomic::Error) -> Error {
        let path = path.into();
        move |source| Error::History { path, source }
    }
}

/// The memory layer's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;
