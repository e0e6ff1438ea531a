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
