//! The append-only event ledger: `logs/events.jsonl`, the source of truth.
//!
//! This layer owns the event model and kinds table, schema validation before write, id,
//! sequence, time and hash-chain assignment, redaction and artifact routing of every line
//! before it touches disk (through `remaind-redact` and `remaind-artifacts`), the append lock,
//! torn-tail recovery, positional reads and the current/superseded/resolved status of events.
//! It never rewrites a written line and knows nothing about state, compaction or the CLI.

pub mod event;

pub use event::{
    ArtifactRecord, Event, EventId, GENESIS_PREV, Kind, NewEvent, RedactionRecord, Tool,
};
