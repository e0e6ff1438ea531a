//! `remaind compact --llm PRESET` against stand-ins that replay recorded model answers: an
//! executable named `claude` / `codex` on a test PATH, and a loopback HTTP server for
//! `openai`. The answers are `fixtures/llm/answers/`; the session is `fixtures/llm/ledger.jsonl`.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use camino::Utf8Path;
use remaind_events::{Event, Kind};
use remaind_ledger::Ledger;
use serde_json::{Value, json};

use crate::common::{Tmp, remaind, remaind_env, text, tmp};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/llm")
}

/// A `.context/` holding the fixture session, a bin folder for stand-ins, and the folder the
/// stand-ins replay from and record into.
struct Setup {
    _tmp: Tmp,
    ctx: PathBuf,
    bin: PathBuf,
    standin: PathBuf,
    digest: String,
}

fn setup() -> Setup {
    let tmp = tmp();
    let ctx = tmp.0.join(".context");
    let out = remaind(&ctx, &["init"], None);
    assert!(out.status.success(), "{}", text(&out));
    let session = std::fs::read(fixtures().join("ledger.jsonl")).expect("fixture ledger");
    let out = remaind(&ctx, &["log", "--stdin"], Some(&session));
    assert!(out.status.success(), "{}", text(&out));
    let digest = open(&ctx).digest_at(8).expect("read").expect("seq 8");
    let bin = tmp.0.join("bin");
    let standin = tmp.0.join("standin");
    std::fs::create_dir_all(&bin).expect("mkdir bin");
    std::fs::create_dir_all(&standin).expect("mkdir standin");
    Setup {
        _tmp: tmp,
        ctx,
        bin,
        standin,
        digest,
    }
}

fn open(ctx: &Path) -> Ledger {
    Ledger::open(Utf8Path::from_path(ctx).expect("UTF-8 temp path")).expect("open ledger")
}

fn events(ctx: &Path) -> Vec<Event> {
    open(ctx)
        .range(1, 1000, &remaind_events::Filter::default())
        .expect("read events")
}

/// A recorded answer with the chain hash a real model copies from its input.
fn answer(s: &Setup, name: &str) -> String {
    std::fs::read_to_string(fixtures().join("answers").join(name))
        .expect("recorded answer")
        .replace("LOG_DIGEST", &s.digest)
}

