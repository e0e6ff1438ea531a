//! Properties of `import`: for any generated Claude Code transcript, importing it again
//! appends nothing and leaves the ledger verifiable; arbitrary bytes as a transcript of
//! either runtime are counted and skipped, never a panic or an error.

use camino::{Utf8Path, Utf8PathBuf};
use proptest::prelude::*;
use remaind_adapters::{Runtime, import};
use remaind_ledger::Ledger;
use serde_json::json;

/// One step of a generated session.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    Prompt(String),
    Plan(Vec<(usize, u8)>),
    Edit(usize),
    Text(String),
    Damaged(Vec<u8>),
}

const TODOS: [&str; 5] = [
    "Read the code",
    "Write the test",
    "Fix the bug",
    "Ship",
    "Tidy up",
];
const FILES: [&str; 3] = ["src/a.rs", "src/b.rs", "README.md"];

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        "[a-z ]{1,40}".prop_map(Step::Prompt),
        prop::collection::vec((0..TODOS.len(), 0u8..3), 0..5).prop_map(Step::Plan),
        (0..FILES.len()).prop_map(Step::Edit),
        "[a-z ]{1,40}".prop_map(Step::Text),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(Step::Damaged),
    ]
}

/// The session as Claude Code JSON Lines.
pub(crate) fn render(steps: &[Step]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut n = 0;
    let line = |v: serde_json::Value, out: &mut Vec<u8>| {
        out.extend_from_slice(v.to_string().as_bytes());
        out.push(b'\n');
    };
    for s in steps {
        n += 1;
        let base = |kind: &str, n: usize| {
            json!({"type": kind, "uuid": format!("u{n}"), "sessionId": "s1",
                   "timestamp": "2026-01-01T00:00:00Z", "isSidechain": false})
        };
        match s {
            Step::Prompt(t) => {
                let mut v = base("user", n);
                v["message"] = json!({"role": "user", "content": t});
                line(v, &mut out);
            }
            Step::Text(t) => {
                let mut v = base("assistant", n);
                v["message"] =
                    json!({"role": "assistant", "content": [{"type": "text", "text": t}]});
                line(v, &mut out);
            }
            Step::Plan(_) | Step::Edit(_) => {
                let (name, input) = match s {
                    Step::Plan(items) => {
                        let todos: Vec<_> = items
                            .iter()
                            .map(|(i, st)| {
                                let status = ["pending", "in_progress", "completed"][*st as usize];
                                json!({"content": TODOS[*i], "status": status, "activeForm": TODOS[*i]})
                            })
                            .collect();
                        ("TodoWrite", json!({ "todos": todos }))
                    }
                    Step::Edit(f) => (
                        "Edit",
                        json!({"file_path": FILES[*f], "old_string": "a", "new_string": "b\nc"}),
                    ),
                    _ => unreachable!("only tool steps"),
                };
                let id = format!("t{n}");
                let mut call = base("assistant", n);
                call["message"] = json!({"role": "assistant",
                    "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]});
                line(call, &mut out);
                n += 1;
                let mut result = base("user", n);
                result["message"] = json!({"role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": id, "content": "ok"}]});
                line(result, &mut out);
            }
            Step::Damaged(bytes) => {
                out.extend(bytes.iter().filter(|b| **b != b'\n'));
                out.push(b'\n');
            }
        }
    }
    out
}

pub(crate) fn ledger(dir: &Utf8Path) -> Ledger {
    let ctx = dir.join(".context");
    Ledger::create(&ctx).expect("create");
    if remaind_testkit::on_store() {
        // The same suite on a shared store (REMAIND_TEST_ON_STORE): the folder is a replica.
        remaind_testkit::make_replica(&ctx, "import");
    }
    Ledger::open(&ctx).expect("open")
}

pub(crate) fn tempdir() -> (tempfile::TempDir, Utf8PathBuf) {
    let t = tempfile::tempdir().expect("tempdir");
    let p = Utf8PathBuf::from_path_buf(t.path().to_owned()).expect("utf-8");
    (t, p)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn prop_import_twice_appends_nothing(steps in prop::collection::vec(step(), 1..30)) {
        let (_t, dir) = tempdir();
        let file = dir.join("session.jsonl");
        std::fs::write(&file, render(&steps)).expect("write");
        let ledger = ledger(&dir);
        let first = import(&ledger, Runtime::ClaudeCode, std::slice::from_ref(&file), |_| {}).expect("import");
        let again = import(&ledger, Runtime::ClaudeCode, &[file], |_| {}).expect("import again");
        prop_assert_eq!(again.appended, 0);
        prop_assert_eq!(again.head, first.head);
        prop_assert_eq!(again.already_imported, first.records);
        prop_assert!(ledger.verify().expect("verify").problems.is_empty());
    }

    #[test]
    fn prop_fuzz_transcript_bytes_never_panic_or_fail(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let (_t, dir) = tempdir();
        let file = dir.join("junk.jsonl");
        std::fs::write(&file, &bytes).expect("write");
        let ledger = ledger(&dir);
        for runtime in [Runtime::ClaudeCode, Runtime::Codex] {
            let r = import(&ledger, runtime, std::slice::from_ref(&file), |_| {}).expect("import never fails on content");
            prop_assert_eq!(r.counts.used + r.counts.unused + r.counts.damaged, r.counts.lines);
        }
    }
}
