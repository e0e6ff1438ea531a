//! The crate's single error type.

use camino::Utf8PathBuf;

/// Everything that can go wrong in the artifact store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A caller passed something that is not a SHA-256 in lowercase hex.
    #[error("`{given}` is not an artifact hash: expected 64 lowercase hex digits")]
    InvalidHash {
        /// What was given (cut to 80 characters).
        given: String,
    },
    /// No artifact with this hash is stored.
    #[error("artifact {sha256} is not in the store")]
    NotFound {
        /// The hash asked for.
        sha256: String,
    },
    /// A path inside the store is a symbolic link; the store never follows one.
    #[error("{path} is a symbolic link; the artifact store does not follow links")]
    Symlink {
        /// The link.
        path: Utf8PathBuf,
    },
    /// A path inside the store has the wrong type (a file where a folder belongs, or the reverse).
    #[error("{path} is not a {expected}")]
    WrongType {
        /// The offending path.
        path: Utf8PathBuf,
        /// What it should be: `directory` or `regular file`.
        expected: &'static str,
    },
    /// A stored artifact no longer hashes to its name.
    #[error("artifact {path} is corrupt: its content hashes to {actual}")]
    Corrupt {
        /// The artifact file.
        path: Utf8PathBuf,
        /// The hash its content has now.
        actual: String,
    },
    /// An I/O operation failed.
    #[error("cannot {action} {path}")]
    Io {
        /// What was being done (`create`, `read`, `rename`, …).
        action: &'static str,
        /// The path it was done to.
        path: Utf8PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A file primitive failed (a symlink or special file in the way, an I/O error).
    #[error(transparent)]
    Fs(#[from] remaind_fs::Error),
}
