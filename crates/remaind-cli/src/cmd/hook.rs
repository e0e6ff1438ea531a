//! `remaind hook EVENT`: the Claude Code and Codex hooks; `remaind hook RUNTIME EVENT`: the
//! Cursor, Gemini CLI and OpenCode hooks, translated by `remaind_adapters::runtimes` into
//! the same events and recorded through the same path.
//!
//! Reads a hook payload (JSON) on stdin and does what the hook recipes in docs/guide.md
//! describe: `session-start` resumes and injects the packet as
//! `hookSpecificOutput.additionalContext`; `pre-compact` records `/compact` instructions and
//! compacts through the validator; every other event is mapped to ledger events by
//! `remaind-adapters` (which runtime sent it is read from the payload; `--runtime`
//! overrides). An event name Remaind does not know is said in `logs/hook-errors.jsonl` and
//! exits 0 like every other failure: a hook never blocks the runtime. The translation is
//! argument handling only.

use std::io::Read;
use std::process::ExitCode;

use camino::Utf8PathBuf;
use remaind_adapters::runtimes::{self, Inject};
use remaind_adapters::{HookEvent, Runtime};
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;
use serde_json::{Map, Value, json};

use crate::cli_error::{CliError, EXIT_REJECTED};
use crate::cmd::outbox;
use crate::global::Global;

/// Run as a runtime's hook (Claude Code, Codex, Cursor, Gemini CLI, OpenCode): read the hook's
/// JSON payload on stdin and act on it.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The folder is --dir, else REMAIND_DIR, else the nearest .context/ from the \
payload's `cwd`. Without one the hook does nothing and exits 0, so a project opts in with \
`remaind init`. The runtime is Codex when the payload has a `turn_id` (or a transcript under \
.codex/), else Claude Code. Configuration: examples/claude-code/settings.json, \
examples/codex/hooks.json and docs/guide.md.\n\n\
Examples:\n  \
remaind hook session-start < examples/claude-code/samples/session-start.json\n  \
remaind hook post-tool-use < examples/claude-code/samples/post-tool-use.json\n  \
remaind hook --runtime codex stop < examples/codex/samples/stop.json\n  \
echo '{\"prompt\": \"Ship it\", \"cwd\": \".\"}' | remaind hook user-prompt-submit\n\n\
Events recorded: session-start (injects the packet), user-prompt-submit, post-tool-use, \
post-tool-use-failure, permission-request, notification, subagent-start, subagent-stop, stop, \
stop-failure, pre-compact (compacts), post-compact, session-end. Recall: user-prompt-submit \
adds the past decisions, rules, instructions and failures that bear on the prompt (Gemini \
CLI's BeforeAgent too), and pre-tool-use on Read, Edit, MultiEdit, Write or NotebookEdit adds \
the file's history (Gemini CLI's AfterTool on read_file, replace, write_file), each within a \
small budget and never twice in a session; the `recall` section of \
.context/schemas/thresholds.json turns them off. Accepted and ignored: setup, task-created, task-completed, teammate-idle, instructions-loaded, \
config-change, cwd-changed, file-changed, worktree-create, worktree-remove, elicitation, \
elicitation-result.\n\n\
Cursor, Gemini CLI and OpenCode: `remaind hook RUNTIME EVENT` with the runtime's own event \
name (examples/cursor/hooks.json, examples/gemini/settings.json, examples/opencode/remaind.js; \
`remaind install RUNTIME` wires them). Each maps onto the events above: Cursor \
beforeSubmitPrompt, Gemini BeforeAgent and OpenCode chat.message are the prompt; Cursor \
postToolUse, postToolUseFailure, afterShellExecution, afterFileEdit, afterMCPExecution, Gemini \
AfterTool and OpenCode tool.execute.after are tool results and failures; Cursor \
afterAgentResponse and stop, Gemini AfterAgent and OpenCode session.idle and session.error end \
the turn; Cursor preCompact, Gemini PreCompress and OpenCode experimental.session.compacting \
compact; Cursor sessionStart, Gemini SessionStart and OpenCode \
experimental.chat.system.transform inject the packet (Gemini's next BeforeAgent again after a \
PreCompress, OpenCode's compaction too). These hooks always exit 0.\n\n\
Examples (Cursor, Gemini CLI):\n  \
remaind hook cursor beforeSubmitPrompt < fixtures/hooks/cursor/beforeSubmitPrompt.json\n  \
remaind hook gemini AfterTool < fixtures/hooks/gemini/AfterTool.json"
)]
pub(crate) struct Args {
    /// The hook event, e.g. `session-start`, `post-tool-use-failure` (the runtime's name,
    /// `SessionStart`, works too). An event Remaind does not know does nothing and exits 0,
    /// said in .context/logs/hook-errors.jsonl.
    /// `remaind hook cursor sessionStart`: the runtime first (cursor, gemini, opencode,
    /// claude-code, codex), then its event in its own spelling.
    #[arg(value_name = "EVENT")]
    event: String,
    /// With a runtime as the first argument: the runtime's event, e.g. `beforeSubmitPrompt`
    /// (Cursor), `BeforeAgent` (Gemini CLI), `tool.execute.after` (OpenCode).
    #[arg(value_name = "RUNTIME_EVENT")]
    runtime_event: Option<String>,
    /// The runtime that sent the payload (default: read from the payload).
    #[arg(long, value_enum)]
    runtime: Option<HookRuntime>,
    /// pre-compact: ask this LLM preset (claude, codex, openai; settings in
    /// .context/schemas/llm.json) instead of the built-in compactor. Whatever goes wrong with
    /// the model, the built-in candidate is committed instead.
    #[arg(long, value_name = "PRESET", value_parser = ["claude", "codex", "openai"])]
    llm: Option<String>,
    /// pre-compact with --llm: seconds all model rounds may take. Keep it below the hook's
    /// `timeout` (the default fits the 120 s of examples/claude-code/settings.json).
    #[arg(long, value_name = "SECS", requires = "llm", default_value_t = DEFAULT_HOOK_LIMIT,
          value_parser = clap::value_parser!(u64).range(1..))]
    time_limit: u64,
}

