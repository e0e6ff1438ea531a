//! The shared store of a Remaind project on PostgreSQL, for fleets of agents on many machines.
//!
//! This layer owns the database side of a project: the schema and its versioned migrations,
//! the append protocol that keeps one gapless hash chain per project under any number of
//! writers (the project's row lock and a server-side check of every line's `seq` and `prev`,
//! in one round trip), positional reads, following the head (a NOTIFY wakes a follower early;
//! the follower always reads by seq), content-addressed artifacts in chunks, and the project's
//! other files (its rules and key, the derived history). It handles lines as bytes: it knows
//! nothing of events, redaction or the `.context/` folder, which the ledger keeps as this
//! store's replica (docs/fleet.md).
//!
//! ```no_run
//! # fn main() -> remaind_pg::Result<()> {
//! use remaind_pg::Store;
//!
//! let genesis = "0".repeat(64);
//! let (mut store, _created) =
//!     Store::create("postgres://remaind@localhost/remaind", "demo", &genesis, &[])?;
//! let head = store.head()?;
//! // A line as the ledger writes it: its header (v, seq, id, ts, prev) first, in this form.
//! let seq = head.seq + 1;
//! let line = format!(
//!     r#"{{"v":1,"seq":{seq},"id":"e{seq}","ts":"2026-11-26T10:00:00Z","prev":"{}","kind":"note"}}"#,
//!     head.digest
//! );
//! let head = store.append(head.seq, &[line.as_bytes()])?;
//! assert_eq!(store.lines(head.seq - 1, head.seq, 10)?[0].1, line.as_bytes());
//! # Ok(())
//! # }
//! ```

mod error;
mod grants;
mod search;
mod store;
mod tls;
mod url;

pub use error::{Error, Result};
pub use grants::{AGENT_GRANTS, AGENT_ROLE};
pub use search::{SEARCH_TIMEOUT_SECS, SearchFilter, SearchHit};
pub use store::{Append, Head, Store, project_name_problem};
pub use url::{has_password, mask_password};
