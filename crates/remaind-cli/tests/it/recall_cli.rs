//! Recall at the moment it matters, on simulated sessions of Claude Code and Gemini CLI: a
//! session decides, rules and fails on a file among a long stretch of unrelated work; the next
//! session's prompt that names the topic gets what its packet left out, an unrelated prompt
//! gets nothing, nothing is given twice in a session, a file with history gets its timeline
//! and one without gets nothing, and every injection stays within its budget (goldens).

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::{ok, remaind};

/// The words the filler work is made of.
const WORDS: [&str; 12] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima",
];

/// A runtime's spelling of the hooks a session uses.
struct Runtime {
    hook: fn(&str) -> Vec<&'static str>,
    prompt_event: &'static str,
    read: fn(&Path, &str) -> Value,
}

fn claude_code() -> Runtime {
    Runtime {
        hook: |event| match event {
            "start" => vec!["session-start"],
            "prompt" => vec!["user-prompt-submit"],
            _ => vec!["pre-tool-use"],
        },
        prompt_event: "UserPromptSubmit",
        read: |dir, file| {
            json!({"hook_event_name": "PreToolUse", "tool_name": "Read",
                   "tool_input": {"file_path": dir.join(file)}})
        },
    }
}

fn gemini() -> Runtime {
    Runtime {
        hook: |event| match event {
            "start" => vec!["gemini", "SessionStart"],
            "prompt" => vec!["gemini", "BeforeAgent"],
            _ => vec!["gemini", "AfterTool"],
        },
        prompt_event: "BeforeAgent",
        read: |dir, file| {
            json!({"hook_event_name": "AfterTool", "tool_name": "read_file",
                   "tool_input": {"absolute_path": dir.join(file)},
                   "tool_response": {"llmContent": "fn main() {}", "returnDisplay": "read"}})
        },
    }
}

