//! Bad input: rejected with a message naming the field (and the line in a batch), nothing
//! written.

use remaind_events::{Kind, NewEvent, Tool};

use remaind_ledger::AppendRequest;

use crate::common::{self, event};

#[test]
fn batch_rejection_names_the_line_and_writes_nothing() {
    let (_tmp, dir, ledger) = common::ledger();
    ledger.append(event(Kind::Note, "first")).expect("append");
    let before = common::files(&dir);
    let input = b"{\"kind\":\"note\",\"text\":\"a\"}\n\n{\"kind\":\"decision\",\"text\":\"b\"}\n{\"kind\":\"decision\",\"text\":\"c\",\"importance\":1}\n";
    let err = ledger
        .append(remaind_ledger::AppendRequest::json_lines(input))
        .expect_err("rejected");
    assert!(err.is_invalid_input());
    assert!(err.to_string().starts_with("line 4: "), "{err}");
    let msg = err.to_string();
    assert!(msg.starts_with("line 4: field `importance`"), "{msg}");
    assert_eq!(common::files(&dir), before);

    // Citations inside a batch: a line may cite an earlier line of the same batch only.
    let ok = b"{\"kind\":\"next_step\",\"text\":\"x\"}\n{\"kind\":\"result\",\"text\":\"y\",\"resolves\":[\"e2\"]}\n";
    assert_eq!(
        ledger
            .append(remaind_ledger::AppendRequest::json_lines(ok))
            .expect("accepted")
            .len(),
        2
    );
    let before = common::files(&dir);
    let bad = b"{\"kind\":\"note\",\"text\":\"x\",\"refs\":[\"e6\"]}\n{\"kind\":\"note\",\"text\":\"y\"}\n";
    let err = ledger
        .append(remaind_ledger::AppendRequest::json_lines(bad))
        .expect_err("cites itself");
    assert!(err.to_string().starts_with("line 1: "), "{err}");
    assert!(err.to_string().contains("`refs`"), "{err}");
    let bad = b"{\"kind\":\"note\",\"text\":\"x\"}\n{\"kind\":\"note\",\"text\":\"y\",\"refs\":[\"e4\"]}\n{\"kind\":\"note\",\"text\":\"y\",\"refs\":[\"e7\"]}\n";
    let err = ledger
        .append(remaind_ledger::AppendRequest::json_lines(bad))
        .expect_err("cites a later line");
    assert!(err.to_string().starts_with("line 3: "), "{err}");
    assert_eq!(common::files(&dir), before);
    let err = ledger
        .append(remaind_ledger::AppendRequest::json_lines(
            b"{\"kind\":\"note\"}\n{not json\n",
        ))
        .expect_err("malformed");
    assert!(err.to_string().starts_with("line 2: "), "{err}");
    assert!(err.to_string().contains("malformed JSON"), "{err}");
    assert_eq!(common::files(&dir), before);
}

#[test]
fn oversize_line_is_rejected_after_routing() {
    let (_tmp, dir, ledger) = common::ledger();
    ledger.append(event(Kind::Note, "first")).expect("append");
    let before = common::files(&dir);
    // Text is routed to an artifact, so a long text is fine ...
    let long = "x".repeat(3 << 20);
    ledger
        .append(event(Kind::Note, &long))
        .expect("routed to an artifact");
    // ... and so is a large data object.
    let (_tmp2, dir2, ledger2) = common::ledger();
    ledger2.append(event(Kind::Note, "first")).expect("append");
    let before2 = common::files(&dir2);
    let mut data = serde_json::Map::new();
    for i in 0..60_000 {
        data.insert(format!("k{i}"), serde_json::Value::from(i));
    }
    let mut ev = event(Kind::Note, "refs");
    ev.refs = vec![remaind_events::EventId(1)];
    ev.data = Some(data);
    let id = ledger2.append(ev).expect("data routed to an artifact")[0];
    let stored = ledger2.get(id.seq()).expect("read").expect("event");
    assert_eq!(stored.artifact[0].field, "data");
    assert_eq!(stored.artifact[0].media_type, "application/json");
    assert_ne!(common::files(&dir2), before2);
    assert_ne!(common::files(&dir), before);

    // A line over max_line_bytes is rejected.
    let (_tmp3, dir3) = common::context();
    std::fs::create_dir_all(dir3.join("schemas")).expect("mkdir");
    std::fs::write(
        dir3.join("schemas/thresholds.json"),
        r#"{"artifact_threshold_bytes": 4000, "max_line_bytes": 2048, "context_window": 1}"#,
    )
    .expect("write thresholds");
    let ledger3 = remaind_ledger::Ledger::open(&dir3).expect("open");
    let before3 = common::files(&dir3);
    let err = ledger3
        .append(event(Kind::Note, &"y".repeat(3000)))
        .expect_err("oversize");
    assert!(err.is_invalid_input());
    assert!(err.to_string().contains("max_line_bytes"), "{err}");
    assert_eq!(common::files(&dir3), before3);
}

