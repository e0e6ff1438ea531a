//! Write, read, list, version_at, remove and restore.

use camino::Utf8Path;
use remaind_atomic::{HistoryStore, Timestamp, format_time};

use crate::common::{micros_after, micros_before, root_of, store};

#[test]
fn write_creates_file_and_records_absent_prior() {
    let (_tmp, store) = store();
    let p = store.write("state.json", b"one").expect("write");
    assert_eq!(p.seq(), 1);
    assert_eq!(p.file(), Utf8Path::new("state.json"));
    assert!(!p.prior_existed());
    assert_eq!(
        store.read("state.json").expect("read"),
        Some(b"one".to_vec())
    );
    assert_eq!(store.list().expect("list"), vec![p]);
}

#[test]
fn second_write_keeps_prior_bytes_in_history() {
    let (_tmp, store) = store();
    let p1 = store.write("state.json", b"one").expect("write 1");
    let p2 = store.write("state.json", b"two").expect("write 2");
    assert_eq!(p2.seq(), 2);
    assert!(p2.prior_existed());
    assert!(p2.time() > p1.time());
    // Before the first write: absent. From the first write on: "one". From the second: "two".
    let v = |t| store.version_at("state.json", t).expect("version_at");
    assert_eq!(v(micros_before(p1.time())), None);
    assert_eq!(v(p1.time()), Some(b"one".to_vec()));
    assert_eq!(v(micros_before(p2.time())), Some(b"one".to_vec()));
    assert_eq!(v(p2.time()), Some(b"two".to_vec()));
    assert_eq!(v(micros_after(p2.time())), Some(b"two".to_vec()));
    let entry = store.history_dir().join(format!(
        "00000000000000000002_{}_P_state.json",
        format_time(p2.time())
    ));
    assert_eq!(std::fs::read(entry).expect("history entry"), b"one");
}

#[test]
fn empty_contents_are_distinct_from_absent() {
    let (_tmp, store) = store();
    let p1 = store.write("f", b"").expect("write empty");
    let p2 = store.write("f", b"x").expect("write x");
    assert_eq!(
        store.version_at("f", micros_before(p1.time())).expect("v"),
        None
    );
    assert_eq!(
        store.version_at("f", p1.time()).expect("v"),
        Some(Vec::new())
    );
    assert_eq!(
        store.version_at("f", p2.time()).expect("v"),
        Some(b"x".to_vec())
    );
}

#[test]
fn remove_records_prior_and_is_a_noop_when_absent() {
    let (_tmp, store) = store();
    assert_eq!(store.remove("f").expect("remove absent"), None);
    assert!(store.list().expect("list").is_empty());
    let p1 = store.write("f", b"x").expect("write");
    let p2 = store.remove("f").expect("remove").expect("a point");
    assert!(p2.prior_existed());
    assert_eq!(store.read("f").expect("read"), None);
    assert_eq!(
        store.version_at("f", p1.time()).expect("v"),
        Some(b"x".to_vec())
    );
    assert_eq!(store.version_at("f", p2.time()).expect("v"), None);
    assert_eq!(store.remove("f").expect("remove again"), None);
    assert_eq!(store.list().expect("list").len(), 2);
}

#[test]
fn nested_files_are_encoded_in_history_names() {
    let (_tmp, store) = store();
    let p = store
        .write("notes/100%/today.md", b"hi")
        .expect("write nested");
    assert_eq!(p.file(), Utf8Path::new("notes/100%/today.md"));
    let names: Vec<String> = std::fs::read_dir(store.history_dir())
        .expect("read history")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf8"))
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(names.len(), 1);
    assert!(
        names[0].ends_with("_A_notes%2F100%25%2Ftoday.md"),
        "{}",
        names[0]
    );
    assert_eq!(store.list().expect("list")[0].file(), "notes/100%/today.md");
    assert_eq!(
        store.tracked().expect("tracked"),
        vec![Utf8Path::new("notes/100%/today.md")]
    );
}

