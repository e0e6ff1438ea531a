//! The state and handover contract and the seven compaction checks.
//!
//! This layer owns the shape of `state.json` and `handover.md`, the parsing of `[eN]`
//! citations, and `validate`, which returns a verdict listing every failed check with the
//! offending event ids. It reads events through a ledger view and never writes anything: it
//! knows nothing about compactors, atomic writes or the CLI.
//!
//! Invariants: the verdict is data (a failed check is never an error; only a ledger view that
//! cannot read is), every failure names the events at fault and says what to fix, and
//! validation is incremental — its cost follows the events after the prior accepted state and
//! the size of that state, never the length of the whole ledger.
//!
//! It depends on `remaind-events` (the event model and [`LedgerView`]), not on the ledger:
//! the on-disk `remaind_ledger::Ledger` implements [`LedgerView`], and so does the in-memory
//! [`MemoryLedger`]. Checking a summarizer's candidate against a project's ledger on disk:
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let tmp = tempfile::tempdir()?;
//! # let dir = camino::Utf8Path::from_path(tmp.path()).ok_or("non-UTF-8 temp dir")?.join(".context");
//! use remaind_events::{Kind, NewEvent};
//! use remaind_ledger::Ledger;
//! use remaind_validate::{Check, validate};
//! use serde_json::json;
//!
//! Ledger::create(&dir)?;
//! let ledger = Ledger::open(&dir)?;
//! let log = |kind, text: &str| {
//!     ledger.append(NewEvent { kind: Some(kind), text: Some(text.into()), ..NewEvent::default() })
//! };
//! log(Kind::UserMessage, "Add retries to the uploader")?;
//! let decision = log(Kind::Decision, "Use exponential backoff, max 5 tries")?[0];
//! let (head, digest) = ledger.head()?;
//!
//! // A summarizer's candidate that forgot the decision.
//! let candidate = json!({
//!     "v": 1, "through_seq": head, "log_digest": digest,
//!     "generated_at": "2026-11-23T10:00:00Z", "compactor": "my-summarizer",
//!     "goal": [], "completed_work": [], "decisions": [], "constraints": [], "blockers": [],
//!     "remember": [], "files_changed": [], "open_loops": [], "superseded": [],
//!     "latest_user_instruction": { "event": "e1", "text": "Add retries to the uploader" },
//!     "next_step": { "text": "Wrap the upload call in a retry loop", "events": ["e1"] }
//! });
//! let verdict = validate(&ledger, None, &candidate, "# Handover\n")?;
//! assert!(!verdict.accepted);
//! let dropped = verdict
//!     .failures
//!     .iter()
//!     .find(|f| f.check == Check::DecisionsPreserved)
//!     .ok_or("the dropped decision is reported")?;
//! assert_eq!(dropped.events, vec![decision]);
//! # Ok(())
//! # }
//! ```

mod checks;
mod handover;
mod prior;
mod schema;
mod state;
mod turn;
mod user_words;
mod validate;
mod verdict;

pub use handover::{
    Binding, Handover, SECTION_TITLES, Section, citations, parse_binding, render_citations,
    render_instruction, titles,
};
pub use prior::Prior;
pub use remaind_events::{Error, EventIter, LedgerView, MemoryLedger};
pub use schema::{STATE_SCHEMA, check_state_schema, state_schema};
pub use state::{
    Asked, CURRENT_SECTIONS, Instruction, Item, Link, NextStep, Settled, Settlement, State,
    USER_ASKED,
};
pub use turn::{Turn, TurnEnd};
pub use user_words::is_user_word;
pub use validate::{validate, validate_typed};
pub use verdict::{Check, Failure, Verdict};
