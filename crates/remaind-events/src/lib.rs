//! The vocabulary every Remaind layer shares: the event model and how it is read.
//!
//! This layer owns the event model (kinds and their importance rules, ids, the caller's
//! [`NewEvent`] and the stored [`Event`] line), the current/superseded/resolved [`Status`]
//! of events, the hash chain ([`build_event`],
//! [`line_digest`]), and the read-side [`LedgerView`] trait with an in-memory
//! implementation, [`MemoryLedger`]. It knows nothing about files, redaction, schemas,
//! locks or validation: the on-disk ledger (`remaind-ledger`) implements [`LedgerView`], and
//! the validator (`remaind-validate`) reads through it, so a team that wants only the
//! validator does not pull in the ledger.
//!
//! Invariants: `seq` is gapless from 1 and `id` is `e<seq>`; each line's `prev` is the
//! [`line_digest`] of the line before ([`GENESIS_PREV`] for the first); cited ids name earlier
//! events.
//!
//! ```
//! use remaind_events::{Kind, LedgerView, MemoryLedger, NewEvent};
//!
//! let mut ledger = MemoryLedger::new();
//! let id = ledger.append(
//!     NewEvent {
//!         kind: Some(Kind::Decision),
//!         text: Some("Use SQLite for the index".into()),
//!         ..NewEvent::default()
//!     },
//!     "2026-11-23T10:00:00Z",
//! )?;
//! assert_eq!(id.to_string(), "e1");
//! assert_eq!(ledger.head()?, 1);
//! // The next line chains to this one's digest.
//! let again = MemoryLedger::from_jsonl(&ledger.to_jsonl())?;
//! assert_eq!(again.digest_at(1)?, ledger.digest_at(1)?);
//! # Ok::<(), remaind_events::Error>(())
//! ```

mod chain;
mod error;
mod event;
mod status;
mod text;
mod view;

pub use chain::{build_event, line_digest};
pub use error::Error;
pub use event::{
    ArtifactRecord, Event, EventId, GENESIS_PREV, Kind, NewEvent, RedactionRecord, Tool,
};
pub use status::{Status, Statuses};
pub use text::one_line;
pub use view::{EventIter, Filter, LedgerView, MemoryLedger};
