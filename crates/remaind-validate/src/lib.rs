//! The state and handover contract and the six compaction checks.
//!
//! This layer owns the shape of `state.json` and `handover.md`, the parsing of `[eN]`
//! citations, and `validate`, which returns a verdict listing every failed check with the
//! offending event ids. It reads events through a ledger view and never writes anything: it
//! knows nothing about compactors, atomic writes or the CLI.

pub mod state;
pub mod verdict;

pub use state::{CURRENT_SECTIONS, Instruction, Item, Link, NextStep, State};
pub use verdict::{Check, Failure, Verdict};
