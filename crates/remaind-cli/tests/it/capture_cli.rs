//! Capture from Claude Code and Codex as they are today: every documented hook event is
//! accepted (an unknown one exits 0 and is logged), failed tool calls reach the ledger with
//! their error, prompts queued while the agent works are user messages, an interrupt after
//! which the turn went on ends no turn, a Stop without its message reads the transcript, and
//! import skips `(no content)` placeholders and another runtime's files.

use std::path::{Path, PathBuf};

use remaind_adapters::{HookEvent, Runtime};
use serde_json::{Value, json};

use crate::common::{ok, remaind, tmp};
use crate::everyday::hook_commands_of;
use crate::transcripts::{fixture, replay};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

fn init(dir: &Path) -> PathBuf {
    let ctx = dir.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    ctx
}

/// Every event of the ledger (`events --json` shows a slice).
fn events(ctx: &Path) -> Vec<Value> {
    std::fs::read_to_string(ctx.join("logs/events.jsonl"))
        .expect("read the log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("event"))
        .collect()
}

fn hook_errors(ctx: &Path) -> Vec<Value> {
    std::fs::read_to_string(ctx.join("logs/hook-errors.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("hook error line"))
        .collect()
}

/// Runs `remaind hook ARGS` on `payload`, which must exit 0.
fn hook(ctx: &Path, args: &[&str], payload: &Value) -> std::process::Output {
    let mut full = vec!["hook"];
    full.extend_from_slice(args);
    let bytes = serde_json::to_vec(payload).expect("payload");
    let out = remaind(ctx, &full, Some(&bytes));
    assert_eq!(
        out.status.code(),
        Some(0),
        "remaind hook {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn user_messages(evs: &[Value]) -> Vec<(String, String)> {
    evs.iter()
        .filter(|e| e["kind"] == "user_message")
        .map(|e| {
            (
                e["text"].as_str().unwrap_or("").to_owned(),
                e["data"]["via"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

/// A payload with every field any documented event reads.
fn full_payload(cwd: &Path, event: HookEvent) -> Value {
    json!({
        "session_id": "s-every-event",
        "cwd": cwd,
        "hook_event_name": event.as_str(),
        "prompt": "Keep the public API unchanged",
        "tool_name": "Bash",
        "tool_input": {"command": "cargo test"},
        "tool_response": {"stdout": "ok", "exit_code": 0},
        "error": "Exit code 101\n13 passed; 1 failed",
        "message": "Claude needs your permission to use Bash",
        "notification_type": "permission_prompt",
        "agent_id": "a1",
        "agent_type": "Explore",
        "last_assistant_message": "Done.",
        "error_type": "rate_limit",
        "error_message": "429",
        "source": "startup",
        "trigger": "manual",
        "reason": "other",
    })
}

#[test]
fn every_documented_hook_event_and_a_made_up_one_exit_0() {
    let t = tmp();
    let ctx = init(&t.0);
    let mut ran = 0;
    for event in HookEvent::all() {
        for name in [event.cli_name(), event.as_str()] {
            hook(&ctx, &[name], &full_payload(&t.0, event));
            hook(
                &ctx,
                &["--runtime", "codex", name],
                &full_payload(&t.0, event),
            );
            ran += 1;
        }
    }
    assert!(ran >= 2 * 25, "{ran}");
    // Nothing any documented event sent was an error.
    assert_eq!(hook_errors(&ctx), Vec::<Value>::new());
    // The ones that carry context were recorded.
    let evs = events(&ctx);
    for via in [
        "permission_request",
        "runtime_notification",
        "subagent_start",
        "stop_failure",
        "subagent_outcome",
    ] {
        assert!(
            evs.iter().any(|e| e["data"]["via"] == via),
            "no event with via {via}"
        );
    }
    assert!(evs.iter().any(|e| e["data"]["failed"] == true));

    // An event nobody documents (or a typo) does nothing, exits 0 and says so.
    for made_up in ["frobnicate", "PreToolUsee", "post_tool_use"] {
        let payload = json!({"session_id": "s", "cwd": t.0, "tool_name": "Bash"});
        let out = hook(&ctx, &[made_up], &payload);
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("unknown hook event"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let errors = hook_errors(&ctx);
    let named: Vec<&str> = errors.iter().filter_map(|e| e["hook"].as_str()).collect();
    assert_eq!(named, ["frobnicate", "PreToolUsee", "post_tool_use"]);
    assert!(
        errors[0]["error"]
            .as_str()
            .unwrap()
            .contains("unknown hook event `frobnicate`")
    );
}

/// `remaind hook [--runtime R] NAME`: the NAME.
fn hook_name(command: &str) -> &str {
    let rest = command
        .strip_prefix("remaind hook ")
        .unwrap_or_else(|| panic!("not a remaind hook command: {command}"));
    rest.split_whitespace().last().expect("an event name")
}

#[test]
fn the_recipes_name_only_events_the_code_accepts_and_every_one_it_records() {
    let recorded_by_claude: Vec<&str> = HookEvent::all()
        .filter(|h| h.records())
        .map(HookEvent::as_str)
        .collect();
    let codex_needs = [
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "PreCompact",
        "PostCompact",
        "Stop",
        "SubagentStop",
    ];
    for (recipe, needed) in [
        (
            "examples/claude-code/settings.json",
            &recorded_by_claude[..],
        ),
        ("examples/codex/hooks.json", &codex_needs[..]),
    ] {
        let commands = hook_commands_of(recipe);
        for (event, command) in &commands {
            let parsed: HookEvent = hook_name(command)
                .parse()
                .unwrap_or_else(|e| panic!("{recipe}: {command}: {e}"));
            assert_eq!(parsed.as_str(), event, "{recipe}: {command} under {event}");
            // PreToolUse records nothing: it brings a file's history before a read or edit.
            assert!(
                parsed.records() || parsed == HookEvent::PreToolUse,
                "{recipe} wires {event}, which records nothing"
            );
        }
        for event in needed {
            assert!(
                commands.iter().any(|(e, _)| e == event),
                "{recipe} lacks {event}"
            );
        }
    }
    // Codex re-injects the packet after its own compaction.
    let codex: Value = serde_json::from_str(
        &std::fs::read_to_string(repo("examples/codex/hooks.json")).expect("read"),
    )
    .expect("parses");
    let matcher = codex["hooks"]["SessionStart"][0]["matcher"]
        .as_str()
        .unwrap();
    assert!(matcher.split('|').any(|m| m == "compact"), "{matcher}");
    // Every sample payload is named after an event the code accepts, and so is every hook
    // command the guide shows.
    for dir in ["examples/claude-code/samples", "examples/codex/samples"] {
        for entry in std::fs::read_dir(repo(dir)).expect("samples") {
            let path = entry.expect("entry").path();
            let name = path.file_stem().and_then(|s| s.to_str()).expect("a name");
            assert!(name.parse::<HookEvent>().is_ok(), "{}", path.display());
        }
    }
    let guide = std::fs::read_to_string(repo("docs/guide.md")).expect("guide");
    let mut shown = 0;
    for part in guide.split("remaind hook ").skip(1) {
        let words: Vec<&str> = part
            .split(|c: char| c.is_whitespace() || c == '`' || c == '<' || c == '|')
            .filter(|w| !w.is_empty())
            .take_while(|w| w.starts_with("--") || !w.contains('/'))
            .collect();
        let mut name = None;
        let mut skip = false;
        for w in words {
            if skip {
                skip = false;
            } else if w == "--runtime" || w == "--llm" || w == "--time-limit" {
                skip = true;
            } else if !w.starts_with('-') {
                name = Some(w);
                break;
            }
        }
        let Some(name) = name.filter(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        else {
            continue;
        };
        // `remaind hook cursor <event>`: the runtime's own event names, held to the code by
        // runtimes_cli.
        if name
            .parse::<remaind_adapters::Runtime>()
            .is_ok_and(|r| !r.reads_transcripts())
        {
            continue;
        }
        assert!(
            name.parse::<HookEvent>().is_ok(),
            "the guide shows `remaind hook {name}`"
        );
        shown += 1;
    }
    assert!(shown >= 10, "{shown} hook commands found in the guide");
}

#[test]
fn a_failed_tool_call_is_recorded_with_its_error_and_input() {
    let t = tmp();
    let ctx = init(&t.0);
    let payload: Value = serde_json::from_slice(
        &std::fs::read(repo(
            "examples/claude-code/samples/post-tool-use-failure.json",
        ))
        .expect("sample"),
    )
    .expect("json");
    let mut payload = payload;
    payload["cwd"] = json!(t.0);
    hook(&ctx, &["post-tool-use-failure"], &payload);
    let evs = events(&ctx);
    let failed: Vec<&Value> = evs.iter().filter(|e| e["kind"] == "tool_result").collect();
    assert_eq!(failed.len(), 1, "{evs:#?}");
    let ev = failed[0];
    assert_eq!(ev["data"]["failed"], true);
    assert!(
        ev["data"]["error"]
            .as_str()
            .unwrap()
            .contains("13 passed; 1 failed"),
        "{ev}"
    );
    assert_eq!(ev["tool"]["input"]["command"], "cargo test -p uploader");
    assert!(ev["text"].as_str().unwrap().contains("cargo test"), "{ev}");
    // A secret in the error is redacted like everything else.
    let mut leaky = payload.clone();
    leaky["tool_input"]["command"] = json!("deploy");
    leaky["error"] = json!("auth failed for ghp_R8fK2qLx9mZ4vT7wB3nJc6HdP1sYaE5gUo0i");
    hook(&ctx, &["post-tool-use-failure"], &leaky);
    let log = std::fs::read_to_string(ctx.join("logs/events.jsonl")).expect("log");
    assert!(!log.contains("ghp_R8fK2qLx9mZ4vT7wB3nJc6HdP1sYaE5gUo0i"));
    assert!(log.contains("auth failed for [REDACTED:"), "{log}");
}

/// Each failure a transcript's hook progress lines name (PostToolUseFailure): its tool input
/// and the first line of its error, from the tool's result.
fn failures_named(files: &[PathBuf]) -> Vec<(String, Value, String)> {
    let mut named = Vec::new();
    let mut inputs = std::collections::HashMap::new();
    let mut errors = std::collections::HashMap::new();
    for file in files {
        for line in std::fs::read_to_string(file).expect("read").lines() {
            let v: Value = serde_json::from_str(line).expect("line");
            if v["type"] == "progress" && v["data"]["hookEvent"] == "PostToolUseFailure" {
                let id = v["toolUseID"].as_str().expect("toolUseID").to_owned();
                if !named.contains(&id) {
                    named.push(id);
                }
            }
            for block in v["message"]["content"].as_array().into_iter().flatten() {
                match block["type"].as_str() {
                    Some("tool_use") => {
                        inputs.insert(
                            block["id"].as_str().unwrap().to_owned(),
                            block["input"].clone(),
                        );
                    }
                    Some("tool_result") if block["is_error"] == true => {
                        let text = block["content"].as_str().unwrap_or_default();
                        let first = text.lines().next().unwrap_or_default().to_owned();
                        errors.insert(block["tool_use_id"].as_str().unwrap().to_owned(), first);
                    }
                    _ => {}
                }
            }
        }
    }
    named
        .into_iter()
        .map(|id| {
            let input = inputs[&id].clone();
            let error = errors[&id].clone();
            (id, input, error)
        })
        .collect()
}

fn assert_failures_recorded(ctx: &Path, failures: &[(String, Value, String)], how: &str) {
    let evs = events(ctx);
    for (id, input, error) in failures {
        let found = evs.iter().any(|e| {
            e["kind"] == "tool_result"
                && e["data"]["failed"] == true
                && e["tool"]["input"] == *input
                && e["data"]["error"]
                    .as_str()
                    .is_some_and(|t| t.contains(error.as_str()))
        });
        assert!(
            found,
            "after {how}: the failure of {id} ({error:?}) is not in the ledger"
        );
    }
}

#[test]
fn every_failure_a_real_session_names_is_in_the_ledger_after_import_and_after_replay() {
    let main = fixture("claude-code-8463c716.jsonl");
    let sub = fixture("claude-code-8463c716/agent-a7be2f0.jsonl");
    let failures = failures_named(&[main.clone(), sub]);
    assert!(failures.len() >= 12, "{} failures named", failures.len());

    let t = tmp();
    let ctx = init(&t.0);
    ok(&remaind(
        &ctx,
        &["import", "claude-code", main.to_str().unwrap(), "--json"],
        None,
    ));
    assert_failures_recorded(&ctx, &failures, "import");

    let (_, _t, replayed) = replay(
        &main,
        Runtime::ClaudeCode,
        "examples/claude-code/settings.json",
    );
    assert_failures_recorded(&replayed, &failures, "a replay through the hooks");
    let by_hook = events(&replayed)
        .into_iter()
        .filter(|e| e["data"]["origin"]["hook"] == "PostToolUseFailure")
        .count();
    assert!(
        by_hook >= failures.len(),
        "{by_hook} PostToolUseFailure events"
    );
}

fn write_lines(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).expect("write transcript");
}

const SESSION: &str = "9a1c0e2f-0000-4000-8000-000000000001";

fn user(uuid: &str, ts: &str, content: Value) -> Value {
    json!({"type": "user", "uuid": uuid, "sessionId": SESSION, "timestamp": ts,
           "isSidechain": false, "cwd": "/srv/app", "message": {"role": "user", "content": content}})
}

fn assistant_text(uuid: &str, ts: &str, text: &str) -> Value {
    json!({"type": "assistant", "uuid": uuid, "sessionId": SESSION, "timestamp": ts,
           "isSidechain": false, "message": {"role": "assistant", "model": "claude-opus-4-6",
           "content": [{"type": "text", "text": text}]}})
}

fn tool_call(uuid: &str, ts: &str, id: &str, command: &str) -> [Value; 2] {
    [
        json!({"type": "assistant", "uuid": format!("{uuid}-call"), "sessionId": SESSION,
               "timestamp": ts, "isSidechain": false, "message": {"role": "assistant",
               "content": [{"type": "tool_use", "id": id, "name": "Bash",
                            "input": {"command": command}}]}}),
        user(
            &format!("{uuid}-result"),
            ts,
            json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}]),
        ),
    ]
}

fn queue(op: &str, ts: &str, content: Option<&str>) -> Value {
    let mut v = json!({"type": "queue-operation", "operation": op, "timestamp": ts,
                       "sessionId": SESSION});
    if let Some(c) = content {
        v["content"] = json!(c);
    }
    v
}

/// A session: a prompt; while the agent works the user queues a prompt (and the runtime
/// queues a task notification); the agent goes on, ends its turn, and the queue delivers the
/// prompt as a user line.
fn queued_session() -> Vec<Value> {
    let mut lines = vec![user(
        "u1",
        "2026-03-01T10:00:00.000Z",
        json!("Fix the flaky upload test"),
    )];
    lines.extend(tool_call(
        "a1",
        "2026-03-01T10:00:05.000Z",
        "t1",
        "cargo test -p uploader",
    ));
    lines.push(queue(
        "enqueue",
        "2026-03-01T10:00:06.000Z",
        Some("also update the docs when you are done"),
    ));
    lines.push(queue(
        "enqueue",
        "2026-03-01T10:00:07.000Z",
        Some("<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>"),
    ));
    lines.extend(tool_call(
        "a2",
        "2026-03-01T10:00:08.000Z",
        "t2",
        "cargo test -p uploader -- --nocapture",
    ));
    lines.push(assistant_text(
        "a3",
        "2026-03-01T10:00:09.000Z",
        "The upload test is fixed.",
    ));
    lines.push(queue("dequeue", "2026-03-01T10:00:10.000Z", None));
    lines.push(user(
        "u2",
        "2026-03-01T10:00:10.100Z",
        json!("also update the docs when you are done"),
    ));
    lines.push(assistant_text(
        "a4",
        "2026-03-01T10:00:20.000Z",
        "The docs are updated.",
    ));
    lines
}

#[test]
fn a_queued_prompt_is_one_user_message_by_import_and_by_the_hooks() {
    let t = tmp();
    let ctx = init(&t.0);
    let file = t.0.join("queued.jsonl");
    write_lines(&file, &queued_session());
    ok(&remaind(
        &ctx,
        &["import", "claude-code", file.to_str().unwrap()],
        None,
    ));
    let evs = events(&ctx);
    assert_eq!(
        user_messages(&evs),
        [
            ("Fix the flaky upload test".to_owned(), "prompt".to_owned()),
            (
                "also update the docs when you are done".to_owned(),
                "queued".to_owned()
            ),
        ]
    );
    assert!(!evs.iter().any(
        |e| e["text"].as_str().is_some_and(|t| t.contains("task-id>b1"))
            && e["kind"] == "user_message"
    ));
    let queued = evs.iter().find(|e| e["data"]["via"] == "queued").unwrap();
    assert_eq!(queued["data"]["origin"]["ts"], "2026-03-01T10:00:06.000Z");
    // The state's latest instruction is the queued prompt.
    ok(&remaind(&ctx, &["compact"], None));
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(ctx.join("active/state.json")).unwrap())
            .unwrap();
    assert_eq!(
        state["latest_user_instruction"]["text"],
        "also update the docs when you are done"
    );
    // Importing again adds nothing.
    let again: Value = serde_json::from_str(&ok(&remaind(
        &ctx,
        &["import", "claude-code", file.to_str().unwrap(), "--json"],
        None,
    )))
    .unwrap();
    assert_eq!(again["appended"], 0, "{again}");

    // Live: the hooks follow the transcript as it grows. The user's first prompt, the
    // turn's Stop (the queued prompt is in the transcript by then), then the queue delivers
    // it through UserPromptSubmit: still one user message.
    let t2 = tmp();
    let live_ctx = init(&t2.0);
    let live = t2.0.join("live.jsonl");
    let lines = queued_session();
    let base = json!({"session_id": SESSION, "cwd": t2.0, "transcript_path": live});
    let with = |extra: Value| {
        let mut p = base.clone();
        p.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        p
    };
    write_lines(&live, &lines[..1]);
    hook(
        &live_ctx,
        &["user-prompt-submit"],
        &with(json!({"prompt": "Fix the flaky upload test"})),
    );
    write_lines(&live, &lines[..8]);
    hook(
        &live_ctx,
        &["stop"],
        &with(json!({"last_assistant_message": "The upload test is fixed."})),
    );
    write_lines(&live, &lines[..9]);
    hook(
        &live_ctx,
        &["user-prompt-submit"],
        &with(json!({"prompt": "also update the docs when you are done"})),
    );
    write_lines(&live, &lines);
    hook(
        &live_ctx,
        &["stop"],
        &with(json!({"last_assistant_message": "The docs are updated."})),
    );
    let live_evs = events(&live_ctx);
    assert_eq!(user_messages(&live_evs), user_messages(&evs));
    // And an import of the same transcript afterwards adds no user message.
    ok(&remaind(
        &live_ctx,
        &["import", "claude-code", live.to_str().unwrap()],
        None,
    ));
    assert_eq!(user_messages(&events(&live_ctx)), user_messages(&evs));
}

/// A turn the user interrupted, after which `then` follows.
fn interrupted_session(then: Vec<Value>) -> Vec<Value> {
    let mut lines = vec![user(
        "u1",
        "2026-03-02T09:00:00.000Z",
        json!("Migrate the config loader"),
    )];
    lines.extend(tool_call(
        "a1",
        "2026-03-02T09:00:05.000Z",
        "t1",
        "cargo build",
    ));
    lines.push(user(
        "u-int",
        "2026-03-02T09:00:06.000Z",
        json!([{"type": "text", "text": "[Request interrupted by user]"}]),
    ));
    lines.extend(then);
    lines
}

fn interrupt_note(evs: &[Value]) -> &Value {
    evs.iter()
        .find(|e| {
            e["kind"] == "note"
                && e["actor"] == "user"
                && e["text"].as_str().unwrap().contains("interrupted")
        })
        .unwrap_or_else(|| panic!("no interrupt in {evs:#?}"))
}

#[test]
fn an_interrupt_after_which_the_turn_went_on_ends_no_turn() {
    // The turn went on: a queued prompt, more tool calls, a final text.
    let mut went_on = vec![queue(
        "enqueue",
        "2026-03-02T09:00:07.000Z",
        Some("use the new env var names"),
    )];
    went_on.extend(tool_call(
        "a2",
        "2026-03-02T09:00:08.000Z",
        "t2",
        "cargo test",
    ));
    went_on.push(assistant_text(
        "a3",
        "2026-03-02T09:00:09.000Z",
        "Migrated, with the new names.",
    ));
    // The user's next prompt followed: the interrupt ended the turn.
    let ended = vec![user(
        "u2",
        "2026-03-02T09:01:00.000Z",
        json!("Stop; revert the loader"),
    )];
    for (then, ends) in [(went_on, false), (ended, true)] {
        let lines = interrupted_session(then);
        // By import.
        let t = tmp();
        let ctx = init(&t.0);
        let file = t.0.join("s.jsonl");
        write_lines(&file, &lines);
        ok(&remaind(
            &ctx,
            &["import", "claude-code", file.to_str().unwrap()],
            None,
        ));
        let evs = events(&ctx);
        let note = interrupt_note(&evs);
        assert_eq!(note["data"]["turn_end"] == "interrupted", ends, "{note}");
        // By the hooks, reading the transcript late (at the turn's Stop, or the next
        // prompt): the same.
        let t2 = tmp();
        let live_ctx = init(&t2.0);
        let live = t2.0.join("live.jsonl");
        let base = json!({"session_id": SESSION, "cwd": t2.0, "transcript_path": live});
        write_lines(&live, &lines[..1]);
        let mut p = base.clone();
        p["prompt"] = json!("Migrate the config loader");
        hook(&live_ctx, &["user-prompt-submit"], &p);
        write_lines(&live, &lines);
        let mut p = base.clone();
        if ends {
            p["prompt"] = json!("Stop; revert the loader");
            hook(&live_ctx, &["user-prompt-submit"], &p);
        } else {
            p["last_assistant_message"] = json!("Migrated, with the new names.");
            hook(&live_ctx, &["stop"], &p);
        }
        let live_evs = events(&live_ctx);
        let live_note = interrupt_note(&live_evs);
        assert_eq!(
            live_note["data"]["turn_end"], note["data"]["turn_end"],
            "{live_note}"
        );
        assert_eq!(live_note["data"]["origin"]["line"], "u-int");
    }
}

#[test]
fn a_stop_without_its_message_takes_the_transcripts_last_text() {
    let t = tmp();
    let ctx = init(&t.0);
    let file = t.0.join("s.jsonl");
    let mut lines = vec![user(
        "u1",
        "2026-03-03T08:00:00.000Z",
        json!("Bump the version"),
    )];
    lines.push(assistant_text(
        "a1",
        "2026-03-03T08:00:01.000Z",
        "Bumping it now.",
    ));
    lines.extend(tool_call(
        "a2",
        "2026-03-03T08:00:02.000Z",
        "t1",
        "cargo set-version 1.2.0",
    ));
    lines.push(assistant_text(
        "a3",
        "2026-03-03T08:00:03.000Z",
        "Version 1.2.0 is set in every crate.",
    ));
    write_lines(&file, &lines);
    let base = json!({"session_id": SESSION, "cwd": t.0, "transcript_path": file});
    let mut p = base.clone();
    p["prompt"] = json!("Bump the version");
    hook(&ctx, &["user-prompt-submit"], &p);
    hook(&ctx, &["stop"], &base);
    let evs = events(&ctx);
    let end = evs
        .iter()
        .find(|e| e["data"]["turn_end"] == "stop")
        .expect("the turn's end");
    assert_eq!(end["text"], "Version 1.2.0 is set in every crate.");
    // An empty message is the runtime's word: the transcript is not asked.
    let mut p = base.clone();
    p["prompt"] = json!("Tag the release");
    hook(&ctx, &["user-prompt-submit"], &p);
    let mut p = base.clone();
    p["last_assistant_message"] = json!("");
    hook(&ctx, &["stop"], &p);
    let ends: Vec<Value> = events(&ctx)
        .into_iter()
        .filter(|e| e["data"]["turn_end"] == "stop")
        .collect();
    assert_eq!(ends[1]["text"], "(the turn ended without a final message)");
    // Without a transcript, the turn still ends, said as such.
    let t2 = tmp();
    let ctx2 = init(&t2.0);
    let mut p = json!({"session_id": SESSION, "cwd": t2.0, "prompt": "Bump the version"});
    hook(&ctx2, &["user-prompt-submit"], &p);
    p.as_object_mut().unwrap().remove("prompt");
    hook(&ctx2, &["stop"], &p);
    let end = events(&ctx2)
        .into_iter()
        .find(|e| e["data"]["turn_end"] == "stop")
        .expect("the turn's end");
    assert_eq!(end["text"], "(the turn ended without a final message)");
}

#[test]
fn a_no_content_placeholder_is_no_instruction() {
    let t = tmp();
    let ctx = init(&t.0);
    let file = t.0.join("s.jsonl");
    let lines = vec![
        user(
            "u1",
            "2026-03-04T08:00:00.000Z",
            json!("Write the changelog entry"),
        ),
        assistant_text("a1", "2026-03-04T08:00:01.000Z", "Written."),
        user(
            "u2",
            "2026-03-04T08:00:02.000Z",
            json!("<user-memory-input>Always use conventional commits</user-memory-input>"),
        ),
        user("u3", "2026-03-04T08:00:02.100Z", json!("(no content)")),
    ];
    write_lines(&file, &lines);
    ok(&remaind(
        &ctx,
        &["import", "claude-code", file.to_str().unwrap()],
        None,
    ));
    let evs = events(&ctx);
    assert_eq!(
        user_messages(&evs),
        [("Write the changelog entry".to_owned(), "prompt".to_owned())]
    );
    assert!(evs.iter().any(|e| e["kind"] == "remember"));
}

#[test]
fn a_codex_rollout_in_a_claude_code_folder_is_skipped_with_the_reason() {
    let t = tmp();
    let ctx = init(&t.0);
    let folder = t.0.join("projects");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(
        fixture("claude-code-1af7fc5e.jsonl"),
        folder.join("a.jsonl"),
    )
    .unwrap();
    std::fs::copy(
        fixture("codex-homelab.jsonl"),
        folder.join("rollout-b.jsonl"),
    )
    .unwrap();
    let out = ok(&remaind(
        &ctx,
        &["import", "claude-code", folder.to_str().unwrap(), "--json"],
        None,
    ));
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["files"].as_array().unwrap().len(), 1, "{report}");
    let skipped = &report["skipped_other_runtime"];
    assert_eq!(skipped.as_array().unwrap().len(), 1, "{report}");
    assert_eq!(skipped[0]["runtime"], "codex");
    assert!(
        skipped[0]["file"]
            .as_str()
            .unwrap()
            .ends_with("rollout-b.jsonl")
    );
    assert!(
        skipped[0]["reason"]
            .as_str()
            .unwrap()
            .contains("remaind import codex")
    );
    let text = ok(&remaind(
        &ctx,
        &["import", "claude-code", folder.to_str().unwrap()],
        None,
    ));
    assert!(text.contains("imported 1 claude-code file(s)"), "{text}");
    assert!(
        text.contains("rollout-b.jsonl: a codex transcript"),
        "{text}"
    );
    // Only the other runtime's files: a clear error, exit 2, nothing imported.
    let only = t.0.join("only");
    std::fs::create_dir(&only).unwrap();
    std::fs::copy(fixture("codex-homelab.jsonl"), only.join("rollout-c.jsonl")).unwrap();
    let out = remaind(
        &ctx,
        &["import", "claude-code", only.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("remaind import codex"));
}
