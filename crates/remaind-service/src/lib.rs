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
mod hook;
mod integrity;

pub use error::{Error, Result};
pub use hook::{HookCall, HookOutcome, run_hook};
pub use integrity::{Integrity, integrity};
