//! The one error type of the service layer.

/// Why a job could not run: the error of the layer that failed, as it is (its Display and
/// its `source()` chain), so a front-end reports the same words whichever way it called.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The ledger could not be opened or read.
    #[error(transparent)]
    Ledger(#[from] remaind_ledger::Error),
    /// The derived files could not be read.
    #[error(transparent)]
    Resume(#[from] remaind_resume::Error),

    /// The folder's index could not be searched or read (a bad query is invalid input).
    #[error(transparent)]
    Index(#[from] remaind_index::Error),
    /// No temporary folder for a temporary index could be made.
    #[error("cannot create a temporary folder")]
    TempDir(#[source] std::io::Error),
    /// The shared store's search cannot do what was asked (invalid input).
    #[cfg(feature = "store")]
    #[error("the shared store's search cannot {what}")]
    NotOnStore {
        /// What it cannot do.
        what: &'static str,
    },
    /// A line of the shared store does not parse as an event.
    #[cfg(feature = "store")]
    #[error("the shared store's line {seq} of project {project:?} is not an event")]
    NotAnEvent {
        /// The store's project.
        project: String,
        /// The line's seq.
        seq: u64,
        /// Why it does not parse.
        #[source]
        source: serde_json::Error,
    },
}

impl Error {
    /// True when the caller's input was refused and nothing was written.
    pub fn is_invalid_input(&self) -> bool {
        match self {
            Error::Ledger(e) => e.is_invalid_input(),
            Error::Resume(e) => e.is_invalid_input(),

            Error::Index(e) => e.is_invalid_input(),
            #[cfg(feature = "store")]
            Error::NotOnStore { .. } => true,
            _ => false,
        }
    }
}

/// The service layer's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;