/// Every file under `active/` with its bytes.
fn derived(ctx: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(p: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(p).into_iter().flatten().flatten() {
            let path = e.path();
            if path.is_dir() {
                walk(&path, out);
            } else if !path.ends_with("history/.lock") {
                // The store's lock file is how writers take turns, not a derived file.
                out.insert(path.clone(), std::fs::read(&path).expect("read"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&ctx.join("active"), &mut out);
    out
}

fn state(ctx: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(ctx.join("active/state.json")).expect("state.json"))
        .expect("state is JSON")
}

fn write_config(s: &Setup, config: &Value) {
    std::fs::write(
        s.ctx.join("schemas/llm.json"),
        serde_json::to_vec_pretty(config).expect("JSON"),
    )
    .expect("write llm.json");
}

// ---- The CLI stand-ins ---------------------------------------------------------------------

/// Install `bin/NAME`: each call saves its stdin and arguments as `prompt-N.txt` and
/// `args-N.txt`, sleeps `sleep` seconds when that file exists, and prints `reply-N`.
fn install(s: &Setup, name: &str, replies: &[String]) {
    let script = format!(
        "#!/bin/sh\nd='{}'\nn=$(( $(cat \"$d/count\" 2>/dev/null || echo 0) + 1 ))\necho $n > \"$d/count\"\n\
         cat > \"$d/prompt-$n.txt\"\nprintf '%s\\n' \"$@\" > \"$d/args-$n.txt\"\n\
         if [ -f \"$d/sleep\" ]; then sleep \"$(cat \"$d/sleep\")\"; fi\ncat \"$d/reply-$n\"\n",
        s.standin.display()
    );
    let path = s.bin.join(name);
    std::fs::write(&path, script).expect("write stand-in");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    for (i, reply) in replies.iter().enumerate() {
        std::fs::write(s.standin.join(format!("reply-{}", i + 1)), reply).expect("reply");
    }
}

/// What `claude -p --output-format json` prints for a model answer.
fn claude_reply(answer: &str) -> String {
    json!({
        "type": "result", "subtype": "success", "is_error": false, "duration_ms": 2100,
        "num_turns": 1, "result": answer, "session_id": "s-1", "total_cost_usd": 0.004,
        "usage": {"input_tokens": 1200, "cache_read_input_tokens": 300, "output_tokens": 800}
    })
    .to_string()
}

/// What `codex exec --json` prints for a model answer.
fn codex_reply(answer: &str) -> String {
    [
        json!({"type": "thread.started", "thread_id": "t-1"}),
        json!({"type": "turn.started"}),
        json!({"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": answer}}),
        json!({"type": "turn.completed", "usage": {"input_tokens": 1500, "cached_input_tokens": 0, "output_tokens": 900}}),
    ]
    .map(|v| v.to_string())
    .join("\n")
}

fn reply_for(preset: &str, answer: &str) -> String {
    match preset {
        "claude" => claude_reply(answer),
        "codex" => codex_reply(answer),
        _ => openai_reply(answer),
    }
}

fn path_with(s: &Setup) -> String {
    format!(
        "{}:{}",
        s.bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

fn saved(s: &Setup, file: &str) -> String {
    std::fs::read_to_string(s.standin.join(file)).unwrap_or_default()
}

// ---- The loopback OpenAI-compatible server -------------------------------------------------

/// One scripted HTTP reply: status, body, and a delay before answering.
struct Reply {
    status: u16,
    body: String,
    delay: Duration,
}

fn ok_reply(body: String) -> Reply {
    Reply {
        status: 200,
        body,
        delay: Duration::ZERO,
    }
}

/// What an OpenAI-compatible server answers for a model answer.
fn openai_reply(answer: &str) -> String {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1300, "completion_tokens": 700, "total_tokens": 2000}
    })
    .to_string()
}

/// Serve `replies` in order on 127.0.0.1, one per connection; the requests (head and body)
/// are kept for the test to read.
struct Server {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
}

fn serve(replies: Vec<Reply>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let port = listener.local_addr().expect("addr").port();
    let requests = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&requests);
    std::thread::spawn(move || {
        for reply in replies {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let mut reader = BufReader::new(stream);
            let mut head = String::new();
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            seen.lock()
                .expect("lock")
                .push(format!("{head}\n{}", String::from_utf8_lossy(&body)));
            std::thread::sleep(reply.delay);
            let mut stream = reader.into_inner();
            let _ = write!(
                stream,
                "HTTP/1.1 {} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{}",
                reply.status,
                reply.body.len(),
                reply.body
            );
        }
    });
    Server { port, requests }
}

fn openai_config(s: &Setup, port: u16) {
    write_config(
        s,
        &json!({
            "openai": {
                "base_url": format!("http://127.0.0.1:{port}/v1"),
                "model": "test-model",
                "api_key_env": "REMAIND_TEST_KEY",
                "timeout_secs": 2
            }
        }),
    );
}

// ---- Running a preset ----------------------------------------------------------------------

/// Run `remaind compact --llm PRESET` with `answers` replayed by that preset's stand-in.
/// For `openai`, the server's requests come back too.
fn run_preset(s: &Setup, preset: &str, answers: &[String]) -> (Output, Vec<String>) {
    let replies: Vec<String> = answers.iter().map(|a| reply_for(preset, a)).collect();
    let mut server = None;
    if preset == "openai" {
        let srv = serve(replies.into_iter().map(ok_reply).collect());
        openai_config(s, srv.port);
        server = Some(srv);
    } else {
        install(s, preset, &replies);
    }
    let out = run(s, preset);
    let requests = server.map_or_else(Vec::new, |srv| srv.requests.lock().expect("lock").clone());
    (out, requests)
}

fn run(s: &Setup, preset: &str) -> Output {
    remaind_env(
        &s.ctx,
        &["compact", "--llm", preset],
        None,
        &[
            ("PATH", &path_with(s)),
            ("REMAIND_TEST_KEY", "sk-test-not-a-secret"),
        ],
    )
}

/// The prompt of round `n` as the model received it.
fn prompt_of(s: &Setup, preset: &str, requests: &[String], n: usize) -> String {
    if preset == "openai" {
        let request = &requests[n - 1];
        let body = request.split_once("\n\n").map_or("", |(_, b)| b);
        let body: Value = serde_json::from_str(body).expect("request body is JSON");
        body["messages"][1]["content"]
            .as_str()
            .expect("user message")
            .to_owned()
    } else {
        saved(s, &format!("prompt-{n}.txt"))
    }
}

const PRESETS: [&str; 3] = ["claude", "codex", "openai"];

