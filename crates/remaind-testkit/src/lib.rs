//! Test support for Remaind's own test suites, used only as a dev-dependency: the helpers every
//! suite wrote again (a scratch `.context/` folder, a caller event, a snapshot of a folder's
//! files). It depends on nothing above the event model, so the ledger's own tests can use it
//! without a second copy of the ledger; opening a ledger in the folder is the caller's
//! (`Ledger::create`, `Ledger::open`). It is tooling: outside the layer table, never a
//! dependency of a library.
//!
//! ```
//! use remaind_events::Kind;
//!
//! let (_tmp, dir) = remaind_testkit::scratch_context("example", *b"remaind-testkit-docs-fixed-key!!");
//! assert!(dir.join("redaction.key").is_file());
//! let note = remaind_testkit::event(Kind::Note, "hello");
//! assert_eq!(note.text.as_deref(), Some("hello"));
//! assert_eq!(remaind_testkit::files(&dir).len(), 1);
//! ```

#![expect(
    clippy::disallowed_methods,
    reason = "tooling, not a library: it reads its own environment (CARGO, PATH, the bench's settings)"
)]

pub mod conversation;
mod pg;

pub use pg::{
    ON_STORE_ENV, PrivateCluster, TEST_PG_ENV, make_replica, on_store, postgres_tls, postgres_url,
    unique_project,
};

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;

use camino::{Utf8Path, Utf8PathBuf};
use remaind_events::{Kind, NewEvent};
use tempfile::TempDir;

/// A temporary folder named `remaind-<suite>-…`, in RAM (`/dev/shm`) when there is one: the
/// suites append thousands of synced lines and test locking and bytes, not the disk.
pub fn scratch_dir(suite: &str) -> TempDir {
    let shm = std::path::Path::new("/dev/shm");
    let prefix = format!("remaind-{suite}-");
    if shm.is_dir() {
        tempfile::Builder::new()
            .prefix(&prefix)
            .tempdir_in(shm)
            .or_else(|_| tempfile::tempdir())
    } else {
        tempfile::tempdir()
    }
    .expect("a temporary folder")
}

/// A `.context/` folder in a [`scratch_dir`] holding only `redaction.key` (0600) with `key`, so
/// redaction placeholders in snapshots are stable. Create the ledger in it with
/// `Ledger::create`.
pub fn scratch_context(suite: &str, key: [u8; 32]) -> (TempDir, Utf8PathBuf) {
    let tmp = scratch_dir(suite);
    let dir = Utf8PathBuf::from_path_buf(tmp.path().join(".context")).expect("a UTF-8 path");
    std::fs::create_dir(&dir).expect("mkdir .context");
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(dir.join(remaind_fs::layout::KEY_PATH))
        .expect("create the key");
    f.write_all(&key).expect("write the key");
    (tmp, dir)
}

/// A caller event of `kind` with `text`.
pub fn event(kind: Kind, text: &str) -> NewEvent {
    NewEvent {
        kind: Some(kind),
        text: Some(text.to_owned()),
        ..NewEvent::default()
    }
}

/// Every file under `dir` with its bytes, to compare a folder before and after.
pub fn files(dir: &Utf8Path) -> BTreeMap<Utf8PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in d.read_dir_utf8().expect("read a folder") {
            let entry = entry.expect("a folder entry");
            let path = entry.path().to_owned();
            if entry.file_type().expect("a file type").is_dir() {
                stack.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).expect("read a file"));
            }
        }
    }
    out
}
