//! Shared helpers.

use camino::{Utf8Path, Utf8PathBuf};
use remaind_ledger::Ledger;
use tempfile::TempDir;

/// A fixed project key, so placeholders in snapshots are stable.
pub(crate) const TEST_KEY: [u8; 32] = *b"remaind-ledger-tests-fixed-key!!";

/// A temporary `.context/` folder with a ledger created in it (fixed key); when the suite
/// runs on a shared store (`REMAIND_TEST_ON_STORE`), a replica of a new project there.
pub(crate) fn context() -> (TempDir, Utf8PathBuf) {
    let (tmp, dir) = remaind_testkit::scratch_context("ledger", TEST_KEY);
    Ledger::create(&dir).expect("create ledger");
    if remaind_testkit::on_store() {
        make_replica(&dir);
    }
    (tmp, dir)
}

/// Make the ledger folder `dir` a replica of a new project of the test store.
pub(crate) fn make_replica(dir: &Utf8Path) {
    remaind_testkit::make_replica(dir, "ledger");
}

/// A temporary ledger, opened.
pub(crate) fn ledger() -> (TempDir, Utf8PathBuf, Ledger) {
    let (tmp, dir) = context();
    let ledger = Ledger::open(&dir).expect("open ledger");
    (tmp, dir, ledger)
}

pub(crate) use remaind_testkit::{event, files};

/// The log's bytes.
pub(crate) fn log_bytes(dir: &Utf8Path) -> Vec<u8> {
    std::fs::read(dir.join("logs/events.jsonl")).expect("read log")
}
