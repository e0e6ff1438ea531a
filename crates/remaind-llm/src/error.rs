//! The crate's one error type.

use camino::Utf8PathBuf;

/// What stops an LLM compaction before the validator has a say. Nothing derived is written
/// when one of these is returned.
///
/// A candidate the validator rejects is never an error: it is repaired, or replaced by the
/// built-in compactor's. Errors are a bad `llm.json` ([`Error::Config`], the CLI's exit 2), a
/// preset that cannot be used as configured ([`Error::Setting`]: a missing CLI, an unset key,
/// an unreachable endpoint), a model call that failed ([`Error::Model`]: timeout, HTTP error,
/// an answer that is not JSON) and the commit path's own errors ([`Error::Compact`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `llm.json` is unreadable or breaks its schema.
    #[error("{path}: {}{reason}", field_prefix(.field))]
    Config {
        /// The file.
        path: Utf8PathBuf,
        /// The offending field, e.g. `openai.base_url` (empty for a syntax error).
        field: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// A setting points at something that is not there.
    #[error("{setting}: {reason}")]
    Setting {
        /// The setting to fix, e.g. `claude.program` or `openai.api_key_env`.
        setting: String,
        /// What is missing and how to fix it.
        reason: String,
    },
    /// The model could not be asked, or its answer could not be used at all.
    #[error("{preset} round {round}: {reason}")]
    Model {
        /// The preset, e.g. `claude`.
        preset: &'static str,
        /// The round (1 = the first proposal).
        round: u32,
        /// What happened, e.g. `timed out after 180.0s and was killed`.
        reason: String,
    },
    /// The ledger's head could not be read.
    #[error("cannot read the ledger's head")]
    Ledger(#[from] remaind_ledger::Error),
    /// The commit path failed (ledger or store I/O, a bad `through_seq`).
    #[error("cannot compact")]
    Compact(#[from] remaind_compact::Error),
}

fn field_prefix(field: &str) -> String {
    if field.is_empty() {
        String::new()
    } else {
        format!("{field}: ")
    }
}

impl Error {
    /// True for usage errors (the CLI's exit 2); false for runtime failures (exit 1).
    pub fn is_invalid_input(&self) -> bool {
        match self {
            Error::Config { .. } => true,
            Error::Compact(e) => e.is_invalid_input(),
            _ => false,
        }
    }
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
