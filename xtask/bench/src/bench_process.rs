//! The "process" benchmarks: each command a runtime runs on every prompt or tool call, timed
//! as a whole process (fork, exec, its work, exit, reaped), with its peak RSS (`ru_maxrss`,
//! through GNU time, in a run of its own),
//! against `true` and `remaind --version` spawned the same way in the same run, the three
//! interleaved run by run so a drift of the machine moves them alike. Medians of 31 runs
//! after 3 warm-up runs (11 after 1 in quick mode).
//!
//! Folders live in RAM (`/dev/shm` when there is one): what is timed is the process's own
//! work, not the disk's fsync, which a synced append pays on any storage.
//!
//! Targets (issue: hooks at the speed of a process start): `log`, `hook post-tool-use`, a
//! tool call through each other runtime's hook (Codex, Cursor, Gemini CLI, OpenCode),
//! `hook user-prompt-submit` and `hook stop` within 5× `true` and 16 MB; `hook session-start`
//! and `resume` on a real imported session and on a 100,000-event ledger within 30× `true`
//! and 25 MB. Recall (issue: recall at the moment it matters): each hook it changes, on a
//! 100,000-event ledger of decisions, failures and file changes among notes, within 2× the
//! same hook with recall off in the same run; SessionStart within 1.1× (unchanged).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::bench::Measurement;
use crate::bench_resume::{binary, build_ledger, check, log_batch, remaind};
use crate::workspace_root;

/// One timed run: wall milliseconds. Exit 0, or 4 (the resume gate interrupting, which a
/// resume after an ended turn does by design), is success.
fn run_once(mut cmd: Command, stdin: Option<&Path>) -> Result<f64, String> {
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    match stdin {
        Some(path) => {
            cmd.stdin(File::open(path).map_err(|e| format!("{}: {e}", path.display()))?);
        }
        None => {
            cmd.stdin(Stdio::null());
        }
    }
    let start = Instant::now();
    let status = cmd.status().map_err(|e| format!("cannot start: {e}"))?;
    let wall = start.elapsed().as_secs_f64() * 1e3;
    if !matches!(status.code(), Some(0 | 4)) {
        return Err(format!("exited {status}"));
    }
    Ok(wall)
}

/// The peak resident set of one run, in MiB, as GNU time reports the child's `ru_maxrss`
/// (run apart from the timed runs: time's own start is not in any figure). `NaN` without
/// `/usr/bin/time`.
fn peak_mib(cmd: &Command, stdin: Option<&Path>) -> f64 {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return f64::NAN;
    }
    let Ok(out) = tempfile::NamedTempFile::new() else {
        return f64::NAN;
    };
    let mut wrapped = Command::new(time);
    wrapped
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(out.path())
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .env_remove("REMAIND_DIR");
    if run_once(wrapped, stdin).is_err() {
        return f64::NAN;
    }
    // A child that exited non-zero (the gate's 4) is said on a line before the figure.
    std::fs::read_to_string(out.path())
        .ok()
        .and_then(|t| t.lines().last()?.trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A command to time: how to make it, and the file its stdin reads.
struct Subject<'a> {
    name: String,
    make: Box<dyn Fn() -> Command + 'a>,
    stdin: Option<PathBuf>,
}

/// What [`measure`] found: each subject's median wall time (ms) and peak RSS (MiB), and the
/// medians of `true` and `remaind --version` beside them.
struct Timings {
    subjects: Vec<(f64, f64)>,
    true_ms: f64,
    version_ms: f64,
}