/// Seconds the PreCompact hook gives an LLM preset: the recipe's 120 s hook timeout minus
/// room for the built-in fallback and the writes.
const DEFAULT_HOOK_LIMIT: u64 = 100;

/// `--runtime`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum RuntimeArg {
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
}

impl From<RuntimeArg> for Runtime {
    fn from(r: RuntimeArg) -> Runtime {
        match r {
            RuntimeArg::ClaudeCode => Runtime::ClaudeCode,
            RuntimeArg::Codex => Runtime::Codex,
        }
    }
}

/// `remaind hook --runtime`: every runtime whose hooks Remaind reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum HookRuntime {
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
    /// Cursor's agent (.cursor/hooks.json).
    Cursor,
    /// Google's Gemini CLI (.gemini/settings.json).
    Gemini,
    /// OpenCode (the plugin .opencode/plugins/remaind.js).
    Opencode,
}

impl From<HookRuntime> for Runtime {
    fn from(r: HookRuntime) -> Runtime {
        match r {
            HookRuntime::ClaudeCode => Runtime::ClaudeCode,
            HookRuntime::Codex => Runtime::Codex,
            HookRuntime::Cursor => Runtime::Cursor,
            HookRuntime::Gemini => Runtime::Gemini,
            HookRuntime::Opencode => Runtime::OpenCode,
        }
    }
}

/// One hook call as the recording path reads it: the Claude Code event it maps to, in the
/// payload fields that event reads.
struct Call<'a> {
    runtime: Runtime,
    event: HookEvent,
    payload: &'a Map<String, Value>,
    /// The runtime's own event name, kept as `data.origin.hook` (Cursor, Gemini, OpenCode).
    origin: Option<&'a str>,
    inject: Inject,
    /// `runtime` framing stated by the hook (its name and version).
    label: Option<String>,
    /// The user stopped the turn: an interrupt is recorded instead of the payload's records.
    interrupted: bool,
}

