//! The `validator` and `handover_parser` fuzz targets' inputs as property tests (no nightly
//! needed): arbitrary and near-valid state JSON with an arbitrary handover against a small
//! ledger, and arbitrary handover text. Law: never a panic; findings are a verdict.

use proptest::prelude::*;
use remaind_validate::{Handover, MemoryLedger, State, citations, parse_binding};
use serde_json::{Value, json};

use crate::common;

fn ledger() -> MemoryLedger {
    common::ledger_from_new_events(
        r#"{"kind":"user_message","text":"Build the parser"}
{"kind":"decision","text":"Use serde"}
{"kind":"result","text":"Parser done"}
{"kind":"remember","text":"Never print from libraries"}
{"kind":"next_step","text":"Write the fuzz targets"}
{"kind":"correction","text":"serde_json, not serde","supersedes":["e2"]}"#,
    )
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (0u64..9).prop_map(|n| Value::from(format!("e{n}"))),
        ".{0,12}".prop_map(Value::from),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-z_]{1,16}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

const SECTIONS: &[&str] = &[
    "goal",
    "completed_work",
    "decisions",
    "constraints",
    "blockers",
    "remember",
    "files_changed",
    "open_loops",
    "superseded",
    "next_step",
    "latest_user_instruction",
    "v",
    "through_seq",
    "log_digest",
    "generated_at",
    "compactor",
];

/// A state that is valid in shape, with one field replaced by something random.
fn near_valid_state() -> impl Strategy<Value = Value> {
    (prop::sample::select(SECTIONS), json_value(), 0u64..9).prop_map(|(field, v, seq)| {
        let item = |ids: &[&str]| json!({ "text": "x", "events": ids });
        let mut state = json!({
            "v": 1,
            "through_seq": seq,
            "log_digest": "0".repeat(64),
            "generated_at": "2026-11-21T21:00:00Z",
            "compactor": "builtin",
            "goal": [item(&["e1"])],
            "latest_user_instruction": { "event": "e1", "text": "Build the parser" },
            "completed_work": [item(&["e3"])],
            "decisions": [item(&["e6"])],
            "constraints": [],
            "blockers": [],
            "remember": [item(&["e4"])],
            "files_changed": [],
            "open_loops": [],
            "next_step": item(&["e5"]),
            "superseded": [{ "event": "e2", "by": "e6" }],
        });
        state[field] = v;
        state
    })
}

fn handover_text() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,200}",
        (prop::collection::vec(
            prop_oneof![
                Just("## Latest user instruction".to_owned()),
                Just("## Next step".to_owned()),
                Just("## Superseded".to_owned()),
                Just("<!-- remaind:state sha256=abc through_seq=3 -->".to_owned()),
                (0u64..9).prop_map(|n| format!("- item [e{n}]")),
                ".{0,30}",
            ],
            0..12
        ))
        .prop_map(|lines| lines.join("\n")),
    ]
}

proptest! {
    #[test]
    fn prop_fuzz_validator_never_panics(
        state in prop_oneof![json_value(), near_valid_state()],
        handover in handover_text(),
        with_prior in any::<bool>(),
    ) {
        let view = ledger();
        let verdict = remaind_validate::validate(&view, None, &state, &handover);
        prop_assert!(verdict.is_ok(), "an in-memory ledger never fails to read");
        if with_prior
            && let Ok(prior) = serde_json::from_value::<State>(state.clone())
        {
                let _ = remaind_validate::validate(&view, Some(&(&prior).into()), &state, &handover);
        }
    }

    #[test]
    fn prop_fuzz_handover_parser_never_panics(text in handover_text(), bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        for text in [text, String::from_utf8_lossy(&bytes).into_owned()] {
            let h = Handover::parse(&text);
            let _ = h.current_citations().count();
            let _ = parse_binding(&text);
            let ids = citations(&text);
            prop_assert_eq!(citations(&remaind_validate::render_citations(&ids)), ids);
        }
    }
}
