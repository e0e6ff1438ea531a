//! Everyday use: the demo, the example agent loop, the Claude Code hook recipe, completions
//! and man pages, each run through the real binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use sha2::{Digest, Sha256};

const BIN: &str = env!("CARGO_BIN_EXE_remaind");

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the CLI crate lives two levels below the repository root")
        .to_path_buf()
}

fn remaind() -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env_remove("REMAIND_DIR").env("NO_COLOR", "1");
    cmd
}

fn run_with_stdin(mut cmd: Command, stdin: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write stdin");
    child.wait_with_output().expect("wait")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn events(ctx: &Path) -> Vec<Value> {
    let log = std::fs::read_to_string(ctx.join("logs/events.jsonl")).expect("read the ledger");
    log.lines()
        .map(|l| serde_json::from_str(l).expect("every ledger line is JSON"))
        .collect()
}

fn all_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read_dir") {
        let entry = entry.expect("entry");
        let kind = entry.file_type().expect("file type");
        if kind.is_dir() {
            all_files(&entry.path(), out);
        } else if kind.is_file() {
            out.push(entry.path());
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn sha256_file(path: &Path) -> String {
    hex::encode(Sha256::digest(std::fs::read(path).expect("read")))
}

#[test]
fn demo_runs_to_the_end_redacts_rejects_and_rolls_back() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let demo_dir = tmp.path().join("demo");
    let out = remaind()
        .arg("demo")
        .arg("--dir")
        .arg(&demo_dir)
        .output()
        .expect("run demo");
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "demo exited {:?}\nstdout:\n{stdout}\nstderr:\n{}",
        out.status.code(),
        text(&out.stderr)
    );
    assert!(
        !stdout.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
    assert!(stdout.contains("rejected (exit 3)"), "{stdout}");
    assert!(stdout.contains("# "), "the packet is printed: {stdout}");
    let ctx = demo_dir.join(".context");

    // No byte of any planted secret in any file under .context/.
    let mut files = Vec::new();
    all_files(&ctx, &mut files);
    assert!(files.len() > 10, "the demo's .context/ holds its files");
    for file in &files {
        let bytes = std::fs::read(file).expect("read");
        for secret in crate::demo_secrets::PLANTED_SECRETS {
            assert!(
                !contains(&bytes, secret.as_bytes()),
                "{} holds the planted secret {secret}",
                file.display()
            );
        }
    }

    let events = events(&ctx);
    // The secrets were really planted: the .env dump was redacted and the test log routed out.
    assert!(events.iter().any(|e| {
        e["redactions"].as_array().is_some_and(|r| {
            let rules: Vec<&str> = r.iter().filter_map(|x| x["rule"].as_str()).collect();
            rules.len() >= 3
        })
    }));
    assert!(
        events
            .iter()
            .any(|e| e["artifact"].as_array().is_some_and(|a| !a.is_empty())),
        "the large test log went to artifacts/"
    );

    // The bad candidate was rejected: a validation event names the failed checks.
    let validation = events
        .iter()
        .find(|e| e["kind"] == "validation")
        .expect("a validation event");
    let failed: Vec<&str> = validation["data"]["failed_checks"]
        .as_array()
        .expect("failed_checks")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        failed.contains(&"latest_user_instruction_preserved"),
        "{failed:?}"
    );
    assert!(failed.contains(&"decisions_preserved"), "{failed:?}");

    // Two compactions were accepted; the rollback and its undo leave the second one's exact
    // bytes, and the packet the demo prints is the one the folder holds.
    let compactions: Vec<&Value> = events
        .iter()
        .filter(|e| e["kind"] == "compaction")
        .collect();
    assert_eq!(compactions.len(), 2);
    let last = &compactions[1]["data"];
    let active = ctx.join("active");
    assert_eq!(
        sha256_file(&active.join("state.json")),
        last["state_sha256"].as_str().expect("state_sha256")
    );
    assert_eq!(
        sha256_file(&active.join("handover.md")),
        last["handover_sha256"].as_str().expect("handover_sha256")
    );
    let written = std::fs::read_to_string(active.join("resume_packet.md")).expect("the packet");
    assert!(
        stdout.contains(written.trim_end()),
        "the printed packet is not the one in active/resume_packet.md"
    );

    // The newer instruction was logged after the compactions and the packet carries it.
    let newest = events
        .iter()
        .rev()
        .find(|e| e["kind"] == "user_message")
        .expect("a user message");
    let newest_seq = newest["seq"].as_u64().expect("seq");
    let last_compaction = compactions[1]["seq"].as_u64().expect("seq");
    assert!(newest_seq > last_compaction);
    assert!(stdout.contains(newest["text"].as_str().expect("text")));

    // The packet carries the accepted memory (below the handover) and the open blocker.
    let packet = &stdout;
    let memory = packet
        .find("## Long-term memory")
        .expect("a memory section");
    assert!(packet[memory..].contains("## Retries in the uploader"));
    assert!(packet.find("## State").is_some_and(|h| h < memory));
    assert!(packet.contains("blocker (importance 2, agent): The integration tests need S3"));

    // The folder is not reusable: a second run into it is refused with exit 2.
    let again = remaind()
        .arg("demo")
        .arg("--dir")
        .arg(&demo_dir)
        .output()
        .expect("run demo");
    assert_eq!(again.status.code(), Some(2), "{}", text(&again.stderr));
}

