//! Compaction: compactors propose, the validator disposes.
//!
//! This layer owns the built-in deterministic compactor (an incremental fold of the events
//! since the prior state into a candidate state and a handover that pass the six checks by
//! construction), external candidates (a candidate folder or a command that prints one), and
//! the commit path: on an accepted verdict, state.json and handover.md are written atomically
//! with history and a `compaction` event is appended; on a rejection the derived files stay
//! byte for byte and a `validation` event records every failed check. It decides nothing
//! itself (the verdict comes from `remaind-validate`), does no printing and knows nothing
//! about the CLI, the monitor or the resume packet.
