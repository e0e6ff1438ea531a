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
//! - [`search`]: ranked search of the folder's index or (cargo feature `store`) the shared
//!   store's full text on the server, the same hits either way, with their neighbours.
//! - [`events`] (and [`store_events`]): a slice of the ledger, then every new event as it
//!   is appended, from a folder or straight from a shared store.
//! - [`push`], [`pull`] and [`join`] (feature `store`): a project moved between a folder
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

mod error;
mod events;
mod hook;
mod integrity;
mod search;
#[cfg(feature = "store")]
mod share;
#[cfg(feature = "store")]
mod store;

pub use error::{Error, Result};
#[cfg(feature = "store")]
pub use events::store_events;
pub use events::{Events, Followed, Follower, Slice, events};
pub use hook::{HookCall, HookOutcome, run_hook};
pub use integrity::{Integrity, integrity};
pub use search::{Found, Match, SearchOptions, Source, search};
#[cfg(feature = "store")]
pub use share::{ShareReport, join, pull, push};