/// Runs the hook and fails open: whatever goes wrong is said on stderr and kept (redacted,
/// with the payload) in `.context/logs/hook-errors.jsonl` when a folder is found, and the hook
/// exits 0, because a runtime reads exit 2 as "block": it would erase the user's prompt, keep
/// the agent from stopping or block a tool. Exit 3 (a rejected PreCompact compaction) is a
/// non-blocking error the runtime shows.
pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        let e = CliError::runtime(format!("cannot read the hook payload on stdin: {e}"));
        fail_open(global, &args.event, &input, &e);
        return Ok(ExitCode::SUCCESS);
    }
    let (runtime, name) = match &args.runtime_event {
        Some(name) => match args.event.parse::<Runtime>() {
            Ok(runtime) => (Some(runtime), name.as_str()),
            Err(e) => {
                let e = CliError::invalid(format!(
                    "{e}; the form is `remaind hook RUNTIME EVENT`, e.g. `remaind hook cursor \
sessionStart`"
                ));
                fail_open(global, &format!("{} {name}", args.event), &input, &e);
                return Ok(ExitCode::SUCCESS);
            }
        },
        None => (args.runtime.map(Runtime::from), args.event.as_str()),
    };
    if let Some(runtime) = runtime.filter(|r| !r.reads_transcripts()) {
        return Ok(translated(global, &args, runtime, name, &input));
    }
    let Ok(event) = name.parse::<HookEvent>() else {
        let e = CliError::invalid(format!(
            "unknown hook event `{name}`; `remaind hook --help` lists the events Remaind knows"
        ));
        fail_open(global, name, &input, &e);
        return Ok(ExitCode::SUCCESS);
    };
    let result = read_payload(&input).and_then(|payload| {
        let runtime = runtime.unwrap_or_else(|| remaind_adapters::detect_runtime(&payload));
        let call = Call {
            runtime,
            event,
            payload: &payload,
            origin: None,
            inject: Inject::SessionStart,
            label: None,
            interrupted: false,
        };
        handle(global, &args, &call)
    });
    match result {
        Ok(code) => Ok(code),
        Err(e) => {
            fail_open(global, event.cli_name(), &input, &e);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// A hook of Cursor, Gemini CLI or OpenCode: translated into the event and fields the
/// recording path reads (remaind_adapters::runtimes), then recorded as Claude Code's are.
/// Always exit 0: these runtimes read any other code as an error or a block.
fn translated(
    global: &Global,
    args: &Args,
    runtime: Runtime,
    name: &str,
    input: &[u8],
) -> ExitCode {
    let label = format!("{runtime} {name}");
    let payload = match read_payload(input) {
        Ok(p) => p,
        Err(e) => {
            fail_open(global, &label, input, &e);
            return ExitCode::SUCCESS;
        }
    };
    let Some(t) = runtimes::translate(runtime, name, &payload) else {
        let e = CliError::invalid(format!(
            "unknown {runtime} hook event `{name}`; `remaind hook --help` lists the events \
Remaind knows"
        ));
        fail_open(global, &label, input, &e);
        return ExitCode::SUCCESS;
    };
    let Some(event) = t.hook else {
        // Documented, and carries nothing to record.
        return ExitCode::SUCCESS;
    };
    let call = Call {
        runtime,
        event,
        payload: &t.payload,
        origin: Some(t.event),
        inject: t.inject,
        label: Some(t.runtime_label.clone()),
        interrupted: t.interrupted,
    };
    if let Err(e) = handle(global, args, &call) {
        fail_open(global, &label, input, &e);
    }
    ExitCode::SUCCESS
}

/// The payload object (an empty one for an empty stdin).
fn read_payload(input: &[u8]) -> Result<Map<String, Value>, CliError> {
    let payload: Value = if input.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Map::new())
    } else {
        parse_payload(input)?
    };
    match payload {
        Value::Object(m) => Ok(m),
        _ => Err(CliError::invalid(
            "stdin: the hook payload must be a JSON object",
        )),
    }
}

/// Bytes of a failed hook's payload kept in `logs/hook-errors.jsonl`.
const KEPT_PAYLOAD_BYTES: usize = 64 * 1024;

/// Says why the hook did nothing, on stderr and in `logs/hook-errors.jsonl` (the payload
/// redacted with the project's rules; left out when they cannot be read).
fn fail_open(global: &Global, event: &str, input: &[u8], e: &CliError) {
    eprintln!(
        "remaind hook {event}: {}; the hook did nothing and exits 0 so the agent goes on",
        e.full_message()
    );
    let payload = serde_json::from_slice::<Value>(input).ok();
    let ctx = payload
        .as_ref()
        .and_then(Value::as_object)
        .and_then(|p| find_context(global, p).ok().flatten())
        .or_else(|| find_context(global, &Map::new()).ok().flatten());
    let Some(ctx) = ctx else { return };
    keep_hook_error(&ctx, event, e, Some(input));
}

/// Keeps a hook's error in `logs/hook-errors.jsonl`, with its payload when given, each string
/// redacted with the project's rules (the payload left out when they cannot be read).
fn keep_hook_error(ctx: &ContextDir, event: &str, e: &CliError, input: Option<&[u8]>) {
    let input = input.unwrap_or_default();
    let text = String::from_utf8_lossy(&input[..input.len().min(KEPT_PAYLOAD_BYTES)]);
    let redactor = Ledger::project_redactor(ctx.root()).ok();
    // The event name is the caller's text too (an unknown one is kept as given).
    let clean = |s: &str| {
        redactor
            .as_ref()
            .map_or_else(|| s.to_owned(), |r| r.redact_str(s).0.into_owned())
    };
    let kept = redactor
        .as_ref()
        .filter(|_| !input.is_empty())
        .map(|r| r.redact_str(&text).0.into_owned());
    let line = json!({
        "ts": jiff::Timestamp::now().to_string(),
        "hook": clean(event),
        "error": clean(&e.full_message()),
        "payload_bytes": input.len(),
        "payload": kept,
    });
    if let Err(err) = append_hook_error(ctx, &line.to_string()) {
        eprintln!("remaind hook {event}: the error was not kept either: {err}");
    }
}

