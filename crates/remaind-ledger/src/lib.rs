//! The append-only event ledger: `logs/events.jsonl`, the source of truth.
//!
//! This layer owns the on-disk log (the event model itself is `remaind-events`'s, re-exported
//! here): schema validation before write, id,
//! sequence, time and hash-chain assignment, redaction and artifact routing of every line
//! before it touches disk (through `remaind-redact` and `remaind-artifacts`), the append lock,
//! torn-tail recovery, positional reads and the current/superseded/resolved status of events.
//! It never rewrites a written line and knows nothing about state, compaction or the CLI.
//!
//! Invariants:
//! - every line is a complete JSON object valid against `schemas/event.schema.json`, ends
//!   with `\n`, and its `prev` is the SHA-256 of the previous line's bytes;
//! - `seq` is gapless from 1 and `id` is `e<seq>`; cited ids name earlier events;
//! - nothing reaches disk unredacted, and a rejected append or batch writes nothing;
//! - appends hold an exclusive lock on the log file, write whole lines (a line is never split
//!   across writes) and sync once per append or batch;
//! - a torn tail is moved byte for byte to `logs/quarantine/` and recorded by a `recovery`
//!   event; no complete valid line is ever lost.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let tmp = tempfile::tempdir()?;
//! # let dir = &camino::Utf8Path::from_path(tmp.path()).ok_or("non-UTF-8 temp dir")?.join(".context");
//! use remaind_ledger::{Kind, Ledger, NewEvent};
//!
//! Ledger::create(dir)?;
//! let ledger = Ledger::open(dir)?;
//! let id = ledger.append(NewEvent {
//!     kind: Some(Kind::Decision),
//!     text: Some("Use SQLite for the index".into()),
//!     ..NewEvent::default()
//! })?;
//! let event = ledger.get(id.seq())?.ok_or("the event was appended")?;
//! assert_eq!(event.text.as_deref(), Some("Use SQLite for the index"));
//!
//! // Secrets never reach the file: the line holds a placeholder.
//! ledger.append(NewEvent {
//!     kind: Some(Kind::Note),
//!     text: Some("token ghp_0123456789abcdefghijABCDEFGHIJklmnopqr".into()),
//!     ..NewEvent::default()
//! })?;
//! let log = std::fs::read_to_string(dir.join(remaind_fs::layout::LOG_PATH))?;
//! assert!(!log.contains("ghp_0123456789abcdefghij"));
//! # Ok(())
//! # }
//! ```

mod anchor;
mod batch;
mod config;
mod error;
pub mod failpoints;
mod input;
mod ledger;
mod lines;
mod prepare;
mod reader;
mod schema;
mod shared;
mod stage;
mod status;
mod strict;
mod verify;
mod view;

pub use config::Limits;
pub use error::{Error, Result};
pub use input::{
    AppendRequest, new_event_from_value, parse_json_lines, parse_kind, parse_new_event,
};
pub use ledger::{Events, Filter, Ledger};
pub use reader::{LogReader, RawLines};
pub use remaind_events::{
    ArtifactRecord, Event, EventId, GENESIS_PREV, Kind, LedgerView, NewEvent, RedactionRecord,
    Tool, build_event, line_digest,
};
pub use schema::EVENT_SCHEMA;
pub use shared::StoreSetting;
pub use status::{Status, Statuses};
/// Parse JSON as every caller's input is read: a repeated key in any object is refused.
pub use strict::parse_json_strict;
pub use verify::{Problem, VerifyReport};
