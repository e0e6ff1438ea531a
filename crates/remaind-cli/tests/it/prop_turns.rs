//! Properties of turns, on generated Claude Code sessions (prompts, plan updates, edits,
//! questions answered, texts, turns that end or are interrupted): recording a session through the hooks and
//! importing its transcript end in the same verdict, the same next step and the same turn
//! outcome; a turn's end leaves no step current; and a new instruction after an ended turn
//! makes the next step grounded again.

use camino::{Utf8Path, Utf8PathBuf};
use proptest::prelude::*;
use remaind_adapters::{HookEvent, Runtime, hook_records, read_transcript, record};
use remaind_events::Kind;
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;
use remaind_resume::{Budget, ReasonCode};
use serde_json::{Value, json};

/// One step of a generated session.
#[derive(Debug, Clone)]
enum Step {
    Prompt(u8),
    Plan(Vec<(usize, u8)>),
    Edit,
    Ask(u8),
    Text(u8),
    /// The turn ends on the agent's final message (Claude Code's Stop).
    End(u8),
    /// The user interrupts the agent (no Stop fires; only the transcript says so).
    Interrupt,
}

const TODOS: [&str; 4] = ["Read the code", "Write the test", "Fix the bug", "Ship"];

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        2 => any::<u8>().prop_map(Step::Prompt),
        3 => prop::collection::vec((0..TODOS.len(), 0u8..3), 0..4).prop_map(Step::Plan),
        1 => Just(Step::Edit),
        1 => any::<u8>().prop_map(Step::Ask),
        1 => any::<u8>().prop_map(Step::Text),
        2 => any::<u8>().prop_map(Step::End),
        1 => Just(Step::Interrupt),
    ]
}