/// Appends `line` (one JSON object, already redacted) to `logs/hook-errors.jsonl`: what a
/// hook could not do, kept for the user since the hook itself exits 0. Never follows a
/// symlink; the file is created 0600. The error says what failed, on which file.
fn append_hook_error(ctx: &ContextDir, line: &str) -> Result<(), String> {
    let rel = camino::Utf8Path::new(remaind_fs::layout::HOOK_ERRORS_PATH);
    remaind_fs::append_line(ctx.root(), rel, line.as_bytes(), false).map_err(|e| e.to_string())
}

fn handle(global: &Global, args: &Args, call: &Call<'_>) -> Result<ExitCode, CliError> {
    let (runtime, event, payload) = (call.runtime, call.event, call.payload);
    if !event.records() {
        // Accepted: the runtime documents it, and it carries nothing to record. Claude Code's
        // PreToolUse may bring a file's history before the agent reads or edits it.
        if event == HookEvent::PreToolUse
            && runtime == Runtime::ClaudeCode
            && let Some(ctx) = find_context(global, payload)?
        {
            let workspace = start_dir(global, payload)?;
            recall_file(&ctx, None, call, &workspace);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let Some(ctx) = find_context(global, payload)? else {
        let start = start_dir(global, payload)?;
        eprintln!(
            "remaind hook: no .context/ in {start} or any folder above it; the hook did nothing \
(run `remaind init` in the project to opt in, or pass --dir)"
        );
        return Ok(ExitCode::SUCCESS);
    };
    let workspace = start_dir(global, payload)?;
    if event == HookEvent::SessionStart {
        // A ledger that does not open is the gate's to report, below.
        match Ledger::open(ctx.root()) {
            Ok(ledger) => {
                drain_outbox(global, &ctx, &ledger);
                observe(&ctx, &ledger, call, &workspace);
            }
            Err(e) if store_unreachable(&e) => local_copy_only(&ctx, "session-start", &e),
            Err(_) => {}
        }
        clear_reinject(&ctx);
        return session_start(&ctx, call, "SessionStart");
    }
    let ledger = match Ledger::open(ctx.root()) {
        Ok(ledger) => ledger,
        Err(e) if store_unreachable(&e) => return defer(&ctx, call, &chain_text(&e)),
        Err(e) => return Err(e.into()),
    };
    // What waited while the store was away goes in first, in order.
    if !drain_outbox(global, &ctx, &ledger) {
        return defer(
            &ctx,
            call,
            "the shared store went away while the outbox was appended",
        );
    }
    let reinject = call.inject == Inject::AfterCompaction && take_reinject(&ctx);
    // Recalled before the prompt is recorded, so its own words do not count as known.
    let recalled = (event == HookEvent::UserPromptSubmit && !call.interrupted && !reinject)
        .then(|| recall_prompt(&ctx, &ledger, call))
        .flatten();
    record_call(&ctx, &ledger, call, &workspace, None)?;
    if reinject {
        // Gemini CLI compressed its history after PreCompress: the packet goes back in here.
        return session_start(&ctx, call, "BeforeAgent");
    }
    if let Some(text) = recalled {
        print_context(
            call.origin.unwrap_or(HookEvent::UserPromptSubmit.as_str()),
            &text,
        );
    }
    if event == HookEvent::PostToolUse && runtime == Runtime::Gemini {
        // Gemini CLI adds context to a tool's result, not before it.
        recall_file(&ctx, Some(&ledger), call, &workspace);
    }
    if event == HookEvent::PreCompact {
        if ledger.head().map_err(CliError::from)?.0 == 0 {
            // Nothing to compact: record nothing (a `validation` event would make every later
            // SessionStart interrupt).
            return Ok(ExitCode::SUCCESS);
        }
        // Claude Code and Codex show a plain line on stdout and read exit 3 as a non-blocking
        // error; the others read stdout as JSON and want exit 0.
        let plain = runtime.reads_transcripts();
        let code = match args.llm.as_deref() {
            Some(preset) => pre_compact_llm(&ctx, preset, args.time_limit, plain)?,
            None => pre_compact(&ctx, plain)?,
        };
        match call.inject {
            Inject::IntoCompaction => {
                session_start(&ctx, call, "PreCompact")?;
            }
            _ if runtime == Runtime::Gemini => set_reinject(&ctx),
            _ => {}
        }
        return Ok(if plain { code } else { ExitCode::SUCCESS });
    }
    Ok(ExitCode::SUCCESS)
}

/// Records one hook call: what the transcript says happened before it, then its payload's
/// events. `outbox` names a call replayed from the outbox (kept as `data.origin.line`).
fn record_call(
    ctx: &ContextDir,
    ledger: &Ledger,
    call: &Call<'_>,
    workspace: &camino::Utf8Path,
    outbox: Option<&str>,
) -> Result<(), CliError> {
    let mut records = call_records(call)?;
    observe(ctx, ledger, call, workspace);
    for rec in &mut records {
        if rec.source.line.is_none() {
            rec.source.line = outbox.map(str::to_owned);
        }
    }
    remaind_adapters::record(ledger, records).map_err(CliError::from)?;
    Ok(())
}

/// The events a call's payload maps to (an interrupt when the user stopped the turn).
fn call_records(call: &Call<'_>) -> Result<Vec<remaind_adapters::Record>, CliError> {
    let mut records = if call.interrupted {
        let mut source = remaind_adapters::Source::new(call.runtime);
        source.session = call
            .payload
            .get("session_id")
            .and_then(Value::as_str)
            .map(str::to_owned);
        vec![remaind_adapters::Record {
            source,
            signal: remaind_adapters::Signal::Interrupt,
        }]
    } else {
        remaind_adapters::hook_records(call.runtime, call.event, call.payload)
            .map_err(CliError::from)?
    };
    if let Some(origin) = call.origin {
        for rec in &mut records {
            rec.source.hook = Some(origin.to_owned());
        }
    }
    Ok(records)
}

/// The store cannot be reached: the call waits in the outbox (its payload redacted) for the
/// next hook that reaches it, and the hook exits 0. A call the outbox cannot keep is the
/// hook's error (kept in `hook-errors.jsonl`).
fn defer(ctx: &ContextDir, call: &Call<'_>, why: &str) -> Result<ExitCode, CliError> {
    // Fails here, not at replay, when the payload maps to nothing recordable.
    call_records(call)?;
    let mut entry = outbox::Entry::new(
        ctx,
        call.runtime.as_str(),
        call.event.cli_name(),
        call.payload,
    )?;
    entry.origin = call.origin.map(str::to_owned);
    entry.label.clone_from(&call.label);
    entry.interrupted = call.interrupted;
    outbox::keep(ctx, &entry).map_err(|e| {
        CliError::runtime(format!(
            "{why}; and the call could not wait in the outbox: {}",
            e.full_message()
        ))
    })?;
    eprintln!(
        "remaind hook {}: {why}; the call waits in {} and goes in with the next hook that \
reaches the store",
        call.event.cli_name(),
        remaind_fs::layout::OUTBOX_PATH
    );
    Ok(ExitCode::SUCCESS)
}

/// Appends what waits in the outbox. Returns false when an append failed (the store went
/// away again; what is left keeps waiting); anything else that goes wrong is said and kept in
/// `hook-errors.jsonl`, never the hook's failure.
fn drain_outbox(global: &Global, ctx: &ContextDir, ledger: &Ledger) -> bool {
    let mut append_failed = false;
    let replay = |entry: &outbox::Entry| -> Result<outbox::Replay, CliError> {
        let call = match replay_call(entry) {
            Ok(call) => call,
            Err(e) => return Ok(outbox::Replay::Refused(e)),
        };
        if let Err(e) = call_records(&call) {
            return Ok(outbox::Replay::Refused(e));
        }
        let workspace = start_dir(global, &entry.payload)?;
        record_call(ctx, ledger, &call, &workspace, Some(&entry.line())).inspect_err(|_| {
            append_failed = true;
        })?;
        Ok(outbox::Replay::Appended)
    };
    match outbox::drain(ctx, ledger, replay) {
        Ok(done) => {
            for (id, e) in &done.dropped {
                keep_hook_error(ctx, &format!("outbox {id}"), e, None);
            }
        }
        Err(e) => keep_hook_error(ctx, "outbox", &e, None),
    }
    !append_failed
}

/// The call an outbox entry holds (nothing injected: the session it came from has moved on).
fn replay_call(entry: &outbox::Entry) -> Result<Call<'_>, CliError> {
    let runtime = entry
        .runtime
        .parse::<Runtime>()
        .map_err(|e| CliError::invalid(format!("outbox entry {}: {e}", entry.id)))?;
    let event = entry
        .event
        .parse::<HookEvent>()
        .map_err(|e| CliError::invalid(format!("outbox entry {}: {e}", entry.id)))?;
    Ok(Call {
        runtime,
        event,
        payload: &entry.payload,
        origin: entry.origin.as_deref(),
        inject: Inject::Nothing,
        label: entry.label.clone(),
        interrupted: entry.interrupted,
    })
}

fn reinject_path(ctx: &ContextDir) -> Utf8PathBuf {
    ctx.root().join(remaind_fs::layout::REINJECT_PATH)
}

/// Asks the next prompt hook to inject the packet again (a failure is said, never fatal).
fn set_reinject(ctx: &ContextDir) {
    let path = reinject_path(ctx);
    let written = path.parent().map_or(Ok(false), |dir| {
        remaind_fs::ensure_dir(dir, true)?;
        remaind_fs::replace_file(dir, path.file_name().unwrap_or("reinject"), b"compacted\n")
            .map(|()| true)
    });
    if let Err(e) = written {
        eprintln!(
            "remaind: the packet will not be injected again after the compression: {}",
            CliError::from(e).full_message()
        );
    }
}

/// Whether a compaction asked for the packet again; the request is used up.
fn take_reinject(ctx: &ContextDir) -> bool {
    let path = reinject_path(ctx);
    match path.parent().zip(path.file_name()) {
        Some((dir, name)) => remaind_fs::remove_file(dir, name).unwrap_or(false),
        None => false,
    }
}

/// A session start injects the packet: no later prompt needs it again.
fn clear_reinject(ctx: &ContextDir) {
    take_reinject(ctx);
}

/// The payload as JSON. A lone surrogate escape (an emoji cut in half) or a byte that is
/// not UTF-8 costs a character, not the prompt: it is replaced with U+FFFD, and said.
fn parse_payload(input: &[u8]) -> Result<Value, CliError> {
    let err = match remaind_ledger::parse_json_strict(input) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let not_json = || CliError::invalid(format!("stdin: the hook payload is not JSON: {err}"));
    let (fixed, n) = remaind_adapters::repair_json_text(input).ok_or_else(not_json)?;
    let v = remaind_ledger::parse_json_strict(fixed.as_bytes()).map_err(|_| not_json())?;
    eprintln!(
        "remaind hook: {n} character(s) of the payload could not be decoded and were replaced \
with U+FFFD"
    );
    Ok(v)
}

/// The hooks at a turn's edges read the runtime's transcript since the last hook did (what
/// no payload carries: an interrupt, the model); every hook records the framing its payload
/// states. Neither ever fails the hook: a problem is reported on stderr.
fn observe(ctx: &ContextDir, ledger: &Ledger, call: &Call<'_>, workspace: &camino::Utf8Path) {
    let (runtime, event, payload) = (call.runtime, call.event, call.payload);
    let mut framing = remaind_adapters::Framing::default();
    // Before a compaction too, so it sees the interrupts and queued prompts.
    let at_an_edge = matches!(
        event,
        HookEvent::SessionStart
            | HookEvent::UserPromptSubmit
            | HookEvent::Stop
            | HookEvent::StopFailure
            | HookEvent::PreCompact
            | HookEvent::SessionEnd
    );
    let transcript = payload
        .get("transcript_path")
        .and_then(Value::as_str)
        .map(Utf8PathBuf::from)
        .filter(|p| at_an_edge && runtime.reads_transcripts() && p.is_absolute() && p.is_file());
    if let Some(path) = transcript {
        match remaind_adapters::follow_transcript(ledger, runtime, &path) {
            Ok(followed) => framing = followed.framing,
            Err(e) => eprintln!(
                "remaind: the transcript was not followed: {}",
                CliError::from(e).full_message()
            ),
        }
    }
    let mut stated = remaind_adapters::hook_framing(payload);
    if stated.workspace.is_some() {
        // A relative `cwd` (the samples say ".") names the folder it resolves to.
        stated.workspace = Some(workspace.to_string());
    }
    if let Some(label) = &call.label {
        stated.settings.insert("runtime".to_owned(), label.clone());
    }
    framing.merge(stated);
    crate::cmd::frame::record_runtime(ctx, ledger, &framing);
}

/// Where the search for `.context/` starts: the payload's `cwd` (a relative one from the
/// process's folder), else the process's folder.
fn start_dir(global: &Global, payload: &Map<String, Value>) -> Result<Utf8PathBuf, CliError> {
    Ok(match payload.get("cwd").and_then(Value::as_str) {
        Some(cwd) if !cwd.is_empty() => {
            let cwd = Utf8PathBuf::from(cwd);
            let cwd = if cwd.is_absolute() {
                cwd
            } else {
                global.cwd()?.join(cwd)
            };
            // Rebuilt from its components: `.` ones are dropped (a sample's `"cwd": "."`
            // names the folder, not `/srv/app/.`).
            cwd.components().collect()
        }
        _ => global.cwd()?,
    })
}

/// `--dir`/`REMAIND_DIR`, else the nearest `.context/` from the payload's `cwd` (else the
/// process's). `None` when there is none: the project has not opted in.
fn find_context(
    global: &Global,
    payload: &Map<String, Value>,
) -> Result<Option<ContextDir>, CliError> {
    if global.dir.is_some() {
        return global.context().map(Some);
    }
    let start = start_dir(global, payload)?;
    match remaind_resume::discover(None, &start) {
        Ok(ctx) => Ok(Some(ctx)),
        Err(remaind_resume::Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Whether opening a replica failed because its shared store cannot be reached (down, a
/// network away, refusing the login): the folder's own copy is still there to read.
fn store_unreachable(e: &remaind_ledger::Error) -> bool {
    matches!(
        e,
        remaind_ledger::Error::Store {
            source: remaind_pg::Error::Connect { .. },
            ..
        }
    )
}

/// The shared store cannot be reached: from here on this process reads the folder's own copy
/// (the ledger as it was last caught up, the pair and memory it holds) and appends nothing to
/// it, so the replica never holds a line the store lacks. Said on stderr and kept in
/// `logs/hook-errors.jsonl`.
fn local_copy_only(ctx: &ContextDir, hook: &str, e: &remaind_ledger::Error) {
    remaind_ledger::StoreSetting::select(None);
    let why = CliError::runtime(format!(
        "{}; reading this folder's own copy of the project until the store answers again",
        chain_text(e)
    ));
    eprintln!("remaind hook {hook}: {}", why.full_message());
    keep_hook_error(ctx, hook, &why, None);
}

/// An error and its causes, joined by `: `.
fn chain_text(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(inner) = next {
        out.push_str(": ");
        out.push_str(&inner.to_string());
        next = inner.source();
    }
    out
}

fn open_ledger(ctx: &ContextDir) -> Result<Ledger, CliError> {
    Ledger::open(ctx.root()).map_err(CliError::from)
}

/// Prints the packet in the output `runtime` reads for `hook_event` (Cursor's sessionStart:
/// `additional_context`; the others: `hookSpecificOutput.additionalContext`).
fn session_start(
    ctx: &ContextDir,
    call: &Call<'_>,
    hook_event: &str,
) -> Result<ExitCode, CliError> {
    let runtime = call.runtime;
    // A fresh project: nothing to resume, nothing to inject, nothing written.
    if let Some(context) = remaind_resume::session_context(ctx, runtime)? {
        let out = match runtime {
            Runtime::Cursor => json!({ "additional_context": context }),
            _ => {
                let mut out = remaind_adapters::session_start_output(&context);
                out["hookSpecificOutput"]["hookEventName"] = json!(hook_event);
                out
            }
        };
        println!("{out}");
        // What the packet cites is not recalled to this session again.
        let session = session_of(call.payload);
        if let Err(e) = remaind_recall::session_started(ctx.root(), &session, &context) {
            keep_hook_error(ctx, "recall", &recall_error(e), None);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The session a payload belongs to (Cursor names it `conversation_id`); one shared record
/// for a runtime that names none.
fn session_of(payload: &Map<String, Value>) -> String {
    ["session_id", "conversation_id"]
        .iter()
        .find_map(|k| payload.get(*k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
        .unwrap_or("unnamed")
        .to_owned()
}

fn recall_error(e: remaind_recall::Error) -> CliError {
    CliError::runtime(format!("recall was skipped: {}", chain_text(&e)))
}

/// Prints `text` as context the runtime adds for `hook_event` (every runtime that recalls
/// reads `hookSpecificOutput.additionalContext`).
fn print_context(hook_event: &str, text: &str) {
    let mut out = remaind_adapters::session_start_output(text);
    out["hookSpecificOutput"]["hookEventName"] = json!(hook_event);
    println!("{out}");
}

/// Per-prompt recall (Claude Code's and Codex's UserPromptSubmit, Gemini CLI's BeforeAgent):
/// the text of the past events that bear on the prompt, to add as context. Cursor's and
/// OpenCode's prompt hooks take no context. Never the hook's failure: a problem is kept in
/// `hook-errors.jsonl`.
fn recall_prompt(ctx: &ContextDir, ledger: &Ledger, call: &Call<'_>) -> Option<String> {
    if matches!(call.runtime, Runtime::Cursor | Runtime::OpenCode) {
        return None;
    }
    let prompt = call.payload.get("prompt").and_then(Value::as_str)?;
    let session = session_of(call.payload);
    match remaind_recall::for_prompt(ledger, &session, prompt) {
        Ok(recalled) => recalled.map(|r| r.text),
        Err(e) => {
            keep_hook_error(ctx, "recall", &recall_error(e), None);
            None
        }
    }
}

/// The tools that read or edit one file, and where their input names it: Claude Code's (at
/// PreToolUse) and Gemini CLI's (at AfterTool).
const FILE_TOOLS: &[(&str, &[&str])] = &[
    ("Read", &["file_path"]),
    ("Edit", &["file_path"]),
    ("MultiEdit", &["file_path"]),
    ("Write", &["file_path"]),
    ("NotebookEdit", &["notebook_path"]),
    ("read_file", &["absolute_path", "file_path", "path"]),
    ("replace", &["file_path", "absolute_path", "path"]),
    ("write_file", &["file_path", "absolute_path", "path"]),
];

/// File recall: when the agent reads or edits a file the ledger has history for, that
/// history as context; silent otherwise. Never blocks or changes the tool call, and never
/// the hook's failure. `ledger` is opened here when the hook has none.
fn recall_file(
    ctx: &ContextDir,
    ledger: Option<&Ledger>,
    call: &Call<'_>,
    workspace: &camino::Utf8Path,
) {
    let tool = call.payload.get("tool_name").and_then(Value::as_str);
    let Some((_, keys)) = FILE_TOOLS.iter().find(|(name, _)| Some(*name) == tool) else {
        return;
    };
    let input = call.payload.get("tool_input");
    let Some(path) = keys
        .iter()
        .find_map(|k| input.and_then(|i| i.get(*k)).and_then(Value::as_str))
    else {
        return;
    };
    let opened;
    let ledger = match ledger {
        Some(l) => l,
        None => match Ledger::open(ctx.root()) {
            Ok(l) => {
                opened = l;
                &opened
            }
            // The store is away or the ledger does not open: no history this time.
            Err(_) => return,
        },
    };
    let session = session_of(call.payload);
    match remaind_recall::for_file(ledger, &session, path, workspace) {
        Ok(Some(recalled)) => print_context(
            call.origin.unwrap_or(HookEvent::PreToolUse.as_str()),
            &recalled.text,
        ),
        Ok(None) => {}
        Err(e) => keep_hook_error(ctx, "recall", &recall_error(e), None),
    }
}

fn pre_compact_llm(
    ctx: &ContextDir,
    name: &str,
    time_limit: u64,
    plain: bool,
) -> Result<ExitCode, CliError> {
    let attempt = || -> Result<remaind_llm::LlmOutcome, remaind_llm::Error> {
        let preset = remaind_llm::Preset::from_name(name).unwrap_or(remaind_llm::Preset::Claude);
        let config = remaind_llm::Config::load(ctx.root())?;
        let ledger = remaind_compact::open_ledger(ctx.root())?;
        let store = remaind_compact::open_store(ctx.root())?;
        let options = remaind_llm::LlmOptions {
            preset,
            dry_run: false,
            time_limit: Some(std::time::Duration::from_secs(time_limit)),
        };
        remaind_llm::compact_llm(&ledger, &store, &config, &options)
    };
    match attempt() {
        Ok(done) if done.outcome.verdict.accepted => {
            let by = if done.fell_back {
                "the built-in compactor (fallback)"
            } else {
                done.label.as_str()
            };
            say(
                plain,
                &format!(
                    "remaind: compaction accepted through e{} by {by} ({} round(s), {:.1}s, {} \
tokens)",
                    done.outcome.through_seq,
                    done.rounds.len(),
                    done.seconds,
                    done.tokens.input + done.tokens.output
                ),
            );
            Ok(ExitCode::SUCCESS)
        }
        Ok(_) => pre_compact(ctx, plain),
        Err(e) => {
            let message = crate::cmd::compact::llm_failure(e).full_message();
            eprintln!("remaind: {message}; using the built-in compactor");
            pre_compact(ctx, plain)
        }
    }
}

/// A compaction's outcome line: on stdout for a runtime that shows it, else on stderr (the
/// runtime reads stdout as JSON).
fn say(plain: bool, line: &str) {
    if plain {
        println!("{line}");
    } else {
        eprintln!("{line}");
    }
}

fn pre_compact(ctx: &ContextDir, plain: bool) -> Result<ExitCode, CliError> {
    let ledger = open_ledger(ctx)?;
    let store = remaind_compact::open_store(ctx.root())?;
    let outcome = remaind_compact::compact(
        &ledger,
        &store,
        remaind_compact::Source::Builtin,
        remaind_compact::Options::default(),
    )?;
    if outcome.verdict.accepted {
        say(
            plain,
            &format!(
                "remaind: compaction accepted through e{}",
                outcome.through_seq
            ),
        );
        Ok(ExitCode::SUCCESS)
    } else {
        let failed: Vec<&str> = outcome
            .verdict
            .failed_checks()
            .into_iter()
            .map(|c| c.as_str())
            .collect();
        eprintln!(
            "remaind: compaction rejected through e{}: failed {}",
            outcome.through_seq,
            failed.join(", ")
        );
        Ok(ExitCode::from(EXIT_REJECTED))
    }
}
