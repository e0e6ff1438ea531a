//! Compaction: compactors propose, the validator disposes.
//!
//! This layer owns the built-in deterministic compactor (an incremental fold of the events
//! since the prior state into a candidate state and a handover that pass the seven checks by
//! construction), external candidates (a candidate folder or a command that prints one), and
//! the commit path: on an accepted verdict, state.json and handover.md are written atomically
//! with history and a `compaction` event is appended; on a rejection the derived files stay
//! byte for byte and a `validation` event records every failed check. It decides nothing
//! itself (the verdict comes from `remaind-validate`), does no printing and knows nothing
//! about the CLI, the monitor or the resume packet.

mod builtin;
mod commit;
mod error;
mod external;
mod handover;
pub mod process;
mod user_words;

pub use builtin::{
    BUILTIN_LABEL, KEEP_VERBATIM, PENDING_BEFORE_END, TURN_OUTCOME, compact_builtin,
    fallback_next_step,
};
pub use commit::{
    DEFAULT_TIMEOUT, EDITED_HANDOVER_KEY, EDITED_STATE_KEY, Options, Outcome, Proposal, Source,
    compact, compact_with, open_ledger, open_store, read_prior, take_shared_pair,
};
pub use error::{Error, Result};
pub use external::{
    CompactorInput, HANDOVER_FORMAT, PROTOCOL_VERSION, Rejection, candidate_from_value,
    from_command, from_dir, from_value,
};
pub use handover::{bind, binding_line, strip_binding};
pub use user_words::UserWords;

use remaind_validate::State;

/// A proposed compaction: a state and the handover rendered from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The proposed `state.json` (stored as [`State::to_canonical_bytes`]).
    pub state: State,
    /// The proposed `handover.md`, first line binding it to `state` once it is bound.
    pub handover: String,
}