#[test]
fn a_good_candidate_is_accepted_with_each_preset() {
    for preset in PRESETS {
        let s = setup();
        let (out, requests) = run_preset(&s, preset, &[answer(&s, "good.json")]);
        let all = text(&out);
        assert_eq!(out.status.code(), Some(0), "{preset}: {all}");
        assert!(all.contains("round 1 (llm:"), "{preset}: {all}");
        assert!(all.contains("): accepted"), "{preset}: {all}");
        let st = state(&s.ctx);
        assert!(
            st["compactor"]
                .as_str()
                .is_some_and(|c| c.starts_with(&format!("llm:{preset}"))),
            "{preset}: {st}"
        );
        // The prose facts the built-in compactor cannot read are in the state.
        assert_eq!(
            st["constraints"][0]["events"],
            json!(["e2", "e8"]),
            "{preset}"
        );
        let prompt = prompt_of(&s, preset, &requests, 1);
        assert!(prompt.contains("Now add a --dry-run flag."), "{preset}");
        assert!(
            prompt.contains(&s.digest),
            "{preset}: the prompt carries log_digest"
        );
        let last = events(&s.ctx).pop().expect("an event");
        assert_eq!(last.kind, Kind::Compaction, "{preset}");
        let llm = &last.data.as_ref().expect("data")["llm"];
        assert_eq!(llm["preset"], preset);
        assert_eq!(llm["round"], 1);
        assert!(
            llm["input_tokens"].as_u64().is_some_and(|n| n > 0),
            "{preset}: {llm}"
        );
    }
}

