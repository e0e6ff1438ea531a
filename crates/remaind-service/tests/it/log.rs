//! Appending events as `remaind log` is given them.

use remaind_events::Kind;
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;
use remaind_service::{LogFlags, LogRequest, log};

fn folder() -> (tempfile::TempDir, ContextDir) {
    crate::common::folder("service-log")
}

/// Flags become one event, with the ids trimmed and the tool named.
#[test]
fn flags_become_one_event() {
    let (_tmp, ctx) = folder();
    let first = log(
        &ctx,
        LogRequest::from_flags(
            &LogFlags {
                kind: Some("decision".to_owned()),
                text: Some("Use SQLite".to_owned()),
                ..LogFlags::default()
            },
            None,
        )
        .expect("flags"),
    )
    .expect("log");
    let flags = LogFlags {
        kind: Some("correction".to_owned()),
        text: Some("Use PostgreSQL".to_owned()),
        supersedes: vec![format!(" {} ", first[0])],
        tool: Some("psql".to_owned()),
        data: Some("{\"why\": \"scale\"}".to_owned()),
        importance: Some(3),
        ..LogFlags::default()
    };
    let ids = log(&ctx, LogRequest::from_flags(&flags, None).expect("flags")).expect("log");
    assert_eq!(ids.len(), 1);
    let ledger = Ledger::open(ctx.root()).expect("open");
    let ev = ledger.get(ids[0].seq()).expect("read").expect("the event");
    assert_eq!(ev.kind, Kind::Correction);
    assert_eq!(ev.supersedes, first);
    assert_eq!(ev.importance, 3);
    assert_eq!(ev.tool.as_ref().map(|t| t.name.as_str()), Some("psql"));
    assert_eq!(ev.data.as_ref().expect("data")["why"], "scale");
}

/// Bad input is refused when the request is made, before any folder is touched.
#[test]
fn bad_input_is_refused_before_the_ledger() {
    let no_kind = LogRequest::from_flags(&LogFlags::default(), None).expect_err("no kind");
    assert!(no_kind.is_invalid_input());
    assert!(no_kind.to_string().contains("give --kind"), "{no_kind}");
    let bad_data = LogRequest::from_flags(
        &LogFlags {
            kind: Some("note".to_owned()),
            data: Some("{".to_owned()),
            ..LogFlags::default()
        },
        None,
    )
    .expect_err("bad data");
    assert!(bad_data.is_invalid_input());
    assert_eq!(bad_data.to_string(), "field `data`: malformed JSON");
    assert!(std::error::Error::source(&bad_data).is_some());
    let bad_json = LogRequest::from_json("{\"kind\": ", None).expect_err("bad JSON");
    assert_eq!(bad_json.to_string(), "--json-event: malformed JSON");
    let empty = LogRequest::from_json_lines(b" \n\n".to_vec()).expect_err("no events");
    assert!(empty.is_invalid_input());
    let unknown = LogRequest::from_json("{\"kind\": \"frobnicate\"}", None).expect_err("kind");
    assert!(unknown.is_invalid_input());
}

/// JSON Lines are one batch: every line is appended, or none when one is bad.
#[test]
fn json_lines_are_one_batch() {
    let (_tmp, ctx) = folder();
    let lines = b"{\"kind\":\"note\",\"text\":\"one\"}\n{\"kind\":\"note\",\"text\":\"two\"}\n";
    let ids = log(
        &ctx,
        LogRequest::from_json_lines(lines.to_vec()).expect("lines"),
    )
    .expect("log");
    assert_eq!(ids.len(), 2);
    let bad = b"{\"kind\":\"note\",\"text\":\"three\"}\n{\"kind\":\"nope\"}\n";
    let err = log(
        &ctx,
        LogRequest::from_json_lines(bad.to_vec()).expect("lines"),
    )
    .expect_err("a bad line");
    assert!(err.is_invalid_input(), "{err}");
    let ledger = Ledger::open(ctx.root()).expect("open");
    assert_eq!(ledger.head().expect("head").0, ids[1].seq());
}
