//! `remaind hook EVENT`: the Claude Code hooks adapter.
//!
//! Reads a Claude Code hook payload (JSON) on stdin and does what the hook recipe in
//! docs/guide.md describes: `session-start` resumes and injects the packet as
//! `hookSpecificOutput.additionalContext`, `user-prompt-submit` logs the prompt as the latest
//! user instruction, `post-tool-use` logs the tool call with its input and response (plus a
//! `file_change` for file-writing tools), `pre-compact` compacts through the validator. The
//! translation is argument handling only: the ledger redacts, routes large output to
//! artifacts and validates; compaction and resume are the library calls the other commands
//! make.

use std::io::Read;
use std::process::ExitCode;

use camino::Utf8PathBuf;
use remaind_ledger::{EventId, Kind, Ledger, NewEvent, Tool};
use remaind_resume::Budget;
use remaind_resume::ContextDir;
use serde_json::{Map, Value, json};

use crate::cli_error::{CliError, EXIT_REJECTED};
use crate::global::Global;

/// Run as a Claude Code hook: read the hook's JSON payload on stdin and act on it.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The folder is --dir, else REMAIND_DIR, else the nearest .context/ from the \
payload's `cwd`. Without one the hook does nothing and exits 0, so a project opts in with \
`remaind init`. Configuration: examples/claude-code/settings.json and docs/guide.md.\n\n\
Examples:\n  \
remaind hook session-start < examples/claude-code/samples/session-start.json\n  \
remaind hook post-tool-use < examples/claude-code/samples/post-tool-use.json\n  \
echo '{\"prompt\": \"Ship it\", \"cwd\": \".\"}' | remaind hook user-prompt-submit"
)]
pub(crate) struct Args {
    /// The hook event.
    #[arg(value_enum)]
    event: HookEvent,
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

/// The Claude Code hook events Remaind handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum HookEvent {
    /// SessionStart: resume and inject the packet as additional context.
    SessionStart,
    /// UserPromptSubmit: log the prompt as a `user_message`.
    UserPromptSubmit,
    /// PostToolUse: log the tool call, its input and its response.
    PostToolUse,
    /// PreCompact: compact with the built-in compactor (exit 3 when rejected).
    PreCompact,
}

