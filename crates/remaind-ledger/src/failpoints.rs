//! The names of the ledger's failpoints (feature `failpoints`), spelled once for the code, the
//! fault-injection tests and the chaos harness.

/// After an append's bytes are written, before the fsync.
pub(crate) const AFTER_WRITE: &str = "ledger.after-write";
/// After an append's fsync, before it is acknowledged.
pub(crate) const AFTER_FSYNC: &str = "ledger.after-fsync";
/// After a torn tail is copied to quarantine, before the log is cut back.
pub(crate) const RECOVERY_AFTER_QUARANTINE: &str = "ledger.recovery-after-quarantine";

/// Every failpoint of the ledger (feature `failpoints`), in this order: the two steps of an
/// append (after the write, after the fsync), then recovery's (after a torn tail is copied to
/// quarantine, before the log is cut back).
pub const FAILPOINTS: [&str; 3] = [AFTER_WRITE, AFTER_FSYNC, RECOVERY_AFTER_QUARANTINE];
