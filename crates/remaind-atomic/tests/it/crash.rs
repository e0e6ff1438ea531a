//! Debris a crash can leave: temp files are ignored and cleaned; foreign entries are reported.

use remaind_atomic::Error;

use crate::common::store;

#[test]
fn temp_files_are_ignored_by_list_and_cleaned_on_next_write() {
    let (_tmp, store) = store();
    store.write("sub/f", b"1").expect("write");
    // A half-written snapshot and a half-written target, as a crash would leave them.
    let hist_tmp = store.history_dir().join(".remaind-tmp-999-0-0");
    let dir_tmp = store.root().join("sub/.remaind-tmp-999-1-0");
    std::fs::write(&hist_tmp, b"half").expect("plant");
    std::fs::write(&dir_tmp, b"ha").expect("plant");
    assert_eq!(store.list().expect("list").len(), 1);
    assert_eq!(store.read("sub/f").expect("read"), Some(b"1".to_vec()));

    store.write("sub/f", b"2").expect("write");
    assert!(!hist_tmp.exists(), "history temp not cleaned");
    assert!(!dir_tmp.exists(), "folder temp not cleaned");
    assert_eq!(store.list().expect("list").len(), 2);
}

#[test]
fn point_without_its_write_is_harmless() {
    // Crash after the snapshot was renamed into history but before the target was replaced:
    // the point's snapshot equals the still-current file.
    let (_tmp, store) = store();
    let p1 = store.write("f", b"old").expect("write");
    let entry = store.list().expect("list")[0].clone();
    assert_eq!(entry, p1);
    let later = remaind_atomic::Timestamp::from_microsecond(p1.time().as_microsecond() + 10)
        .expect("in range");
    let name = format!(
        "00000000000000000002_{}_P_f",
        remaind_atomic::format_time(later)
    );
    std::fs::write(store.history_dir().join(name), b"old").expect("plant");
    assert_eq!(
        store.version_at("f", p1.time()).expect("v"),
        Some(b"old".to_vec())
    );
    assert_eq!(
        store.version_at("f", later).expect("v"),
        Some(b"old".to_vec())
    );
    let p3 = store.write("f", b"new").expect("write");
    assert_eq!(p3.seq(), 3);
    assert_eq!(
        store.version_at("f", later).expect("v"),
        Some(b"old".to_vec())
    );
}

#[test]
fn foreign_or_inconsistent_entries_are_reported_with_their_name() {
    let (_tmp, store) = store();
    store.write("f", b"x").expect("write");
    std::fs::write(store.history_dir().join("README"), b"?").expect("plant");
    let err = store.list().expect_err("foreign entry");
    assert!(matches!(err, Error::CorruptHistory { .. }), "{err}");
    assert!(err.to_string().contains("README"), "{err}");
    std::fs::remove_file(store.history_dir().join("README")).expect("rm");

    // Same seq twice.
    let p = store.list().expect("list")[0].clone();
    let dup = format!(
        "00000000000000000001_{}_A_g",
        remaind_atomic::format_time(p.time())
    );
    std::fs::write(store.history_dir().join(&dup), b"").expect("plant");
    let err = store.write("f", b"y").expect_err("duplicate seq");
    assert!(matches!(err, Error::CorruptHistory { .. }), "{err}");
    assert_eq!(store.read("f").expect("read"), Some(b"x".to_vec()));
    std::fs::remove_file(store.history_dir().join(&dup)).expect("rm");

    // An "absent" entry with bytes in it.
    let bad = format!(
        "00000000000000000002_{}_A_f",
        remaind_atomic::format_time(
            remaind_atomic::Timestamp::from_microsecond(p.time().as_microsecond() + 5)
                .expect("in range")
        )
    );
    std::fs::write(store.history_dir().join(&bad), b"bytes").expect("plant");
    let err = store
        .version_at("f", p.time())
        .expect_err("absent with bytes");
    assert!(err.to_string().contains(&bad), "{err}");
}
