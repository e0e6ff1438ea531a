//! Atomic replacement of derived files, with a history of every prior version and
//! reversible, point-in-time restore.
//!
//! This layer owns one folder (the *root*, in Remaind `.context/active/`) and its history
//! subfolder. It knows nothing about events, state, handovers or the CLI: it moves bytes.
//! Invariants: a file under the root is always either its old or its new version, never
//! partial; every replaced version is kept in history first; history points are totally
//! ordered; nothing follows a symlink out of the root.
