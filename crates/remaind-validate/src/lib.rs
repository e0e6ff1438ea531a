//! The state and handover contract and the six compaction checks.
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

pub mod handover;
mod prior;
mod schema;
pub mod state;
mod validate;
pub mod verdict;
mod view;

pub use handover::{
    Binding, Handover, SECTION_TITLES, Section, citations, parse_binding, render_citations,
    render_instruction,
};
pub use prior::Prior;
pub use schema::{STATE_SCHEMA, check_state_schema, state_schema};
pub use state::{CURRENT_SECTIONS, Instruction, Item, Link, NextStep, State};
pub use validate::{validate, validate_typed};
pub use verdict::{Check, Failure, Verdict};
pub use view::{EventIter, LedgerView, MemoryLedger, ViewError};
