//! Golden: every transcript under `fixtures/transcripts/` (real public sessions, see its
//! README) imported with `remaind import`, and replayed through the hook recipe
//! (examples/claude-code/settings.json, examples/codex/hooks.json) as the live session would
//! have sent it, gives the same non-empty state and the same resume verdict: the latest user
//! instruction verbatim, at the end of a session whose last turn ended no current next step
//! (the gate waits for the user, exit 4 `no_next_step`, with the turn's outcome), right after
//! a runtime compaction in the middle the summary's step (exit 0), completed work, framing,
//! and every answer the user gave to a question a decision that `search` finds. The packets a
//! resumed agent reads at both moments are pinned.

use std::path::{Path, PathBuf};

use camino::Utf8PathBuf;
use remaind_adapters::{Runtime, read_transcript, replay_payloads, transcript_files};
use serde_json::{Value, json};

use crate::common::{log, ok, remaind, tmp};
use crate::everyday::{hook_commands_of, run_hook};

pub(crate) fn fixture(name: &str) -> PathBuf {
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
        // The ids a long message's item names differ between an import and a replay.
        "user_asked": texts("user_asked")
            .iter()
            .map(|t| ids_in_text().replace_all(t, "eN").into_owned())
            .collect::<Vec<_>>(),
    })
}

/// An event id inside an item's text (`(full text: e31)`, `refers back to e4`).
fn ids_in_text() -> regex::Regex {
    regex::Regex::new(r"\be[1-9][0-9]*\b").expect("regex")
}

fn init(dir: &Path) -> PathBuf {
    let ctx = dir.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    ctx
}

