//! The one error type of this layer.

use camino::Utf8PathBuf;

/// Everything that can go wrong in the lifecycle layer. Messages name the file or field at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A derived file (or a history version of one) is not what the ledger recorded when it
    /// was accepted; nothing was written.
    #[error("{path}: {reason}")]
    Forged {
        /// The file.
        path: Utf8PathBuf,
        /// What does not match.
        reason: String,
    },
    /// A file operation failed.
    #[error("{action} {path}")]
    Io {
        /// What was being done, e.g. `cannot read`.
        action: &'static str,
        /// The file or folder.
        path: Utf8PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Input from the caller or a config file is invalid; nothing was written.
    #[error("{field}: {message}")]
    InvalidInput {
        /// The field, flag or file at fault.
        field: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The ledger failed (its message names the file or line).
    #[error(transparent)]
    Ledger(#[from] remaind_ledger::Error),
    /// The history store over `active/` failed (its message names the file).
    #[error(transparent)]
    Atomic(#[from] remaind_atomic::Error),
    /// A file primitive failed (a symlink or special file in the way, an I/O error).
    #[error(transparent)]
    Fs(#[from] remaind_fs::Error),
    /// The long-term memory could not be read (its message names the file).
    #[error(transparent)]
    Memory(remaind_memory::Error),
    /// Taking the derived pair a shared store's last compaction left failed.
    #[error(transparent)]
    Compact(#[from] remaind_compact::Error),
}

impl Error {
    /// True when the caller's input was at fault (the CLI exits 2), false for runtime
    /// failures (exit 1).
    pub fn is_invalid_input(&self) -> bool {
        match self {
            Error::InvalidInput { .. } => true,
            Error::Ledger(e) => e.is_invalid_input(),
            Error::Atomic(e) => e.is_invalid_input(),
            _ => false,
        }
    }

    /// An I/O error on `path` while doing `action` (`cannot read`, `cannot write`, …).
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<Utf8PathBuf>,
        source: std::io::Error,
    ) -> Self {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
