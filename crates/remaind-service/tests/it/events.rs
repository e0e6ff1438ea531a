//! The slices and the follower `remaind events` prints, from a folder and from a store.

use camino::Utf8PathBuf;
use remaind_events::Filter;
use remaind_events::Kind;
use remaind_fs::ContextDir;
use remaind_ledger::{AppendRequest, Ledger};
use remaind_service::{Events, Followed, Slice};

/// A folder whose ledger holds `n` events: notes, every third a decision.
fn folder(n: usize) -> (tempfile::TempDir, ContextDir) {
    let tmp = remaind_testkit::scratch_dir("service-events");
    let root = Utf8PathBuf::from_path_buf(tmp.path().join(".context")).expect("a UTF-8 path");
    let ctx = ContextDir::new(root);
    remaind_resume::init(&ctx, false).expect("init");
    append(&ctx, 0..n);
    (tmp, ctx)
}

fn append(ctx: &ContextDir, range: std::ops::Range<usize>) {
    let ledger = Ledger::open(ctx.root()).expect("open");
    for i in range {
        let kind = if i % 3 == 2 {
            Kind::Decision
        } else {
            Kind::Note
        };
        let ev = remaind_testkit::event(kind, &format!("event number {}", i + 1));
        ledger.append(AppendRequest::from(ev)).expect("append");
    }
}

fn seqs(read: &Events) -> Vec<u64> {
    read.events.iter().map(|e| e.seq).collect()
}

fn decisions() -> Filter {
    Filter {
        kinds: vec![Kind::Decision],
        min_importance: None,
    }
}

/// From a seq forward, before a seq, the last ones; filtered by kind.
#[test]
fn a_folder_gives_the_slices_asked_for() {
    let (_tmp, ctx) = folder(10);
    let last = remaind_service::events(&ctx, &Slice::default()).expect("events");
    assert_eq!(seqs(&last), (1..=10).collect::<Vec<_>>());
    assert_eq!(last.head, 10);
    let from = Slice {
        from: Some(4),
        limit: 3,
        ..Slice::default()
    };
    assert_eq!(
        seqs(&remaind_service::events(&ctx, &from).expect("events")),
        [4, 5, 6]
    );
    let before = Slice {
        before: Some(8),
        limit: 2,
        filter: decisions(),
        ..Slice::default()
    };
    assert_eq!(
        seqs(&remaind_service::events(&ctx, &before).expect("events")),
        [3, 6]
    );
    let past = Slice {
        from: Some(50),
        ..Slice::default()
    };
    let none = remaind_service::events(&ctx, &past).expect("events");
    assert!(none.events.is_empty());
    assert_eq!(none.head, 10);
}

/// A follower gives every event appended after the slice, once, in order, filtered.
#[test]
fn a_follower_gives_what_is_appended_after_the_slice() {
    let (_tmp, ctx) = folder(4);
    let slice = Slice {
        filter: decisions(),
        ..Slice::default()
    };
    let read = remaind_service::events(&ctx, &slice).expect("events");
    assert_eq!(seqs(&read), [3]);
    let writer = {
        let ctx = ctx.clone();
        std::thread::spawn(move || append(&ctx, 4..9))
    };
    let mut seen = Vec::new();
    for step in read.follow() {
        match step.expect("a step") {
            Followed::Events(events) => seen.extend(events.iter().map(|e| e.seq)),
            Followed::Note(note) => panic!("a plain folder has nothing to say: {note}"),
        }
        if seen.len() >= 2 {
            break;
        }
    }
    writer.join().expect("the writer");
    assert_eq!(seen, [6, 9]);
}

/// A store's project read without a folder: the same slices, then followed.
#[test]
fn a_store_gives_the_same_slices_and_follows() {
    let (_tmp, ctx) = folder(10);
    let url = remaind_testkit::postgres_url();
    let project = remaind_testkit::unique_project("service-events");
    remaind_service::push(&ctx, &url, &project).expect("push");
    let setting = remaind_ledger::StoreSetting { url, project };
    for slice in [
        Slice::default(),
        Slice {
            from: Some(4),
            limit: 3,
            ..Slice::default()
        },
        Slice {
            before: Some(8),
            limit: 2,
            filter: decisions(),
            ..Slice::default()
        },
        Slice {
            from: Some(50),
            ..Slice::default()
        },
    ] {
        let folder = remaind_service::events(&ctx, &slice).expect("events");
        let store = remaind_service::store_events(&setting, &slice).expect("store events");
        assert_eq!(folder.events, store.events, "{slice:?}");
        assert_eq!(store.head, 10);
    }
    let read = remaind_service::store_events(&setting, &Slice::default()).expect("events");
    // A replica of the store appends through it.
    let replica = remaind_testkit::scratch_dir("service-events-replica");
    let root = Utf8PathBuf::from_path_buf(replica.path().join(".context")).expect("UTF-8");
    let replica = ContextDir::new(root);
    remaind_service::join(&replica, &setting.url, &setting.project).expect("join");
    append(&replica, 10..12);
    let mut seen = Vec::new();
    for step in read.follow() {
        if let Followed::Events(events) = step.expect("a step") {
            seen.extend(events.iter().map(|e| e.seq));
        }
        if seen.len() >= 2 {
            break;
        }
    }
    assert_eq!(seen, [11, 12]);
}