/// Tools whose successful use changes a file named by `tool_input.file_path` (or
/// `notebook_path`).
const FILE_TOOLS: [&str; 4] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| CliError::runtime(format!("cannot read the hook payload on stdin: {e}")))?;
    let payload: Value = if input.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Map::new())
    } else {
        remaind_ledger::parse_json_strict(&input)
            .map_err(|e| CliError::invalid(format!("stdin: the hook payload is not JSON: {e}")))?
    };
    let Some(payload) = payload.as_object() else {
        return Err(CliError::invalid(
            "stdin: the hook payload must be a JSON object",
        ));
    };
    let Some(ctx) = find_context(global, payload)? else {
        return Ok(ExitCode::SUCCESS);
    };
    match args.event {
        HookEvent::SessionStart => session_start(&ctx, payload),
        HookEvent::UserPromptSubmit => user_prompt(&ctx, payload),
        HookEvent::PostToolUse => post_tool_use(&ctx, payload),
        HookEvent::PreCompact => match args.llm.as_deref() {
            Some(preset) => pre_compact_llm(&ctx, preset, args.time_limit),
            None => pre_compact(&ctx),
        },
    }
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
    let start = match payload.get("cwd").and_then(Value::as_str) {
        Some(cwd) if !cwd.is_empty() => {
            let cwd = Utf8PathBuf::from(cwd);
            if cwd.is_absolute() {
                cwd
            } else {
                global.cwd()?.join(cwd)
            }
        }
        _ => global.cwd()?,
    };
    match remaind_resume::discover(None, &start) {
        Ok(ctx) => Ok(Some(ctx)),
        Err(remaind_resume::Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

fn open_ledger(ctx: &ContextDir) -> Result<Ledger, CliError> {
    Ledger::open(ctx.root()).map_err(CliError::from)
}

/// The fields of a payload worth keeping on the event.
fn session_data(payload: &Map<String, Value>, hook: &str) -> Map<String, Value> {
    let mut data = Map::new();
    data.insert("hook".into(), hook.into());
    for key in ["session_id", "tool_use_id"] {
        if let Some(v) = payload.get(key).filter(|v| v.is_string()) {
            data.insert(key.into(), v.clone());
        }
    }
    data
}

fn session_start(ctx: &ContextDir, _payload: &Map<String, Value>) -> Result<ExitCode, CliError> {
    let resume = match remaind_resume::resume(ctx, Budget::Configured) {
        Ok(resume) => resume,
        // A changed ledger is a gate interruption for the agent, not a silent failure.
        Err(remaind_resume::Error::Ledger(e @ remaind_ledger::Error::Tampered { .. })) => {
            let context = format!(
                "REMAIND RESUME GATE: INTERRUPT. Do not continue the planned work; tell the user \
these reasons and ask how to proceed:\n- ledger_tampered: {e}\n"
            );
            let out = json!({
                "hookSpecificOutput": {
                    "hookEventName": "SessionStart",
                    "additionalContext": context,
                }
            });
            println!("{out}");
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => return Err(e.into()),
    };
    if resume.head_seq == 0 {
        // A fresh project: nothing to resume, nothing to inject.
        return Ok(ExitCode::SUCCESS);
    }
    let mut context = String::new();
    if !resume.gate.proceed {
        context.push_str(
            "REMAIND RESUME GATE: INTERRUPT. Do not continue the planned work; tell the user \
these reasons and ask how to proceed:\n",
        );
        for reason in &resume.gate.reasons {
            context.push_str(&format!("- {}: {}\n", reason.code.as_str(), reason.message));
        }
        context.push('\n');
    }
    context.push_str(&resume.packet);
    let out = json!({
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": context,
        }
    });
    println!("{out}");
    Ok(ExitCode::SUCCESS)
}

fn user_prompt(ctx: &ContextDir, payload: &Map<String, Value>) -> Result<ExitCode, CliError> {
    let Some(prompt) = payload.get("prompt").and_then(Value::as_str) else {
        return Err(CliError::invalid(
            "stdin: a UserPromptSubmit payload needs a string `prompt`",
        ));
    };
    if prompt.trim().is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let ledger = open_ledger(ctx)?;
    ledger
        .append(NewEvent {
            kind: Some(Kind::UserMessage),
            text: Some(prompt.to_owned()),
            actor: Some("user".to_owned()),
            data: Some(session_data(payload, "UserPromptSubmit")),
            ..NewEvent::default()
        })
        .map_err(CliError::from)?;
    Ok(ExitCode::SUCCESS)
}

/// A short description of a tool call: the command, the file or the pattern it used,
/// redacted before it is cut (a cut secret would no longer match its rule).
fn describe_tool(redact: impl Fn(&str) -> String, name: &str, input: &Value) -> String {
    let field = [
        "command",
        "file_path",
        "notebook_path",
        "pattern",
        "url",
        "path",
        "description",
    ]
    .into_iter()
    .find_map(|k| input.get(k).and_then(Value::as_str));
    let text = match field {
        Some(f) => format!("{name}: {f}"),
        None => name.to_owned(),
    };
    let mut text = redact(&text);
    if text.chars().count() > 200 {
        text = text.chars().take(199).collect::<String>() + "…";
    }
    text
}

fn post_tool_use(ctx: &ContextDir, payload: &Map<String, Value>) -> Result<ExitCode, CliError> {
    let Some(name) = payload.get("tool_name").and_then(Value::as_str) else {
        return Err(CliError::invalid(
            "stdin: a PostToolUse payload needs a string `tool_name`",
        ));
    };
    let input = payload.get("tool_input").cloned().unwrap_or(Value::Null);
    let output = payload.get("tool_response").cloned().unwrap_or(Value::Null);
    let failed = output.get("success").and_then(Value::as_bool) == Some(false)
        || output.get("is_error").and_then(Value::as_bool) == Some(true);
    let ledger = open_ledger(ctx)?;
    let id: EventId = ledger
        .append(NewEvent {
            kind: Some(Kind::ToolResult),
            text: Some(describe_tool(
                |t| ledger.redactor().redact_str(t).0.into_owned(),
                name,
                &input,
            )),
            actor: Some("claude-code".to_owned()),
            data: Some(session_data(payload, "PostToolUse")),
            tool: Some(Tool {
                name: name.to_owned(),
                input: input.clone(),
                output,
            }),
            ..NewEvent::default()
        })
        .map_err(CliError::from)?;
    let path = input
        .get("file_path")
        .or_else(|| input.get("notebook_path"))
        .and_then(Value::as_str);
    if let (true, false, Some(path)) = (FILE_TOOLS.contains(&name), failed, path) {
        let mut data = session_data(payload, "PostToolUse");
        data.insert("path".into(), path.into());
        ledger
            .append(NewEvent {
                kind: Some(Kind::FileChange),
                text: Some(format!("{path}: changed with {name}")),
                actor: Some("claude-code".to_owned()),
                data: Some(data),
                refs: vec![id],
                ..NewEvent::default()
            })
            .map_err(CliError::from)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// PreCompact with an LLM preset; on any error the built-in compactor runs instead, so the
/// runtime never compacts its context away without Remaind's deterministic state.
fn pre_compact_llm(ctx: &ContextDir, name: &str, time_limit: u64) -> Result<ExitCode, CliError> {
    let attempt = || -> Result<remaind_llm::LlmOutcome, remaind_llm::Error> {
        let preset = remaind_llm::Preset::from_name(name).unwrap_or(remaind_llm::Preset::Claude);
        let config = remaind_llm::Config::load(ctx.root())?;
        let ledger = Ledger::open(ctx.root()).map_err(|e| {
            remaind_llm::Error::Compact(remaind_compact::Error::Ledger {
                path: ctx.root().join("logs/events.jsonl"),
                action: "cannot open",
                source: Box::new(e),
            })
        })?;
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
            println!(
                "remaind: compaction accepted through e{} by {by} ({} round(s), {:.1}s, {} tokens)",
                done.outcome.through_seq,
                done.rounds.len(),
                done.seconds,
                done.tokens.input + done.tokens.output
            );
            Ok(ExitCode::SUCCESS)
        }
        Ok(_) => pre_compact(ctx),
        Err(e) => {
            let message = crate::cmd::compact::llm_failure(e).full_message();
            eprintln!("remaind: {message}; using the built-in compactor");
            pre_compact(ctx)
        }
    }
}

fn pre_compact(ctx: &ContextDir) -> Result<ExitCode, CliError> {
    let ledger = open_ledger(ctx)?;
    let store = remaind_compact::open_store(ctx.root())?;
    let outcome = remaind_compact::compact(
        &ledger,
        &store,
        remaind_compact::Source::Builtin,
        remaind_compact::Options::default(),
    )?;
    if outcome.verdict.accepted {
        println!(
            "remaind: compaction accepted through e{}",
            outcome.through_seq
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