#[test]
fn demo_json_reports_every_step_and_no_problem() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = remaind()
        .arg("demo")
        .arg("--json")
        .arg("--dir")
        .arg(tmp.path().join("d"))
        .output()
        .expect("run demo");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(report["problems"], Value::Array(Vec::new()));
    assert_eq!(report["rejected"]["derived_unchanged"], true);
    assert_eq!(report["rollback"]["restored_equal"], true);
    assert_eq!(report["resume"]["gate"]["proceed"], true);
    let steps = report["steps"].as_array().expect("steps");
    for action in [
        "init", "log", "monitor", "compact", "reject", "memory", "resume", "rollback", "verify",
    ] {
        assert!(
            steps.iter().any(|s| s["action"] == action),
            "no {action} step"
        );
    }
    assert!(steps.iter().all(|s| s["ok"] == true));
}

#[test]
fn demo_ignores_remaind_dir_from_the_environment() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let existing = tmp.path().join("project/.context");
    std::fs::create_dir(tmp.path().join("project")).expect("mkdir");
    let out = remaind()
        .arg("init")
        .arg("--dir")
        .arg(&existing)
        .output()
        .expect("init");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let before = std::fs::read(existing.join("logs/events.jsonl")).expect("ledger");
    let out = remaind()
        .env("REMAIND_DIR", &existing)
        .env("TMPDIR", tmp.path())
        .args(["demo", "--json"])
        .output()
        .expect("demo");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let workspace = report["workspace"].as_str().expect("workspace");
    assert!(Path::new(workspace).starts_with(tmp.path()), "{workspace}");
    assert_eq!(
        std::fs::read(existing.join("logs/events.jsonl")).expect("ledger"),
        before,
        "the demo never writes into an existing context"
    );
}

#[test]
fn example_agent_loop_runs_end_to_end() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = Command::new("bash")
        .arg(repo_root().join("examples/agent_loop.sh"))
        .env("REMAIND", BIN)
        .env("TMPDIR", tmp.path())
        .env_remove("REMAIND_DIR")
        .env_remove("KEEP")
        .output()
        .expect("run bash");
    assert!(
        out.status.success(),
        "agent_loop.sh exited {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains("agent_loop: OK"));
}

/// Every (event, command) the recipe at `recipe` (relative to the repository) configures.
pub(crate) fn hook_commands_of(recipe: &str) -> Vec<(String, String)> {
    let path = repo_root().join(recipe);
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read settings.json"))
            .expect("settings.json parses");
    let hooks = settings["hooks"].as_object().expect("a hooks object");
    let mut out = Vec::new();
    for (event, groups) in hooks {
        for group in groups.as_array().expect("a list of matcher groups") {
            for hook in group["hooks"].as_array().expect("a hooks list") {
                assert_eq!(hook["type"], "command");
                out.push((
                    event.clone(),
                    hook["command"].as_str().expect("a command").to_owned(),
                ));
            }
        }
    }
    out
}

/// Every (event, command) the Claude Code recipe configures.
fn hook_commands() -> Vec<(String, String)> {
    hook_commands_of("examples/claude-code/settings.json")
}

fn sample(event: &str) -> Vec<u8> {
    let name = event
        .parse::<remaind_adapters::HookEvent>()
        .unwrap_or_else(|e| panic!("no sample payload for {event}: {e}"))
        .cli_name();
    std::fs::read(repo_root().join(format!("examples/claude-code/samples/{name}.json")))
        .expect("read sample")
}

/// Runs a configured hook command through `sh -c`, with the test binary first on PATH.
pub(crate) fn run_hook(command: &str, payload: &[u8], ctx: Option<&Path>, cwd: &Path) -> Output {
    let bin_dir = Path::new(BIN).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(cwd)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env_remove("REMAIND_DIR");
    if let Some(ctx) = ctx {
        cmd.env("REMAIND_DIR", ctx);
    }
    run_with_stdin(cmd, payload)
}