/// Medians of wall time and peak RSS of each subject, `true` and `remaind --version`,
/// interleaved run by run.
fn measure(subjects: &[Subject<'_>], runs: usize, warmup: usize) -> Result<Timings, String> {
    let truth = || Command::new("true");
    let version = || {
        let mut c = Command::new(binary());
        c.arg("--version");
        c
    };
    let mut walls: Vec<Vec<f64>> = vec![Vec::new(); subjects.len()];
    let (mut true_ms, mut version_ms) = (Vec::new(), Vec::new());
    for round in 0..warmup + runs {
        let t = run_once(truth(), None).map_err(|e| format!("true: {e}"))?;
        let v = run_once(version(), None).map_err(|e| format!("--version: {e}"))?;
        let mut these = Vec::with_capacity(subjects.len());
        for s in subjects {
            these.push(
                run_once((s.make)(), s.stdin.as_deref()).map_err(|e| format!("{}: {e}", s.name))?,
            );
        }
        if round >= warmup {
            true_ms.push(t);
            version_ms.push(v);
            for (i, wall) in these.into_iter().enumerate() {
                walls[i].push(wall);
            }
        }
    }
    let medians = walls
        .into_iter()
        .zip(subjects)
        .map(|(w, s)| (median(w), peak_mib(&(s.make)(), s.stdin.as_deref())))
        .collect();
    Ok(Timings {
        subjects: medians,
        true_ms: median(true_ms),
        version_ms: median(version_ms),
    })
}

/// A scratch folder in RAM when there is one.
fn scratch() -> Result<tempfile::TempDir, String> {
    let shm = Path::new("/dev/shm");
    let builder = {
        let mut b = tempfile::Builder::new();
        b.prefix("remaind-process-");
        b
    };
    if shm.is_dir() {
        builder.tempdir_in(shm)
    } else {
        builder.tempdir()
    }
    .map_err(|e| format!("cannot make a scratch folder: {e}"))
}

/// A hook payload file for `event` naming `cwd` and, for Claude Code, `transcript`.
fn payload(dir: &Path, event: &str, fields: &str) -> Result<PathBuf, String> {
    let path = dir.join(format!("{event}.json"));
    let body = format!("{{\"session_id\":\"bench\",\"cwd\":\"/work/app\",{fields}}}");
    std::fs::write(&path, body).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

const SMALL_HOOKS: [(&str, &str); 3] = [
    (
        "post-tool-use",
        r#""hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"cargo test -p app"},"tool_response":{"stdout":"test result: ok. 12 passed","stderr":"","interrupted":false}"#,
    ),
    (
        "user-prompt-submit",
        r#""hook_event_name":"UserPromptSubmit","prompt":"Add retries to the uploader and keep the API unchanged.""#,
    ),
    (
        "stop",
        r#""hook_event_name":"Stop","last_assistant_message":"Done: the retries are in and the tests pass.""#,
    ),
];

/// A tool call through each runtime's hook (`remaind hook RUNTIME EVENT`), the payload as
/// that runtime sends it (fixtures/hooks/README.md says where each field comes from).
const RUNTIME_HOOKS: [(&str, &str, &str); 4] = [
    (
        "--runtime=codex",
        "post-tool-use",
        r#""hook_event_name":"PostToolUse","turn_id":"t1","model":"gpt-5-codex","tool_name":"shell","tool_input":{"command":["cargo","test","-p","app"]},"tool_response":{"output":"test result: ok. 12 passed","metadata":{"exit_code":0}}"#,
    ),
    (
        "cursor",
        "postToolUse",
        r#""hook_event_name":"postToolUse","conversation_id":"bench","cursor_version":"2.0.77","model":"gpt-5","workspace_roots":["/work/app"],"tool_name":"Shell","tool_input":{"command":"cargo test -p app"},"tool_output":{"output":"test result: ok. 12 passed"}"#,
    ),
    (
        "gemini",
        "AfterTool",
        r#""hook_event_name":"AfterTool","transcript_path":"/home/dev/.gemini/tmp/x/chats/session.json","timestamp":"2026-01-28T10:02:11.512Z","tool_name":"run_shell_command","tool_input":{"command":"cargo test -p app"},"tool_response":{"llmContent":"test result: ok. 12 passed","returnDisplay":"ok"}"#,
    ),
    (
        "opencode",
        "tool.execute.after",
        r#""hook_event_name":"tool.execute.after","tool_name":"bash","tool_input":{"command":"cargo test -p app"},"tool_response":{"title":"cargo test -p app","output":"test result: ok. 12 passed","metadata":{"exit":0}}"#,
    ),
];

/// The per-event commands on a context of `label`: `log`, the small hooks, and a tool call
/// through each runtime's hook.
fn small_commands<'a>(
    ctx: &'a Path,
    label: &str,
    files: &Path,
) -> Result<Vec<Subject<'a>>, String> {
    let mut out: Vec<Subject<'a>> = vec![Subject {
        name: format!("log one small event ({label})"),
        make: Box::new(move || remaind(ctx, &["log", "--kind", "note", "--text", "ran the tests"])),
        stdin: None,
    }];
    for (hook, fields) in SMALL_HOOKS {
        let file = payload(files, hook, fields)?;
        out.push(Subject {
            name: format!("hook {hook} ({label})"),
            make: Box::new(move || remaind(ctx, &["hook", hook])),
            stdin: Some(file),
        });
    }
    for (runtime, event, fields) in RUNTIME_HOOKS {
        let name = runtime.trim_start_matches("--runtime=");
        let file = payload(files, &format!("{name}-{event}"), fields)?;
        out.push(Subject {
            name: format!("hook {name} {event} ({label})"),
            make: Box::new(move || remaind(ctx, &["hook", runtime, event])),
            stdin: Some(file),
        });
    }
    Ok(out)
}

