//! Golden tests of the event schema: one snapshot per fixture under `fixtures/events/`.
//!
//! `valid/*.json` are appended (bookkeeping kinds through `AppendRequest::system`) and the stored event
//! is snapshotted with `ts` and `prev` masked; `invalid/*.json` must be rejected (through
//! `AppendRequest::system` when the file name starts with `system-`), leave every file under
//! `.context/` byte-identical, and the error text is snapshotted.
//! Each case starts from the same five events, so `e1`..`e5` exist.

use remaind_events::Kind;

use remaind_ledger::{AppendRequest, Ledger, new_event_from_value, parse_json_strict};
use serde_json::Value;

use crate::common::{self, event};

fn preamble(ledger: &Ledger) {
    for (kind, text) in [
        (Kind::UserMessage, "Build the ledger."),
        (Kind::NextStep, "Write the event model."),
        (Kind::ToolCall, "cargo check"),
        (Kind::Result, "The event model compiles."),
        (Kind::Note, "The tokenizer is unicode61."),
    ] {
        ledger.append(event(kind, text)).expect("preamble append");
    }
}

#[test]
fn golden_event_schema() {
    insta::glob!("../fixtures", "events/*/*.json", |path| {
        let (_tmp, dir, ledger) = common::ledger();
        preamble(&ledger);
        let text = std::fs::read_to_string(path).expect("read fixture");
        let group = path
            .parent()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .unwrap_or("");
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        match group {
            "valid" => {
                let value = parse_json_strict(text.as_bytes()).expect("valid fixture is JSON");
                let ev = new_event_from_value(value).expect("valid fixture parses");
                let system = ev.kind.is_some_and(Kind::is_bookkeeping);
                let id = if system {
                    ledger.append(AppendRequest::from(ev).system())
                } else {
                    ledger.append(ev)
                }
                .expect("valid fixture is accepted")[0];
                let stored = ledger.get(id.seq()).expect("read").expect("stored event");
                assert_eq!(stored.seq, 6);
                let log = String::from_utf8(common::log_bytes(&dir)).expect("utf-8 log");
                let last = log.lines().last().expect("a last line");
                assert_eq!(last, serde_json::to_string(&stored).expect("serialize"));
                assert!(ledger.verify().expect("verify").is_ok());
                let mut v = serde_json::to_value(&stored).expect("to value");
                v["ts"] = Value::from("[ts]");
                v["prev"] = Value::from("[prev]");
                insta::assert_snapshot!(serde_json::to_string_pretty(&v).expect("pretty"));
            }
            "invalid" => {
                let before = common::files(&dir);
                let err = match parse_json_strict(text.as_bytes()) {
                    // Not JSON: what the append path says of it.
                    Err(_) => ledger.append(AppendRequest::json_lines(text.as_bytes())),
                    Ok(value) => new_event_from_value(value).and_then(|ev| {
                        if name.starts_with("system-") {
                            ledger.append(AppendRequest::from(ev).system())
                        } else {
                            ledger.append(ev)
                        }
                    }),
                }
                .expect_err("invalid fixture is rejected");
                assert!(err.is_invalid_input(), "{err}");
                assert_eq!(
                    common::files(&dir),
                    before,
                    "a rejected event changed .context/"
                );
                insta::assert_snapshot!(err.to_string());
            }
            other => panic!("unexpected fixture group {other}"),
        }
    });
}
