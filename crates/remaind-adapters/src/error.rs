//! The adapters' one error type.

use camino::Utf8PathBuf;

/// Everything that can go wrong while mapping or importing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A hook payload is unusable; nothing was written.
    #[error("{field}: {reason}")]
    Payload {
        /// The offending field of the payload (`stdin` for the whole payload).
        field: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// Where the hooks left off in the transcripts cannot be read or saved.
    #[error("{path}: cannot keep where the hooks left off in the transcripts")]
    Cursors {
        /// The cursor file.
        path: Utf8PathBuf,
        /// The underlying error.
        #[source]
        source: remaind_fs::Error,
    },
    /// A transcript file or folder cannot be read.
    #[error("{action} {path}")]
    Read {
        /// The file or folder.
        path: Utf8PathBuf,
        /// What was being done.
        action: &'static str,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A transcript path names a FIFO, a device or a socket: reading it could block forever.
    #[error(
        "{path} is not a regular file (a FIFO, device or socket); give a transcript file or a \
         folder of them"
    )]
    NotAFile {
        /// The path given.
        path: Utf8PathBuf,
    },
    /// A runtime's or a hook event's name that is none of those known.
    #[error("unknown {what} `{given}`; expected {expected}")]
    UnknownName {
        /// What was named: `runtime`, `hook event`.
        what: &'static str,
        /// The name given.
        given: String,
        /// The names known.
        expected: &'static str,
    },
    /// The ledger refused or failed an append.
    #[error("cannot append to the ledger")]
    Ledger(#[from] remaind_ledger::Error),
}

impl Error {
    /// True when the caller's input was rejected (exit 2): a bad payload, or a ledger
    /// refusal of the input.
    pub fn is_invalid_input(&self) -> bool {
        match self {
            Error::Payload { .. } | Error::NotAFile { .. } | Error::UnknownName { .. } => true,
            Error::Read { .. } | Error::Cursors { .. } => false,
            Error::Ledger(e) => e.is_invalid_input(),
        }
    }

    pub(crate) fn payload(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Payload {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

/// The adapters' result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
