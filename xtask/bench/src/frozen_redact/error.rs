//! The crate's single error type.

/// Everything that can go wrong while building a `Redactor` or a key.
///
/// Redacting itself never fails: any text or bytes can be scanned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The placeholder key was empty, which would make placeholders unkeyed.
    #[error("the redaction key is empty")]
    EmptyKey,
    /// A user rule's name is empty or holds something other than ASCII letters, digits and `_`.
    #[error("redaction rule name `{name}` is invalid: use ASCII letters, digits and `_` only")]
    InvalidRuleName {
        /// The offending name.
        name: String,
    },
    /// Two rules share a name (user rules may not reuse a built-in name either).
    #[error("redaction rule name `{name}` is used more than once")]
    DuplicateRuleName {
        /// The repeated name.
        name: String,
    },
    /// A user rule's pattern is not a valid regex.
    #[error("redaction rule `{name}` has an invalid pattern: {message}")]
    InvalidPattern {
        /// The rule's name.
        name: String,
        /// The regex compiler's message.
        message: String,
    },
    /// `redaction.json` is malformed.
    #[error("redaction config: `{field}`: {message}")]
    Config {
        /// The JSON path of the offending field, e.g. `rules[2].pattern` (`$` for the document).
        field: String,
        /// What is wrong with it.
        message: String,
    },
}
