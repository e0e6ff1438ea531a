//! The names of the failpoints (feature `failpoints`, the `fail` crate) inside an atomic
//! replacement, spelled once: the code that declares them, the fault-injection tests and the
//! chaos harness all use these constants.

/// After the temp file's bytes are written, before its fsync.
pub const AFTER_TEMP_WRITE: &str = "atomic.after-temp-write";
/// After the temp file's fsync, before the rename.
pub const AFTER_FSYNC: &str = "atomic.after-fsync";
/// After the rename, before the folder's fsync.
pub const AFTER_RENAME: &str = "atomic.after-rename";

/// The steps of one replacement, in order.
pub const REPLACE: [&str; 3] = [AFTER_TEMP_WRITE, AFTER_FSYNC, AFTER_RENAME];
