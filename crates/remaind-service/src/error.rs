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
}

impl Error {
    /// True when the caller's input was refused and nothing was written.
    pub fn is_invalid_input(&self) -> bool {
        match self {
            Error::Ledger(e) => e.is_invalid_input(),
            Error::Resume(e) => e.is_invalid_input(),
        }
    }
}

/// The service layer's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;