#[test]
fn the_cli_presets_run_their_runtime_in_print_mode() {
    for (preset, want) in [
        (
            "claude",
            &["-p", "--output-format", "json", "--model", "haiku"][..],
        ),
        (
            "codex",
            &[
                "exec",
                "--json",
                "--skip-git-repo-check",
                "--sandbox",
                "read-only",
                "-",
            ][..],
        ),
    ] {
        let s = setup();
        let (out, _) = run_preset(&s, preset, &[answer(&s, "good.json")]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let args = saved(&s, "args-1.txt");
        assert_eq!(args.lines().collect::<Vec<_>>(), want, "{preset}");
    }
}

#[test]
fn the_openai_preset_sends_the_key_and_json_mode() {
    let s = setup();
    let (out, requests) = run_preset(&s, "openai", &[answer(&s, "good.json")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let request = &requests[0];
    assert!(
        request.starts_with("POST /v1/chat/completions "),
        "{request}"
    );
    assert!(
        request
            .to_ascii_lowercase()
            .contains("authorization: bearer sk-test-not-a-secret"),
        "{request}"
    );
    let body: Value =
        serde_json::from_str(request.split_once("\n\n").expect("body").1).expect("JSON body");
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["response_format"], json!({"type": "json_object"}));
}

#[test]
fn a_dropped_decision_is_rejected_then_repaired_in_round_two() {
    for preset in PRESETS {
        let s = setup();
        let (out, requests) = run_preset(
            &s,
            preset,
            &[answer(&s, "drops_decision.json"), answer(&s, "good.json")],
        );
        let all = text(&out);
        assert_eq!(out.status.code(), Some(0), "{preset}: {all}");
        assert!(all.contains("): rejected"), "{preset}: {all}");
        assert!(all.contains("decisions_preserved [e6]"), "{preset}: {all}");
        assert!(all.contains("round 2 (llm:"), "{preset}: {all}");
        assert!(
            st_compactor(&s).starts_with(&format!("llm:{preset}")),
            "{preset}"
        );
        // Round two's prompt carries the rejected candidate and the failure.
        let repair = prompt_of(&s, preset, &requests, 2);
        assert!(repair.contains("REJECTED"), "{preset}");
        assert!(repair.contains("- decisions_preserved [e6]: "), "{preset}");
        // Round one is a `validation` event naming the check, the event and the round.
        let evs = events(&s.ctx);
        let validations: Vec<&Event> = evs.iter().filter(|e| e.kind == Kind::Validation).collect();
        assert_eq!(validations.len(), 1, "{preset}");
        let data = validations[0].data.as_ref().expect("data");
        assert_eq!(data["failed_checks"], json!(["decisions_preserved"]));
        assert_eq!(data["failures"][0]["events"], json!(["e6"]));
        assert_eq!(data["llm"]["round"], 1);
        assert_eq!(evs.last().map(|e| e.kind), Some(Kind::Compaction));
    }
}

fn st_compactor(s: &Setup) -> String {
    state(&s.ctx)["compactor"].as_str().unwrap_or("").to_owned()
}

#[test]
fn a_candidate_still_wrong_after_the_last_round_gives_way_to_the_builtin_one() {
    for preset in PRESETS {
        let s = setup();
        let bad = answer(&s, "drops_decision.json");
        let (out, _) = run_preset(&s, preset, &[bad.clone(), bad]);
        let all = text(&out);
        assert_eq!(out.status.code(), Some(0), "{preset}: {all}");
        assert!(
            all.contains("using the built-in compactor"),
            "{preset}: {all}"
        );
        assert_eq!(st_compactor(&s), "builtin", "{preset}");
        let evs = events(&s.ctx);
        let rounds: Vec<i64> = evs
            .iter()
            .filter(|e| e.kind == Kind::Validation)
            .filter_map(|e| e.data.as_ref()?["llm"]["round"].as_i64())
            .collect();
        assert_eq!(rounds, [1, 2], "{preset}");
        assert_eq!(evs.last().map(|e| e.kind), Some(Kind::Compaction));
        // The deterministic state keeps the decision the model kept dropping.
        assert_eq!(state(&s.ctx)["decisions"][0]["events"], json!(["e6"]));
    }
}

/// Run `remaind compact --llm PRESET` expecting exit 1 with `needle` in stderr, and nothing
/// derived nor any event written.
fn fails_cleanly(s: &Setup, preset: &str, needle: &str) -> String {
    let before = derived(&s.ctx);
    let head = events(&s.ctx).len();
    let out = run(s, preset);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{preset}: {}", text(&out));
    assert!(err.contains(needle), "{preset}: `{needle}` not in: {err}");
    assert!(err.contains("nothing was written"), "{preset}: {err}");
    assert_eq!(derived(&s.ctx), before, "{preset}: derived files changed");
    assert_eq!(
        events(&s.ctx).len(),
        head,
        "{preset}: an event was appended"
    );
    err
}

#[test]
fn a_timeout_is_a_clear_error_and_changes_nothing() {
    for preset in ["claude", "codex"] {
        let s = setup();
        write_config(&s, &json!({ preset: { "timeout_secs": 1 } }));
        install(&s, preset, &[reply_for(preset, &answer(&s, "good.json"))]);
        std::fs::write(s.standin.join("sleep"), "5").expect("sleep");
        fails_cleanly(&s, preset, "timed out after 1.0s and was killed");
    }
    let s = setup();
    let srv = serve(vec![Reply {
        status: 200,
        body: openai_reply(&answer(&s, "good.json")),
        delay: Duration::from_secs(4),
    }]);
    openai_config(&s, srv.port);
    fails_cleanly(&s, "openai", "did not answer within 2.0s");
}

#[test]
fn an_answer_that_is_not_json_is_a_clear_error_and_changes_nothing() {
    for preset in PRESETS {
        let s = setup();
        let reply = reply_for(preset, &answer(&s, "not_json.txt"));
        let _srv;
        if preset == "openai" {
            let srv = serve(vec![ok_reply(reply)]);
            openai_config(&s, srv.port);
            _srv = srv;
        } else {
            install(&s, preset, &[reply]);
        }
        let err = fails_cleanly(&s, preset, "the answer is not JSON");
        assert!(err.contains("it begins: Sure! The importer"), "{err}");
    }
}

#[test]
fn http_429_and_500_are_clear_errors_and_change_nothing() {
    for (status, hint) in [(429, "rate limited"), (500, "the server failed")] {
        let s = setup();
        let srv = serve(vec![Reply {
            status,
            body: json!({"error": {"message": "slow down", "type": "requests"}}).to_string(),
            delay: Duration::ZERO,
        }]);
        openai_config(&s, srv.port);
        let err = fails_cleanly(&s, "openai", &format!("answered HTTP {status}: slow down"));
        assert!(err.contains(hint), "{err}");
    }
}

#[test]
fn a_missing_cli_key_or_endpoint_names_the_setting() {
    let s = setup();
    for (preset, setting) in [("claude", "claude.program"), ("codex", "codex.program")] {
        // PATH holds the empty bin folder only: no such executable.
        let out = remaind_env(
            &s.ctx,
            &["compact", "--llm", preset],
            None,
            &[("PATH", &s.bin.display().to_string())],
        );
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "{setting}: `{preset}` is not an executable on PATH"
            )),
            "{err}"
        );
    }
    openai_config(&s, 9);
    let out = remaind_env(&s.ctx, &["compact", "--llm", "openai"], None, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("openai.api_key_env: the environment variable REMAIND_TEST_KEY is not set"),
        "{err}"
    );
    // Port 9 (discard) on loopback: nothing listens.
    fails_cleanly(
        &s,
        "openai",
        "openai.base_url: cannot reach http://127.0.0.1:9/v1/chat/completions",
    );
    assert!(!s.ctx.join("active/state.json").exists());
}

