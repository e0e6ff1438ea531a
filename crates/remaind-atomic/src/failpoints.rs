//! The names of the history store's failpoints (feature `failpoints`), spelled once for the
//! code, the fault-injection tests and the chaos harness. Its staged writes also pass the
//! replacement steps of [`remaind_fs::failpoints`].

/// After a replaced version is hard-linked into history, before the folder's fsync.
pub const AFTER_LINK: &str = "atomic.after-link";
/// After a replaced version is copied into history (when it cannot be linked).
pub const AFTER_SNAPSHOT: &str = "atomic.after-snapshot";
/// After the group journal of a several-file write is written, before the first rename.
pub const AFTER_JOURNAL: &str = "atomic.after-journal";
/// After the last check of a guarded change, just before its file is put in place: the
/// instant a person's save is hardest to see. A test point for that race (`sleep`), not in
/// [`ALL`]: a crash there is a crash after the journal.
pub const BEFORE_PLACE: &str = "atomic.before-place";

/// Every failpoint a history-store write can pass, its own and the replacement steps.
pub const ALL: [&str; 6] = [
    AFTER_LINK,
    AFTER_SNAPSHOT,
    remaind_fs::failpoints::AFTER_TEMP_WRITE,
    remaind_fs::failpoints::AFTER_FSYNC,
    remaind_fs::failpoints::AFTER_RENAME,
    AFTER_JOURNAL,
];