/// The commands that load a resume packet on a context of `label`.
fn resume_commands<'a>(
    ctx: &'a Path,
    label: &str,
    files: &Path,
) -> Result<Vec<Subject<'a>>, String> {
    let file = payload(
        files,
        "session-start",
        r#""hook_event_name":"SessionStart","source":"resume""#,
    )?;
    Ok(vec![
        Subject {
            name: format!("hook session-start ({label})"),
            make: Box::new(move || remaind(ctx, &["hook", "session-start"])),
            stdin: Some(file),
        },
        Subject {
            name: format!("resume ({label})"),
            make: Box::new(move || remaind(ctx, &["resume"])),
            stdin: None,
        },
    ])
}

fn report(subjects: &[Subject<'_>], t: &Timings, (ratio, rss): (f64, f64)) -> Vec<Measurement> {
    let (true_ms, version_ms) = (t.true_ms, t.version_ms);
    subjects
        .iter()
        .zip(&t.subjects)
        .map(|(s, (wall, peak))| Measurement {
            name: format!("{} p50, peak {peak:.1} MB", s.name),
            figure: *wall,
            baseline_name: format!(
                "`true` spawned the same way (remaind --version {version_ms:.2} ms)"
            ),
            baseline: true_ms,
            unit: "ms".to_owned(),
            note: format!("target: ratio <= {ratio}, peak <= {rss} MB"),
        })
        .collect()
}

/// Words the recall ledger's events are made of.
const VOCABULARY: [&str; 24] = [
    "retry",
    "backoff",
    "uploader",
    "scheduler",
    "cache",
    "eviction",
    "timeout",
    "socket",
    "parser",
    "migration",
    "index",
    "lock",
    "queue",
    "worker",
    "token",
    "budget",
    "schema",
    "replica",
    "snapshot",
    "cursor",
    "batch",
    "stream",
    "buffer",
    "signal",
];

/// One event of the recall ledger: mostly notes, with decisions, failed tool calls and file
/// changes on a hundred modules spread among them.
fn recall_event(i: usize) -> String {
    let (m, a, b) = (i % 100, VOCABULARY[i % 24], VOCABULARY[(i / 24) % 24]);
    match i % 50 {
        0..=1 => format!(
            r#"{{"kind":"decision","text":"module {m}: the {a} goes through the {b}, never around it (review {i})"}}"#
        ),
        2 => format!(
            r#"{{"kind":"tool_result","text":"$ cargo test mod{m} (failed)","data":{{"failed":true,"error":"{a} {b} assertion failed in src/mod{m}.rs"}}}}"#
        ),
        3 => format!(
            r#"{{"kind":"file_change","text":"/work/app/src/mod{m}.rs","data":{{"path":"/work/app/src/mod{m}.rs","change":"edited the {a} {b} (12 lines)"}}}}"#
        ),
        _ => format!(
            r#"{{"kind":"note","text":"progress note {i}: looked at module {m}, the {a} and the {b}"}}"#
        ),
    }
}

/// Two copies of a 100,000-event ledger of [`recall_event`]s, the index built: recall on
/// (the default) and off (`recall` settings false), for the same hooks to be timed on both.
fn recall_ledgers(root: &Path) -> Result<(PathBuf, PathBuf), String> {
    let on = root.join("recall-on/.context");
    check("init", remaind(&on, &["init"]), &[0])?;
    let total = 100_000;
    let mut done = 0;
    while done < total {
        let n = 10_000.min(total - done);
        log_batch(&on, (done..done + n).map(recall_event))?;
        done += n;
    }
    check(
        "search",
        remaind(&on, &["search", "warm the index"]),
        &[0, 1],
    )?;
    let off = root.join("recall-off/.context");
    std::fs::create_dir_all(off.parent().unwrap_or(root))
        .map_err(|e| format!("{}: {e}", off.display()))?;
    let copied = Command::new("cp")
        .arg("-a")
        .arg(&on)
        .arg(&off)
        .status()
        .map_err(|e| format!("cp: {e}"))?;
    if !copied.success() {
        return Err(format!("cp -a {} {} failed", on.display(), off.display()));
    }
    let settings = off.join("schemas/thresholds.json");
    let text =
        std::fs::read_to_string(&settings).map_err(|e| format!("{}: {e}", settings.display()))?;
    let mut doc: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", settings.display()))?;
    doc["recall"] = serde_json::json!({"prompt": false, "files": false});
    std::fs::write(&settings, doc.to_string())
        .map_err(|e| format!("{}: {e}", settings.display()))?;
    Ok((on, off))
}

/// The hooks recall changes, each on the recall-on and the recall-off ledger: rows of the
/// hook with recall against the same hook without it, in the same run.
fn recall_rows(
    root: &Path,
    files: &Path,
    runs: usize,
    warmup: usize,
) -> Result<Vec<Measurement>, String> {
    let (on, off) = recall_ledgers(root)?;
    let hooks = [
        (
            "user-prompt-submit",
            "recall-prompt",
            r#""hook_event_name":"UserPromptSubmit","prompt":"Why does the uploader retry go around the backoff in module 42?""#,
            2.0,
        ),
        (
            "pre-tool-use",
            "recall-read",
            r#""hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/work/app/src/mod42.rs"}"#,
            2.0,
        ),
        (
            "session-start",
            "recall-start",
            r#""hook_event_name":"SessionStart","source":"resume""#,
            1.1,
        ),
    ];
    let mut subjects = Vec::new();
    for (hook, name, fields, _) in hooks {
        let file = payload(files, name, fields)?;
        for (ctx, label) in [(&on, "on"), (&off, "off")] {
            subjects.push(Subject {
                name: format!("hook {hook}, recall {label}"),
                make: Box::new(move || remaind(ctx, &["hook", hook])),
                stdin: Some(file.clone()),
            });
        }
    }
    let t = measure(&subjects, runs, warmup)?;
    Ok(hooks
        .iter()
        .enumerate()
        .map(|(i, (hook, _, _, target))| {
            let ((with, peak), (without, _)) = (t.subjects[2 * i], t.subjects[2 * i + 1]);
            Measurement {
                name: format!("hook {hook} with recall p50, peak {peak:.1} MB (100,000 events)"),
                figure: with,
                baseline_name: "the same hook with recall off, same run".to_owned(),
                baseline: without,
                unit: "ms".to_owned(),
                note: format!("target: ratio <= {target}"),
            }
        })
        .collect())
}

fn process(quick: bool) -> Result<Vec<Measurement>, String> {
    let (runs, warmup) = if quick { (11, 1) } else { (31, 3) };
    let tmp = scratch()?;
    let root = tmp.path();
    // A fresh context: what a hook pays on a new project.
    let fresh = root.join("fresh/.context");
    check("init", remaind(&fresh, &["init"]), &[0])?;
    // A real session, imported and compacted.
    let real = root.join("real/.context");
    check("init", remaind(&real, &["init"]), &[0])?;
    let session = workspace_root().join("fixtures/transcripts/claude-code-8463c716.jsonl");
    check(
        "import",
        remaind(
            &real,
            &["import", "claude-code", session.to_str().unwrap_or("")],
        ),
        &[0],
    )?;
    check("compact", remaind(&real, &["compact"]), &[0])?;
    // A 100,000-event ledger, compacted, with a 200-event tail.
    let big = build_ledger(&root.join("big"), 100_000)?;
    let files = root.join("payloads");
    std::fs::create_dir_all(&files).map_err(|e| format!("{}: {e}", files.display()))?;

    let mut out = Vec::new();
    for (ctx, label) in [(&fresh, "fresh .context"), (&big, "100,000 events")] {
        let subjects = small_commands(ctx, label, &files)?;
        let timings = measure(&subjects, runs, warmup)?;
        out.extend(report(&subjects, &timings, (5.0, 16.0)));
    }
    for (ctx, label) in [(&real, "real session 8463c716"), (&big, "100,000 events")] {
        let subjects = resume_commands(ctx, label, &files)?;
        let timings = measure(&subjects, runs, warmup)?;
        out.extend(report(&subjects, &timings, (30.0, 25.0)));
    }
    out.extend(recall_rows(root, &files, runs, warmup)?);
    Ok(out)
}

/// Runs the process benchmarks; when they cannot run, one NaN row says why.
pub(crate) fn run(quick: bool) -> Vec<Measurement> {
    process(quick).unwrap_or_else(|e| {
        vec![Measurement {
            name: "process".to_owned(),
            figure: f64::NAN,
            baseline_name: String::new(),
            baseline: f64::NAN,
            unit: String::new(),
            note: format!("did not run: {e}"),
        }]
    })
}
