//! The index's one error type.

use camino::Utf8PathBuf;

/// Everything that can go wrong in the index.
///
/// [`Error::InvalidQuery`] means the caller's query was rejected (the CLI maps it to exit 2);
/// every other variant is a runtime failure naming the file involved (exit 1).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The search query cannot be used; nothing was read.
    #[error("invalid query: {reason}")]
    InvalidQuery {
        /// Why, and how to fix it.
        reason: String,
    },
    /// A file or folder of the index is unsafe to use (a symlink, not a regular file).
    #[error("{path}: {reason}")]
    Unsafe {
        /// The file or folder.
        path: Utf8PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// An I/O operation on a file under `.context/` failed.
    #[error("{action} {path}")]
    Io {
        /// The file or folder.
        path: Utf8PathBuf,
        /// What was being done, e.g. `cannot create`.
        action: &'static str,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// SQLite failed on the index file in a way a rebuild does not fix (locked, read-only,
    /// disk full).
    #[error("{action} {path}")]
    Database {
        /// The index file.
        path: Utf8PathBuf,
        /// What was being done.
        action: &'static str,
        /// The underlying error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A ledger line could not be indexed (it does not hold a readable event).
    #[error("{path}: line at byte {offset}: {reason}")]
    CorruptLedger {
        /// The ledger file.
        path: Utf8PathBuf,
        /// Byte offset of the line.
        offset: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// Reading the ledger failed.
    #[error(transparent)]
    Ledger {
        /// The ledger's error.
        source: remaind_ledger::Error,
    },
    /// A file primitive failed (a symlink or special file in the way, an I/O error).
    #[error(transparent)]
    Fs(#[from] remaind_fs::Error),
}

impl Error {
    /// True when the caller's input was rejected (exit 2); false for runtime failures (exit 1).
    pub fn is_invalid_input(&self) -> bool {
        match self {
            Error::InvalidQuery { .. } => true,
            Error::Ledger { source } => source.is_invalid_input(),
            _ => false,
        }
    }

    pub(crate) fn io(
        path: impl Into<Utf8PathBuf>,
        action: &'static str,
        source: std::io::Error,
    ) -> Self {
        Error::Io {
            path: path.into(),
            action,
            source,
        }
    }

    pub(crate) fn db(
        path: impl Into<Utf8PathBuf>,
        action: &'static str,
        source: rusqlite::Error,
    ) -> Self {
        Error::Database {
            path: path.into(),
            action,
            source: Box::new(source),
        }
    }

    pub(crate) fn query(reason: impl Into<String>) -> Self {
        Error::InvalidQuery {
            reason: reason.into(),
        }
    }
}

impl From<remaind_ledger::Error> for Error {
    fn from(source: remaind_ledger::Error) -> Self {
        Error::Ledger { source }
    }
}

/// Result with the index's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
