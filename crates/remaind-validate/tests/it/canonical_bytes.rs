//! The stored layout of state.json: one field of the state and one item or link per line,
//! parsing back to the same state.

use remaind_events::EventId;
use remaind_validate::{Instruction, Item, Link, NextStep, State};

fn state() -> State {
    State {
        v: 1,
        through_seq: 42,
        log_digest: "ab".repeat(32),
        generated_at: "2026-11-22T01:00:00.000000Z".into(),
        compactor: "builtin".into(),
        goal: vec![Item {
            text: "Import the \"orders\" table".into(),
            events: vec![EventId(1)],
        }],
        latest_user_instruction: Some(Instruction {
            event: EventId(30),
            text: "Go on.\nThen stop.".into(),
        }),
        completed_work: vec![
            Item {
                text: "Importer streams rows".into(),
                events: vec![EventId(12), EventId(15)],
            },
            Item {
                text: "Header parser done".into(),
                events: vec![EventId(20)],
            },
        ],
        decisions: Vec::new(),
        constraints: Vec::new(),
        blockers: Vec::new(),
        remember: Vec::new(),
        files_changed: Vec::new(),
        open_loops: Vec::new(),
        next_step: Some(NextStep {
            text: "Write the footer parser".into(),
            events: vec![EventId(40)],
            tool: None,
        }),
        superseded: vec![Link {
            event: EventId(3),
            by: EventId(9),
        }],
        resolved: Vec::new(),
        user_asked: Vec::new(),
        user_settled: Vec::new(),
    }
}

#[test]
fn canonical_bytes_put_one_item_per_line_and_parse_back() {
    let s = state();
    let bytes = s.to_canonical_bytes();
    let text = String::from_utf8(bytes.clone()).expect("UTF-8");
    let expected = r#"{
  "v": 1,
  "through_seq": 42,
  "log_digest": "abababababababababababababababababababababababababababababababab",
  "generated_at": "2026-11-22T01:00:00.000000Z",
  "compactor": "builtin",
  "goal": [
    {"text": "Import the \"orders\" table", "events": ["e1"]}
  ],
  "latest_user_instruction": {
    "event": "e30",
    "text": "Go on.\nThen stop."
  },
  "completed_work": [
    {"text": "Importer streams rows", "events": ["e12", "e15"]},
    {"text": "Header parser done", "events": ["e20"]}
  ],
  "decisions": [],
  "constraints": [],
  "blockers": [],
  "remember": [],
  "files_changed": [],
  "open_loops": [],
  "next_step": {
    "text": "Write the footer parser",
    "events": ["e40"]
  },
  "superseded": [
    {"event": "e3", "by": "e9"}
  ],
  "resolved": []
}
"#;
    assert_eq!(text, expected);
    let back: State = serde_json::from_slice(&bytes).expect("parses");
    assert_eq!(back, s);
    // The same value as the plain serialization.
    let a: serde_json::Value = serde_json::from_slice(&bytes).expect("value");
    assert_eq!(a, serde_json::to_value(&s).expect("value"));
}
