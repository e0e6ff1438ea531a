//! History snapshots are hard links to the replaced version when that is safe, and copies
//! otherwise; either way no later edit of a live file reaches a recorded version.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};

use camino::Utf8PathBuf;
use remaind_atomic::HistoryStore;

use crate::common::{micros_before, store};

/// The history entry of point `seq`.
fn entry_of(store: &HistoryStore, seq: u64) -> Utf8PathBuf {
    let prefix = format!("{seq:020}_");
    let name = fs::read_dir(store.history_dir())
        .expect("read history")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .find(|n| n.starts_with(&prefix))
        .expect("entry of the point");
    store.history_dir().join(name)
}

/// Rewrites a file in place (same inode), as an editor that keeps hard links does.
fn edit_in_place(path: &camino::Utf8Path, bytes: &[u8]) {
    let mut f = OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .expect("open in place");
    f.write_all(bytes).expect("write in place");
    f.sync_all().expect("fsync");
}

#[test]
fn the_replaced_version_is_linked_into_history_and_never_shared_after() {
    let (_tmp, store) = store();
    let live = store.root().join("state.json");
    store.write("state.json", b"one").expect("write 1");
    let first_inode = fs::metadata(&live).expect("meta").ino();
    let p2 = store.write("state.json", b"two").expect("write 2");
    // The old inode moved to history; the live file is a new inode, linked once.
    let entry_path = entry_of(&store, p2.seq());
    let entry_meta = fs::metadata(&entry_path).expect("entry meta");
    assert_eq!(
        entry_meta.ino(),
        first_inode,
        "snapshot is a link, not a copy"
    );
    assert_eq!(entry_meta.nlink(), 1);
    assert_eq!(fs::metadata(&live).expect("meta").nlink(), 1);
    assert_eq!(entry_meta.mode() & 0o777, 0o600);

    // Editing the live file in place does not touch what history recorded.
    edit_in_place(&live, b"two, edited by hand");
    let v = |t| store.version_at("state.json", t).expect("version_at");
    assert_eq!(v(micros_before(p2.time())), Some(b"one".to_vec()));
    // And the next change records the edited bytes, which are what was live then.
    let p3 = store.write("state.json", b"three").expect("write 3");
    assert_eq!(
        v(micros_before(p3.time())),
        Some(b"two, edited by hand".to_vec())
    );
    assert_eq!(v(p3.time()), Some(b"three".to_vec()));
}

#[test]
fn a_file_linked_elsewhere_is_copied_not_linked() {
    let (tmp, store) = store();
    let live = store.root().join("state.json");
    store.write("state.json", b"one").expect("write 1");
    let outside = tmp.path().join("my-copy.json");
    fs::hard_link(&live, &outside).expect("user hard link");
    let p2 = store.write("state.json", b"two").expect("write 2");
    // The user edits their link in place: the recorded version must not change.
    edit_in_place(
        camino::Utf8Path::from_path(&outside).expect("utf-8"),
        b"changed through the other link",
    );
    let v = store
        .version_at("state.json", micros_before(p2.time()))
        .expect("version_at");
    assert_eq!(v, Some(b"one".to_vec()));
}

#[test]
fn a_file_readable_by_others_is_copied_private() {
    let (_tmp, store) = store();
    let live = store.root().join("state.json");
    store.write("state.json", b"one").expect("write 1");
    fs::set_permissions(&live, fs::Permissions::from_mode(0o644)).expect("chmod");
    let p2 = store.write("state.json", b"two").expect("write 2");
    let meta = fs::metadata(entry_of(&store, p2.seq())).expect("meta");
    assert_eq!(meta.mode() & 0o777, 0o600, "history stays private");
    assert_eq!(
        store
            .version_at("state.json", micros_before(p2.time()))
            .expect("version_at"),
        Some(b"one".to_vec())
    );
}
