//! Golden: every transcript under `fixtures/transcripts/` (real public sessions, see its
//! README) imported with `remaind import`, and replayed through the hook recipe
//! (examples/claude-code/settings.json, examples/codex/hooks.json) as the live session would
//! have sent it, gives the same non-empty state: the latest user instruction verbatim, the
//! next step from the session's own plan or summary, its completed work and open loops, and
//! every answer the user gave to a question found by `search`.

use std::path::{Path, PathBuf};

use camino::Utf8PathBuf;
use remaind_adapters::{Runtime, read_transcript, replay_payloads, transcript_files};
use serde_json::{Value, json};

use crate::common::{ok, remaind, tmp};
use crate::everyday::{hook_commands_of, run_hook};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/transcripts")
        .join(name)
}

/// The sections both paths must agree on, from `active/state.json` after a compaction.
fn state_of(ctx: &Path) -> Value {
    ok(&remaind(ctx, &["compact"], None));
    let state: Value = serde_json::from_str(
        &std::fs::read_to_string(ctx.join("active/state.json")).expect("state.json"),
    )
    .expect("state parses");
    let texts = |k: &str| -> Vec<String> {
        state[k]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| i["text"].as_str().map(str::to_owned))
            .collect()
    };
    json!({
        "latest_user_instruction": state["latest_user_instruction"]["text"],
        "next_step": state["next_step"]["text"],
        "completed_work": texts("completed_work"),
        "open_loops": texts("open_loops"),
        "files_changed": texts("files_changed"),
    })
}

fn init(dir: &Path) -> PathBuf {
    let ctx = dir.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    ctx
}

fn import(file: &str, runtime: &str) -> (Value, crate::common::Tmp, PathBuf) {
    let t = tmp();
    let ctx = init(&t.0);
    let path = fixture(file);
    let out = ok(&remaind(
        &ctx,
        &["import", runtime, path.to_str().expect("utf-8"), "--json"],
        None,
    ));
    let report: Value = serde_json::from_str(&out).expect("--json summary");
    assert!(report["appended"].as_u64() > Some(0), "{report}");
    // A second import appends nothing.
    let again: Value = serde_json::from_str(&ok(&remaind(
        &ctx,
        &["import", runtime, path.to_str().expect("utf-8"), "--json"],
        None,
    )))
    .expect("--json summary");
    assert_eq!(again["appended"], 0, "{again}");
    assert_eq!(again["already_imported"], report["records"], "{again}");
    (state_of(&ctx), t, ctx)
}

