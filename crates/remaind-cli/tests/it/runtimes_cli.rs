//! `remaind install` and the five runtimes' hooks: a whole session of each runtime run through
//! the hooks `remaind install` wrote (each command as the runtime runs it, on the payload
//! fixtures of `fixtures/hooks/<runtime>/`), the install merged into settings files that hold
//! the user's own hooks (`fixtures/install/`), and every event the installed files name
//! accepted by `remaind hook`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::common::{ok, remaind, tmp};
use crate::everyday::run_hook;

const BIN: &str = env!("CARGO_BIN_EXE_remaind");

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// `remaind ARGS` run in `cwd` with `HOME` set to `home` (no `--dir`).
fn remaind_in(cwd: &Path, home: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("REMAIND_DIR")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run remaind")
}

fn events(ctx: &Path) -> Vec<Value> {
    ok(&remaind(ctx, &["events", "--json"], None))
        .lines()
        .map(|l| serde_json::from_str(l).expect("event"))
        .collect()
}

fn hook_errors(ctx: &Path) -> Vec<String> {
    std::fs::read_to_string(ctx.join("logs/hook-errors.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The installed file of `runtime` in `project`.
fn installed_file(runtime: &str, project: &Path) -> PathBuf {
    project.join(match runtime {
        "claude-code" => ".claude/settings.json",
        "codex" => ".codex/hooks.json",
        "cursor" => ".cursor/hooks.json",
        "gemini" => ".gemini/settings.json",
        "opencode" => ".opencode/plugins/remaind.js",
        other => panic!("no runtime {other}"),
    })
}

/// Every (event, command) an installed file wires: the nested settings of Claude Code, Codex
/// and Gemini CLI, Cursor's flat hooks.json, and the OpenCode plugin's `run("event", ...)`
/// calls, each of which runs `remaind hook opencode <event>`.
fn installed_commands(runtime: &str, file: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(file).expect("read the installed file");
    if runtime == "opencode" {
        let mut out = Vec::new();
        for (i, m) in text.match_indices("run(\"") {
            let rest = &text[i + m.len()..];
            let event = &rest[..rest.find('"').expect("a closing quote")];
            out.push((event.to_owned(), format!("remaind hook opencode {event}")));
        }
        assert!(
            text.contains("[\"hook\", \"opencode\", event]"),
            "the plugin runs `remaind hook opencode <event>`"
        );
        return out;
    }
    let settings: Value = serde_json::from_str(&text).expect("the installed file parses");
    let mut out = Vec::new();
    for (event, list) in settings["hooks"].as_object().expect("a hooks object") {
        for item in list.as_array().expect("an array per event") {
            let commands: Vec<&Value> = if runtime == "cursor" {
                vec![&item["command"]]
            } else {
                item["hooks"]
                    .as_array()
                    .expect("a hooks list")
                    .iter()
                    .map(|h| &h["command"])
                    .collect()
            };
            for c in commands {
                out.push((event.clone(), c.as_str().expect("a command").to_owned()));
            }
        }
    }
    out
}

/// The fixture payload `name` of `runtime` with `$PROJECT` put to `project`.
fn fixture(runtime: &str, name: &str, project: &Path) -> Value {
    let path = match runtime {
        "claude-code" => repo(&format!("examples/claude-code/samples/{name}.json")),
        "codex" if name == "post-tool-use-failed" => {
            repo("fixtures/hooks/codex/post-tool-use-failed.json")
        }
        "codex" => repo(&format!("examples/codex/samples/{name}.json")),
        _ => repo(&format!("fixtures/hooks/{runtime}/{name}.json")),
    };
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .replace("$PROJECT", project.to_str().expect("UTF-8 temp path"));
    let mut v: Value = serde_json::from_str(&text).expect("fixture parses");
    if matches!(runtime, "claude-code" | "codex") {
        v["cwd"] = json!(project);
    }
    v
}

/// One step of a session: the event the installed file names, the fixture sent, and the
/// prompt put in its place (the session's later instructions).
struct Step {
    event: &'static str,
    fixture: &'static str,
    prompt: Option<&'static str>,
}

const fn step(event: &'static str, fixture: &'static str) -> Step {
    Step {
        event,
        fixture,
        prompt: None,
    }
}

const fn prompt(event: &'static str, fixture: &'static str, text: &'static str) -> Step {
    Step {
        event,
        fixture,
        prompt: Some(text),
    }
}

/// The latest instruction of every session: the next session's packet must carry it verbatim.
const LATEST: &str = "Now make the backoff jitter configurable through UPLOAD_JITTER_MS; do not touch the retry count";

/// One runtime's session: its steps (the first session), the start of the next one, and how
/// its output carries the packet.
struct Session {
    runtime: &'static str,
    steps: Vec<Step>,
    start: Step,
}

fn sessions() -> Vec<Session> {
    vec![
        Session {
            runtime: "claude-code",
            steps: vec![
                step("SessionStart", "session-start"),
                step("UserPromptSubmit", "user-prompt-submit"),
                step("PostToolUse", "post-tool-use"),
                step("PostToolUseFailure", "post-tool-use-failure"),
                step("Stop", "stop"),
                step("PreCompact", "pre-compact"),
                prompt("UserPromptSubmit", "user-prompt-submit", LATEST),
                step("SessionEnd", "session-end"),
            ],
            start: step("SessionStart", "session-start"),
        },
        Session {
            runtime: "codex",
            steps: vec![
                step("SessionStart", "session-start"),
                step("UserPromptSubmit", "user-prompt-submit"),
                step("PostToolUse", "post-tool-use"),
                step("PostToolUse", "post-tool-use-failed"),
                step("Stop", "stop"),
                step("PreCompact", "pre-compact"),
                prompt("UserPromptSubmit", "user-prompt-submit", LATEST),
            ],
            start: step("SessionStart", "session-start"),
        },
        Session {
            runtime: "cursor",
            steps: vec![
                step("sessionStart", "sessionStart"),
                step("beforeSubmitPrompt", "beforeSubmitPrompt"),
                step("postToolUse", "postToolUse"),
                step("postToolUseFailure", "postToolUseFailure"),
                step("subagentStop", "subagentStop"),
                step("afterAgentResponse", "afterAgentResponse"),
                step("stop", "stop"),
                step("preCompact", "preCompact"),
                prompt("beforeSubmitPrompt", "beforeSubmitPrompt", LATEST),
                step("sessionEnd", "sessionEnd"),
            ],
            start: step("sessionStart", "sessionStart"),
        },
        Session {
            runtime: "gemini",
            steps: vec![
                step("SessionStart", "SessionStart"),
                step("BeforeAgent", "BeforeAgent"),
                step("AfterTool", "AfterTool"),
                step("AfterTool", "AfterTool.failure"),
                step("Notification", "Notification"),
                step("AfterAgent", "AfterAgent"),
                step("PreCompress", "PreCompress"),
                prompt("BeforeAgent", "BeforeAgent", LATEST),
                step("SessionEnd", "SessionEnd"),
            ],
            start: step("SessionStart", "SessionStart"),
        },
        Session {
            runtime: "opencode",
            steps: vec![
                step(
                    "experimental.chat.system.transform",
                    "experimental.chat.system.transform",
                ),
                step("chat.message", "chat.message"),
                step("tool.execute.after", "tool.execute.after"),
                step("tool.execute.after", "tool.execute.after.failure"),
                step("session.idle", "session.idle"),
                step(
                    "experimental.session.compacting",
                    "experimental.session.compacting",
                ),
                step("session.compacted", "session.compacted"),
                prompt("chat.message", "chat.message", LATEST),
            ],
            start: step(
                "experimental.chat.system.transform",
                "experimental.chat.system.transform",
            ),
        },
    ]
}

/// The packet a hook's stdout injects, in the runtime's output format (`None`: nothing).
fn injected(runtime: &str, stdout: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stdout);
    let text = text.trim();
    // Claude Code and Codex show PreCompact's plain outcome line; the others read stdout as
    // JSON only.
    if text.is_empty() || (matches!(runtime, "claude-code" | "codex") && !text.starts_with('{')) {
        return None;
    }
    let v: Value = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("{runtime}: stdout is not JSON ({e}): {text}"));
    let found = if runtime == "cursor" {
        &v["additional_context"]
    } else {
        &v["hookSpecificOutput"]["additionalContext"]
    };
    Some(
        found
            .as_str()
            .unwrap_or_else(|| panic!("{runtime}: no packet in {v}"))
            .to_owned(),
    )
}

/// Runs `step` through every command the installed file wires for its event, as the runtime
/// would (a shell in the project, the payload on stdin); each must exit 0. The packet the
/// last one injected, if any.
fn run_step(
    runtime: &str,
    commands: &[(String, String)],
    step: &Step,
    project: &Path,
) -> Option<String> {
    let mut payload = fixture(runtime, step.fixture, project);
    if let Some(text) = step.prompt {
        payload["prompt"] = json!(text);
    }
    let bytes = serde_json::to_vec(&payload).expect("payload");
    let mut ran = 0;
    let mut packet = None;
    for (_, command) in commands.iter().filter(|(e, _)| e == step.event) {
        let out = run_hook(command, &bytes, None, project);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{runtime} {}: `{command}`: {}",
            step.fixture,
            String::from_utf8_lossy(&out.stderr)
        );
        packet = injected(runtime, &out.stdout);
        ran += 1;
    }
    assert_eq!(
        ran, 1,
        "{runtime}: the installed file runs {} once",
        step.event
    );
    packet
}

