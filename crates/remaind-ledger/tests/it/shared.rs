//! A folder as the replica of a shared store on PostgreSQL (a throwaway cluster).

use std::time::Duration;

use camino::Utf8PathBuf;
use remaind_ledger::{AppendRequest, Error, GENESIS_PREV, Kind, Ledger, StoreSetting};
use remaind_pg::Store;
use remaind_testkit::{postgres_url, unique_project};
use tempfile::TempDir;

use crate::common::{context, event, log_bytes};

/// A new project, and `n` folders ("machines") that are its replicas.
fn replicas(n: usize) -> (String, Vec<(TempDir, Utf8PathBuf)>) {
    let project = unique_project("ledger");
    Store::create(&postgres_url(), &project, GENESIS_PREV, &[]).expect("create the project");
    let folders = (0..n)
        .map(|_| {
            let (tmp, dir) = context();
            StoreSetting {
                url: postgres_url(),
                project: project.clone(),
            }
            .save(&dir)
            .expect("save the setting");
            (tmp, dir)
        })
        .collect();
    (project, folders)
}

#[test]
fn two_machines_append_to_one_gapless_chain_and_hold_the_same_bytes() {
    let (project, machines) = replicas(2);
    let a = Ledger::open(&machines[0].1).expect("open a");
    let b = Ledger::open(&machines[1].1).expect("open b");
    assert_eq!(a.store_project(), Some(project.as_str()));
    std::thread::scope(|s| {
        for (name, ledger) in [("a", &a), ("b", &b)] {
            s.spawn(move || {
                for i in 0..20 {
                    ledger
                        .append(event(Kind::Note, &format!("{name} {i}")))
                        .expect("append");
                }
                ledger
                    .append_batch((0..5).map(|i| event(Kind::Note, &format!("{name} batch {i}"))))
                    .expect("batch");
            });
        }
    });
    a.sync(Duration::ZERO).expect("sync a");
    b.sync(Duration::ZERO).expect("sync b");
    assert_eq!(a.head().expect("head").0, 50);
    assert_eq!(log_bytes(&machines[0].1), log_bytes(&machines[1].1));
    assert!(a.verify().expect("verify").is_ok());
    let mut store = Store::connect(&postgres_url(), &project).expect("connect");
    let stored: Vec<u8> = store
        .lines(0, 100)
        .expect("lines")
        .into_iter()
        .flat_map(|(_, mut l)| {
            l.push(b'\n');
            l
        })
        .collect();
    assert_eq!(stored, log_bytes(&machines[0].1));
}

#[test]
fn a_replica_opened_later_catches_up_with_the_artifacts_its_lines_cite() {
    let (_project, machines) = replicas(2);
    let a = Ledger::open(&machines[0].1).expect("open a");
    let big = "x".repeat(64 * 1024);
    let mut req = AppendRequest::from(event(Kind::ToolResult, "a large output"));
    req.event.tool = Some(remaind_ledger::Tool {
        name: "Bash".into(),
        input: serde_json::json!({"command": "yes"}),
        output: serde_json::Value::String(big.clone()),
    });
    a.append_request(req).expect("append with an artifact");
    let b = Ledger::open(&machines[1].1).expect("open b");
    assert_eq!(log_bytes(&machines[0].1), log_bytes(&machines[1].1));
    let ev = b.get(1).expect("get").expect("the event");
    let sha = &ev.artifact[0].sha256;
    assert_eq!(
        b.artifacts().get(sha).expect("the artifact"),
        big.as_bytes()
    );
}

#[test]
fn a_torn_replica_tail_is_cut_without_an_event_of_its_own_and_caught_up() {
    let (_project, machines) = replicas(1);
    let dir = &machines[0].1;
    let anchor = dir.join("logs/events.head");
    let anchored_at_one = {
        let a = Ledger::open(dir).expect("open");
        a.append(event(Kind::Note, "one")).expect("append");
        let at_one = std::fs::read(&anchor).expect("anchor");
        a.append(event(Kind::Note, "two")).expect("append");
        at_one
    };
    let whole = log_bytes(dir);
    // The second line's local write was cut short by a crash (after the store committed
    // it, before the anchor moved).
    let cut = whole.len() - 10;
    std::fs::write(dir.join("logs/events.jsonl"), &whole[..cut]).expect("tear");
    std::fs::write(&anchor, anchored_at_one).expect("anchor as the crash left it");
    let a = Ledger::open(dir).expect("reopen");
    assert_eq!(
        log_bytes(dir),
        whole,
        "the store's line came back, and no recovery event"
    );
    assert_eq!(a.head().expect("head").0, 2);
}