/// What a resumed agent gets after a compaction: the gate's verdict (exit code, reason
/// codes, next step, the ended turn's way and outcome: no event ids, which differ between
/// an import and a replay) and the packet.
fn resumed(ctx: &Path) -> (Value, String) {
    let out = remaind(ctx, &["resume", "--json"], None);
    let code = out.status.code();
    assert!(
        matches!(code, Some(0 | 4)),
        "resume exited {code:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).expect("resume --json");
    let reasons: Vec<&Value> = r["gate"]["reasons"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|x| &x["code"])
        .collect();
    let verdict = json!({
        "exit": code,
        "reasons": reasons,
        "next_step": r["next_step"]["text"],
        "turn_ended": r["turn_ended"]["how"],
        "outcome": r["turn_ended"]["outcome"],
    });
    (verdict, r["packet"].as_str().expect("packet").to_owned())
}

/// A packet with what differs between runs and machines (times, hashes, the machine's own
/// framing) replaced by placeholders.
fn normalize(packet: &str) -> String {
    let ts = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z").expect("regex");
    let hex = regex::Regex::new(r"\b[0-9a-f]{64}\b").expect("regex");
    let machine =
        regex::Regex::new(r"(?m)^- (shell|os|date|time zone|workspace root): .*$").expect("regex");
    let text = ts.replace_all(packet, "[time]");
    let text = hex.replace_all(&text, "[sha256]");
    machine.replace_all(&text, "- $1: [machine]").into_owned()
}

fn import(file: &str, runtime: &str) -> (Value, crate::common::Tmp, PathBuf) {
    import_path(&fixture(file), runtime)
}

fn import_path(path: &Path, runtime: &str) -> (Value, crate::common::Tmp, PathBuf) {
    let t = tmp();
    let ctx = init(&t.0);
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

/// Where each line of a transcript ends, by its id (Claude Code's `uuid`, a Codex rollout's
/// line number): a replay writes the transcript up to a record's line before its hook runs,
/// as the runtime would have.
fn line_ends(bytes: &[u8]) -> std::collections::HashMap<String, usize> {
    let mut ends = std::collections::HashMap::new();
    let mut at = 0;
    for (n, line) in bytes.split_inclusive(|b| *b == b'\n').enumerate() {
        at += line.len();
        ends.insert((n + 1).to_string(), at);
        if let Ok(v) = serde_json::from_slice::<Value>(line)
            && let Some(id) = v["uuid"].as_str()
        {
            ends.insert(id.to_owned(), at);
        }
    }
    ends
}

/// Replays the transcript's files through the recipe's hook commands, in order, writing
/// each file as the session would have while its hooks ran (they follow it), and ending
/// the session where the recipe has a SessionEnd hook.
pub(crate) fn replay(
    path: &Path,
    runtime: Runtime,
    recipe: &str,
) -> (Value, crate::common::Tmp, PathBuf) {
    let t = tmp();
    let ctx = init(&t.0);
    let commands = hook_commands_of(recipe);
    let path = Utf8PathBuf::from_path_buf(path.to_owned()).expect("utf-8");
    let (files, _) = transcript_files(&[path]).expect("transcript files");
    let cwd = t.0.to_str().expect("utf-8");
    let run = |hook: &str, payload: &Value| {
        let Some((_, command)) = commands.iter().find(|(e, _)| e == hook) else {
            assert_eq!(hook, "SessionEnd", "{recipe} lacks {hook}");
            return;
        };
        let payload = serde_json::to_vec(payload).expect("payload");
        let out = run_hook(command, &payload, None, &t.0);
        assert!(
            out.status.success() || hook == "PreCompact" && out.status.code() == Some(3),
            "{hook} exited {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let live_dir = t.0.join("live");
    std::fs::create_dir(&live_dir).expect("mkdir");
    for (i, f) in files.iter().enumerate() {
        let bytes = std::fs::read(f).expect("read transcript");
        let ends = line_ends(&bytes);
        let live = live_dir.join(format!("{i}-{}", f.file_name().expect("a file name")));
        let live_path = live.to_str().expect("utf-8").to_owned();
        std::fs::write(&live, b"").expect("create");
        let mut written = 0;
        let (records, _) = read_transcript(runtime, &bytes);
        for rec in &records {
            let upto = rec.source.line.as_ref().and_then(|l| ends.get(l)).copied();
            if let Some(upto) = upto.filter(|u| *u > written) {
                let mut file = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&live)
                    .expect("open");
                std::io::Write::write_all(&mut file, &bytes[written..upto]).expect("append");
                written = upto;
            }
            for (hook, payload) in
                replay_payloads(runtime, std::slice::from_ref(rec), cwd, Some(&live_path))
            {
                run(hook.as_str(), &payload);
            }
        }
        std::fs::write(&live, &bytes).expect("write the rest");
        let session = records.iter().find_map(|r| r.source.session.clone());
        run(
            "SessionEnd",
            &json!({"hook_event_name": "SessionEnd", "session_id": session, "cwd": cwd,
                    "transcript_path": live_path, "reason": "prompt_input_exit"}),
        );
    }
    (state_of(&ctx), t, ctx)
}

/// The state and the resume verdict after an import and after a hook replay of `path`,
/// which must agree; the imported packet.
fn both_ways(path: &Path, runtime: &str) -> (Value, Value, String, crate::common::Tmp, PathBuf) {
    let (rt, recipe) = match runtime {
        "codex" => (Runtime::Codex, "examples/codex/hooks.json"),
        _ => (Runtime::ClaudeCode, "examples/claude-code/settings.json"),
    };
    let (imported, t, ctx) = import_path(path, runtime);
    let (replayed, _rt, replay_ctx) = replay(path, rt, recipe);
    assert_eq!(
        imported,
        replayed,
        "import and hook replay disagree on {}",
        path.display()
    );
    let (verdict, packet) = resumed(&ctx);
    let (replay_verdict, _) = resumed(&replay_ctx);
    assert_eq!(
        verdict,
        replay_verdict,
        "import and hook replay resume differently from {}",
        path.display()
    );
    (imported, verdict, packet, t, ctx)
}

/// The golden checks of one transcript at its end: the state, the verdict and the packet.
fn check(file: &str, runtime: &str) -> Value {
    let (imported, verdict, packet, _t, ctx) = both_ways(&fixture(file), runtime);
    // The framing shows the workspace and the model the session ran under.
    assert!(packet.contains("## Runtime framing"), "{packet}");
    // (The synthetic session's lines name no model.)
    assert!(
        file.starts_with("synthetic") || !packet.contains("- model: (not recorded)"),
        "{file}: no model in the framing"
    );
    // Each fact once: no item line repeated.
    let mut seen = std::collections::HashSet::new();
    for line in packet
        .lines()
        .filter(|l| l.starts_with("- ") && l.contains("[e"))
    {
        assert!(seen.insert(line), "{file}: repeated in the packet: {line}");
    }
    let instruction = imported["latest_user_instruction"].as_str().unwrap_or("");
    assert!(!instruction.trim().is_empty(), "{file}: {imported}");
    assert!(
        !instruction.starts_with("[artifact:"),
        "{file}: {instruction}"
    );
    // Every answer the user gave to a question is a decision, found by search.
    let events = ok(&remaind(
        &ctx,
        &["events", "--kind", "decision,user_message", "--json"],
        None,
    ));
    for line in events.lines() {
        let ev: Value = serde_json::from_str(line).expect("event");
        if ev["data"]["via"] == "question_answer" {
            assert_eq!(ev["kind"], "decision", "{ev}");
            assert_eq!(ev["actor"], "user", "{ev}");
            let answer = ev["text"].as_str().expect("answer text");
            let answer = answer.rsplit(" → ").next().unwrap_or(answer);
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
    insta::assert_snapshot!(format!("{file}-packet-at-the-end"), normalize(&packet));
    json!({ "state": imported, "verdict": verdict })
}

/// A session whose last turn ended resumes waiting for the user: no step current, the gate
/// interrupts with `no_next_step` alone, the outcome quoted, completed work not empty.
fn assert_waits_for_the_user(file: &str, got: &Value) {
    let verdict = &got["verdict"];
    assert_eq!(verdict["exit"], 4, "{file}: {verdict}");
    assert_eq!(
        verdict["reasons"],
        json!(["no_next_step"]),
        "{file}: {verdict}"
    );
    assert_eq!(verdict["next_step"], Value::Null, "{file}: {verdict}");
    assert_eq!(verdict["turn_ended"], "stop", "{file}: {verdict}");
    assert!(verdict["outcome"].as_str().is_some_and(|o| !o.is_empty()));
    assert_eq!(got["state"]["next_step"], Value::Null, "{file}");
    assert!(
        got["state"]["completed_work"]
            .as_array()
            .is_some_and(|c| !c.is_empty()),
        "{file}: {got}"
    );
}

#[test]
fn golden_transcript_claude_code_1af7fc5e() {
    let got = check("claude-code-1af7fc5e.jsonl", "claude-code");
    assert_eq!(got["state"]["latest_user_instruction"], "/init");
    assert_waits_for_the_user("1af7fc5e", &got);
    insta::assert_json_snapshot!(got["state"]);
}

#[test]
fn golden_transcript_claude_code_5c0375b4() {
    let got = check("claude-code-5c0375b4.jsonl", "claude-code");
    assert_waits_for_the_user("5c0375b4", &got);
    insta::assert_json_snapshot!(got["state"]);
}

#[test]
fn golden_transcript_claude_code_fe5e1c67() {
    let got = check("claude-code-fe5e1c67.jsonl", "claude-code");
    assert_eq!(
        got["state"]["latest_user_instruction"],
        "Thanks! Please update CLAUDE.md for current changes"
    );
    assert_waits_for_the_user("fe5e1c67", &got);
    insta::assert_json_snapshot!(got["state"]);
}

#[test]
fn golden_transcript_claude_code_8463c716_with_compaction_and_subagent() {
    let got = check("claude-code-8463c716.jsonl", "claude-code");
    assert_waits_for_the_user("8463c716", &got);
    // The summary's step, written hours before the work finished, is no longer current.
    let loops = got["state"]["open_loops"].to_string();
    assert!(
        loops.contains(
            "Pending before the turn ended (may already be done): Complete spotter-fum.3"
        ),
        "{loops}"
    );
    // The session's last word "All done…" is imported, not only the later reply.
    let done = got["state"]["completed_work"].to_string();
    assert!(done.contains("Turn outcome: All done."), "{done}");
    insta::assert_json_snapshot!(got["state"]);
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

/// Every user message of a real session is accounted for by the accepted state (check 7),
/// and a packet of 8,000 tokens cites at least 90 % of them; the packet is pinned.
fn user_words_survive(file: &str, runtime: &str, prompts: usize) {
    let (_imported, _verdict, _packet, _t, ctx) = both_ways(&fixture(file), runtime);
    let state: Value = serde_json::from_str(
        &std::fs::read_to_string(ctx.join("active/state.json")).expect("state.json"),
    )
    .expect("state parses");
    let ids = |section: &str, field: &str| -> Vec<String> {
        state[section]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|i| match &i[field] {
                Value::Array(a) => a
                    .iter()
                    .filter_map(|v| v.as_str())
                    .map(str::to_owned)
                    .collect::<Vec<_>>(),
                v => v
                    .as_str()
                    .map(str::to_owned)
                    .into_iter()
                    .collect::<Vec<_>>(),
            })
            .collect()
    };
    let mut accounted = ids("user_asked", "events");
    accounted.extend(ids("user_settled", "event"));
    let events = ok(&remaind(
        &ctx,
        &["events", "--kind", "user_message", "--json"],
        None,
    ));
    let messages: Vec<String> = events
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("event"))
        .map(|e| e["id"].as_str().expect("id").to_owned())
        .collect();
    assert_eq!(messages.len(), prompts, "{file}: {messages:?}");
    for id in &messages {
        assert!(
            accounted.contains(id),
            "{file}: {id} is not accounted for by the state"
        );
    }
    let out = remaind(&ctx, &["resume", "--budget", "8000"], None);
    let packet = String::from_utf8(out.stdout).expect("utf-8 packet");
    let cited = messages
        .iter()
        .filter(|id| packet.contains(&format!("[{id}]")))
        .count();
    assert!(
        cited * 10 >= messages.len() * 9,
        "{file}: the packet cites {cited} of {} user messages",
        messages.len()
    );
    insta::assert_snapshot!(format!("{file}-packet-8000"), normalize(&packet));
}

#[test]
fn user_words_survive_claude_code_5b539e53() {
    user_words_survive("claude-code-5b539e53.jsonl", "claude-code", 9);
}

#[test]
fn user_words_survive_codex_01997e76() {
    user_words_survive("codex-01997e76.jsonl", "codex", 13);
}

#[test]
fn golden_transcript_codex_homelab() {
    let got = check("codex-homelab.jsonl", "codex");
    // The rollout stops mid-turn: the agent continues with the instruction.
    assert_eq!(got["verdict"]["exit"], 0, "{got}");
    assert_eq!(
        got["verdict"]["next_step"],
        "No next step is logged: continue with the latest user instruction"
    );
    let state = &got["state"];
    assert_eq!(
        state["latest_user_instruction"],
        "can you analyse the MD files in this directory and determine if the info we have is clear enough to start planning the migration?"
    );
    insta::assert_json_snapshot!(state);
}

#[test]
fn golden_transcript_synthetic_question_long_prompt_and_compact_instructions() {
    let got = check("synthetic-ask-user-question.jsonl", "claude-code");
    let state = &got["state"];
    // `/compact` instructions are a focus for the compaction, never the task itself; the
    // answer to the question is a decision within the turn it answers.
    let instruction = state["latest_user_instruction"]
        .as_str()
        .expect("instruction");
    assert!(
        instruction.starts_with("The CI run below fails on main."),
        "{instruction}"
    );
    // The session ends on the agent's final message: the turn ended, its step is an open
    // loop that may already be done, and the outcome is completed work.
    assert_eq!(state["next_step"], Value::Null);
    assert_eq!(
        state["completed_work"],
        json!([
            "Done: Check whether main is clean",
            "Turn outcome: main was clean; the first fix is in src/lib.rs and the remaining failures are next."
        ])
    );
    insta::assert_json_snapshot!(state);
}

/// Right after Claude Code compacted in the middle of a turn (the summary is the last line
/// so far), the resumed agent goes on with the summary's step.
#[test]
fn golden_mid_turn_after_a_runtime_compaction_goes_on_with_the_summary_step() {
    let t = tmp();
    let whole = std::fs::read_to_string(fixture("claude-code-8463c716.jsonl")).expect("read");
    let upto = whole
        .lines()
        .position(|l| l.contains("\"isCompactSummary\":true"))
        .expect("a compaction summary");
    let cut: String = whole
        .lines()
        .take(upto + 1)
        .map(|l| format!("{l}\n"))
        .collect();
    let path = t.0.join("8463c716-until-the-compaction.jsonl");
    std::fs::write(&path, cut).expect("write");
    let (_, verdict, packet, _t, _ctx) = both_ways(&path, "claude-code");
    assert_eq!(verdict["exit"], 0, "{verdict}");
    assert_eq!(verdict["turn_ended"], Value::Null, "{verdict}");
    let next = verdict["next_step"].as_str().expect("a next step");
    assert!(
        next.starts_with("Complete spotter-fum.3 by running `mix compile`"),
        "{next}"
    );
    insta::assert_snapshot!(normalize(&packet));
}

/// A folder of sessions resumes from the newest session's last instruction (by source time,
/// not by file name); under a small budget every decision outlives every bookkeeping event.
#[test]
fn a_folder_of_sessions_resumes_from_the_newest_one() {
    let t = tmp();
    let folder = t.0.join("project");
    std::fs::create_dir(&folder).expect("mkdir");
    for name in [
        "claude-code-1af7fc5e",
        "claude-code-5c0375b4",
        "claude-code-fe5e1c67",
    ] {
        std::fs::copy(
            fixture(&format!("{name}.jsonl")),
            folder.join(format!("{name}.jsonl")),
        )
        .expect("copy");
    }
    let ctx = init(&t.0);
    ok(&remaind(
        &ctx,
        &["import", "claude-code", folder.to_str().expect("utf-8")],
        None,
    ));
    let (verdict, _) = resumed(&ctx);
    assert_eq!(verdict["exit"], 4, "{verdict}");
    let r: Value = serde_json::from_slice(&remaind(&ctx, &["resume", "--json"], None).stdout)
        .expect("resume --json");
    assert_eq!(
        r["latest_instruction"]["text"],
        "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください"
    );
    // Bookkeeping (a compaction, then a decision logged after it) under a tight budget.
    ok(&remaind(&ctx, &["compact"], None));
    log(&ctx, "decision", "Keep CLAUDE.md in English and Japanese");
    ok(&remaind(&ctx, &["compact"], None));
    log(&ctx, "decision", "Ship the TODO app as is");
    // e339 is the second compaction, e340 the decision after it: whatever the budget, the
    // compaction is left out before the decision is.
    for budget in (300..=2000).step_by(100) {
        let out = remaind(
            &ctx,
            &["resume", "--budget", &budget.to_string(), "--json"],
            None,
        );
        let r: Value = serde_json::from_slice(&out.stdout).expect("resume --json");
        let dropped: Vec<&str> = r["dropped"]["events"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        assert!(
            !dropped.contains(&"e340") || dropped.contains(&"e339"),
            "budget {budget}: the decision went before the bookkeeping: {dropped:?}"
        );
    }
    let roomy: Value = serde_json::from_slice(
        &remaind(&ctx, &["resume", "--budget", "2000", "--json"], None).stdout,
    )
    .expect("resume --json");
    let packet = roomy["packet"].as_str().expect("packet");
    assert!(packet.contains("Ship the TODO app as is"), "{packet}");
}
