//! Permissions, symlink refusal and bad names.

use std::os::unix::fs::{PermissionsExt, symlink};

use camino::Utf8Path;
use remaind_atomic::{Error, HistoryStore};

use crate::common::{root_of, store};

fn mode(path: &Utf8Path) -> u32 {
    std::fs::symlink_metadata(path)
        .expect("metadata")
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn files_are_0600_and_folders_0700() {
    let (_tmp, store) = store();
    store.write("state.json", b"x").expect("write");
    store.write("state.json", b"y").expect("write");
    store.write("deep/er/file", b"z").expect("write nested");
    assert_eq!(mode(store.root()), 0o700);
    assert_eq!(mode(store.history_dir()), 0o700);
    assert_eq!(mode(&store.root().join("deep")), 0o700);
    assert_eq!(mode(&store.root().join("deep/er")), 0o700);
    assert_eq!(mode(&store.root().join("state.json")), 0o600);
    assert_eq!(mode(&store.root().join("deep/er/file")), 0o600);
    for entry in std::fs::read_dir(store.history_dir()).expect("read history") {
        let path = entry.expect("entry").path();
        let path = Utf8Path::from_path(&path).expect("utf8");
        assert_eq!(mode(path), 0o600, "{path}");
    }
}

#[test]
fn bad_relative_names_are_rejected() {
    let (_tmp, store) = store();
    let long = "x".repeat(300);
    for bad in [
        "",
        "/abs",
        "..",
        "../up",
        "a/../b",
        "./a",
        "a/./b",
        "a//b",
        "a/",
        "history",
        "history/x",
        ".remaind-tmp-1",
        "a/.remaind-tmp-1",
        "nul\0byte",
        long.as_str(),
    ] {
        let err = store.write(bad, b"x").expect_err(bad);
        assert!(matches!(err, Error::InvalidPath { .. }), "{bad:?}: {err}");
        assert!(
            store
                .version_at(bad, remaind_atomic::Timestamp::now())
                .is_err()
        );
        assert!(store.remove(bad).is_err());
        assert!(store.read(bad).is_err());
    }
    assert!(store.list().expect("list").is_empty());
    // "history" below the top level is an ordinary name.
    store
        .write("sub/history", b"ok")
        .expect("nested history name");
}

#[test]
fn symlinked_target_is_refused() {
    let (tmp, store) = store();
    let outside = Utf8Path::from_path(tmp.path())
        .expect("utf8")
        .join("outside");
    std::fs::write(&outside, b"secret").expect("write outside");
    symlink(&outside, store.root().join("state.json")).expect("symlink");
    let err = store.write("state.json", b"x").expect_err("must refuse");
    assert!(matches!(err, Error::Symlink { .. }), "{err}");
    assert!(err.to_string().contains("state.json"), "{err}");
    assert!(matches!(
        store.read("state.json"),
        Err(Error::Symlink { .. })
    ));
    assert!(matches!(
        store.remove("state.json"),
        Err(Error::Symlink { .. })
    ));
    assert_eq!(std::fs::read(&outside).expect("read outside"), b"secret");
    assert!(store.list().expect("list").is_empty());
}

#[test]
fn symlinked_folder_component_is_refused() {
    let (tmp, store) = store();
    let outside = Utf8Path::from_path(tmp.path())
        .expect("utf8")
        .join("elsewhere");
    std::fs::create_dir(&outside).expect("mkdir");
    symlink(&outside, store.root().join("sub")).expect("symlink");
    let err = store.write("sub/file", b"x").expect_err("must refuse");
    assert!(matches!(err, Error::Symlink { .. }), "{err}");
    assert!(matches!(store.read("sub/file"), Err(Error::Symlink { .. })));
    assert!(std::fs::read_dir(&outside).expect("ls").next().is_none());
}

#[test]
fn symlinked_history_or_root_is_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = Utf8Path::from_path(tmp.path()).expect("utf8");
    let root = root_of(&tmp);
    std::fs::create_dir(&root).expect("mkdir root");
    std::fs::create_dir(base.join("real-history")).expect("mkdir");
    symlink(base.join("real-history"), root.join("history")).expect("symlink history");
    let err = HistoryStore::open(&root).expect_err("history symlink");
    assert!(matches!(err, Error::Symlink { .. }), "{err}");

    // Swapped for a symlink after opening: every operation refuses.
    std::fs::remove_file(root.join("history")).expect("unlink");
    let store = HistoryStore::open(&root).expect("open");
    // Open made the lock file; the folder goes with everything in it.
    std::fs::remove_dir_all(root.join("history")).expect("rmdir");
    symlink(base.join("real-history"), root.join("history")).expect("symlink history");
    assert!(matches!(store.write("a", b"x"), Err(Error::Symlink { .. })));
    assert!(matches!(store.list(), Err(Error::Symlink { .. })));
    assert!(
        std::fs::read_dir(base.join("real-history"))
            .expect("ls")
            .next()
            .is_none()
    );

    symlink(&root, base.join("link-root")).expect("symlink root");
    let err = HistoryStore::open(base.join("link-root")).expect_err("root symlink");
    assert!(matches!(err, Error::Symlink { .. }), "{err}");
}

#[test]
fn non_regular_target_is_refused() {
    let (_tmp, store) = store();
    std::fs::create_dir(store.root().join("dir")).expect("mkdir");
    let err = store.write("dir", b"x").expect_err("directory target");
    assert!(matches!(err, Error::NotAFile { .. }), "{err}");
    // A FIFO is refused without blocking on it.
    let status = std::process::Command::new("mkfifo")
        .arg(store.root().join("fifo"))
        .status()
        .expect("run mkfifo");
    assert!(status.success());
    let err = store.write("fifo", b"x").expect_err("fifo target");
    assert!(matches!(err, Error::NotAFile { .. }), "{err}");
    assert!(matches!(store.read("fifo"), Err(Error::NotAFile { .. })));
    std::fs::write(store.root().join("plain"), b"x").expect("write");
    let err = store
        .write("plain/child", b"x")
        .expect_err("file as folder");
    assert!(matches!(err, Error::NotADirectory { .. }), "{err}");
}

#[test]
fn root_that_is_a_file_is_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = root_of(&tmp);
    std::fs::write(&root, b"not a folder").expect("write");
    let err = HistoryStore::open(&root).expect_err("file root");
    assert!(matches!(err, Error::NotADirectory { .. }), "{err}");
}
