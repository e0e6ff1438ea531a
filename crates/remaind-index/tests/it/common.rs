//! Shared helpers.

use camino::{Utf8Path, Utf8PathBuf};
use remaind_events::{EventId, Kind, NewEvent};
use remaind_ledger::Ledger;
use tempfile::TempDir;

/// A fixed project key.
const TEST_KEY: [u8; 32] = *b"remaind-index-tests-fixed-key!!!";

/// A temporary `.context/` folder with a ledger created in it (fixed key).
pub(crate) fn context() -> (TempDir, Utf8PathBuf) {
    let (tmp, dir) = remaind_testkit::scratch_context("index", TEST_KEY);
    Ledger::create(&dir).expect("create ledger");
    if remaind_testkit::on_store() {
        // The same suite on a shared store (REMAIND_TEST_ON_STORE): the folder is a replica.
        remaind_testkit::make_replica(&dir, "index");
    }
    (tmp, dir)
}

/// A temporary ledger, opened.
pub(crate) fn ledger() -> (TempDir, Utf8PathBuf, Ledger) {
    let (tmp, dir) = context();
    let ledger = Ledger::open(&dir).expect("open ledger");
    (tmp, dir, ledger)
}

pub(crate) use remaind_testkit::event;

/// Append one event, returning its id.
pub(crate) fn log(ledger: &Ledger, kind: Kind, text: &str) -> EventId {
    ledger.append(event(kind, text)).expect("append")[0]
}

/// `n` filler notes made of common words that none of the tests search for.
pub(crate) fn filler(ledger: &Ledger, n: usize) {
    let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
    ];
    let batch: Vec<NewEvent> = (0..n)
        .map(|i| {
            let text = format!(
                "filler {} {} {} number {i}",
                words[i % 8],
                words[(i / 8) % 8],
                words[(i / 64) % 8]
            );
            event(if i % 3 == 0 { Kind::Trace } else { Kind::Note }, &text)
        })
        .collect();
    ledger.append(batch).expect("append filler");
}

/// The index file of a context folder.
pub(crate) fn db_path(dir: &Utf8Path) -> Utf8PathBuf {
    dir.join(remaind_index::DB_PATH)
}