#[test]
fn a_whole_session_of_each_runtime_through_its_installed_hooks() {
    for session in sessions() {
        let runtime = session.runtime;
        let t = tmp();
        let (project, home) = (t.0.join("project"), t.0.join("home"));
        std::fs::create_dir_all(&project).expect("mkdir project");
        std::fs::create_dir_all(&home).expect("mkdir home");
        let ctx = project.join(".context");
        ok(&remaind(&ctx, &["init"], None));
        ok(&remaind_in(&project, &home, &["install", runtime]));
        let file = installed_file(runtime, &project);
        let commands = installed_commands(runtime, &file);

        let mut after_compaction = None;
        for (i, step) in session.steps.iter().enumerate() {
            let packet = run_step(runtime, &commands, step, &project);
            if i == 0 {
                assert_eq!(packet, None, "{runtime}: a fresh project injects nothing");
            } else if let Some(packet) = packet {
                after_compaction.get_or_insert(packet);
            }
        }
        let evs = events(&ctx);
        let from = |e: &Value| e["data"]["origin"]["runtime"] == runtime;
        // The latest instruction, verbatim, from this runtime's hook.
        let latest = evs
            .iter()
            .rfind(|e| e["kind"] == "user_message")
            .unwrap_or_else(|| panic!("{runtime}: no user_message in {evs:#?}"));
        assert_eq!(latest["text"], LATEST, "{runtime}");
        assert!(from(latest), "{runtime}: {latest}");
        // The tool failure with its output.
        let failure = evs
            .iter()
            .find(|e| e["kind"] == "tool_result" && e["data"]["failed"] == true)
            .unwrap_or_else(|| panic!("{runtime}: no failed tool_result in {evs:#?}"));
        assert!(from(failure), "{runtime}: {failure}");
        assert!(
            failure["data"]["error"]
                .as_str()
                .unwrap_or("")
                .contains("13 passed; 1 failed"),
            "{runtime}: {failure}"
        );
        assert!(
            failure["text"]
                .as_str()
                .unwrap_or("")
                .contains("cargo test"),
            "{runtime}: {failure}"
        );
        // A successful tool call too (Codex's sample is its plan tool: a next step).
        assert!(
            runtime == "codex"
                || evs
                    .iter()
                    .any(|e| e["kind"] == "tool_result" && e["data"]["failed"] != true && from(e)),
            "{runtime}: no successful tool_result"
        );
        // The turn's end with its outcome.
        assert!(
            evs.iter()
                .any(|e| e["kind"] == "assistant_message" && from(e)),
            "{runtime}: no turn end in {evs:#?}"
        );
        // A compaction.
        assert!(
            evs.iter().any(|e| e["kind"] == "compaction"),
            "{runtime}: no compaction in {evs:#?}"
        );
        // Gemini gets the packet back with the prompt after PreCompress, OpenCode inside its
        // own compaction.
        if matches!(runtime, "gemini" | "opencode") {
            let packet = after_compaction
                .unwrap_or_else(|| panic!("{runtime}: no packet after the compaction"));
            assert!(packet.contains("retry five times"), "{runtime}: {packet}");
        } else {
            assert_eq!(
                after_compaction, None,
                "{runtime}: only a session start injects"
            );
        }
        // The framing names the runtime.
        let framing = std::fs::read_to_string(ctx.join("active/framing.json")).unwrap_or_default();
        if !matches!(runtime, "claude-code" | "codex") {
            assert!(
                framing.contains(&format!("\"runtime\": \"{runtime}")),
                "{runtime}: {framing}"
            );
        }
        assert_eq!(hook_errors(&ctx), Vec::<String>::new(), "{runtime}");

        // The next session starts with the packet, the latest instruction in it verbatim.
        let packet = run_step(runtime, &commands, &session.start, &project)
            .unwrap_or_else(|| panic!("{runtime}: the next session injects nothing"));
        assert!(packet.contains(LATEST), "{runtime}: {packet}");
        // The golden pins what each runtime's next session is given.
        let packet = packet.replace(project.to_str().expect("UTF-8"), "[project]");
        insta::assert_snapshot!(format!("{runtime}-next-session-packet"), normalize(&packet));
    }
}