/// Replays the transcript's files through the recipe's hook commands, in order.
fn replay(file: &str, runtime: Runtime, recipe: &str) -> Value {
    let t = tmp();
    let ctx = init(&t.0);
    let commands = hook_commands_of(recipe);
    let path = Utf8PathBuf::from_path_buf(fixture(file)).expect("utf-8");
    let (files, _) = transcript_files(&[path]).expect("transcript files");
    let cwd = t.0.to_str().expect("utf-8");
    for f in files {
        let bytes = std::fs::read(&f).expect("read transcript");
        let (records, _) = read_transcript(runtime, &bytes);
        for (hook, payload) in replay_payloads(runtime, &records, cwd) {
            let (_, command) = commands
                .iter()
                .find(|(e, _)| e == hook.as_str())
                .unwrap_or_else(|| panic!("{recipe} lacks {hook}"));
            let payload = serde_json::to_vec(&payload).expect("payload");
            let out = run_hook(command, &payload, None, &t.0);
            assert!(
                out.status.success()
                    || hook.as_str() == "PreCompact" && out.status.code() == Some(3),
                "{hook} exited {:?}: {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    state_of(&ctx)
}

fn check(file: &str, runtime: &str) -> Value {
    let (rt, recipe) = match runtime {
        "codex" => (Runtime::Codex, "examples/codex/hooks.json"),
        _ => (Runtime::ClaudeCode, "examples/claude-code/settings.json"),
    };
    let (imported, _t, ctx) = import(file, runtime);
    let replayed = replay(file, rt, recipe);
    assert_eq!(
        imported, replayed,
        "import and hook replay disagree on {file}"
    );
    let instruction = imported["latest_user_instruction"].as_str().unwrap_or("");
    assert!(!instruction.trim().is_empty(), "{file}: {imported}");
    assert!(
        !instruction.starts_with("[artifact:"),
        "{file}: {instruction}"
    );
    // Every answer the user gave to a question is found by search.
    let events = ok(&remaind(
        &ctx,
        &["events", "--kind", "user_message", "--json"],
        None,
    ));
    for line in events.lines() {
        let ev: Value = serde_json::from_str(line).expect("event");
        if ev["data"]["via"] == "question_answer" {
            let answer = ev["text"].as_str().expect("answer text");
            let hits = ok(&remaind(
                &ctx,
                &["search", &format!("\"{answer}\""), "--json"],
                None,
            ));
            assert!(
                hits.lines()
                    .any(|h| h.contains(ev["id"].as_str().expect("id"))),
                "search finds the answer {answer:?}: {hits}"
            );
        }
    }
    imported
}

#[test]
fn golden_transcript_claude_code_1af7fc5e() {
    let state = check("claude-code-1af7fc5e.jsonl", "claude-code");
    assert_eq!(state["latest_user_instruction"], "/init");
    insta::assert_json_snapshot!(state);
}

#[test]
fn golden_transcript_claude_code_5c0375b4() {
    let state = check("claude-code-5c0375b4.jsonl", "claude-code");
    insta::assert_json_snapshot!(state);
}

#[test]
fn golden_transcript_claude_code_fe5e1c67() {
    let state = check("claude-code-fe5e1c67.jsonl", "claude-code");
    assert_eq!(
        state["latest_user_instruction"],
        "Thanks! Please update CLAUDE.md for current changes"
    );
    insta::assert_json_snapshot!(state);
}

#[test]
fn golden_transcript_claude_code_8463c716_with_compaction_and_subagent() {
    let state = check("claude-code-8463c716.jsonl", "claude-code");
    // The next step is the runtime's own summary's, not the fallback.
    let next = state["next_step"].as_str().expect("a next step");
    assert!(
        next.starts_with("Complete spotter-fum.3 by running `mix compile`"),
        "{next}"
    );
    insta::assert_json_snapshot!(state);
    // What should outlive the task (the summary's key concepts and its errors and fixes)
    // waits in long-term memory for a person's review, citing the summary.
    let (_, _t, ctx) = import("claude-code-8463c716.jsonl", "claude-code");
    let listed = ok(&remaind(&ctx, &["memory", "list", "--json"], None));
    let proposals: Vec<Value> = listed
        .lines()
        .map(|l| serde_json::from_str(l).expect("proposal"))
        .collect();
    let titles: Vec<&str> = proposals
        .iter()
        .filter_map(|p| p["title"].as_str())
        .collect();
    assert_eq!(
        titles,
        [
            "Key technical concepts (session 8463c716)",
            "Errors and fixes (session 8463c716)"
        ],
        "{listed}"
    );
    assert!(proposals.iter().all(|p| p["status"] == "proposed"));
    assert!(
        proposals[1]["text"]
            .as_str()
            .is_some_and(|t| t.contains("Credo nesting depth"))
    );
}

#[test]
fn golden_transcript_codex_homelab() {
    let state = check("codex-homelab.jsonl", "codex");
    assert_eq!(
        state["latest_user_instruction"],
        "can you analyse the MD files in this directory and determine if the info we have is clear enough to start planning the migration?"
    );
    insta::assert_json_snapshot!(state);
}

#[test]
fn golden_transcript_synthetic_question_long_prompt_and_compact_instructions() {
    let state = check("synthetic-ask-user-question.jsonl", "claude-code");
    assert_eq!(
        state["latest_user_instruction"],
        "keep the list of failing tests"
    );
    assert_eq!(state["next_step"], "Fix the failing tests");
    assert_eq!(
        state["completed_work"],
        json!(["Done: Check whether main is clean"])
    );
    insta::assert_json_snapshot!(state);
}
