//! The one error type of this crate.

use std::error::Error as StdError;

/// What went wrong: a ledger view could not answer, an event is not a valid next event, or a
/// kind name or an event id does not parse.
///
/// Findings about events (a validator's verdict) are never errors; this is only for a view
/// that cannot read its ledger, an event that cannot take the position it is given, and a
/// name that is not a kind.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The view could not read its storage (I/O, a corrupt line, ...).
    #[error("cannot read the ledger: {what}")]
    Read {
        /// What was being read, e.g. `logs/events.jsonl line 42`.
        what: String,
        /// The underlying error.
        #[source]
        source: Box<dyn StdError + Send + Sync>,
    },
    /// An event is not a valid next event at `seq` ([`crate::build_event`], a
    /// [`crate::MemoryLedger`]).
    #[error("event {seq}: {reason}")]
    InvalidEvent {
        /// The sequence number the event has or would have had.
        seq: u64,
        /// What is wrong with it, naming the field and the fix.
        reason: String,
    },
    /// Text that is no event id (`e42`).
    #[error("`{given}` is not an event id; ids look like `e42`")]
    InvalidId {
        /// The text given.
        given: String,
    },
    /// A name that is none of the kinds offered ([`crate::Kind::parse_among`]).
    #[error(
        "unknown kind `{given}`{}; expected one of: {}",
        closest.map_or(String::new(), |n| format!(" (did you mean `{n}`?)")),
        expected.join(", ")
    )]
    UnknownKind {
        /// The name given.
        given: String,
        /// The offered kind closest to it, when one is close.
        closest: Option<&'static str>,
        /// The names of the kinds offered.
        expected: Vec<&'static str>,
    },
}

impl Error {
    /// A read error with its source, for implementors of [`crate::LedgerView`].
    pub fn read(
        what: impl Into<String>,
        source: impl Into<Box<dyn StdError + Send + Sync>>,
    ) -> Self {
        Error::Read {
            what: what.into(),
            source: source.into(),
        }
    }
}