#[test]
fn claude_code_hook_recipe_runs_on_sample_payloads() {
    let commands = hook_commands();
    let configured: Vec<&str> = commands.iter().map(|(e, _)| e.as_str()).collect();
    for needed in ["SessionStart", "PreCompact", "PostToolUse"] {
        assert!(configured.contains(&needed), "the recipe lacks {needed}");
    }
    for (_, command) in &commands {
        assert!(
            command.starts_with("remaind "),
            "every hook command is the remaind binary: {command}"
        );
    }

    let tmp = tempfile::tempdir().expect("tempdir");
    let ctx = tmp.path().join(".context");
    let out = remaind()
        .arg("init")
        .arg("--dir")
        .arg(&ctx)
        .output()
        .expect("init");
    assert!(out.status.success(), "{}", text(&out.stderr));

    // In the order a session runs them: prompt, tool use, turn end, compaction, fresh
    // session.
    let order = [
        "UserPromptSubmit",
        "SubagentStart",
        "PermissionRequest",
        "Notification",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "SubagentStop",
        "Stop",
        "StopFailure",
        "PreCompact",
        "PostCompact",
        "SessionEnd",
        "SessionStart",
    ];
    let mut ran = 0;
    for event in order {
        for (_, command) in commands.iter().filter(|(e, _)| e == event) {
            let out = run_hook(command, &sample(event), Some(&ctx), tmp.path());
            assert!(
                out.status.success(),
                "{event}: `{command}` exited {:?}: {}",
                out.status.code(),
                text(&out.stderr)
            );
            ran += 1;
            if event == "SessionStart" {
                let reply: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
                assert_eq!(reply["hookSpecificOutput"]["hookEventName"], "SessionStart");
                let context = reply["hookSpecificOutput"]["additionalContext"]
                    .as_str()
                    .expect("additionalContext");
                assert!(
                    context.contains("keep the public API unchanged"),
                    "the packet carries the prompt: {context}"
                );
            }
        }
    }
    assert_eq!(ran, commands.len());

    let events = events(&ctx);
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["kind"].as_str()).collect();
    assert!(kinds.contains(&"user_message"), "{kinds:?}");
    assert!(kinds.contains(&"tool_result"), "{kinds:?}");
    assert!(kinds.contains(&"file_change"), "{kinds:?}");
    assert!(kinds.contains(&"compaction"), "{kinds:?}");
    let tool = events
        .iter()
        .find(|e| e["kind"] == "tool_result")
        .expect("tool_result");
    assert_eq!(tool["tool"]["name"], "Edit");
    assert!(ctx.join("active/state.json").is_file());
}

#[test]
fn hooks_do_nothing_in_a_project_without_context() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let payload = format!(
        r#"{{"hook_event_name": "PostToolUse", "cwd": "{}", "tool_name": "Bash", "tool_input": {{"command": "ls"}}, "tool_response": {{"stdout": ""}}}}"#,
        tmp.path().display()
    );
    let out = run_hook(
        "remaind hook post-tool-use",
        payload.as_bytes(),
        None,
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    assert!(!tmp.path().join(".context").exists());

    // A hook fails open: a payload it cannot read is said, never a blocking exit 2.
    let bad = run_hook("remaind hook post-tool-use", b"not json", None, tmp.path());
    assert_eq!(bad.status.code(), Some(0), "{}", text(&bad.stderr));
    assert!(
        text(&bad.stderr).contains("not JSON"),
        "{}",
        text(&bad.stderr)
    );
    assert!(!tmp.path().join(".context").exists());

    // A freshly initialized project has nothing to resume: nothing is injected.
    let ctx = tmp.path().join(".context");
    let out = remaind()
        .arg("init")
        .arg("--dir")
        .arg(&ctx)
        .output()
        .expect("init");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run_hook(
        "remaind hook session-start",
        &sample("SessionStart"),
        Some(&ctx),
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
}

#[test]
fn completions_are_generated_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let out = remaind()
            .args(["completions", shell])
            .output()
            .expect("run");
        assert!(out.status.success(), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        assert!(script.len() > 500, "{shell}: {script}");
        assert!(script.contains("remaind"), "{shell}");
        assert!(
            script.contains("demo") && script.contains("compact"),
            "{shell}"
        );
    }
    let bad = remaind()
        .args(["completions", "tcsh"])
        .output()
        .expect("run");
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn man_page_renders() {
    let out = remaind().arg("man").output().expect("run");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = text(&out.stdout);
    assert!(
        page.starts_with(".ie") || page.contains(".TH remaind"),
        "{page}"
    );
    assert!(page.contains(".TH remaind"));
    assert!(page.contains("demo"));

    let tmp = tempfile::tempdir().expect("tempdir");
    let out = remaind()
        .arg("man")
        .arg("--out")
        .arg(tmp.path())
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", text(&out.stderr));
    for page in [
        "remaind.1",
        "remaind-demo.1",
        "remaind-completions.1",
        "remaind-man.1",
    ] {
        let body = std::fs::read_to_string(tmp.path().join(page)).expect(page);
        assert!(body.contains(".TH"), "{page}");
    }
}

#[test]
fn every_subcommand_help_shows_examples() {
    let out = remaind().arg("--help").output().expect("run");
    assert!(out.status.success());
    let help = text(&out.stdout);
    // Subcommands are the lines of the `Commands:` block indented by exactly two spaces.
    let commands: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .filter(|c| c != "help")
        .collect();
    for needed in ["demo", "completions", "man", "hook", "init"] {
        assert!(
            commands.iter().any(|c| c == needed),
            "{needed} in {commands:?}"
        );
    }
    let mut missing = Vec::new();
    for cmd in &commands {
        let out = remaind()
            .args([cmd.as_str(), "--help"])
            .output()
            .expect("run");
        assert!(out.status.success(), "{cmd} --help");
        if !text(&out.stdout).contains("Examples:") {
            missing.push(cmd.clone());
        }
    }
    assert!(missing.is_empty(), "--help without examples: {missing:?}");
}
