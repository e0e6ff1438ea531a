//! The status as `remaind status` shows it: the lifecycle snapshot with the index's
//! freshness.

use remaind_events::Kind;
use remaind_fs::ContextDir;
use remaind_ledger::{AppendRequest, Ledger};
use remaind_service::{reindex, status};

fn append(ctx: &ContextDir, kind: Kind, text: &str) {
    let ledger = Ledger::open(ctx.root()).expect("open");
    ledger
        .append(AppendRequest::from(remaind_testkit::event(kind, text)))
        .expect("append");
}

/// The head and the next step come from the ledger; the index is fresh after a rebuild and
/// stale once an event is appended after it, and reading the status does not catch it up.
#[test]
fn the_status_tells_how_fresh_the_index_is() {
    let (_tmp, ctx) = crate::common::folder("service-status");
    append(&ctx, Kind::Decision, "parse rows with the csv crate");
    append(&ctx, Kind::NextStep, "write the row parser tests");
    reindex(&ctx, &mut |_, _| {}).expect("reindex");

    let fresh = status(&ctx).expect("status");
    assert_eq!(fresh.context.head_seq, 2);
    assert_eq!(
        fresh.context.next_step.as_ref().map(|n| n.text.as_str()),
        Some("write the row parser tests")
    );
    let index = fresh.index.expect("the index reads");
    assert_eq!(
        (index.indexed_seq, index.ledger_head, index.stale),
        (2, 2, false)
    );

    append(&ctx, Kind::Note, "one more");
    let stale = status(&ctx).expect("status");
    assert_eq!(stale.context.head_seq, 3);
    let index = stale.index.expect("the index reads");
    assert_eq!(
        (index.indexed_seq, index.ledger_head, index.stale),
        (2, 3, true)
    );
    let again = status(&ctx)
        .expect("status")
        .index
        .expect("the index reads");
    assert_eq!(
        again.indexed_seq, 2,
        "reading the status caught the index up"
    );

    let json = serde_json::to_value(&stale).expect("JSON");
    assert_eq!(json["head_seq"], 3);
    assert_eq!(
        json["index"],
        serde_json::json!({"indexed_seq": 2, "ledger_head": 3, "stale": true})
    );
    let keys: Vec<&String> = json.as_object().expect("an object").keys().collect();
    assert_eq!(keys.first().map(|k| k.as_str()), Some("head_seq"));
    assert_eq!(keys.last().map(|k| k.as_str()), Some("index"));
}
