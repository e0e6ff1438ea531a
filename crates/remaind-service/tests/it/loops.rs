//! The open loops as `remaind loops` lists and closes them.

use remaind_events::{EventId, Kind};
use remaind_fs::ContextDir;
use remaind_ledger::{AppendRequest, Ledger};
use remaind_service::{Error, open_loops, resolve_loop};

fn folder() -> (tempfile::TempDir, ContextDir) {
    crate::common::folder("service-loops")
}

fn append(ctx: &ContextDir, kind: Kind, text: &str) -> EventId {
    let ledger = Ledger::open(ctx.root()).expect("open");
    ledger
        .append(AppendRequest::from(remaind_testkit::event(kind, text)))
        .expect("append")[0]
}

/// A blocker is an open loop until a result resolves it; its loop file follows.
#[test]
fn a_blocker_is_open_until_resolved() {
    let (_tmp, ctx) = folder();
    append(&ctx, Kind::Note, "not a loop");
    let blocker = append(&ctx, Kind::Blocker, "the runner has no S3 credentials");
    let open = open_loops(&ctx, 10).expect("list");
    assert_eq!(open.iter().map(|e| e.id).collect::<Vec<_>>(), vec![blocker]);
    let loop_files = ctx.join(remaind_fs::layout::MEMORY_LOOPS_DIR);
    assert_eq!(std::fs::read_dir(&loop_files).expect("loops").count(), 1);
    let result = resolve_loop(&ctx, blocker, "OPS-142 closed").expect("resolve");
    let ledger = Ledger::open(ctx.root()).expect("open");
    let ev = ledger.get(result.seq()).expect("read").expect("the result");
    assert_eq!(ev.kind, Kind::Result);
    assert_eq!(ev.resolves, vec![blocker]);
    assert!(open_loops(&ctx, 10).expect("list").is_empty());
    assert_eq!(std::fs::read_dir(&loop_files).expect("loops").count(), 0);
}

/// What is not an open loop, a blank text and a zero limit are refused, and nothing is
/// appended.
#[test]
fn what_is_no_open_loop_is_refused() {
    let (_tmp, ctx) = folder();
    let note = append(&ctx, Kind::Note, "a note");
    let blocker = append(&ctx, Kind::Blocker, "blocked");
    let err = resolve_loop(&ctx, note, "done").expect_err("a note");
    assert!(
        matches!(err, Error::NotAnOpenLoop { id } if id == note),
        "{err}"
    );
    let err = resolve_loop(&ctx, blocker, "  ").expect_err("no text");
    assert!(err.is_invalid_input(), "{err}");
    let err = open_loops(&ctx, 0).expect_err("no limit");
    assert!(err.is_invalid_input(), "{err}");
    let ledger = Ledger::open(ctx.root()).expect("open");
    assert_eq!(ledger.head().expect("head").0, blocker.seq());
}