#[test]
fn binary_output_goes_to_an_artifact() {
    let (_tmp, dir, ledger) = common::ledger();
    let mut bytes = vec![0u8, 159, 146, 150, 1, 2, 3];
    bytes.extend_from_slice(b" AKIAQ7VLM2XK9PZR4TYW ");
    let req = AppendRequest::with_output(
        NewEvent {
            kind: Some(Kind::ToolResult),
            tool: Some(Tool {
                name: "cat".into(),
                input: "img.bin".into(),
                output: serde_json::Value::Null,
            }),
            ..NewEvent::default()
        },
        Some(bytes),
    );
    let id = ledger.append(req).expect("append")[0];
    let ev = ledger.get(id.seq()).expect("read").expect("event");
    assert_eq!(ev.artifact.len(), 1);
    let a = &ev.artifact[0];
    assert_eq!(a.field, "tool.output");
    assert_eq!(
        ev.tool.as_ref().map(|t| t.output.clone()),
        Some(format!("[artifact:{}]", &a.sha256[..12]).into())
    );
    let stored = ledger.artifacts().get(&a.sha256).expect("artifact");
    assert_eq!(stored.len() as u64, a.bytes);
    assert!(!stored.windows(20).any(|w| w == b"AKIAQ7VLM2XK9PZR4TYW"));
    assert!(dir.join(&a.path).is_file());
    assert!(ev.redactions.iter().any(|r| r.rule == "aws_access_key_id"));

    // Small UTF-8 output stays inline.
    let req = AppendRequest::with_output(
        NewEvent {
            kind: Some(Kind::ToolResult),
            tool: Some(Tool {
                name: "echo".into(),
                input: serde_json::Value::Null,
                output: serde_json::Value::Null,
            }),
            ..NewEvent::default()
        },
        Some(b"hello\n".to_vec()),
    );
    let id = ledger.append(req).expect("append")[0];
    let ev = ledger.get(id.seq()).expect("read").expect("event");
    assert!(ev.artifact.is_empty());
    assert_eq!(ev.tool.map(|t| t.output), Some("hello\n".into()));

    // Output bytes without a tool name are rejected.
    let before = common::files(&dir);
    let err = ledger
        .append(AppendRequest::with_output(
            event(Kind::ToolResult, "x"),
            Some(vec![1]),
        ))
        .expect_err("no tool");
    assert!(err.to_string().contains("tool.name"), "{err}");
    assert_eq!(common::files(&dir), before);
}

#[test]
fn create_is_idempotent_and_private() {
    use std::os::unix::fs::PermissionsExt;
    let (_tmp, dir, ledger) = common::ledger();
    ledger.append(event(Kind::Note, "keep me")).expect("append");
    let before = common::files(&dir);
    remaind_ledger::Ledger::create(&dir).expect("create again");
    assert_eq!(common::files(&dir), before);
    for f in ["logs/events.jsonl", "redaction.key"] {
        let mode = std::fs::metadata(dir.join(f))
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{f}");
    }
    for d in ["logs", "logs/quarantine", "artifacts"] {
        let mode = std::fs::metadata(dir.join(d))
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700, "{d}");
    }
}

#[test]
fn a_batch_stores_all_its_artifacts() {
    let (_tmp, _dir, ledger) = common::ledger();
    let batch: Vec<NewEvent> = (0..10)
        .map(|i| NewEvent {
            kind: Some(Kind::ToolResult),
            tool: Some(Tool {
                name: "bash".into(),
                input: serde_json::Value::Null,
                output: format!("run {i}\n").repeat(5000).into(),
            }),
            ..NewEvent::default()
        })
        .collect();
    let ids = ledger.append(batch).expect("batch");
    assert_eq!(ids.len(), 10);
    let report = ledger.verify().expect("verify");
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(report.artifacts_checked, 10);
    assert_eq!(ledger.artifacts().list().expect("list").len(), 10);
    for id in ids {
        let ev = ledger.get(id.seq()).expect("read").expect("event");
        let a = &ev.artifact[0];
        let bytes = ledger.artifacts().get(&a.sha256).expect("artifact");
        assert_eq!(
            bytes,
            format!("run {}\n", id.seq() - 1).repeat(5000).into_bytes()
        );
        assert!(a.head.starts_with("run "));
    }
}