#[test]
fn restore_brings_back_old_versions_and_can_be_undone() {
    let (_tmp, store) = store();
    let p1 = store.write("a", b"a1").expect("write");
    store.write("b", b"b1").expect("write");
    store.write("a", b"a2").expect("write");
    store.write("c", b"c1").expect("write");
    store.remove("b").expect("remove");

    let summary = store
        .restore_to(["a", "b", "c", "a"], p1.time())
        .expect("restore");
    assert_eq!(summary.to, p1.time());
    assert_eq!(
        summary.changed,
        vec![Utf8Path::new("a"), Utf8Path::new("c")]
    );
    assert_eq!(summary.unchanged, vec![Utf8Path::new("b")]);
    assert_eq!(summary.points.len(), 2);
    assert_eq!(store.read("a").expect("read"), Some(b"a1".to_vec()));
    assert_eq!(store.read("b").expect("read"), None);
    assert_eq!(store.read("c").expect("read"), None);

    let undo = summary.undo_to().expect("restore changed something");
    assert_eq!(
        undo,
        micros_before(summary.first_point().expect("first").time())
    );
    let back = store.restore_to(["a", "b", "c"], undo).expect("undo");
    assert_eq!(back.changed, vec![Utf8Path::new("a"), Utf8Path::new("c")]);
    assert_eq!(store.read("a").expect("read"), Some(b"a2".to_vec()));
    assert_eq!(store.read("b").expect("read"), None);
    assert_eq!(store.read("c").expect("read"), Some(b"c1".to_vec()));
}

#[test]
fn restore_that_changes_nothing_records_nothing() {
    let (_tmp, store) = store();
    store.write("a", b"x").expect("write");
    let before = store.list().expect("list");
    let s = store
        .restore_to(["a", "never"], Timestamp::now())
        .expect("restore");
    assert!(s.changed.is_empty());
    assert!(s.points.is_empty());
    assert_eq!(s.undo_to(), None);
    assert_eq!(store.list().expect("list"), before);
}

#[test]
fn restore_rejects_bad_names_before_writing_anything() {
    let (_tmp, store) = store();
    let p = store.write("a", b"1").expect("write");
    store.write("a", b"2").expect("write");
    let err = store
        .restore_to(["a", "../escape"], p.time())
        .expect_err("bad name");
    assert!(err.is_invalid_input());
    assert_eq!(store.read("a").expect("read"), Some(b"2".to_vec()));
    assert_eq!(store.list().expect("list").len(), 2);
}

#[test]
fn reopening_continues_the_sequence() {
    let (tmp, store) = store();
    store.write("a", b"1").expect("write");
    drop(store);
    let store = HistoryStore::open(root_of(&tmp)).expect("reopen");
    let p = store.write("a", b"2").expect("write");
    assert_eq!(p.seq(), 2);
}

#[test]
fn display_and_errors_name_the_file() {
    let (_tmp, store) = store();
    let p = store.write("state.json", b"x").expect("write");
    let shown = p.to_string();
    assert!(
        shown.contains("state.json") && shown.starts_with("#1 "),
        "{shown}"
    );
    let err = store.write("/etc/passwd", b"x").expect_err("absolute");
    assert!(err.to_string().contains("/etc/passwd"), "{err}");
    assert_eq!(err.path(), Utf8Path::new("/etc/passwd"));
}

#[test]
fn write_all_writes_every_file_or_none() {
    let (_tmp, store) = store();
    store.write("a", b"a1").expect("a1");
    let points = store
        .write_all(&[("a", &b"a2"[..]), ("b", &b"b1"[..])])
        .expect("write both");
    assert_eq!(points.len(), 2);
    assert_eq!(store.read("a").expect("read"), Some(b"a2".to_vec()));
    assert_eq!(store.read("b").expect("read"), Some(b"b1".to_vec()));

    // The second target cannot be written (a folder sits there): the first is put back and
    // no history point of this call remains.
    std::fs::create_dir(store.root().join("c")).expect("folder in the way");
    let before = store.list().expect("list");
    let err = store
        .write_all(&[("a", &b"a3"[..]), ("c", &b"c1"[..])])
        .expect_err("c is a folder");
    assert!(err.to_string().contains('c'), "{err}");
    assert_eq!(store.read("a").expect("read"), Some(b"a2".to_vec()));
    assert_eq!(store.list().expect("list"), before);
}

