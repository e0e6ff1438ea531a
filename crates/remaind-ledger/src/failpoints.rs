//! The names of the ledger's failpoints (feature `failpoints`), spelled once for the code, the
//! fault-injection tests and the chaos harness.

/// After an append's bytes are written, before the fsync.
pub const AFTER_WRITE: &str = "ledger.after-write";
/// After an append's fsync, before it is acknowledged.
pub const AFTER_FSYNC: &str = "ledger.after-fsync";
/// After a torn tail is copied to quarantine, before the log is cut back.
pub const RECOVERY_AFTER_QUARANTINE: &str = "ledger.recovery-after-quarantine";

/// The steps of an append.
pub const APPEND: [&str; 2] = [AFTER_WRITE, AFTER_FSYNC];
/// Every failpoint of the ledger.
pub const ALL: [&str; 3] = [AFTER_WRITE, AFTER_FSYNC, RECOVERY_AFTER_QUARANTINE];
