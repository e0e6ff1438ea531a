//! The binary's error: a message, the chain of causes behind it, and the exit code
//! docs/contract.md#cli-and-exit-codes assigns. The one place that tells invalid input (exit 2)
//! from runtime failure (exit 1) for every library error.

use std::error::Error as StdError;
use std::process::ExitCode;

/// Exit code: runtime failure (I/O, corrupt store).
pub(crate) const EXIT_RUNTIME: u8 = 1;
/// Exit code: usage error or invalid input; nothing written.
pub(crate) const EXIT_INVALID: u8 = 2;
/// Exit code: compaction rejected by the validator.
pub(crate) const EXIT_REJECTED: u8 = 3;
/// Exit code: the resume gate interrupts.
pub(crate) const EXIT_GATE: u8 = 4;

/// A failed command: what to tell the user and how to exit.
#[derive(Debug)]
pub(crate) struct CliError {
    pub(crate) code: u8,
    pub(crate) message: String,
    /// The causes under `message`, outermost first (each error's `source()`).
    pub(crate) causes: Vec<String>,
}

impl CliError {
    /// Invalid input or usage (exit 2).
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        CliError {
            code: EXIT_INVALID,
            message: message.into(),
            causes: Vec::new(),
        }
    }

    /// Runtime failure (exit 1).
    pub(crate) fn runtime(message: impl Into<String>) -> Self {
        CliError {
            code: EXIT_RUNTIME,
            message: message.into(),
            causes: Vec::new(),
        }
    }

    /// Writing to stdout failed. A reader that closed the pipe (`remaind … | head -c1`) is not
    /// a failure: the command ends quietly with exit 0, as every command line tool does.
    pub(crate) fn stdout(err: std::io::Error) -> Self {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            return CliError {
                code: 0,
                message: String::new(),
                causes: Vec::new(),
            };
        }
        CliError::runtime(format!("cannot write to stdout: {err}"))
    }

    /// The whole message: the top line and every cause once, joined by `: `.
    pub(crate) fn full_message(&self) -> String {
        let mut out = self.message.clone();
        for cause in &self.causes {
            out.push_str(": ");
            out.push_str(cause);
        }
        out
    }

    /// Prints the message and its causes to stderr and returns the exit code.
    pub(crate) fn report(self) -> ExitCode {
        if self.code == 0 {
            return ExitCode::SUCCESS;
        }
        eprintln!("remaind: error: {}", self.full_message());
        ExitCode::from(self.code)
    }
}

/// `err` and every error under it, outermost first.
fn chain(err: &(dyn StdError + 'static)) -> Vec<String> {
    let mut out = vec![err.to_string()];
    let mut next = err.source();
    while let Some(e) = next {
        let inner = e.to_string();
        // Every library error leaves its cause to `source()`: a Display that spells its
        // source's again would print it twice. Every failing command in a debug build (the
        // test suites) checks it.
        debug_assert!(
            !repeats_its_source(out.last().map_or("", String::as_str), &inner),
            "an error's Display repeats its source's: {out:?} then {inner:?}"
        );
        out.push(inner);
        next = e.source();
    }
    out
}

/// True when `outer`, an error's Display, holds `inner`, its source's.
fn repeats_its_source(outer: &str, inner: &str) -> bool {
    !inner.is_empty() && outer.contains(inner)
}

/// A library error the CLI reports: whether it is the caller's fault decides the exit code.
pub(crate) trait LibraryError: StdError + 'static {
    /// True when the caller's input was rejected and nothing was written (exit 2).
    fn is_invalid_input(&self) -> bool;
}

macro_rules! library_errors {
    ($($ty:ty => $invalid:expr),* $(,)?) => {
        $(impl LibraryError for $ty {
            fn is_invalid_input(&self) -> bool {
                let check: fn(&$ty) -> bool = $invalid;
                check(self)
            }
        })*
    };
}

library_errors! {
    remaind_fs::Error => |_| false,
    remaind_atomic::Error => remaind_atomic::Error::is_invalid_input,
    remaind_artifacts::Error => |e| matches!(e, remaind_artifacts::Error::InvalidHash { .. }),
    remaind_ledger::Error => remaind_ledger::Error::is_invalid_input,
    remaind_index::Error => remaind_index::Error::is_invalid_input,
    remaind_compact::Error => remaind_compact::Error::is_invalid_input,
    remaind_llm::Error => remaind_llm::Error::is_invalid_input,
    remaind_resume::Error => remaind_resume::Error::is_invalid_input,
    remaind_adapters::Error => remaind_adapters::Error::is_invalid_input,
    remaind_memory::Error => remaind_memory::Error::is_invalid_input,
    remaind_ui::Error => remaind_ui::Error::is_invalid_input,
    remaind_service::Error => remaind_service::Error::is_invalid_input,
}

impl<E: LibraryError> From<E> for CliError {
    fn from(err: E) -> Self {
        let mut causes = chain(&err);
        let message = causes.remove(0);
        CliError {
            code: if err.is_invalid_input() {
                EXIT_INVALID
            } else {
                EXIT_RUNTIME
            },
            message,
            causes,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fmt;

    use super::chain;

    #[derive(Debug)]
    struct Cause;

    impl fmt::Display for Cause {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("No such file or directory")
        }
    }

    impl std::error::Error for Cause {}

    /// An error whose Display is `display` and whose source is [`Cause`].
    #[derive(Debug)]
    struct Wrapper(&'static str, Cause);

    impl fmt::Display for Wrapper {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Wrapper {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.1)
        }
    }

    #[test]
    fn a_chain_that_leaves_causes_to_source_reads_once_each() {
        let err = Wrapper("cannot read /p/.context/logs/events.jsonl", Cause);
        assert_eq!(
            chain(&err),
            [
                "cannot read /p/.context/logs/events.jsonl",
                "No such file or directory"
            ]
        );
    }

    // The check is a debug assertion: the test suites run it, a release binary does not.
    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "repeats its source")]
    fn a_display_that_spells_its_source_again_is_caught() {
        let err = Wrapper("cannot read events.jsonl: No such file or directory", Cause);
        chain(&err);
    }
}
