//! The binary's error: a message and the exit code docs/contract.md#cli-and-exit-codes assigns.

use std::process::ExitCode;

/// Exit code: runtime failure (I/O, corrupt store).
pub(crate) const EXIT_RUNTIME: u8 = 1;
/// Exit code: usage error or invalid input; nothing written.
pub(crate) const EXIT_INVALID: u8 = 2;
/// Exit code: compaction rejected by the validator.
#[allow(dead_code)]
pub(crate) const EXIT_REJECTED: u8 = 3;
/// Exit code: the resume gate interrupts.
#[allow(dead_code)]
pub(crate) const EXIT_GATE: u8 = 4;

/// A failed command: what to tell the user and how to exit.
#[derive(Debug)]
pub(crate) struct CliError {
    pub(crate) code: u8,
    pub(crate) message: String,
}

impl CliError {
    /// Invalid input or usage (exit 2).
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        CliError {
            code: EXIT_INVALID,
            message: message.into(),
        }
    }

    /// Runtime failure (exit 1).
    pub(crate) fn runtime(message: impl Into<String>) -> Self {
        CliError {
            code: EXIT_RUNTIME,
            message: message.into(),
        }
    }

    /// Prints the message to stderr and returns the exit code.
    pub(crate) fn report(self) -> ExitCode {
        eprintln!("remaind: error: {}", self.message);
        ExitCode::from(self.code)
    }
}

impl From<remaind_resume::Error> for CliError {
    fn from(err: remaind_resume::Error) -> Self {
        if err.is_invalid_input() {
            CliError::invalid(err.to_string())
        } else {
            CliError::runtime(err.to_string())
        }
    }
}