/// The packet without what changes from run to run: times, hashes, the machine.
fn normalize(packet: &str) -> String {
    let ts = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z").expect("regex");
    let hex = regex::Regex::new(r"\b[0-9a-f]{64}\b").expect("regex");
    let machine =
        regex::Regex::new(r"(?m)^- (shell|os|date|time zone|workspace root): .*$").expect("regex");
    let text = ts.replace_all(packet, "[time]");
    let text = hex.replace_all(&text, "[sha256]");
    machine.replace_all(&text, "- $1: [machine]").into_owned()
}

/// Copies `fixture` to `file` (creating its folder).
fn place(fixture: &str, file: &Path) -> Vec<u8> {
    let bytes = std::fs::read(repo(&format!("fixtures/install/{fixture}"))).expect("fixture");
    std::fs::create_dir_all(file.parent().expect("a folder")).expect("mkdir");
    std::fs::write(file, &bytes).expect("write fixture");
    bytes
}

/// The user's hooks of a settings file: every (event, entry) whose command is not ours.
fn users_hooks(runtime: &str, file: &Path) -> Vec<(String, String)> {
    installed_commands(runtime, file)
        .into_iter()
        .filter(|(_, c)| !c.starts_with("remaind hook"))
        .collect()
}

#[test]
fn install_keeps_the_users_hooks_adds_ours_once_and_uninstall_gives_the_bytes_back() {
    for (runtime, fixture) in [
        ("claude-code", "claude-code.settings.json"),
        ("codex", "codex.hooks.json"),
        ("cursor", "cursor.hooks.json"),
        ("gemini", "gemini.settings.json"),
    ] {
        for user in [false, true] {
            let t = tmp();
            let (project, home) = (t.0.join("project"), t.0.join("home"));
            std::fs::create_dir_all(&project).expect("mkdir");
            let file = installed_file(runtime, if user { &home } else { &project });
            let original = place(fixture, &file);
            let theirs = users_hooks(runtime, &file);
            assert!(!theirs.is_empty(), "{fixture} holds the user's hooks");
            // The default is the project (the current folder).
            let with = |extra: &[&'static str]| -> Vec<&'static str> {
                let mut v = vec!["install", runtime];
                if user {
                    v.push("--user");
                }
                v.extend_from_slice(extra);
                v
            };

            // A dry run writes nothing.
            let dry = ok(&remaind_in(&project, &home, &with(&["--dry-run"])));
            assert!(dry.contains("+ "), "{runtime}: {dry}");
            assert_eq!(
                std::fs::read(&file).expect("read"),
                original,
                "{runtime}: the dry run wrote"
            );

            let first = ok(&remaind_in(&project, &home, &with(&[])));
            let once = std::fs::read(&file).expect("read");
            let second = ok(&remaind_in(&project, &home, &with(&["--json"])));
            assert_eq!(
                std::fs::read(&file).expect("read"),
                once,
                "{runtime}: the second install changed the file"
            );
            let report: Value = serde_json::from_str(&second).expect("--json");
            assert_eq!(
                report["action"], "unchanged (already installed)",
                "{runtime}: {second}"
            );
            assert!(first.contains("backup"), "{runtime}: {first}");
            let backup = PathBuf::from(format!("{}.remaind-backup", file.display()));
            assert_eq!(
                std::fs::read(&backup).expect("backup"),
                original,
                "{runtime}"
            );

            // The user's hooks unchanged, in order; ours once each.
            assert_eq!(users_hooks(runtime, &file), theirs, "{runtime}");
            let mut ours: Vec<(String, String)> = installed_commands(runtime, &file)
                .into_iter()
                .filter(|(_, c)| c.starts_with("remaind hook"))
                .collect();
            let mut recipe =
                remaind_adapters::install::recipe_commands(runtime.parse().expect("a runtime"));
            ours.sort();
            recipe.sort();
            assert_eq!(ours, recipe, "{runtime}: ours once each");
            // Every other setting the file held is there as it was.
            let before: Value = serde_json::from_slice(&original).expect("json");
            let after: Value = serde_json::from_slice(&once).expect("json");
            for (k, v) in before.as_object().expect("object") {
                if k != "hooks" {
                    assert_eq!(&after[k], v, "{runtime}: {k}");
                }
            }

            ok(&remaind_in(&project, &home, &with(&["--uninstall"])));
            assert_eq!(
                std::fs::read(&file).expect("read"),
                original,
                "{runtime}: uninstall"
            );
            assert!(!backup.exists(), "{runtime}: the backup is used up");
        }
    }
}

#[test]
fn install_into_a_fresh_project_and_out_again_leaves_nothing() {
    for runtime in ["claude-code", "codex", "cursor", "gemini", "opencode"] {
        let t = tmp();
        let (project, home) = (t.0.join("project"), t.0.join("home"));
        std::fs::create_dir_all(&project).expect("mkdir");
        let out = ok(&remaind_in(&project, &home, &["install", runtime]));
        let file = installed_file(runtime, &project);
        assert!(file.is_file(), "{runtime}: {out}");
        assert!(
            out.contains("remaind init"),
            "{runtime}: the note says to opt in: {out}"
        );
        ok(&remaind_in(
            &project,
            &home,
            &["install", runtime, "--uninstall"],
        ));
        assert!(
            !file.exists(),
            "{runtime}: uninstall left {}",
            file.display()
        );
    }
}

#[test]
fn opencode_install_leaves_other_plugins_alone_and_refuses_a_file_it_did_not_write() {
    let t = tmp();
    let (project, home) = (t.0.join("project"), t.0.join("home"));
    let other = project.join(".opencode/plugins/notify.js");
    let original = place("opencode.other-plugin.js", &other);
    ok(&remaind_in(&project, &home, &["install", "opencode"]));
    let ours = project.join(".opencode/plugins/remaind.js");
    let once = std::fs::read(&ours).expect("the plugin");
    ok(&remaind_in(&project, &home, &["install", "opencode"]));
    assert_eq!(std::fs::read(&ours).expect("the plugin"), once);
    assert_eq!(std::fs::read(&other).expect("theirs"), original);
    // The user plugin folder is under ~/.config/opencode.
    ok(&remaind_in(
        &project,
        &home,
        &["install", "opencode", "--user"],
    ));
    assert!(home.join(".config/opencode/plugins/remaind.js").is_file());
    ok(&remaind_in(
        &project,
        &home,
        &["install", "opencode", "--uninstall"],
    ));
    assert!(!ours.exists());
    assert_eq!(std::fs::read(&other).expect("theirs"), original);
    // A remaind.js Remaind did not write is refused, and kept.
    std::fs::write(&ours, "export const Mine = async () => ({});\n").expect("write");
    let out = remaind_in(&project, &home, &["install", "opencode"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read(&ours).expect("kept"),
        b"export const Mine = async () => ({});\n"
    );
}

#[test]
fn an_unparsable_settings_file_is_refused_with_nothing_written() {
    for runtime in ["claude-code", "codex", "cursor", "gemini"] {
        for args in [
            vec!["install", runtime],
            vec!["install", runtime, "--uninstall"],
        ] {
            let t = tmp();
            let (project, home) = (t.0.join("project"), t.0.join("home"));
            let file = installed_file(runtime, &project);
            let original = place("broken.json", &file);
            let out = remaind_in(&project, &home, &args);
            assert_eq!(out.status.code(), Some(2), "{runtime}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains(file.to_str().expect("UTF-8")),
                "{runtime}: names the file: {err}"
            );
            assert!(err.contains("fix it"), "{runtime}: says the fix: {err}");
            assert_eq!(std::fs::read(&file).expect("read"), original, "{runtime}");
            let folder: Vec<_> = std::fs::read_dir(file.parent().expect("folder"))
                .expect("ls")
                .map(|e| e.expect("entry").file_name())
                .collect();
            assert_eq!(
                folder.len(),
                1,
                "{runtime}: nothing else written: {folder:?}"
            );
        }
    }
}

#[test]
fn every_event_the_installed_files_name_is_accepted_by_remaind_hook() {
    for runtime in ["claude-code", "codex", "cursor", "gemini", "opencode"] {
        let t = tmp();
        let (project, home) = (t.0.join("project"), t.0.join("home"));
        std::fs::create_dir_all(&project).expect("mkdir");
        let ctx = project.join(".context");
        ok(&remaind(&ctx, &["init"], None));
        ok(&remaind_in(&project, &home, &["install", runtime]));
        let commands = installed_commands(runtime, &installed_file(runtime, &project));
        assert!(commands.len() >= 5, "{runtime}: {commands:?}");
        let payload = json!({"session_id": "s", "cwd": project, "prompt": "p", "tool_name": "t"});
        let bytes = serde_json::to_vec(&payload).expect("payload");
        for (event, command) in &commands {
            let out = run_hook(command, &bytes, None, &project);
            // Claude Code and Codex read exit 3 from PreCompact as a rejected compaction,
            // shown and not blocking.
            let rejected = event == "PreCompact" && out.status.code() == Some(3);
            assert!(
                out.status.code() == Some(0) || rejected,
                "{runtime} {event}: {command}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert_eq!(hook_errors(&ctx), Vec::<String>::new(), "{runtime}");
    }
}

#[test]
fn every_documented_event_of_the_new_runtimes_and_a_made_up_one_exit_0() {
    let t = tmp();
    let ctx = t.0.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    let payload = json!({
        "session_id": "s", "conversation_id": "c", "cwd": t.0, "workspace_roots": [t.0],
        "prompt": "Keep the API", "tool_name": "Shell", "tool_input": {"command": "ls"},
        "tool_output": "{}", "tool_response": {"llmContent": "ok"}, "error_message": "boom",
        "text": "Done.", "prompt_response": "Done.", "status": "aborted", "trigger": "manual",
        "message": "m", "reason": "exit", "command": "ls", "output": "x", "file_path": "a.rs",
    });
    let bytes = serde_json::to_vec(&payload).expect("payload");
    for runtime in [
        remaind_adapters::Runtime::Cursor,
        remaind_adapters::Runtime::Gemini,
        remaind_adapters::Runtime::OpenCode,
    ] {
        for event in remaind_adapters::runtimes::documented_events(runtime) {
            let out = remaind(&ctx, &["hook", runtime.as_str(), event], Some(&bytes));
            assert_eq!(
                out.status.code(),
                Some(0),
                "{runtime} {event}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        // The `--runtime` form and a kebab-case name.
        let kebab = if runtime == remaind_adapters::Runtime::OpenCode {
            "session-idle"
        } else {
            "session-end"
        };
        let out = remaind(
            &ctx,
            &["hook", "--runtime", runtime.as_str(), kebab],
            Some(&bytes),
        );
        assert_eq!(out.status.code(), Some(0));
    }
    assert_eq!(hook_errors(&ctx), Vec::<String>::new());
    let evs = events(&ctx);
    // Cursor's shell and file-edit hooks are tool results; an aborted stop is the outcome.
    for via in ["stop_failure", "runtime_notification"] {
        assert!(
            evs.iter().any(|e| e["data"]["via"] == via),
            "no {via} in {evs:#?}"
        );
    }
    assert!(
        evs.iter()
            .any(|e| e["data"]["origin"]["hook"] == "afterShellExecution")
    );
    assert!(
        evs.iter()
            .any(|e| e["data"]["origin"]["hook"] == "afterFileEdit")
    );

    for (runtime, made_up) in [
        ("cursor", "beforeLunch"),
        ("gemini", "AfterCoffee"),
        ("opencode", "session.napped"),
        ("windsurf", "start"),
    ] {
        let out = remaind(&ctx, &["hook", runtime, made_up], Some(&bytes));
        assert_eq!(out.status.code(), Some(0), "{runtime} {made_up}");
        let errors = hook_errors(&ctx);
        assert!(
            errors.last().is_some_and(|l| l.contains(made_up)),
            "{runtime} {made_up}: {errors:?}"
        );
    }
}

#[test]
fn cursor_shell_and_edit_hooks_are_tool_results() {
    let t = tmp();
    let project = t.0.clone();
    let ctx = project.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    for name in ["afterShellExecution", "afterFileEdit"] {
        let payload = serde_json::to_vec(&fixture("cursor", name, &project)).expect("payload");
        let out = run_hook(
            &format!("remaind hook cursor {name}"),
            &payload,
            None,
            &project,
        );
        assert_eq!(out.status.code(), Some(0));
    }
    let evs = events(&ctx);
    let shell = evs
        .iter()
        .find(|e| e["data"]["origin"]["hook"] == "afterShellExecution")
        .unwrap_or_else(|| panic!("{evs:#?}"));
    assert_eq!(shell["kind"], "tool_result");
    assert!(
        shell["text"].as_str().unwrap_or("").contains("git status"),
        "{shell}"
    );
    let edit = evs
        .iter()
        .find(|e| e["data"]["origin"]["hook"] == "afterFileEdit")
        .unwrap_or_else(|| panic!("{evs:#?}"));
    assert!(
        edit["text"].as_str().unwrap_or("").contains("upload.rs"),
        "{edit}"
    );
}

#[test]
fn doctor_says_what_is_wired_when_each_hook_last_ran_and_the_last_errors() {
    let t = tmp();
    let (project, home) = (t.0.join("project"), t.0.join("home"));
    std::fs::create_dir_all(&project).expect("mkdir");
    std::fs::create_dir_all(&home).expect("mkdir");
    let ctx = project.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    ok(&remaind_in(&project, &home, &["install", "cursor"]));
    let report = |project: &Path| -> Value {
        serde_json::from_str(&ok(&remaind_in(project, &home, &["doctor", "--json"])))
            .expect("--json")
    };
    let r = report(&project);
    let cursor = r["runtimes"]
        .as_array()
        .expect("runtimes")
        .iter()
        .find(|x| x["runtime"] == "cursor")
        .expect("cursor")
        .clone();
    assert_eq!(cursor["wired"], true, "{r}");
    assert_eq!(cursor["files"]["project"]["state"], "wired", "{r}");
    assert_eq!(cursor["last_hook"], Value::Null, "{r}");
    assert!(
        r["problems"]
            .as_array()
            .expect("problems")
            .iter()
            .any(|p| p["runtime"] == "cursor"),
        "a wired runtime that never ran is a problem: {r}"
    );
    let claude = r["runtimes"]
        .as_array()
        .expect("runtimes")
        .iter()
        .find(|x| x["runtime"] == "claude-code")
        .expect("claude")
        .clone();
    assert_eq!(claude["wired"], false);
    assert_eq!(claude["files"]["project"]["state"], "absent");

    let payload =
        serde_json::to_vec(&fixture("cursor", "beforeSubmitPrompt", &project)).expect("payload");
    assert_eq!(
        run_hook(
            "remaind hook cursor beforeSubmitPrompt",
            &payload,
            None,
            &project
        )
        .status
        .code(),
        Some(0)
    );
    assert_eq!(
        run_hook("remaind hook cursor beforeLunch", &payload, None, &project)
            .status
            .code(),
        Some(0)
    );
    let r = report(&project);
    let cursor = r["runtimes"]
        .as_array()
        .expect("runtimes")
        .iter()
        .find(|x| x["runtime"] == "cursor")
        .expect("cursor")
        .clone();
    assert_eq!(cursor["last_hook"]["hook"], "beforeSubmitPrompt", "{r}");
    let errors = r["hook_errors"].as_array().expect("hook_errors");
    assert!(
        errors
            .iter()
            .any(|l| l.as_str().unwrap_or("").contains("beforeLunch")),
        "{r}"
    );

    // A broken settings file is a problem with its fix.
    std::fs::create_dir_all(project.join(".gemini")).expect("mkdir");
    std::fs::write(project.join(".gemini/settings.json"), "{").expect("write");
    let r = report(&project);
    assert!(
        r["problems"]
            .as_array()
            .expect("problems")
            .iter()
            .any(|p| p["runtime"] == "gemini"
                && p["fix"]
                    .as_str()
                    .unwrap_or("")
                    .contains("remaind install gemini")),
        "{r}"
    );
    let text = ok(&remaind_in(&project, &home, &["doctor"]));
    assert!(text.contains("cursor: project"), "{text}");
}

/// What the harness drives through the installed OpenCode plugin: a session with a prompt, a
/// failing tool call, the turn's end, OpenCode's own compaction and the next session, each
/// hook called with the arguments OpenCode's plugin API documents.
const OPENCODE_HARNESS: &str = r#"
import { RemaindPlugin } from "./remaind.mjs";
const [project, prompt, latest] = process.argv.slice(2);
const reply = "The uploader now gives up after five attempts; one test still fails.";
const client = { session: { messages: async () => ({ data: [
  { info: { role: "user" }, parts: [{ type: "text", text: prompt }] },
  { info: { role: "assistant" }, parts: [{ type: "text", text: reply }] },
] }) } };
const hooks = await RemaindPlugin({ client, directory: project });
const model = { providerID: "anthropic", modelID: "claude-sonnet-4-5" };
const first = { system: [] };
await hooks["experimental.chat.system.transform"]({ sessionID: "ses_1", model }, first);
await hooks["chat.message"]({ sessionID: "ses_1", model }, { message: {}, parts: [{ type: "text", text: prompt }] });
await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_1", callID: "c1" }, { args: { command: "cargo test -p uploader" } });
await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_1", callID: "c1" },
  { title: "cargo test -p uploader", output: "test result: FAILED. 13 passed; 1 failed", metadata: { exit: 101 } });
await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } });
const compacting = { context: [] };
await hooks["experimental.session.compacting"]({ sessionID: "ses_1" }, compacting);
await hooks.event({ event: { type: "session.compacted", properties: { sessionID: "ses_1" } } });
await hooks["chat.message"]({ sessionID: "ses_1", model }, { message: {}, parts: [{ type: "text", text: latest }] });
const next = { system: [] };
await hooks["experimental.chat.system.transform"]({ sessionID: "ses_2", model }, next);
const again = { system: [] };
await hooks["experimental.chat.system.transform"]({ sessionID: "ses_2", model }, again);
console.log(JSON.stringify({ first: first.system, compacting: compacting.context, next: next.system, again: again.system }));
"#;

/// The installed OpenCode plugin itself, loaded by Node (OpenCode runs plugins on Bun; both
/// run this ES module) and driven through a session. Without `node` on PATH there is nothing
/// to load it with; the hook commands it runs are still covered by
/// `a_whole_session_of_each_runtime_through_its_installed_hooks`.
#[test]
fn the_installed_opencode_plugin_runs_a_session_under_node() {
    if Command::new("node").arg("--version").output().is_err() {
        // Nothing to load the plugin with here.
        return;
    }
    let t = tmp();
    let (project, home) = (t.0.join("project"), t.0.join("home"));
    std::fs::create_dir_all(&project).expect("mkdir");
    let ctx = project.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    ok(&remaind_in(&project, &home, &["install", "opencode"]));
    let harness = t.0.join("harness");
    std::fs::create_dir_all(&harness).expect("mkdir");
    std::fs::copy(
        project.join(".opencode/plugins/remaind.js"),
        harness.join("remaind.mjs"),
    )
    .expect("copy the plugin");
    std::fs::write(harness.join("run.mjs"), OPENCODE_HARNESS).expect("write the harness");
    let bin_dir = Path::new(BIN).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let prompt = "Make the uploader retry five times, then give up";
    let out = Command::new("node")
        .arg(harness.join("run.mjs"))
        .args([project.to_str().expect("UTF-8"), prompt, LATEST])
        .current_dir(&project)
        .env("PATH", path)
        .env_remove("REMAIND_DIR")
        .env_remove("REMAIND_BIN")
        .output()
        .expect("run node");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Value = serde_json::from_slice(&out.stdout).expect("the harness prints JSON");
    assert_eq!(got["first"], json!([]), "a fresh project injects nothing");
    let compacting = got["compacting"][0]
        .as_str()
        .expect("the packet in the compaction");
    assert!(compacting.contains(prompt), "{compacting}");
    let next = got["next"][0]
        .as_str()
        .expect("the packet in the next session");
    assert!(next.contains(LATEST), "{next}");
    assert_eq!(got["again"], json!([]), "once per session");
    let evs = events(&ctx);
    let failure = evs
        .iter()
        .find(|e| e["data"]["failed"] == true)
        .unwrap_or_else(|| panic!("{evs:#?}"));
    assert!(
        failure["data"]["error"]
            .as_str()
            .unwrap_or("")
            .contains("13 passed; 1 failed"),
        "{failure}"
    );
    assert_eq!(
        failure["tool"]["input"]["command"],
        "cargo test -p uploader"
    );
    assert!(evs.iter().any(|e| {
        e["kind"] == "assistant_message"
            && e["text"]
                .as_str()
                .unwrap_or("")
                .contains("gives up after five attempts")
    }));
    assert!(evs.iter().any(|e| e["kind"] == "compaction"));
    let framing = std::fs::read_to_string(ctx.join("active/framing.json")).expect("framing");
    assert!(framing.contains("anthropic/claude-sonnet-4-5"), "{framing}");
    assert_eq!(hook_errors(&ctx), Vec::<String>::new());
}

#[test]
fn a_symlinked_settings_file_is_refused_and_left_as_it_is() {
    let t = tmp();
    let (project, home) = (t.0.join("project"), t.0.join("home"));
    let real = t.0.join("dotfiles/settings.json");
    let original = place("claude-code.settings.json", &real);
    std::fs::create_dir_all(project.join(".claude")).expect("mkdir");
    std::os::unix::fs::symlink(&real, project.join(".claude/settings.json")).expect("symlink");
    let out = remaind_in(&project, &home, &["install", "claude-code"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("symlink") && err.contains("by hand"), "{err}");
    assert_eq!(std::fs::read(&real).expect("read"), original);
    assert!(
        std::fs::symlink_metadata(project.join(".claude/settings.json"))
            .expect("the link")
            .file_type()
            .is_symlink()
    );
}

/// Gemini CLI runs no hook after its compression: the packet goes back in with the next
/// prompt (BeforeAgent), once; a session start in between has injected it already.
#[test]
fn gemini_gets_the_packet_back_once_after_a_compression() {
    let t = tmp();
    let project = t.0.clone();
    let ctx = project.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    let run = |event: &str, fixture_name: &str| -> Option<String> {
        let payload =
            serde_json::to_vec(&fixture("gemini", fixture_name, &project)).expect("payload");
        let out = run_hook(
            &format!("remaind hook gemini {event}"),
            &payload,
            None,
            &project,
        );
        assert_eq!(out.status.code(), Some(0), "{event}");
        let packet = injected("gemini", &out.stdout);
        if packet.is_some() {
            let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
            assert_eq!(v["hookSpecificOutput"]["hookEventName"], event);
        }
        packet
    };
    assert_eq!(run("BeforeAgent", "BeforeAgent"), None, "no compaction yet");
    run("AfterAgent", "AfterAgent");
    assert_eq!(
        run("PreCompress", "PreCompress"),
        None,
        "PreCompress is advisory: no output"
    );
    let packet = run("BeforeAgent", "BeforeAgent").expect("the packet after the compression");
    assert!(packet.contains("retry five times"), "{packet}");
    assert_eq!(run("BeforeAgent", "BeforeAgent"), None, "once");
    // A session start after a compression injects, and the next prompt does not again.
    run("PreCompress", "PreCompress");
    assert!(run("SessionStart", "SessionStart").is_some());
    assert_eq!(run("BeforeAgent", "BeforeAgent"), None);
    assert_eq!(hook_errors(&ctx), Vec::<String>::new());
}

/// A turn the user stopped ends as an interrupt, as Claude Code's transcript says it: Cursor's
/// `stop` with status `aborted`, OpenCode's `session.error` `MessageAbortedError`. A turn that
/// failed is a `stop_failure` trace.
#[test]
fn a_turn_the_user_stopped_is_an_interrupt_and_a_failed_one_a_trace() {
    let t = tmp();
    let project = t.0.clone();
    let ctx = project.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    let send = |runtime: &str, event: &str, payload: Value| {
        let bytes = serde_json::to_vec(&payload).expect("payload");
        let out = run_hook(
            &format!("remaind hook {runtime} {event}"),
            &bytes,
            None,
            &project,
        );
        assert_eq!(out.status.code(), Some(0), "{runtime} {event}");
    };
    let mut prompt = fixture("cursor", "beforeSubmitPrompt", &project);
    send("cursor", "beforeSubmitPrompt", prompt.clone());
    let mut stop = fixture("cursor", "stop", &project);
    stop["status"] = json!("aborted");
    send("cursor", "stop", stop.clone());
    prompt["prompt"] = json!("Try again, smaller steps");
    send("cursor", "beforeSubmitPrompt", prompt);
    stop["status"] = json!("error");
    send("cursor", "stop", stop);
    let mut error = fixture("opencode", "session.error", &project);
    error["error"] = json!({"name": "MessageAbortedError", "data": {"message": "Aborted"}});
    send("opencode", "session.error", error);
    send(
        "opencode",
        "session.error",
        fixture("opencode", "session.error", &project),
    );
    let evs = events(&ctx);
    let interrupts: Vec<&Value> = evs
        .iter()
        .filter(|e| e["data"]["turn_end"] == "interrupted")
        .collect();
    assert_eq!(interrupts.len(), 2, "{evs:#?}");
    assert_eq!(interrupts[0]["data"]["origin"]["runtime"], "cursor");
    assert_eq!(interrupts[0]["data"]["origin"]["hook"], "stop");
    assert_eq!(interrupts[1]["data"]["origin"]["hook"], "session.error");
    let traces: Vec<&Value> = evs
        .iter()
        .filter(|e| e["data"]["via"] == "stop_failure")
        .collect();
    assert_eq!(traces.len(), 2, "{evs:#?}");
    assert!(
        traces[1]["text"]
            .as_str()
            .unwrap_or("")
            .contains("The API key was rejected"),
        "{}",
        traces[1]
    );
}
