//! The service layer: the work the front-ends (the CLI, the viewer, the MCP server) share,
//! where one job combines several layers. Each job is one function the front-ends call the
//! same way, so a command file parses its arguments, calls it and prints, and the viewer and
//! the MCP tools show the same answer.
//!
//! - [`integrity`]: the ledger's check, the derived files against the compaction events,
//!   the memory files against the ledger and the folder's permissions, in one report.
//! - [`run_hook`]: one call of a runtime's hook, from its names and payload to what the
//!   front-end prints: the events recorded, the packet or recall handed back, a compaction
//!   before the runtime's, and every failure kept in `logs/hook-errors.jsonl` (hooks fail
//!   open). A replica whose shared store is away keeps the call in an outbox (feature
//!   `store`).
//! - [`artifact`] (and [`artifacts`]): an artifact by its hash, a prefix or its marker,
//!   checked before its bytes are handed back.
//! - [`compact`]: the events since the last accepted compaction folded into a new state
//!   and handover by the built-in compactor, a candidate folder, a command or an LLM preset
//!   (its rejected candidates sent back, then the built-in one), the validator deciding.
//! - [`doctor`]: is Remaind wired into the runtimes, and are the hooks running: each
//!   problem found with its fix.
//! - [`import`]: Claude Code or Codex transcripts brought into the ledger (new lines only),
//!   a run that found nothing of the named runtime refused with what to run instead.
//! - [`install`]: a runtime's settings file with our hooks merged in (or taken out), the
//!   file as the user had it backed up, and what else the runtime needs.
//! - [`log`]: events from flags, one JSON event or JSON Lines, checked before any folder
//!   is opened, then appended as one batch.
//! - [`open_loops`] and [`resolve_loop`]: the blockers and next steps nothing resolved yet,
//!   and a `result` event that closes one.
//! - [`memory`]: the memory proposals and the memory tree, each change an event first.
//! - [`redact`]: text as the ledger would store it, with a summary of what was replaced.
//! - [`reindex`]: the folder's index rebuilt from the ledger.
//! - [`status`]: where the context stands (band, last compaction, head, next step, the
//!   resume gate) and how fresh the search index is, read without writing.
//! - [`search`]: ranked search of the folder's index or (cargo feature `store`) the shared
//!   store's full text on the server, the same hits either way, with their neighbours.
//! - [`events`] (and `store_events`, feature `store`): a slice of the ledger, then every new
//!   event as it is appended, from a folder or straight from a shared store.
//! - `push`, `pull` and `join` (feature `store`): a project moved between a folder
//!   and a shared store, or a folder made a store's replica (`remaind init --store`).
//!
//! This layer opens the ledger and the derived files through the layers below and knows
//! nothing of argument parsing, terminals, HTML or the MCP protocol. It reads no environment
//! variable: the front-end passes what it was given (a folder, the current directory).
//!
//! ```no_run
//! use remaind_fs::ContextDir;
//!
//! let report = remaind_service::integrity(&ContextDir::new(".context"))?;
//! match report.first_problem() {
//!     None => println!("ok: {} lines", report.ledger.lines),
//!     Some(problem) => println!("{problem}"),
//! }
//! # Ok::<(), remaind_service::Error>(())
//! ```

mod artifact;
mod compact;
mod doctor;
mod error;
mod events;
mod framing;
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
#[cfg(feature = "store")]
mod share;
mod status;
#[cfg(feature = "store")]
mod store;

pub use artifact::{artifact, artifacts};
pub use compact::{CompactRequest, Compacted, Compactor, compact};
pub use doctor::{
    Doctor, DoctorOptions, LastHook, Problem, RuntimeWiring, Wiring, WiringState, doctor,
};
pub use error::{Error, Result};
#[cfg(feature = "store")]
pub use events::store_events;
pub use events::{Events, Followed, Follower, Slice, events};
pub use hook::{HookCall, HookOutcome, run_hook};
pub use import::{ImportOptions, Imported, import};
pub use install::{InstallAction, InstallOptions, Installed, UserEnv, install};
pub use integrity::{Integrity, integrity};
pub use log::{LogFlags, LogRequest, log};
pub use loops::{open_loops, resolve_loop};
pub use memory::{MemoryAnswer, MemoryJob, memory};
pub use redact::{Redacted, redact};
pub use reindex::{Reindexed, reindex};
pub use search::{Found, Match, SearchOptions, Source, search};
#[cfg(feature = "store")]
pub use share::{ShareReport, join, pull, push};
pub use status::{Status, status};