#[test]
fn a_group_shares_one_instant_so_no_instant_splits_it() {
    let (_tmp, store) = store();
    store
        .write_all(&[("a", &b"a1"[..]), ("b", &b"b1"[..])])
        .expect("first pair");
    let points = store
        .write_all(&[("a", &b"a2"[..]), ("b", &b"b2"[..])])
        .expect("second pair");
    assert_eq!(points[0].time(), points[1].time());
    let t = points[0].time();
    for at in [micros_before(t), t, micros_after(t)] {
        let a = store.version_at("a", at).expect("a");
        let b = store.version_at("b", at).expect("b");
        let pair = (a.as_deref(), b.as_deref());
        assert!(
            pair == (Some(&b"a1"[..]), Some(&b"b1"[..]))
                || pair == (Some(&b"a2"[..]), Some(&b"b2"[..])),
            "split pair at {at}: {pair:?}"
        );
    }
    store
        .restore_to(["a", "b"], micros_before(t))
        .expect("restore");
    assert_eq!(
        store.read_all(&["a", "b"]).expect("read"),
        vec![Some(b"a1".to_vec()), Some(b"b1".to_vec())]
    );
}

/// A crash after the commit point of a group (journal durable, one of two temps renamed):
/// readers see the whole new group, and the next writer finishes it.
#[test]
fn a_group_interrupted_after_its_commit_point_reads_whole_and_is_rolled_forward() {
    let (_tmp, store) = store();
    store
        .write_all(&[("a", &b"a1"[..]), ("b", &b"b1"[..])])
        .expect("first pair");
    let root = store.root();
    // "a" already renamed into place, "b" still staged.
    std::fs::write(root.join("a"), b"a2").expect("a2");
    std::fs::write(root.join(".remaind-tmp-1-2-3"), b"b2").expect("staged b2");
    std::fs::write(
        store.history_dir().join(".group"),
        "remaind-group v1\na\t.remaind-tmp-1-0-0\nb\t.remaind-tmp-1-2-3\n",
    )
    .expect("journal");
    assert_eq!(
        store.read_all(&["a", "b"]).expect("read through"),
        vec![Some(b"a2".to_vec()), Some(b"b2".to_vec())]
    );
    store.write("c", b"c1").expect("a writer rolls forward");
    assert_eq!(std::fs::read(root.join("b")).expect("b"), b"b2");
    assert!(!store.history_dir().join(".group").exists());
}

#[test]
fn change_all_writes_and_removes_as_one_unit_sharing_a_time() {
    let (_tmp, store) = store();
    store.write("a.md", b"a1").expect("write a");
    store.write("b.md", b"b1").expect("write b");
    let points = store
        .change_all(&[
            ("a.md", Some(&b"a2"[..])),
            ("b.md", None),
            ("gone.md", None),
        ])
        .expect("change");
    // The removal of a file that never existed records nothing.
    assert_eq!(points.len(), 2);
    assert_eq!(points[0].time(), points[1].time());
    assert_eq!(store.read("a.md").expect("read"), Some(b"a2".to_vec()));
    assert_eq!(store.read("b.md").expect("read"), None);
    let before = micros_before(points[0].time());
    assert_eq!(
        store.version_at("b.md", before).expect("v"),
        Some(b"b1".to_vec())
    );
}

#[test]
fn a_change_made_outside_the_store_is_adopted_with_its_prior_version() {
    let (_tmp, store) = store();
    store.write("MEMORY.md", b"rendered").expect("write");
    // A person edits the file by hand; the store learns of it afterwards.
    std::fs::write(store.root().join("MEMORY.md"), b"edited by hand").expect("hand edit");
    let p = store.adopt("MEMORY.md", Some(b"rendered")).expect("adopt");
    assert!(p.prior_existed());
    assert_eq!(
        store.read("MEMORY.md").expect("read"),
        Some(b"edited by hand".to_vec())
    );
    let v = |t| store.version_at("MEMORY.md", t).expect("version_at");
    assert_eq!(v(micros_before(p.time())), Some(b"rendered".to_vec()));
    assert_eq!(v(p.time()), Some(b"edited by hand".to_vec()));
    // Restoring to before the adoption brings the rendered version back, undoably.
    let r = store
        .restore_to(["MEMORY.md"], micros_before(p.time()))
        .expect("restore");
    assert_eq!(
        store.read("MEMORY.md").expect("read"),
        Some(b"rendered".to_vec())
    );
    store
        .restore_to(["MEMORY.md"], r.undo_to().expect("undo"))
        .expect("undo");
    assert_eq!(
        store.read("MEMORY.md").expect("read"),
        Some(b"edited by hand".to_vec())
    );
}
