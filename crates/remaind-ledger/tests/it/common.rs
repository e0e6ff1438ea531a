//! Shared helpers.

use std::collections::BTreeMap;

use camino::{Utf8Path, Utf8PathBuf};
use remaind_ledger::{Kind, Ledger, NewEvent};
use tempfile::TempDir;

/// A fixed project key, so placeholders in snapshots are stable.
pub(crate) const TEST_KEY: [u8; 32] = *b"remaind-ledger-tests-fixed-key!!";

/// A temporary `.context/` folder with a ledger created in it (fixed key).
pub(crate) fn context() -> (TempDir, Utf8PathBuf) {
    // Prefer a RAM-backed folder when there is one: these tests append thousands of synced
    // lines and test locking and bytes, not the disk.
    let shm = std::path::Path::new("/dev/shm");
    let tmp = if shm.is_dir() {
        tempfile::Builder::new()
            .prefix("remaind-ledger-")
            .tempdir_in(shm)
            .or_else(|_| tempfile::tempdir())
    } else {
        tempfile::tempdir()
    }
    .expect("tempdir");
    let dir = Utf8PathBuf::from_path_buf(tmp.path().join(".context")).expect("utf-8 temp path");
    std::fs::create_dir(&dir).expect("mkdir .context");
    {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(dir.join("redaction.key"))
            .expect("create key");
        f.write_all(&TEST_KEY).expect("write key");
    }
    Ledger::create(&dir).expect("create ledger");
    (tmp, dir)
}

/// A temporary ledger, opened.
pub(crate) fn ledger() -> (TempDir, Utf8PathBuf, Ledger) {
    let (tmp, dir) = context();
    let ledger = Ledger::open(&dir).expect("open ledger");
    (tmp, dir, ledger)
}

/// A caller event of `kind` with `text`.
pub(crate) fn event(kind: Kind, text: &str) -> NewEvent {
    NewEvent {
        kind: Some(kind),
        text: Some(text.to_owned()),
        ..NewEvent::default()
    }
}

/// Every file under `dir` with its bytes.
pub(crate) fn files(dir: &Utf8Path) -> BTreeMap<Utf8PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in d.read_dir_utf8().expect("read dir") {
            let entry = entry.expect("dir entry");
            let path = entry.path().to_owned();
            if entry.file_type().expect("file type").is_dir() {
                stack.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).expect("read file"));
            }
        }
    }
    out
}

/// The log's bytes.
pub(crate) fn log_bytes(dir: &Utf8Path) -> Vec<u8> {
    std::fs::read(dir.join("logs/events.jsonl")).expect("read log")
}
