//! Integration tests of remaind-service, one module per job (the integrity report, the hook
//! runner, compaction, search, events, install and doctor, log, memory, loops, artifacts,
//! import, redact, reindex, status), each called as a front-end calls it (one test binary:
//! one link; `common` holds the fresh folder they start from). The CLI's suite runs the same
//! jobs through the binary.

mod artifact;
mod common;
mod compact;
mod events;
mod hook;
mod import;
mod install;
mod integrity;
mod log;
mod loops;
mod memory;
mod redact;
mod reindex;
mod search;
mod status;
