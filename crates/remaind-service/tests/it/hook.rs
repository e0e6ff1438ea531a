//! The hook runner as a front-end calls it: it never fails, says on stderr what it did not
//! do, and keeps it in `logs/hook-errors.jsonl`.

use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};
use remaind_fs::ContextDir;
use remaind_service::{HookCall, HookOutcome, run_hook};

/// A project folder with an initialized `.context/`.
fn project() -> (tempfile::TempDir, Utf8PathBuf, ContextDir) {
    let tmp = remaind_testkit::scratch_dir("service-hook");
    let root = Utf8PathBuf::from_path_buf(tmp.path().to_owned()).expect("a UTF-8 path");
    let ctx = ContextDir::new(root.join(".context"));
    remaind_resume::init(&ctx, false).expect("init");
    (tmp, root, ctx)
}

fn call<'a>(event: &'a str, input: &'a [u8], cwd: &Utf8Path) -> HookCall<'a> {
    HookCall {
        event,
        runtime_event: None,
        runtime: None,
        input,
        input_error: None,
        dir: None,
        cwd: Ok(cwd.to_owned()),
        llm: None,
        time_limit: Duration::from_secs(30),
    }
}

fn hook_errors(ctx: &ContextDir) -> Vec<serde_json::Value> {
    let text =
        std::fs::read_to_string(ctx.join(remaind_fs::layout::HOOK_ERRORS_PATH)).unwrap_or_default();
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn ledger_head(ctx: &ContextDir) -> u64 {
    let ledger = remaind_ledger::Ledger::open(ctx.root()).expect("open");
    ledger.head().expect("head").0
}

/// An event Remaind does not know does nothing, exits 0, and is kept (as given) with its
/// payload in the project's `hook-errors.jsonl`.
#[test]
fn an_unknown_event_is_kept_in_the_error_log_and_exits_0() {
    let (_tmp, root, ctx) = project();
    let out = run_hook(call("frobnicate", b"{\"session_id\": \"s1\"}", &root));
    assert_eq!(out.code, 0);
    assert!(out.stdout.is_empty(), "{out:?}");
    assert!(
        out.stderr.contains("unknown hook event `frobnicate`") && out.stderr.contains("exits 0"),
        "{out:?}"
    );
    let errors = hook_errors(&ctx);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["hook"], "frobnicate");
    assert!(
        errors[0]["payload"]
            .as_str()
            .is_some_and(|p| p.contains("s1"))
    );
    assert_eq!(ledger_head(&ctx), 0, "nothing recorded");
}

/// A folder with no `.context/` above it has not opted in: the hook writes nothing there
/// and says why.
#[test]
fn a_folder_without_context_does_nothing() {
    let tmp = remaind_testkit::scratch_dir("service-hook");
    let root = Utf8PathBuf::from_path_buf(tmp.path().to_owned()).expect("a UTF-8 path");
    let payload = serde_json::json!({ "prompt": "Ship it", "cwd": root }).to_string();
    let out = run_hook(call("user-prompt-submit", payload.as_bytes(), &root));
    assert_eq!((out.code, out.stdout.as_str()), (0, ""));
    assert!(out.stderr.contains("no .context/ in"), "{out:?}");
    let left = std::fs::read_dir(&root).expect("read").count();
    assert_eq!(left, 0, "nothing written in a folder that did not opt in");
}

/// A payload that cannot be read fails open like every other failure.
#[test]
fn an_unreadable_payload_fails_open() {
    let (_tmp, root, ctx) = project();
    let mut c = call("stop", b"", &root);
    c.input_error = Some(std::io::Error::other("the pipe broke"));
    let out = run_hook(c);
    assert_eq!(out.code, 0);
    assert!(
        out.stderr
            .contains("cannot read the hook payload on stdin: the pipe broke"),
        "{out:?}"
    );
    assert_eq!(hook_errors(&ctx).len(), 1);
}

/// A prompt is recorded in the folder `dir` names, whatever the current directory, and the
/// next session start hands the packet back as Claude Code's `additionalContext`.
#[test]
fn a_prompt_is_recorded_and_the_next_session_gets_the_packet() {
    let (_tmp, _root, ctx) = project();
    let elsewhere = remaind_testkit::scratch_dir("service-hook");
    let elsewhere = Utf8PathBuf::from_path_buf(elsewhere.path().to_owned()).expect("UTF-8");
    let prompt = br#"{"session_id": "s1", "prompt": "Use SQLite for the cache"}"#;
    let mut c = call("user-prompt-submit", prompt, &elsewhere);
    c.dir = Some(ctx.root());
    let out = run_hook(c);
    assert_eq!(out, HookOutcome::default(), "silent on success");
    assert!(ledger_head(&ctx) >= 1);

    let mut c = call("session-start", br#"{"session_id": "s2"}"#, &elsewhere);
    c.dir = Some(ctx.root());
    let out = run_hook(c);
    assert_eq!(out.code, 0, "{out:?}");
    let printed: serde_json::Value = serde_json::from_str(out.stdout.trim()).expect("JSON");
    let context = printed["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("additionalContext");
    assert!(context.contains("Use SQLite for the cache"), "{context}");
    assert!(hook_errors(&ctx).is_empty());
}

/// PreCompact compacts on the ledger the hook opened to record it, and Claude Code reads
/// the outcome on stdout.
#[test]
fn pre_compact_records_then_compacts() {
    let (_tmp, root, ctx) = project();
    let prompt = br#"{"session_id": "s1", "prompt": "Add a login page"}"#;
    assert_eq!(run_hook(call("user-prompt-submit", prompt, &root)).code, 0);
    let out = run_hook(call("pre-compact", br#"{"session_id": "s1"}"#, &root));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .starts_with("remaind: compaction accepted through e"),
        "{out:?}"
    );
    assert!(ctx.root().join("active/state.json").is_file());
}