/// Runs a hook with `payload` (plus the session and folder), which exits 0; the context it
/// adds (`None` when it printed nothing).
fn hook(ctx: &Path, args: &[&str], session: &str, dir: &Path, payload: Value) -> Option<String> {
    let mut payload = payload;
    payload["session_id"] = json!(session);
    payload["cwd"] = json!(dir);
    let mut full = vec!["hook"];
    full.extend_from_slice(args);
    let out = remaind(
        ctx,
        &full,
        Some(&serde_json::to_vec(&payload).expect("payload")),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let line = stdout.lines().last()?;
    let v: Value = serde_json::from_str(line).expect("hook output is JSON");
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .map(str::to_owned)
}

/// Session s1 (Claude Code's hooks record it): a decision, a constraint, an edit and a
/// failure on the session store, then a long docs pass with 75 decisions of its own, so the
/// next session's packet cannot hold everything.
fn first_session(ctx: &Path, dir: &Path) {
    ok(&remaind(ctx, &["init"], None));
    let cc = |args: &[&str], payload: Value| hook(ctx, args, "s1", dir, payload);
    cc(
        &["session-start"],
        json!({"hook_event_name": "SessionStart", "source": "startup"}),
    );
    cc(
        &["user-prompt-submit"],
        json!({"hook_event_name": "UserPromptSubmit", "prompt": "Set up the session store for the app"}),
    );
    ok(&remaind(
        ctx,
        &[
            "log",
            "--kind",
            "decision",
            "--text",
            "Session store: SQLite in WAL mode in src/store/session.rs, never Postgres for local runs",
        ],
        None,
    ));
    ok(&remaind(
        ctx,
        &[
            "log",
            "--kind",
            "constraint",
            "--text",
            "Keep the public HTTP API of src/api/routes.rs unchanged until the 2.0 release",
        ],
        None,
    ));
    let file = dir.join("src/store/session.rs");
    cc(
        &["post-tool-use"],
        json!({"hook_event_name": "PostToolUse", "tool_name": "Edit",
               "tool_input": {"file_path": file, "old_string": "MemoryStore::new()", "new_string": "Connection::open(path)?"},
               "tool_response": {"filePath": file}}),
    );
    cc(
        &["post-tool-use-failure"],
        json!({"hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
               "tool_input": {"command": "cargo test store::session"},
               "error": "thread 'store::session::wal' panicked at src/store/session.rs:42: database is locked"}),
    );
    let mut filler = String::new();
    for i in 0..150 {
        let (w, w2) = (WORDS[i % WORDS.len()], WORDS[(i * 7) % WORDS.len()]);
        if i % 2 == 0 {
            let text = format!(
                "Docs chapter {i}: the {w} section goes before the {w2} section, with {w} \
examples kept short and {w2} diagrams in the appendix (draft {i})"
            );
            filler.push_str(&json!({"kind": "decision", "text": text}).to_string());
            filler.push('\n');
        }
        let text = format!("$ ls docs/{w}-{i}: chapter {i} {w} {w2} notes, revised draft {i}");
        filler.push_str(
            &json!({"kind": "tool_result", "actor": "claude-code", "text": text}).to_string(),
        );
        filler.push('\n');
    }
    ok(&remaind(ctx, &["log", "--stdin"], Some(filler.as_bytes())));
    cc(
        &["stop"],
        json!({"hook_event_name": "Stop", "last_assistant_message": "Done with the docs pass."}),
    );
}

/// `[eN]` citations of `text`.
fn cited(text: &str) -> Vec<u64> {
    let re = regex::Regex::new(r"\[e(\d+)\]").expect("regex");
    re.captures_iter(text)
        .map(|c| c[1].parse().expect("seq"))
        .collect()
}

/// The second session in `runtime`'s hooks: what each step injected, for the golden.
fn second_session(runtime: &Runtime) -> String {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("app");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let ctx = dir.join(".context");
    first_session(&ctx, &dir);
    let run = |step: &str, payload: Value| hook(&ctx, &(runtime.hook)(step), "s2", &dir, payload);
    let packet = run(
        "start",
        json!({"hook_event_name": "SessionStart", "source": "startup"}),
    )
    .expect("the session starts with a packet");
    let in_packet: HashSet<u64> = cited(&packet).into_iter().collect();
    let mut golden = String::new();
    let mut given = HashSet::new();
    let steps: Vec<(String, Value)> = vec![
        (
            "prompt: The session store is slow again; check the WAL settings".into(),
            json!({"hook_event_name": runtime.prompt_event, "prompt": "The session store is slow again; check the WAL settings"}),
        ),
        (
            "prompt: Write a haiku about autumn leaves".into(),
            json!({"hook_event_name": runtime.prompt_event, "prompt": "Write a haiku about autumn leaves"}),
        ),
        (
            "prompt (again): The session store is slow again; check the WAL settings".into(),
            json!({"hook_event_name": runtime.prompt_event, "prompt": "The session store is slow again; check the WAL settings"}),
        ),
        (
            "prompt: can we change the routes.rs API response shape?".into(),
            json!({"hook_event_name": runtime.prompt_event, "prompt": "can we change the routes.rs API response shape?"}),
        ),
        (
            "read: src/store/session.rs".into(),
            (runtime.read)(&dir, "src/store/session.rs"),
        ),
        ("read: README.md".into(), (runtime.read)(&dir, "README.md")),
    ];
    for (label, payload) in steps {
        let step = if label.starts_with("read") {
            "read"
        } else {
            "prompt"
        };
        let injected = run(step, payload);
        golden.push_str(&format!("== {label}\n"));
        match injected {
            Some(text) => {
                let budget = if step == "read" { 600 } else { 1000 };
                let tokens = remaind_tokens::TokenizerName::O200kBase.count(&text);
                assert!(
                    tokens <= budget,
                    "{label}: {tokens} tokens over the budget {budget}"
                );
                for seq in cited(&text) {
                    if text.contains(&format!("in the turn of [e{seq}]")) {
                        continue;
                    }
                    assert!(
                        !in_packet.contains(&seq),
                        "{label}: e{seq} is in the packet already"
                    );
                    assert!(
                        given.insert(seq),
                        "{label}: e{seq} was given before in this session"
                    );
                }
                golden.push_str(&text);
                golden.push('\n');
            }
            None => golden.push_str("(nothing)\n"),
        }
    }
    let times = regex::Regex::new(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC").expect("regex");
    let golden = times.replace_all(&golden, "<time>").into_owned();
    let dir_text = dir.display().to_string();
    golden.replace(&dir_text, "<dir>")
}

#[test]
fn claude_code_recalls_what_the_packet_left_out_once_and_only_when_it_bears() {
    let golden = second_session(&claude_code());
    insta::assert_snapshot!("claude-code-recall", golden);
}

#[test]
fn gemini_recalls_what_the_packet_left_out_once_and_only_when_it_bears() {
    let golden = second_session(&gemini());
    insta::assert_snapshot!("gemini-recall", golden);
}

/// Sets `schemas/thresholds.json`'s `recall` section.
fn set_recall(ctx: &Path, recall: Value) {
    let path = ctx.join("schemas/thresholds.json");
    let mut doc: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("thresholds");
    doc["recall"] = recall;
    std::fs::write(&path, doc.to_string()).expect("write");
}

#[test]
fn recall_is_off_by_its_switch_within_a_small_budget_and_a_bad_setting_never_fails_the_hook() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("app");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let ctx = dir.join(".context");
    first_session(&ctx, &dir);
    let prompt = |session: &str| {
        hook(
            &ctx,
            &["user-prompt-submit"],
            session,
            &dir,
            json!({"hook_event_name": "UserPromptSubmit",
                   "prompt": "The session store is slow again; check the WAL settings"}),
        )
    };
    let read = |session: &str| {
        hook(
            &ctx,
            &["pre-tool-use"],
            session,
            &dir,
            (claude_code().read)(&dir, "src/store/session.rs"),
        )
    };
    set_recall(&ctx, json!({"prompt": false, "files": false}));
    assert_eq!(prompt("off"), None, "recall.prompt false injects nothing");
    assert_eq!(read("off"), None, "recall.files false injects nothing");

    // A budget that holds the heading and one line shows one event, the most bearing.
    set_recall(&ctx, json!({"prompt_budget_tokens": 330}));
    let text = prompt("small").expect("one event fits");
    assert_eq!(cited(&text).len(), 1, "{text}");
    assert!(remaind_tokens::TokenizerName::O200kBase.count(&text) <= 330);

    // A setting recall cannot read: the prompt is still recorded, the hook exits 0, and the
    // error names the key.
    set_recall(&ctx, json!({"min_share": 7}));
    assert_eq!(prompt("bad"), None);
    let errors = std::fs::read_to_string(ctx.join("logs/hook-errors.jsonl")).expect("errors");
    assert!(errors.contains("recall.min_share"), "{errors}");
    let log = std::fs::read_to_string(ctx.join("logs/events.jsonl")).expect("log");
    assert_eq!(
        log.matches("check the WAL settings").count(),
        3,
        "every prompt is recorded"
    );
}

#[test]
fn an_instruction_a_later_one_overrode_is_never_recalled() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("app");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let ctx = dir.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    let say = |prompt: &str| {
        hook(
            &ctx,
            &["user-prompt-submit"],
            "s1",
            &dir,
            json!({"hook_event_name": "UserPromptSubmit", "prompt": prompt}),
        )
    };
    say("Serve the admin dashboard on port 8080");
    say("Scrap that: serve the admin dashboard on port 9090 instead");
    ok(&remaind(&ctx, &["compact"], None));
    let state = std::fs::read_to_string(ctx.join("active/state.json")).expect("state");
    assert!(state.contains("user_settled"), "{state}");
    let asked = hook(
        &ctx,
        &["user-prompt-submit"],
        "s2",
        &dir,
        json!({"hook_event_name": "UserPromptSubmit",
               "prompt": "which port does the admin dashboard listen on?"}),
    )
    .unwrap_or_default();
    assert!(
        !asked.contains("8080"),
        "the overridden instruction came back: {asked}"
    );
    assert!(
        asked.contains("9090"),
        "the instruction in force is recalled: {asked}"
    );
}
