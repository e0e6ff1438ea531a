//! The append-only event ledger: `logs/events.jsonl`, the source of truth.
//!
//! This layer owns the event model and kinds table, schema validation before write, id,
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
//! ```no_run
//! use camino::Utf8Path;
//! use remaind_ledger::{Kind, Ledger, NewEvent};
//!
//! let dir = Utf8Path::new(".context");
//! Ledger::create(dir)?;
//! let ledger = Ledger::open(dir)?;
//! let id = ledger.append(NewEvent {
//!     kind: Some(Kind::Decision),
//!     text: Some("Use SQLite for the index".into()),
//!     ..NewEvent::default()
//! })?;
//! assert_eq!(ledger.get(id.seq())?.unwrap().text.as_deref(), Some("Use SQLite for the index"));
//! # Ok::<(), remaind_ledger::Error>(())
//! ```

mod batch;
mod config;
mod error;
mod input;
mod ledger;
mod lines;
mod prepare;
mod schema;
mod stage;
mod status;
mod verify;
mod view;

pub use config::Limits;
pub use error::{Error, Result};
pub use input::{
    AppendRequest, new_event_from_value, parse_json_lines, parse_kind, parse_new_event,
};
pub use ledger::{Events, Filter, Ledger};
pub use remaind_events::{
    ArtifactRecord, Event, EventId, GENESIS_PREV, Kind, LedgerView, NewEvent, RedactionRecord,
    Tool, build_event, line_digest,
};
pub use remaind_fs::layout::{
    ARTIFACTS_DIR, KEY_PATH, LOG_PATH, QUARANTINE_DIR, REDACTION_PATH, THRESHOLDS_PATH,
};
pub use schema::EVENT_SCHEMA;
pub use status::{Status, Statuses};
pub use verify::{Problem, VerifyReport};
