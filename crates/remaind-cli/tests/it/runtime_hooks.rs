//! The runtime hooks beyond the transcripts: the Codex recipe on payloads built from a real
//! rollout, SessionStart fitted to each runtime's limit, an empty ledger left alone, one
//! no-next-step policy for the gate before and after a compaction, and `monitor` bands that
//! do not flip between a reported and a measured count.

use std::path::Path;

use serde_json::Value;

use crate::common::{ok, remaind, tmp};
use crate::everyday::{hook_commands_of, run_hook};

fn repo(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

fn events(ctx: &Path) -> Vec<Value> {
    ok(&remaind(ctx, &["events", "--json"], None))
        .lines()
        .map(|l| serde_json::from_str(l).expect("event"))
        .collect()
}

fn init(dir: &Path) -> std::path::PathBuf {
    let ctx = dir.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    ctx
}

fn additional_context(stdout: &[u8]) -> String {
    let reply: Value = serde_json::from_slice(stdout).expect("JSON on stdout");
    assert_eq!(reply["hookSpecificOutput"]["hookEventName"], "SessionStart");
    reply["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("additionalContext")
        .to_owned()
}

#[test]
fn codex_hook_recipe_runs_on_sample_payloads() {
    let commands = hook_commands_of("examples/codex/hooks.json");
    let t = tmp();
    let ctx = init(&t.0);
    let order = [
        ("UserPromptSubmit", "user-prompt-submit"),
        ("PostToolUse", "post-tool-use"),
        ("SubagentStop", "subagent-stop"),
        ("Stop", "stop"),
        ("PreCompact", "pre-compact"),
        ("PostCompact", "post-compact"),
        ("SessionStart", "session-start"),
    ];
    let mut context = String::new();
    for (event, sample) in order {
        let payload = std::fs::read(repo(&format!("examples/codex/samples/{sample}.json")))
            .expect("sample payload");
        let mut ran = 0;
        for (_, command) in commands.iter().filter(|(e, _)| e == event) {
            let out = run_hook(command, &payload, Some(&ctx), &t.0);
            assert!(
                out.status.success(),
                "{event}: `{command}` exited {:?}: {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            );
            if event == "SessionStart" {
                context = additional_context(&out.stdout);
            }
            ran += 1;
        }
        assert_eq!(ran, 1, "the Codex recipe runs {event} once");
    }
    let evs = events(&ctx);
    let find = |kind: &str, text: &str| {
        evs.iter()
            .find(|e| e["kind"] == kind && e["text"].as_str().is_some_and(|t| t.starts_with(text)))
            .unwrap_or_else(|| panic!("no {kind} starting {text:?} in {evs:#?}"))
    };
    let prompt = find("user_message", "can you analyse the MD files");
    assert_eq!(prompt["data"]["origin"]["runtime"], "codex");
    assert_eq!(prompt["data"]["origin"]["hook"], "UserPromptSubmit");
    find("result", "Done: Read every MD file in the directory");
    find("next_step", "List the gaps that block migration planning");
    find("assistant_message", "The notes cover the services");
    let outcome = find("note", "Backups run nightly from host nas-01");
    assert_eq!(outcome["data"]["via"], "subagent_outcome");
    find("note", "7. Pending Tasks:");
    find("compaction", "");
    assert!(
        context.contains("can you analyse the MD files"),
        "{context}"
    );
    assert!(context.len() <= 6_000, "{} characters", context.len());
}

#[test]
fn session_start_fits_each_runtime_limit_and_points_at_the_full_packet() {
    let t = tmp();
    let ctx = init(&t.0);
    let transcript = repo("fixtures/transcripts/claude-code-fe5e1c67.jsonl");
    ok(&remaind(
        &ctx,
        &["import", "claude-code", transcript.to_str().expect("utf-8")],
        None,
    ));
    // The session's last turn ended: the gate waits for the user (exit 4).
    let out = remaind(&ctx, &["resume", "--budget", "100000"], None);
    assert_eq!(out.status.code(), Some(4));
    let full = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        full.len() > 12_000,
        "the uncompacted packet is large: {}",
        full.len()
    );
    let claude = br#"{"hook_event_name":"SessionStart","session_id":"s","source":"resume"}"#;
    let codex = br#"{"hook_event_name":"SessionStart","session_id":"s","turn_id":"t","model":"gpt-5-codex"}"#;
    for (payload, limit) in [(&claude[..], 10_000), (&codex[..], 6_000)] {
        let out = ok(&remaind(&ctx, &["hook", "session-start"], Some(payload)));
        let context = additional_context(out.as_bytes());
        assert!(context.len() <= limit, "{} > {limit}", context.len());
        assert!(
            context.contains("Thanks! Please update CLAUDE.md for current changes"),
            "the latest instruction survives the cut"
        );
        assert!(
            context.contains("resume_packet.md"),
            "points at the full packet"
        );
        // No tool payload is dumped into the packet.
        assert!(!context.contains("\"originalFile\""), "{context}");
    }
}

#[test]
fn an_empty_ledger_injects_nothing_and_records_nothing() {
    let t = tmp();
    let ctx = init(&t.0);
    for hook in ["pre-compact", "session-start", "stop"] {
        let out = remaind(&ctx, &["hook", hook], Some(b"{\"session_id\":\"s\"}"));
        assert!(
            out.status.success(),
            "{hook}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stdout.is_empty(),
            "{hook} printed {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    assert!(events(&ctx).is_empty());
}

#[test]
fn the_gate_gives_the_same_verdict_before_and_after_a_compaction() {
    let t = tmp();
    let ctx = init(&t.0);
    ok(&remaind(
        &ctx,
        &["hook", "user-prompt-submit"],
        Some(br#"{"prompt":"Rename the crate to remaind-core","session_id":"s"}"#),
    ));
    let before = remaind(&ctx, &["resume", "--json"], None);
    ok(&remaind(&ctx, &["compact"], None));
    let after = remaind(&ctx, &["resume", "--json"], None);
    assert_eq!(
        before.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&before.stdout)
    );
    assert_eq!(before.status.code(), after.status.code());
    let step = |o: &std::process::Output| -> Value {
        let v: Value = serde_json::from_slice(&o.stdout).expect("resume --json");
        v["next_step"]["text"].clone()
    };
    assert_eq!(step(&before), step(&after));
}

#[test]
fn monitor_bands_do_not_flip_between_reported_and_measured_counts() {
    let t = tmp();
    let ctx = init(&t.0);
    ok(&remaind(
        &ctx,
        &["hook", "user-prompt-submit"],
        Some(br#"{"prompt":"Ship it","session_id":"s"}"#),
    ));
    for _ in 0..3 {
        ok(&remaind(&ctx, &["monitor", "--used", "190000"], None));
        ok(&remaind(&ctx, &["monitor"], None));
    }
    let bands = events(&ctx)
        .iter()
        .filter(|e| e["kind"] == "monitor")
        .count();
    assert_eq!(
        bands, 1,
        "one band change (the reported count), not a flip per call"
    );
}

#[test]
fn a_secret_cut_by_a_tool_description_leaves_no_fragment_in_the_ledger() {
    // The description of a command is cut to 200 characters; a token straddling the cut
    // would keep a fragment too short for any rule to recognize, unless the payload is
    // redacted before it is described.
    let body = "Zq7Xw3Rt9Yp2Lk5Mn8Bv4Cx6Jh1Gf0Ds3Ae7";
    let command = format!("echo {} ghp_{body} done", "a".repeat(180));
    let payload = serde_json::json!({
        "session_id": "s1",
        "transcript_path": "/tmp/s1.jsonl",
        "cwd": "/tmp",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": "done", "stderr": "", "interrupted": false},
    });
    let t = tmp();
    let ctx = init(&t.0);
    let out = run_hook(
        "remaind hook post-tool-use",
        payload.to_string().as_bytes(),
        Some(&ctx),
        &t.0,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let described = events(&ctx)
        .into_iter()
        .find(|e| e["kind"] == "tool_result")
        .expect("a tool_result event");
    assert!(
        described["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("$ echo"))
    );
    let log = std::fs::read_to_string(ctx.join("logs/events.jsonl")).expect("log");
    for fragment in body.as_bytes().windows(6) {
        let fragment = std::str::from_utf8(fragment).expect("ascii");
        assert!(
            !log.contains(fragment),
            "{fragment:?} of the token is in the ledger"
        );
    }
}

/// A hook never blocks the agent: a payload it cannot use, or no `.context/` at all, is said
/// on stderr and the hook exits 0 (a runtime reads 2 as "block": it would erase the prompt or
/// keep the agent from stopping); the failure and the payload, redacted, are kept.
#[test]
fn hooks_fail_open_and_keep_what_they_could_not_do() {
    let t = tmp();
    let ctx = init(&t.0);
    let secret = "ghp_9aZ3kQ7wLm2XbR4tY8uP1sD6fG0hJ5cV2nE7";
    let garbage = format!("garbage {secret}");
    for (hook, payload) in [
        ("stop", garbage.as_bytes().to_vec()),
        ("user-prompt-submit", b"[1, 2]".to_vec()),
        ("post-tool-use", br#"{"tool_input": {}}"#.to_vec()),
        ("stop", br#"{"last_assistant_message": 5}"#.to_vec()),
    ] {
        let out = remaind(&ctx, &["hook", hook], Some(&payload));
        assert_eq!(
            out.status.code(),
            Some(0),
            "{hook}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("exits 0 so the agent goes on"), "{stderr}");
    }
    assert!(events(&ctx).is_empty());
    let kept = std::fs::read_to_string(ctx.join("logs/hook-errors.jsonl")).expect("kept");
    let lines: Vec<Value> = kept
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 4, "{kept}");
    assert!(
        lines[0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("not JSON"))
    );
    assert!(
        lines[0]["payload"]
            .as_str()
            .is_some_and(|p| p.starts_with("garbage "))
    );
    assert!(!kept.contains(secret), "no secret on disk: {kept}");
    assert!(
        lines[2]["error"]
            .as_str()
            .is_some_and(|e| e.contains("tool_name"))
    );
    assert!(
        lines[3]["error"]
            .as_str()
            .is_some_and(|e| e.contains("last_assistant_message"))
    );

    // No `.context/` from the payload's cwd: say where it looked, record nothing, exit 0.
    let elsewhere = tmp();
    let payload = serde_json::json!({"cwd": elsewhere.0, "prompt": "hi"}).to_string();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_remaind"))
        .args(["hook", "user-prompt-submit"])
        .env_remove("REMAIND_DIR")
        .current_dir(&elsewhere.0)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            std::io::Write::write_all(&mut c.stdin.take().expect("stdin"), payload.as_bytes())?;
            c.wait_with_output()
        })
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no .context/ in") && stderr.contains(elsewhere.0.to_str().expect("utf-8")),
        "{stderr}"
    );
}

/// The guide's try-it line works from a project: the samples' `cwd` is ".", so the hook finds
/// the `.context/` of the folder it runs in.
#[test]
fn the_guide_sample_payloads_work_from_a_project() {
    let t = tmp();
    let ctx = init(&t.0);
    for (runtime, hook) in [
        ("claude-code", "post-tool-use"),
        ("codex", "user-prompt-submit"),
    ] {
        let payload = std::fs::read(repo(&format!("examples/{runtime}/samples/{hook}.json")))
            .expect("sample");
        let out = run_hook(&format!("remaind hook {hook}"), &payload, None, &t.0);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let events = events(&ctx);
    assert!(
        events.iter().any(|e| e["kind"] == "tool_result"),
        "{events:?}"
    );
    assert!(
        events.iter().any(|e| e["kind"] == "user_message"),
        "{events:?}"
    );
    let framing: Value = serde_json::from_str(
        &std::fs::read_to_string(ctx.join("active/framing.json")).expect("framing"),
    )
    .expect("framing parses");
    assert_eq!(
        framing["workspace_root"].as_str(),
        t.0.to_str(),
        "the workspace is the folder the hook ran in, named plainly (no `/.`): {framing}"
    );
}
