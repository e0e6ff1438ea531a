//! The derived index at `.context/db/context.sqlite`: events by seq, kind, importance, time and
//! status, an FTS5 table over event text, tool names and artifact excerpts, and the last
//! indexed seq with its chain hash.
//!
//! It is never an authority: every read first brings it up to the ledger head incrementally,
//! and a missing, corrupt, foreign-version or chain-mismatched index is rebuilt from the
//! ledger. It reads only redacted ledger lines and knows nothing about state, compaction,
//! resume or the CLI.
//!
//! Invariants:
//! - the index holds only bytes taken from ledger lines, which are redacted before they are
//!   written, so no secret can reach it;
//! - after [`Index::catch_up`] the index holds exactly the ledger's events up to its head, and
//!   its recorded chain hash is the ledger's hash of that line;
//! - a rebuild writes a new file beside the old one and renames it into place, so a crash
//!   leaves one complete index (or none, and the next read rebuilds);
//! - `db/` is 0700, the file 0600, and neither may be a symlink.
//!
//! ```no_run
//! use camino::Utf8Path;
//! use remaind_index::{Index, SearchOptions};
//! use remaind_ledger::Ledger;
//!
//! let dir = Utf8Path::new(".context");
//! let ledger = Ledger::open(dir)?;
//! let mut index = Index::open(dir, &ledger)?;
//! for hit in index.search("sqlite index", &SearchOptions::default())? {
//!     println!("{} {} {}", hit.id, hit.kind, hit.snippet);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod fields;
mod index;
mod query;
mod schema;
mod snippet;
mod words;

pub use error::{Error, Result};
pub use fields::Field;
pub use index::{
    CatchUp, DB_DIR, DB_PATH, Freshness, Hit, Index, IndexHandle, LOOP_KINDS, MATCH_END,
    MATCH_START, Related, SearchOptions, Searched, Syntax,
};
pub use remaind_query::{MAX_QUERY_CHARS, MAX_QUERY_TERMS, QueryBounds};
