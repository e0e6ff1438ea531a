//! Golden prompts for `fixtures/llm/ledger.jsonl`: round one, and round two after the
//! recorded answer that drops a decision.

use std::path::{Path, PathBuf};

use remaind_compact::{CompactorInput, candidate_from_value};
use remaind_events::NewEvent;
use remaind_llm::prompt;
use remaind_validate::{LedgerView, MemoryLedger, validate_typed};
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/llm")
}

/// The fixture session with deterministic timestamps, and its compaction input.
fn session() -> (MemoryLedger, CompactorInput) {
    let text = std::fs::read_to_string(fixtures().join("ledger.jsonl")).expect("fixture");
    let mut ledger = MemoryLedger::new();
    for (n, line) in text.lines().enumerate() {
        let new: NewEvent = serde_json::from_str(line).expect("NewEvent line");
        let ts = format!("2026-11-23T10:00:{:02}Z", n + 1);
        ledger.append(new, &ts).expect("valid event");
    }
    let head = ledger.head().expect("in memory");
    let events: Vec<_> = ledger
        .events_in(0, head)
        .map(|e| e.expect("in memory"))
        .collect();
    let digest = ledger.digest_at(head).expect("in memory").expect("head");
    let input = CompactorInput::new(None, &events, head, &digest);
    (ledger, input)
}

fn recorded(name: &str, digest: &str) -> Value {
    let text = std::fs::read_to_string(fixtures().join("answers").join(name)).expect("answer");
    serde_json::from_str(&text.replace("LOG_DIGEST", digest)).expect("recorded JSON")
}

#[test]
fn golden_prompt_round_one() {
    let (_, input) = session();
    insta::assert_snapshot!(prompt::build(&input));
}

#[test]
fn golden_prompt_repair_round() {
    let (ledger, input) = session();
    let answer = recorded("drops_decision.json", &input.log_digest);
    let cand = candidate_from_value(answer.clone()).expect("a readable candidate");
    let verdict = validate_typed(&ledger, None, &cand.state, &cand.handover).expect("in memory");
    assert!(!verdict.accepted);
    let repair = prompt::build_repair(&input, &answer, &verdict.failures);
    // Round two starts with round one's prompt, then the rejected answer and its failures.
    assert!(repair.starts_with(&prompt::build(&input)));
    insta::assert_snapshot!(&repair[prompt::build(&input).len()..]);
}

#[test]
fn the_recorded_good_answer_passes_the_validator() {
    let (ledger, input) = session();
    let cand = candidate_from_value(recorded("good.json", &input.log_digest)).expect("readable");
    let verdict = validate_typed(&ledger, None, &cand.state, &cand.handover).expect("in memory");
    assert!(verdict.accepted, "{:#?}", verdict.failures);
}

#[test]
fn long_tool_output_is_cut_but_the_latest_instruction_never_is() {
    let long_output = "x".repeat(10_000);
    let long_instruction = format!("Keep all of this: {}", "y".repeat(5_000));
    let mut ledger = MemoryLedger::new();
    let tool: NewEvent = serde_json::from_value(serde_json::json!({
        "kind": "tool_result", "text": "cat big.log",
        "tool": {"name": "Bash", "input": {"command": "cat big.log"}, "output": long_output}
    }))
    .expect("event");
    ledger.append(tool, "2026-11-23T10:00:01Z").expect("append");
    let user: NewEvent = serde_json::from_value(serde_json::json!({
        "kind": "user_message", "text": long_instruction
    }))
    .expect("event");
    ledger.append(user, "2026-11-23T10:00:02Z").expect("append");
    let events: Vec<_> = ledger
        .events_in(0, 2)
        .map(|e| e.expect("in memory"))
        .collect();
    let digest = ledger.digest_at(2).expect("in memory").expect("head");
    let text = prompt::build(&CompactorInput::new(None, &events, 2, &digest));
    assert!(!text.contains(&long_output));
    assert!(text.contains(&format!(
        "{}… [cut: 10000 bytes in all; `remaind events --from 1 --limit 1 --json`]",
        "x".repeat(prompt::MAX_FIELD_CHARS)
    )));
    assert!(text.contains(&long_instruction));
}