#[test]
fn a_folder_with_events_the_store_lacks_is_refused_naming_the_seq() {
    let (project, machines) = replicas(1);
    let dir = &machines[0].1;
    // Events appended while the folder was not a replica.
    std::fs::remove_file(dir.join("store.json")).expect("unshare");
    let plain = Ledger::open(dir).expect("open");
    plain
        .append(event(Kind::Note, "local only"))
        .expect("append");
    drop(plain);
    let mut store = Store::connect(&postgres_url(), &project).expect("connect");
    let line = {
        let head = store.head().expect("head");
        format!(
            r#"{{"v":1,"seq":1,"id":"e1","ts":"2026-01-01T00:00:00Z","prev":"{}","kind":"note","actor":"agent","importance":1,"text":"remote"}}"#,
            head.digest
        )
    };
    store.append(0, &[line.as_bytes()]).expect("remote append");
    StoreSetting {
        url: postgres_url(),
        project: project.clone(),
    }
    .save(dir)
    .expect("share again");
    match Ledger::open(dir) {
        Err(e @ Error::Diverged { seq: 1, .. }) => {
            assert!(e.to_string().contains("remaind pull"), "{e}");
        }
        other => panic!("expected Diverged at seq 1, got {other:?}"),
    }
}

#[test]
fn push_and_pull_copy_events_and_artifacts_byte_for_byte_and_only_what_is_new() {
    let (_tmp, src, ledger) = crate::common::ledger();
    ledger
        .append_batch((0..30).map(|i| event(Kind::Note, &format!("event {i}"))))
        .expect("batch");
    let mut req = AppendRequest::from(event(Kind::ToolResult, "output"));
    req.event.tool = Some(remaind_ledger::Tool {
        name: "Read".into(),
        input: serde_json::Value::Null,
        output: serde_json::Value::Null,
    });
    req.output_bytes = Some([0u8, 159, 146, 150, 1, 2, 3].repeat(5000));
    ledger.append_request(req).expect("binary artifact");
    let project = unique_project("push");
    let (mut store, _) =
        Store::create(&postgres_url(), &project, GENESIS_PREV, &[]).expect("create");
    assert_eq!(ledger.push_to(&mut store).expect("push"), 31);
    assert_eq!(ledger.push_to(&mut store).expect("push again"), 0);
    let (_tmp2, dst) = context();
    let copy = Ledger::open(&dst).expect("open the copy");
    assert_eq!(copy.pull_from(&mut store).expect("pull"), 31);
    assert_eq!(copy.pull_from(&mut store).expect("pull again"), 0);
    assert_eq!(log_bytes(&src), log_bytes(&dst));
    let sha = &copy.get(31).expect("get").expect("event").artifact[0].sha256;
    assert_eq!(
        copy.artifacts().get(sha).expect("artifact"),
        ledger.artifacts().get(sha).expect("artifact")
    );
    // New events go over alone.
    ledger
        .append(event(Kind::Decision, "later"))
        .expect("append");
    assert_eq!(ledger.push_to(&mut store).expect("push"), 1);
    assert_eq!(copy.pull_from(&mut store).expect("pull"), 1);
    assert_eq!(log_bytes(&src), log_bytes(&dst));
    // A third folder with its own history is refused at its first line.
    let (_tmp3, other, third) = crate::common::ledger();
    third.append(event(Kind::Note, "event 0")).expect("append");
    let _ = other;
    match third.pull_from(&mut store) {
        Err(Error::Diverged { seq: 1, .. }) => {}
        r => panic!("expected Diverged at 1, got {r:?}"),
    }
    match third.push_to(&mut store) {
        Err(Error::Diverged { seq: 1, .. }) => {}
        r => panic!("expected Diverged at 1, got {r:?}"),
    }
}

#[test]
fn a_store_setting_never_holds_a_password() {
    let (_tmp, dir) = context();
    let e = StoreSetting {
        url: "postgres://ana:s3cret@db/x".into(),
        project: "p".into(),
    }
    .save(&dir)
    .expect_err("a password is refused");
    assert!(!e.to_string().contains("s3cret"), "{e}");
    assert!(e.to_string().contains("PGPASSWORD"), "{e}");
    std::fs::write(
        dir.join("store.json"),
        r#"{"url": "postgres://ana:s3cret@db/x", "project": "p"}"#,
    )
    .expect("write");
    let e = Ledger::open(&dir).expect_err("refused");
    assert!(!e.to_string().contains("s3cret"), "{e}");
}