/// The session as a transcript: a text step is an assistant message the next line follows;
/// an end is the turn's last text, followed by nothing but the next prompt.
fn render(steps: &[Step]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut n = 0;
    let mut line = |kind: &str, message: Value, extra: Option<Value>| {
        n += 1;
        let mut v = json!({"type": kind, "uuid": format!("u{n}"), "sessionId": "s1",
            "timestamp": format!("2026-01-01T00:{:02}:{:02}Z", n / 60 % 60, n % 60),
            "isSidechain": false, "cwd": "/work/app", "message": message});
        if let Some(extra) = extra {
            v["toolUseResult"] = extra;
        }
        out.extend_from_slice(v.to_string().as_bytes());
        out.push(b'\n');
        n
    };
    for (i, s) in steps.iter().enumerate() {
        let id = format!("t{i}");
        let call = |name: &str, input: Value| {
            json!({"role": "assistant", "model": "claude-test",
                "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]})
        };
        let result = |content: &str| {
            json!({"role": "user",
                "content": [{"type": "tool_result", "tool_use_id": id, "content": content}]})
        };
        match s {
            Step::Prompt(k) => {
                line(
                    "user",
                    json!({"role": "user", "content": format!("task number {k}")}),
                    None,
                );
            }
            Step::Text(k) | Step::End(k) => {
                line(
                    "assistant",
                    json!({"role": "assistant", "model": "claude-test",
                        "content": [{"type": "text", "text": format!("note {k} from step {i}")}]}),
                    None,
                );
                if matches!(s, Step::Text(_)) {
                    // Something follows the text within the turn: a read.
                    line(
                        "assistant",
                        call("Read", json!({"file_path": "src/a.rs"})),
                        None,
                    );
                    line("user", result("fn main() {}"), None);
                }
            }
            Step::Plan(items) => {
                let todos: Vec<Value> = items
                    .iter()
                    .map(|(t, st)| {
                        let status = ["pending", "in_progress", "completed"][*st as usize];
                        json!({"content": TODOS[*t], "status": status, "activeForm": TODOS[*t]})
                    })
                    .collect();
                line(
                    "assistant",
                    call("TodoWrite", json!({ "todos": todos })),
                    None,
                );
                line(
                    "user",
                    result("Todos have been modified successfully."),
                    None,
                );
            }
            Step::Edit => {
                let input = json!({"file_path": "src/a.rs", "old_string": "a", "new_string": "b"});
                line("assistant", call("Edit", input), None);
                line("user", result("The file has been updated."), None);
            }
            Step::Interrupt => {
                line(
                    "user",
                    json!({"role": "user",
                        "content": [{"type": "text", "text": "[Request interrupted by user]"}]}),
                    None,
                );
            }
            Step::Ask(k) => {
                let q = format!("Which option for step {i}?");
                let input = json!({"questions": [{"question": q, "options": []}]});
                line("assistant", call("AskUserQuestion", input), None);
                let answer = json!({"answers": { q: format!("option {k}") }});
                line("user", result("answered"), Some(answer));
            }
        }
    }
    out
}

fn context(dir: &Utf8Path) -> (ContextDir, Ledger) {
    let ctx = ContextDir::new(dir.join(".context"));
    remaind_resume::init(&ctx, false).expect("init");
    let ledger = Ledger::open(ctx.root()).expect("open");
    (ctx, ledger)
}

/// Compact with the built-in compactor (accepted, or the property fails) and resume.
fn verdict(ctx: &ContextDir, ledger: &Ledger) -> Value {
    let store = remaind_compact::open_store(ctx.root()).expect("store");
    if ledger.head().expect("head").0 > 0 {
        let outcome = remaind_compact::compact(
            ledger,
            &store,
            remaind_compact::Source::Builtin,
            remaind_compact::Options::default(),
        )
        .expect("compact");
        assert!(
            outcome.verdict.accepted,
            "the built-in candidate is rejected: {:?}",
            outcome.verdict.failures
        );
    }
    let r = remaind_resume::build_packet(ctx, Budget::Unlimited).expect("resume");
    let reasons: Vec<String> = r.gate.reasons.iter().map(|x| x.code.to_string()).collect();
    json!({
        "reasons": reasons,
        "next_step": r.next_step.as_ref().map(|s| s.text.clone()),
        "turn_ended": r.turn_ended.as_ref().map(|t| t.how.clone()),
        "outcome": r.turn_ended.as_ref().and_then(|t| t.outcome.clone()),
    })
}

/// The session through the hooks as `remaind hook` runs them: the transcript written up to
/// each record's line before its hook, the hooks at a turn's edges following it, and a
/// SessionEnd at the end.
fn replay(ledger: &Ledger, bytes: &[u8], live: &Utf8Path) {
    let mut ends = std::collections::HashMap::new();
    let mut at = 0;
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        at += line.len();
        let v: Value = serde_json::from_slice(line).expect("a generated line");
        ends.insert(v["uuid"].as_str().expect("uuid").to_owned(), at);
    }
    std::fs::write(live, b"").expect("create");
    let follow =
        || remaind_adapters::follow_transcript(ledger, Runtime::ClaudeCode, live).expect("follow");
    let (records, _) = read_transcript(Runtime::ClaudeCode, bytes);
    for rec in &records {
        if let Some(upto) = rec.source.line.as_ref().and_then(|l| ends.get(l)) {
            std::fs::write(live, &bytes[..*upto]).expect("write");
        }
        let payloads = remaind_adapters::replay_payloads(
            Runtime::ClaudeCode,
            std::slice::from_ref(rec),
            "/work/app",
            Some(live.as_str()),
        );
        for (hook, payload) in payloads {
            if matches!(hook, HookEvent::UserPromptSubmit | HookEvent::Stop) {
                follow();
            }
            let payload = payload.as_object().expect("object").clone();
            let recs = hook_records(Runtime::ClaudeCode, hook, &payload).expect("hook payload");
            record(ledger, recs).expect("record");
        }
    }
    std::fs::write(live, bytes).expect("write");
    follow();
}

fn tempdir() -> (tempfile::TempDir, Utf8PathBuf) {
    let t = tempfile::tempdir().expect("tempdir");
    let p = Utf8PathBuf::from_path_buf(t.path().to_owned()).expect("utf-8");
    (t, p)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn prop_replay_and_import_resume_alike(steps in prop::collection::vec(step(), 1..24)) {
        let bytes = render(&steps);
        let (_a, a) = tempdir();
        let (ctx_import, ledger_import) = context(&a);
        let file = a.join("session.jsonl");
        std::fs::write(&file, &bytes).expect("write");
        remaind_adapters::import(&ledger_import, Runtime::ClaudeCode, &[file], |_| {})
            .expect("import");
        let imported = verdict(&ctx_import, &ledger_import);

        let (_b, b) = tempdir();
        let (ctx_replay, ledger_replay) = context(&b);
        let live = b.join("live.jsonl");
        replay(&ledger_replay, &bytes, &live);
        let replayed = verdict(&ctx_replay, &ledger_replay);
        prop_assert_eq!(&imported, &replayed);

        // A turn's end leaves no step current; a new instruction after it grounds the next
        // step again.
        let events: Vec<_> = ledger_import.iter().expect("iter").map(|e| e.expect("event")).collect();
        let last_user = events.iter().rposition(|e| e.kind == Kind::UserMessage);
        let last_end = events.iter().rposition(|e| {
            e.data.as_ref().is_some_and(|d| d.get("turn_end").is_some())
        });
        match (last_user, last_end) {
            (Some(u), Some(e)) if e > u => {
                prop_assert_eq!(&imported["next_step"], &Value::Null);
                prop_assert_eq!(&imported["reasons"], &json!([ReasonCode::NoNextStep.to_string()]));
            }
            (Some(_), _) => {
                prop_assert!(imported["next_step"].is_string(), "{}", imported);
                prop_assert_eq!(&imported["reasons"], &json!([]));
            }
            (None, _) => {}
        }
    }
}
