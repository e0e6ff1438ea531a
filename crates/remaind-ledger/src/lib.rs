//! The append-only event ledger: `logs/events.jsonl`, the source of truth.
//!
//! This layer owns the on-disk log (the event model itself, statuses included, is
//! `remaind-events`'s: import it from there): schema validation before write, id, sequence,
//! time and hash-chain assignment, redaction and artifact routing of every line
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
//! use remaind_events::{Kind, NewEvent};
//! use remaind_ledger::Ledger;
//!
//! Ledger::create(dir)?;
//! let ledger = Ledger::open(dir)?;
//! let ids = ledger.append(NewEvent {
//!     kind: Some(Kind::Decision),
//!     text: Some("Use SQLite for the index".into()),
//!     ..NewEvent::default()
//! })?;
//! let event = ledger.get(ids[0].seq())?.ok_or("the event was appended")?;
//! assert_eq!(event.text.as_deref(), Some("Use SQLite for the index"));
//!
//! // A batch is written all or nothing, under one lock and one sync.
//! let batch = ["First", "Second"].map(|text| NewEvent {
//!     kind: Some(Kind::Note),
//!     text: Some(text.into()),
//!     ..NewEvent::default()
//! });
//! assert_eq!(ledger.append(batch)?.len(), 2);
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
mod failpoints;
mod input;
mod ledger;
mod lines;
mod prepare;
mod reader;
mod schema;
mod shared;
mod stage;
mod strict;
mod verify;
mod view;

pub use error::{Error, Result};
pub use failpoints::FAILPOINTS;
pub use input::{AppendRequest, new_event_from_value};
pub use ledger::{Ledger, Options};
pub use reader::LogReader;
pub use shared::StoreSetting;
/// Parse JSON as every caller's input is read: a repeated key in any object is refused.
pub use strict::parse_json_strict;
pub use verify::{Problem, VerifyReport};
