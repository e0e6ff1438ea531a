//! A state item that an event after the compaction resolved or superseded no longer stands:
//! the packet lists it as history, never as pending, and agrees with `loops list`'s source
//! (the ledger's statuses).

use remaind_events::Status;

use remaind_ledger::Ledger;
use remaind_resume::{Budget, build_packet};
use serde_json::json;

use crate::common::{append, compact_builtin, fresh, normalize};

#[test]
fn steps_and_loops_settled_after_the_compaction_are_not_pending() {
    let (_tmp, ctx) = fresh();
    append(
        &ctx,
        &[
            json!({"kind": "user_message", "actor": "user", "text": "Make the uploader survive network blips"}),
            json!({"kind": "next_step", "actor": "assistant", "text": "Add retry loop to upload()"}),
            json!({"kind": "blocker", "actor": "assistant", "text": "Run cargo test once the S3 mock is up"}),
            json!({"kind": "decision", "actor": "assistant", "text": "Retries back off exponentially, 5 at most"}),
        ],
    );
    compact_builtin(&ctx);
    append(
        &ctx,
        &[
            json!({"kind": "result", "actor": "assistant", "text": "upload() retries 5 times with backoff", "resolves": ["e2"]}),
            json!({"kind": "result", "actor": "assistant", "text": "cargo test: 14 passed", "resolves": ["e3"]}),
            json!({"kind": "correction", "actor": "user", "text": "At most 3 retries", "supersedes": ["e4"]}),
            json!({"kind": "assistant_message", "actor": "assistant", "text": "Done: retries with backoff, capped at 3; tests pass."}),
        ],
    );
    let packet = build_packet(&ctx, Budget::Configured)
        .expect("resume")
        .packet;
    let state = &packet[packet.find("## State").expect("a state section")..];
    let state = &state[..state[3..].find("\n## ").map_or(state.len(), |i| i + 3)];
    let (standing, history) = state
        .split_once("### History (not current)")
        .expect("a history part");
    for settled in [
        "Add retry loop",
        "Run cargo test once",
        "back off exponentially",
    ] {
        assert!(
            !standing.contains(settled),
            "{settled:?} is shown as standing:\n{state}"
        );
    }
    assert!(
        history.contains("[e2] resolved by [e6] (since the state)"),
        "{history}"
    );
    assert!(
        history.contains("[e3] resolved by [e7] (since the state)"),
        "{history}"
    );
    assert!(
        history.contains("[e4] superseded by [e8] (since the state)"),
        "{history}"
    );
    // The ledger's own statuses (what `loops list` reads) say the same.
    let ledger = Ledger::open(ctx.root()).expect("open");
    for id in [2, 3] {
        assert!(matches!(
            ledger.status(remaind_events::EventId(id)),
            Ok(Some(Status::Resolved { .. }))
        ));
    }
    insta::assert_snapshot!(normalize(&packet));
}
