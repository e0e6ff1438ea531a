//! Schema failures name the offending field by JSON pointer.

use remaind_validate::{Check, MemoryLedger, check_state_schema, state_schema, validate};
use serde_json::{Value, json};

fn minimal() -> Value {
    json!({
        "v": 1, "through_seq": 0, "log_digest": "0".repeat(64),
        "generated_at": "2026-11-21T21:00:00Z", "compactor": "builtin",
        "goal": [], "latest_user_instruction": null, "completed_work": [], "decisions": [],
        "constraints": [], "blockers": [], "remember": [], "files_changed": [],
        "open_loops": [], "next_step": null, "superseded": [], "resolved": []
    })
}

#[test]
fn the_schema_is_the_embedded_file() {
    assert_eq!(state_schema()["title"], "Remaind derived state");
    assert!(check_state_schema(&minimal()).is_empty());
}

#[test]
fn failures_name_the_field() {
    let mut state = minimal();
    state["decisions"] = json!([{ "text": "x", "events": [] }]);
    state["log_digest"] = json!("XYZ");
    state["latest_user_instruction"] = json!({ "event": "e0", "text": "hi" });
    state.as_object_mut().map(|o| o.remove("goal"));
    let failures = check_state_schema(&state);
    let reasons: Vec<&str> = failures.iter().map(|f| f.reason.as_str()).collect();
    assert!(failures.iter().all(|f| f.check == Check::Schema));
    for pointer in [
        "/decisions/0/events: ",
        "/log_digest: ",
        "/latest_user_instruction: ",
        "/: ",
    ] {
        assert!(
            reasons.iter().any(|r| r.starts_with(pointer)),
            "no failure at {pointer}: {reasons:#?}"
        );
    }
    assert!(reasons.iter().any(|r| r.contains("goal")), "{reasons:#?}");
}

#[test]
fn schema_failures_stop_before_the_content_checks() {
    let mut state = minimal();
    state["v"] = json!(2);
    let verdict = validate(&MemoryLedger::new(), None, &state, "# Handover\n")
        .expect("memory ledger never fails");
    assert!(!verdict.accepted);
    assert_eq!(verdict.checks_run, vec![Check::Schema]);
    assert!(verdict.failures[0].reason.starts_with("/v: "));
    let verdict = validate(&MemoryLedger::new(), None, &json!("not an object"), "")
        .expect("memory ledger never fails");
    assert_eq!(verdict.failed_checks(), vec![Check::Schema]);
}