#[test]
fn a_bad_llm_json_names_the_field_and_exits_2() {
    let s = setup();
    write_config(&s, &json!({"openai": {"base_url": "localhost:8080"}}));
    let out = run(&s, "openai");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("openai.base_url: is `localhost:8080`"),
        "{err}"
    );
    write_config(&s, &json!({"claude": {"modle": "opus"}}));
    let out = run(&s, "claude");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("unknown field `modle`"), "{err}");
}

#[test]
fn a_secret_in_the_answer_is_redacted_before_it_is_written() {
    let s = setup();
    let secret = "AKIAQ7VLM2XK9PZR4TYW";
    let leaky = answer(&s, "good.json").replace(
        "Row parser written and tested\"",
        &format!("Row parser written and tested with key {secret}\""),
    );
    let (out, _) = run_preset(&s, "claude", &[leaky]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    for (path, bytes) in derived(&s.ctx) {
        assert!(
            !String::from_utf8_lossy(&bytes).contains(secret),
            "{} holds the secret",
            path.display()
        );
    }
    assert!(
        state(&s.ctx)["completed_work"][0]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("Row parser written and tested with key "))
    );
}

#[test]
fn the_precompact_hook_uses_a_preset_and_falls_back_when_it_fails() {
    let s = setup();
    install(&s, "claude", &[claude_reply(&answer(&s, "good.json"))]);
    let out = remaind_env(
        &s.ctx,
        &[
            "hook",
            "pre-compact",
            "--llm",
            "claude",
            "--time-limit",
            "60",
        ],
        Some(b"{}"),
        &[("PATH", &path_with(&s))],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("by llm:claude:haiku"), "{}", text(&out));
    assert_eq!(st_compactor(&s), "llm:claude:haiku");
    // No claude on PATH: the hook still compacts, with the built-in compactor.
    let s = setup();
    let out = remaind_env(
        &s.ctx,
        &["hook", "pre-compact", "--llm", "claude"],
        Some(b"{}"),
        &[("PATH", &s.bin.display().to_string())],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("using the built-in compactor"),
        "{}",
        text(&out)
    );
    assert_eq!(st_compactor(&s), "builtin");
}

#[test]
fn a_symlinked_llm_json_is_refused() {
    let s = setup();
    let elsewhere = s.ctx.parent().expect("tmp").join("elsewhere.json");
    std::fs::write(&elsewhere, r#"{"claude": {"program": "/bin/sh"}}"#).expect("write");
    let config = s.ctx.join("schemas/llm.json");
    std::fs::remove_file(&config).expect("remove the shipped file");
    std::os::unix::fs::symlink(&elsewhere, &config).expect("symlink");
    let before = derived(&s.ctx);
    let out = run(&s, "claude");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("refusing to follow symlink"), "{err}");
    assert_eq!(derived(&s.ctx), before);
}

#[test]
fn a_time_limit_too_short_for_a_round_goes_straight_to_the_builtin_compactor() {
    let s = setup();
    install(&s, "claude", &[claude_reply(&answer(&s, "good.json"))]);
    let out = remaind_env(
        &s.ctx,
        &["compact", "--llm", "claude", "--time-limit", "5", "--json"],
        None,
        &[("PATH", &path_with(&s))],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    assert_eq!(report["fell_back"], true);
    assert_eq!(report["rounds"], json!([]));
    assert_eq!(report["written"], true);
    assert_eq!(st_compactor(&s), "builtin");
    assert!(!s.standin.join("count").exists(), "the model was asked");
}

/// A failing endpoint that quotes a secret back (a server echoing the request, a CLI
/// printing its environment) reaches stderr only through the project's rules.
#[test]
fn a_failure_message_quoting_a_secret_is_redacted() {
    let s = setup();
    let secret = "ghp_9aZ3kQ7wLm2XbR4tY8uP1sD6fG0hJ5cV2nE7";
    let srv = serve(vec![Reply {
        status: 500,
        body: json!({"error": {"message": format!("token {secret} refused"), "type": "x"}})
            .to_string(),
        delay: Duration::ZERO,
    }]);
    openai_config(&s, srv.port);
    let err = fails_cleanly(&s, "openai", "answered HTTP 500");
    assert!(!err.contains(secret), "{err}");
    assert!(err.contains("[REDACTED:"), "{err}");
}
