//! Shared helpers.

use camino::{Utf8Path, Utf8PathBuf};
use remaind_atomic::{HistoryStore, Timestamp};
use tempfile::TempDir;

/// A fresh store rooted at `<tempdir>/active`; keep the `TempDir` alive.
pub(crate) fn store() -> (TempDir, HistoryStore) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = root_of(&tmp);
    let store = HistoryStore::open(&root).expect("open store");
    (tmp, store)
}

pub(crate) fn root_of(tmp: &TempDir) -> Utf8PathBuf {
    Utf8Path::from_path(tmp.path())
        .expect("UTF-8 temp dir")
        .join("active")
}

pub(crate) fn micros_before(t: Timestamp) -> Timestamp {
    Timestamp::from_microsecond(t.as_microsecond() - 1).expect("in range")
}

pub(crate) fn micros_after(t: Timestamp) -> Timestamp {
    Timestamp::from_microsecond(t.as_microsecond() + 1).expect("in range")
}
