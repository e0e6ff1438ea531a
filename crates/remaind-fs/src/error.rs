//! The crate's one error type.

use std::io;

use camino::{Utf8Path, Utf8PathBuf};

/// Everything that can go wrong in a file primitive. Every variant names the path involved;
/// the operating system's reason is the [`source`](std::error::Error::source), never repeated
/// in the message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A path on the way to (or at) a file is a symbolic link; nothing here follows one.
    #[error("refusing to follow symlink {path}")]
    Symlink {
        /// The symlink.
        path: Utf8PathBuf,
    },
    /// A regular file was expected but something else (a folder, a device, a FIFO, a socket)
    /// is there.
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
    /// An explicitly named folder holds no initialized context.
    #[error(
        "{path} is not an initialized Remaind context (no logs/events.jsonl); run `remaind init --dir {path}`"
    )]
    NotInitialized {
        /// The folder named.
        path: Utf8PathBuf,
    },
    /// No `.context/` in the start folder or any parent.
    #[error("no .context/ folder in {path} or any parent; run `remaind init` or pass --dir")]
    NoContext {
        /// Where the search started.
        path: Utf8PathBuf,
    },
    /// The nearest `.context/` is damaged; discovery stops there rather than use a parent's.
    #[error(
        "{path} {reason}; Remaind does not fall back to a parent folder's context — repair it (or remove it) or pass --dir"
    )]
    Damaged {
        /// The damaged folder.
        path: Utf8PathBuf,
        /// What is wrong with it.
        reason: String,
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
            Error::Symlink { path }
            | Error::NotAFile { path }
            | Error::NotADirectory { path }
            | Error::NotInitialized { path }
            | Error::NoContext { path }
            | Error::Damaged { path, .. }
            | Error::Io { path, .. } => path,
        }
    }

    /// An I/O error while doing `action` to `path`.
    pub fn io(action: &'static str, path: &Utf8Path, source: io::Error) -> Self {
        Error::Io {
            action,
            path: path.to_owned(),
            source,
        }
    }

    /// The operating-system error behind an [`Error::Io`], if that is what this is.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// For callers that keep `std::io` errors: the I/O error itself, or one saying what the
/// path is instead of a regular file or folder (its kind `Other`).
impl From<Error> for io::Error {
    fn from(e: Error) -> io::Error {
        match e {
            Error::Io { source, .. } => source,
            other => io::Error::other(other.to_string()),
        }
    }
}
