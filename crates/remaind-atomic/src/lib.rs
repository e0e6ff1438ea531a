//! Atomic replacement of derived files, with a history of every prior version and
//! reversible, point-in-time restore.
//!
//! This layer owns one folder (the *root*, in Remaind `.context/active/`) and its history
//! subfolder. It knows nothing about events, state, handovers or the CLI: it moves bytes.
//! Invariants: a file under the root is always either its old or its new version, never
//! partial; every replaced version is kept in history first; history points are totally
//! ordered; nothing follows a symlink out of the root.
//!
//! # How a change is made
//!
//! [`HistoryStore::write`] and [`HistoryStore::remove`] take an exclusive lock on
//! `<root>/history/.lock` (so writers in different processes take turns), then:
//!
//! 1. record the current version of the file as a new history point: a hard link of the
//!    file under its entry name (after an fsync of the file), folder fsynced. Step 2 renames
//!    a new file over the target, so the old inode is then reachable only from history and is
//!    never written again: the link is a copy that costs no bytes. It is used only when the
//!    file is private (no group/other bits) and linked nowhere else; otherwise, and when the
//!    file system refuses links, the bytes are copied (a temp file in `history/`, fsynced,
//!    renamed to its entry name, folder fsynced). An empty entry marks a file that did not
//!    exist;
//! 2. write the new bytes to a temp file in the target's own folder, fsync it, rename it over
//!    the target and fsync the folder (or, for a removal, unlink the target and fsync the
//!    folder).
//!
//! A crash at any instant leaves the target old or new, and history holds only complete
//! entries: temp files (`.remaind-tmp-*`) are never read and are removed by the next writer.
//! A crash between steps 1 and 2 leaves a point whose snapshot equals the unchanged file,
//! which is harmless. Files are created 0600 and folders 0700.
//!
//! # History entries
//!
//! Each point is one file in `history/`, named
//! `<seq, 20 digits>_<RFC 3339 UTC time, microseconds>_<P|A>_<file>`, e.g.
//! `00000000000000000007_2026-11-21T21:03:35.123456Z_P_notes%2Ftoday.md`: `P` if the entry
//! holds the prior bytes, `A` if the file did not exist; `%` and `/` in the file name are
//! percent-encoded. Listing history is one `readdir`. Sequence numbers grow by one and times
//! strictly increase (a point in the same microsecond as the previous one, or with the clock
//! behind it, gets the previous time plus one microsecond), so a point in time is unambiguous.
//!
//! # Reading the past
//!
//! A point records the version *before* its change, so the version of a file as of instant
//! `T` ([`HistoryStore::version_at`]) is the snapshot of the first point for that file after
//! `T`, or the current file if there is none. [`HistoryStore::restore_to`] writes those
//! versions back through the same path, so a restore is itself recorded and can be undone
//! with [`RestoreSummary::undo_to`].
//!
//! # Symlinks
//!
//! The root, the history folder, every folder between the root and a file, and the file
//! itself must not be symlinks: final components are opened with `O_NOFOLLOW` and folders
//! are checked with `symlink_metadata` before use; a symlink is reported as
//! [`Error::Symlink`].
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let tmp = tempfile::tempdir()?;
//! # let root = camino::Utf8Path::from_path(tmp.path()).ok_or("non-UTF-8 temp dir")?.join("active");
//! use remaind_atomic::HistoryStore;
//!
//! let store = HistoryStore::open(&root)?;
//! let first = store.write("state.json", b"{\"v\":1}")?;
//! store.write("state.json", b"{\"v\":2}")?;
//! assert_eq!(store.version_at("state.json", first.time())?.as_deref(), Some(&b"{\"v\":1}"[..]));
//!
//! let summary = store.restore_to(["state.json"], first.time())?;
//! assert_eq!(store.read("state.json")?.as_deref(), Some(&b"{\"v\":1}"[..]));
//! store.restore_to(["state.json"], summary.undo_to().ok_or("restore changed nothing")?)?;
//! assert_eq!(store.read("state.json")?.as_deref(), Some(&b"{\"v\":2}"[..]));
//! # Ok(())
//! # }
//! ```

mod error;
pub mod failpoints;
mod fsio;
mod journal;
mod point;
mod rel;
mod store;

pub use error::{Error, Result};
pub use jiff::Timestamp;
pub use point::{HistoryPoint, format_time};
pub use store::{Guard, HistoryStore, RestoreSummary};
