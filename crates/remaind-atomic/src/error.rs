//! The crate's one error type.

use std::io;

use camino::{Utf8Path, Utf8PathBuf};

/// Everything that can go wrong in this crate. Every variant names the file or folder involved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file name given by the caller is not a plain relative path inside the root.
    #[error("invalid file name {path:?}: {reason}")]
    InvalidPath {
        /// The name as given.
        path: Utf8PathBuf,
        /// Why it was refused.
        reason: &'static str,
    },
    /// A path on the way to (or at) a file is a symbolic link; this crate never follows one.
    #[error("refusing to follow symlink {path}")]
    Symlink {
        /// The symlink.
        path: Utf8PathBuf,
    },
    /// A file was expected but something else (a folder, a device, a FIFO) is there.
    #[error("{path} is not a regular file")]
    NotAFile {
        /// The offending path.
        path: Utf8PathBuf,
    },
    /// A folder was expected but something else is there.
    #[error("{path} is not a directory")]
    NotADirectory {
        /// The offending path.
        path: Utf8PathBuf,
    },
    /// The history folder holds an entry this crate did not write or cannot trust.
    #[error("corrupt history entry {path}: {reason}")]
    CorruptHistory {
        /// The offending entry (or the history folder itself).
        path: Utf8PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A guarded change found the file changed since the caller read it; nothing was written.
    #[error("{path} changed since it was read")]
    Changed {
        /// The file.
        path: Utf8PathBuf,
    },
    /// An operating-system call failed.
    #[error("cannot {action} {path}")]
    Io {
        /// What was being done, as a verb phrase ("read", "rename into place", ...).
        action: &'static str,
        /// The file or folder it was being done to.
        path: Utf8PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

impl Error {
    /// The file or folder this error is about.
    pub fn path(&self) -> &Utf8Path {
        match self {
            Error::InvalidPath { path, .. }
            | Error::Symlink { path }
            | Error::NotAFile { path }
            | Error::NotADirectory { path }
            | Error::Changed { path }
            | Error::CorruptHistory { path, .. }
            | Error::Io { path, .. } => path,
        }
    }

    /// Whether the error comes from the caller's input (a bad file name) rather than from the
    /// state of the disk. Nothing is written when this is `true`.
    pub fn is_invalid_input(&self) -> bool {
        matches!(self, Error::InvalidPath { .. })
    }

    pub(crate) fn io(action: &'static str, path: &Utf8Path, source: io::Error) -> Self {
        Error::Io {
            action,
            path: path.to_owned(),
            source,
        }
    }
}

impl From<remaind_fs::Error> for Error {
    fn from(e: remaind_fs::Error) -> Self {
        match e {
            remaind_fs::Error::Symlink { path } => Error::Symlink { path },
            remaind_fs::Error::NotAFile { path } => Error::NotAFile { path },
            remaind_fs::Error::NotADirectory { path } => Error::NotADirectory { path },
            remaind_fs::Error::Io {
                action,
                path,
                source,
            } => Error::Io {
                action,
                path,
                source,
            },
            other => Error::Io {
                action: "use",
                path: other.path().to_owned(),
                source: io::Error::other(other.to_string()),
            },
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
