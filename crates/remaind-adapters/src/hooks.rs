//! Hook payloads (Claude Code's settings.json hooks, Codex's hooks.json) to records, their
//! recording in the ledger, and the reverse: the payloads a transcript's session would have
//! sent (to replay a session through the hooks).

use std::fmt;
use std::str::FromStr;

use remaind_events::EventId;

use remaind_ledger::Ledger;
use serde_json::{Map, Value, json};

use crate::claude_code::{self, prompt_signal};
use crate::codex;
use crate::error::{Error, Result};
use crate::import::Batch;
use crate::map::Mapper;
use crate::plan::{self, PlanBook};
use crate::signal::{Framing, Record, Runtime, Signal, Source};

/// The hook events Claude Code and Codex document. Those that carry context are recorded;
/// the others are accepted and change nothing (a hook of ours never fails the runtime).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HookEvent {
    /// A session starts, resumes, is cleared or compacted: Remaind injects the resume packet.
    SessionStart,
    /// The user submitted a prompt.
    UserPromptSubmit,
    /// A tool is about to run (accepted; nothing to record yet).
    PreToolUse,
    /// The runtime asks the user's permission for a tool (`tool_name`, `tool_input`).
    PermissionRequest,
    /// A tool returned.
    PostToolUse,
    /// A tool failed (`error`, `tool_input`; Claude Code 2.x).
    PostToolUseFailure,
    /// The runtime notified the user (`message`, `notification_type`).
    Notification,
    /// A subagent started (`agent_type`, `agent_id`).
    SubagentStart,
    /// A subagent finished (`last_assistant_message`, `agent_transcript_path`).
    SubagentStop,
    /// The assistant finished its turn (`last_assistant_message`).
    Stop,
    /// A turn ended on an API error (`error_type`, `error_message`).
    StopFailure,
    /// A compaction is about to run (`custom_instructions` for `/compact <instructions>`).
    PreCompact,
    /// A compaction ran (`compact_summary`).
    PostCompact,
    /// The session ends (`reason`): its transcript's last lines are read (an interrupted
    /// last turn fires no Stop).
    SessionEnd,
    /// Claude Code's `Setup` (accepted).
    Setup,
    /// Claude Code's `TaskCreated` (accepted; the task tools reach PostToolUse).
    TaskCreated,
    /// Claude Code's `TaskCompleted` (accepted; the task tools reach PostToolUse).
    TaskCompleted,
    /// Claude Code's `TeammateIdle` (accepted).
    TeammateIdle,
    /// Claude Code's `InstructionsLoaded` (accepted).
    InstructionsLoaded,
    /// Claude Code's `ConfigChange` (accepted).
    ConfigChange,
    /// Claude Code's `CwdChanged` (accepted).
    CwdChanged,
    /// Claude Code's `FileChanged` (accepted).
    FileChanged,
    /// Claude Code's `WorktreeCreate` (accepted; Remaind prints no path, so do not wire it).
    WorktreeCreate,
    /// Claude Code's `WorktreeRemove` (accepted).
    WorktreeRemove,
    /// Claude Code's `Elicitation` (accepted).
    Elicitation,
    /// Claude Code's `ElicitationResult` (accepted).
    ElicitationResult,
}

/// Each event with the runtimes' name and the command-line name.
const NAMES: [(HookEvent, &str, &str); 26] = [
    (HookEvent::SessionStart, "SessionStart", "session-start"),
    (
        HookEvent::UserPromptSubmit,
        "UserPromptSubmit",
        "user-prompt-submit",
    ),
    (HookEvent::PreToolUse, "PreToolUse", "pre-tool-use"),
    (
        HookEvent::PermissionRequest,
        "PermissionRequest",
        "permission-request",
    ),
    (HookEvent::PostToolUse, "PostToolUse", "post-tool-use"),
    (
        HookEvent::PostToolUseFailure,
        "PostToolUseFailure",
        "post-tool-use-failure",
    ),
    (HookEvent::Notification, "Notification", "notification"),
    (HookEvent::SubagentStart, "SubagentStart", "subagent-start"),
    (HookEvent::SubagentStop, "SubagentStop", "subagent-stop"),
    (HookEvent::Stop, "Stop", "stop"),
    (HookEvent::StopFailure, "StopFailure", "stop-failure"),
    (HookEvent::PreCompact, "PreCompact", "pre-compact"),
    (HookEvent::PostCompact, "PostCompact", "post-compact"),
    (HookEvent::SessionEnd, "SessionEnd", "session-end"),
    (HookEvent::Setup, "Setup", "setup"),
    (HookEvent::TaskCreated, "TaskCreated", "task-created"),
    (HookEvent::TaskCompleted, "TaskCompleted", "task-completed"),
    (HookEvent::TeammateIdle, "TeammateIdle", "teammate-idle"),
    (
        HookEvent::InstructionsLoaded,
        "InstructionsLoaded",
        "instructions-loaded",
    ),
    (HookEvent::ConfigChange, "ConfigChange", "config-change"),
    (HookEvent::CwdChanged, "CwdChanged", "cwd-changed"),
    (HookEvent::FileChanged, "FileChanged", "file-changed"),
    (
        HookEvent::WorktreeCreate,
        "WorktreeCreate",
        "worktree-create",
    ),
    (
        HookEvent::WorktreeRemove,
        "WorktreeRemove",
        "worktree-remove",
    ),
    (HookEvent::Elicitation, "Elicitation", "elicitation"),
    (
        HookEvent::ElicitationResult,
        "ElicitationResult",
        "elicitation-result",
    ),
];

impl HookEvent {
    /// Every hook event.
    pub fn all() -> impl Iterator<Item = HookEvent> {
        NAMES.iter().map(|(h, _, _)| *h)
    }

    fn names(self) -> (&'static str, &'static str) {
        NAMES
            .iter()
            .find(|(h, _, _)| *h == self)
            .map_or(("", ""), |(_, name, cli)| (*name, *cli))
    }

    /// The runtimes' name, e.g. `PostToolUse`.
    pub fn as_str(self) -> &'static str {
        self.names().0
    }

    /// The command-line name, e.g. `post-tool-use`.
    pub fn cli_name(self) -> &'static str {
        self.names().1
    }

    /// Whether a hook of this event may record something (the others are accepted and
    /// change nothing).
    pub fn records(self) -> bool {
        !matches!(
            self,
            HookEvent::PreToolUse
                | HookEvent::Setup
                | HookEvent::TaskCreated
                | HookEvent::TaskCompleted
                | HookEvent::TeammateIdle
                | HookEvent::InstructionsLoaded
                | HookEvent::ConfigChange
                | HookEvent::CwdChanged
                | HookEvent::FileChanged
                | HookEvent::WorktreeCreate
                | HookEvent::WorktreeRemove
                | HookEvent::Elicitation
                | HookEvent::ElicitationResult
        )
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for HookEvent {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        NAMES
            .iter()
            .find(|(_, name, cli)| *name == s || *cli == s)
            .map(|(h, _, _)| *h)
            .ok_or_else(|| crate::Error::UnknownName {
                what: "hook event",
                given: s.to_owned(),
                expected: "a hook event of Claude Code or Codex (SessionStart, Stop, ...)",
            })
    }
}

fn str_at<'a>(v: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The runtime that sent `payload`: Codex's payloads carry `turn_id` (or a transcript under
/// `.codex/`); anything else is Claude Code's.
pub fn detect_runtime(payload: &Map<String, Value>) -> Runtime {
    let codex_transcript = str_at(payload, "transcript_path").is_some_and(|p| {
        p.contains("/.codex/") || p.contains("\\.codex\\") || p.contains("/rollout-")
    });
    if payload.contains_key("turn_id") || codex_transcript {
        Runtime::Codex
    } else {
        Runtime::ClaudeCode
    }
}

fn text_field(payload: &Map<String, Value>, hook: HookEvent, key: &str) -> Result<String> {
    match payload.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        None | Some(Value::Null) => Ok(String::new()),
        Some(_) => Err(Error::payload(
            format!("stdin: `{key}`"),
            format!("a {hook} payload's `{key}` must be a string"),
        )),
    }
}

/// The records a hook payload gives (none for SessionStart, for an empty prompt, or for an
/// event that carries nothing to record). Errors name the payload field that is missing or
/// of the wrong type. A Stop or SubagentStop payload without `last_assistant_message`
/// (older runtimes) takes the assistant's last text from the transcript it names.
pub fn hook_records(
    runtime: Runtime,
    hook: HookEvent,
    payload: &Map<String, Value>,
) -> Result<Vec<Record>> {
    let source = Source {
        runtime,
        hook: Some(hook.as_str().to_owned()),
        session: str_at(payload, "session_id").map(str::to_owned),
        line: None,
        ts: None,
    };
    let signal = match hook {
        HookEvent::UserPromptSubmit => prompt(payload)?,
        HookEvent::PostToolUse => Some(tool_use(runtime, payload)?),
        HookEvent::PostToolUseFailure => Some(tool_failure(payload)?),
        HookEvent::PermissionRequest => permission_request(payload),
        HookEvent::Notification => notification(payload, hook)?,
        HookEvent::SubagentStart => subagent_start(payload),
        HookEvent::StopFailure => stop_failure(payload),
        HookEvent::PreCompact => {
            let text = text_field(payload, hook, "custom_instructions")?;
            (!text.trim().is_empty()).then_some(Signal::CompactInstructions { text })
        }
        HookEvent::PostCompact => {
            let text = text_field(payload, hook, "compact_summary")?;
            (!text.trim().is_empty()).then_some(Signal::CompactSummary { text })
        }
        HookEvent::Stop => Some(Signal::TurnEnd {
            text: last_message(runtime, payload, hook, "transcript_path")?,
        }),
        HookEvent::SubagentStop => Some(Signal::SubagentEnd {
            text: last_message(runtime, payload, hook, "agent_transcript_path")?,
        }),
        _ => None,
    };
    Ok(signal
        .into_iter()
        .map(|signal| Record {
            source: source.clone(),
            signal,
        })
        .collect())
}

fn prompt(payload: &Map<String, Value>) -> Result<Option<Signal>> {
    let Some(prompt) = str_at(payload, "prompt") else {
        return Err(Error::payload(
            "stdin: `prompt`",
            "a UserPromptSubmit payload needs a string `prompt`",
        ));
    };
    if prompt.trim().is_empty() {
        return Ok(None);
    }
    // `/compact args` is recorded once, by PreCompact's `custom_instructions`.
    Ok(prompt_signal(prompt.to_owned())
        .filter(|s| !matches!(s, Signal::CompactInstructions { .. })))
}

fn tool_name(payload: &Map<String, Value>, hook: HookEvent) -> Result<&str> {
    str_at(payload, "tool_name").ok_or_else(|| {
        Error::payload(
            "stdin: `tool_name`",
            format!("a {hook} payload needs a string `tool_name`"),
        )
    })
}

fn tool_use(runtime: Runtime, payload: &Map<String, Value>) -> Result<Signal> {
    let name = tool_name(payload, HookEvent::PostToolUse)?;
    let input = payload.get("tool_input").cloned().unwrap_or(Value::Null);
    let output = payload.get("tool_response").cloned().unwrap_or(Value::Null);
    let failed = match runtime {
        Runtime::ClaudeCode => claude_code::failed(&output, false),
        Runtime::Codex => codex::failed(&output),
        // Their failures arrive as PostToolUseFailure (crate::runtimes maps them).
        Runtime::Cursor | Runtime::Gemini | Runtime::OpenCode => {
            claude_code::failed(&output, false)
        }
    };
    Ok(Signal::ToolUse {
        name: name.to_owned(),
        input,
        output,
        failed,
    })
}

/// PostToolUseFailure: the tool's input and its `error` as the output of a failed call.
fn tool_failure(payload: &Map<String, Value>) -> Result<Signal> {
    let hook = HookEvent::PostToolUseFailure;
    let name = tool_name(payload, hook)?;
    let input = payload.get("tool_input").cloned().unwrap_or(Value::Null);
    let mut error = text_field(payload, hook, "error")?;
    if error.trim().is_empty() {
        error = "(the tool failed without an error message)".to_owned();
    }
    if payload.get("is_interrupt").and_then(Value::as_bool) == Some(true) {
        error = format!("(interrupted by the user) {error}");
    }
    Ok(Signal::ToolUse {
        name: name.to_owned(),
        input,
        output: Value::String(error),
        failed: true,
    })
}

fn trace(via: &str, text: String) -> Option<Signal> {
    (!text.trim().is_empty()).then(|| Signal::RuntimeTrace {
        via: via.to_owned(),
        text,
    })
}

/// The runtime asked the user for a tool's permission: what it asked (the user's answer
/// shows as the tool's PostToolUse, or its absence).
fn permission_request(payload: &Map<String, Value>) -> Option<Signal> {
    let name = str_at(payload, "tool_name")?;
    let input = payload.get("tool_input").cloned().unwrap_or(Value::Null);
    let asked = crate::describe::describe_tool(name, &input, false);
    trace("permission_request", format!("Permission asked: {asked}"))
}

fn notification(payload: &Map<String, Value>, hook: HookEvent) -> Result<Option<Signal>> {
    let message = text_field(payload, hook, "message")?;
    let text = match str_at(payload, "notification_type").filter(|t| !t.is_empty()) {
        Some(kind) if !message.trim().is_empty() => format!("{kind}: {message}"),
        _ => message,
    };
    Ok(trace("runtime_notification", text))
}

fn subagent_start(payload: &Map<String, Value>) -> Option<Signal> {
    let kind = str_at(payload, "agent_type").unwrap_or("subagent");
    let text = match str_at(payload, "agent_id").filter(|i| !i.is_empty()) {
        Some(id) => format!("Subagent started: {kind} ({id})"),
        None => format!("Subagent started: {kind}"),
    };
    trace("subagent_start", text)
}

fn stop_failure(payload: &Map<String, Value>) -> Option<Signal> {
    let kind = str_at(payload, "error_type").unwrap_or("unknown");
    let message = str_at(payload, "error_message")
        .or_else(|| str_at(payload, "error"))
        .unwrap_or("");
    trace(
        "stop_failure",
        format!("The turn failed on an API error ({kind}): {message}")
            .trim_end_matches([' ', ':'])
            .to_owned(),
    )
}

/// `last_assistant_message`, else the assistant's last text in the transcript the payload
/// names under `transcript_key` (an absolute path to a file) when the payload has no such
/// field, else empty.
fn last_message(
    runtime: Runtime,
    payload: &Map<String, Value>,
    hook: HookEvent,
    transcript_key: &str,
) -> Result<String> {
    let text = text_field(payload, hook, "last_assistant_message")?;
    // An empty message is the runtime's word; only a payload without one reads the transcript.
    if !matches!(
        payload.get("last_assistant_message"),
        None | Some(Value::Null)
    ) {
        return Ok(text);
    }
    let transcript = str_at(payload, transcript_key)
        .map(camino::Utf8Path::new)
        .filter(|p| p.is_absolute() && p.is_file());
    Ok(transcript
        .and_then(|p| crate::transcript::last_assistant_text(runtime, p))
        .unwrap_or(text))
}

/// The framing a hook payload states: the workspace (`cwd`), the model and the permission
/// mode when the runtime sends them.
pub fn hook_framing(payload: &Map<String, Value>) -> Framing {
    let mut f = Framing {
        workspace: str_at(payload, "cwd")
            .filter(|c| !c.is_empty())
            .map(str::to_owned),
        model: str_at(payload, "model")
            .filter(|m| !m.is_empty())
            .map(str::to_owned),
        ..Framing::default()
    };
    if let Some(mode) = str_at(payload, "permission_mode").filter(|m| !m.is_empty()) {
        f.settings.insert("permission_mode".into(), mode.to_owned());
    }
    f
}

/// How far back a hook looks for the latest user instruction a turn's end cites.
const INSTRUCTION_LOOKBACK: u64 = 8192;

/// The latest `user_message`, reading the ledger backwards from the head (within
/// [`INSTRUCTION_LOOKBACK`] events).
fn instruction_from_ledger(ledger: &Ledger) -> Result<Option<EventId>> {
    Ok(ledger
        .last_matching(
            &[remaind_events::Kind::UserMessage],
            INSTRUCTION_LOOKBACK,
            |_| true,
        )?
        .map(|ev| ev.id))
}

/// The plan as the newest plan-carrying event left it, reading the ledger backwards from the
/// head (a plan update is usually among the last few hundred events).
fn plan_from_ledger(ledger: &Ledger) -> Result<PlanBook> {
    let mut before = ledger.head()?.0 + 1;
    while before > 1 {
        let chunk = ledger.before(before, 512, &remaind_events::Filter::default())?;
        let Some(first) = chunk.first() else { break };
        before = first.seq;
        for ev in chunk.iter().rev() {
            if let Some(book) = ev.data.as_ref().and_then(PlanBook::from_data) {
                return Ok(book);
            }
        }
    }
    Ok(PlanBook::default())
}

/// How many of the newest events are searched for a queued prompt a UserPromptSubmit
/// delivers.
const QUEUE_LOOKBACK: usize = 512;

/// Whether `rec` is a UserPromptSubmit delivering a prompt the user queued while the agent
/// worked, which the transcript follower recorded when it was queued: the newest user
/// message of the session with the same text is that queued one.
fn delivered_from_queue(ledger: &Ledger, rec: &Record) -> Result<bool> {
    let Signal::Prompt { text } = &rec.signal else {
        return Ok(false);
    };
    if rec.source.hook.as_deref() != Some(HookEvent::UserPromptSubmit.as_str()) {
        return Ok(false);
    }
    let text = ledger.redactor().redact_str(text).0;
    let head = ledger.head()?.0;
    let events = ledger.before(head + 1, QUEUE_LOOKBACK, &remaind_events::Filter::default())?;
    let same = events.iter().rev().find(|ev| {
        let origin = ev.data.as_ref().and_then(|d| d.get("origin"));
        ev.kind == remaind_events::Kind::UserMessage
            && ev.text.as_deref() == Some(text.as_ref())
            && origin
                .and_then(|o| o.get("session"))
                .and_then(Value::as_str)
                == rec.source.session.as_deref()
    });
    Ok(same
        .and_then(|ev| ev.data.as_ref()?.get("via")?.as_str())
        .is_some_and(|via| via == "queued"))
}

/// Record `records` (from one hook payload) in the ledger as one batch. The plan is read
/// from the ledger only when a record can change it.
pub fn record(ledger: &Ledger, mut records: Vec<Record>) -> Result<Vec<EventId>> {
    if records.is_empty() {
        return Ok(Vec::new());
    }
    if let Some(rec) = records.first()
        && delivered_from_queue(ledger, rec)?
    {
        records.remove(0);
        if records.is_empty() {
            return Ok(Vec::new());
        }
    }
    let touches_plan = records.iter().any(|r| match &r.signal {
        Signal::CompactSummary { .. } => true,
        Signal::ToolUse {
            name,
            input,
            output,
            ..
        } => plan::update_of(name, input, output).is_some(),
        _ => false,
    });
    let book = if touches_plan {
        plan_from_ledger(ledger)?
    } else {
        PlanBook::default()
    };
    // What a turn's end, an answer, an approved plan or a compaction focus cites.
    let cites_turn = records.iter().any(|r| match &r.signal {
        Signal::TurnEnd { .. }
        | Signal::Interrupt
        | Signal::InterruptWentOn
        | Signal::SubagentEnd { .. }
        | Signal::CompactInstructions { .. } => true,
        Signal::ToolUse { name, .. } => name == "AskUserQuestion" || name == "ExitPlanMode",
        _ => false,
    });
    let instruction = if cites_turn {
        instruction_from_ledger(ledger)?
    } else {
        None
    };
    let head = ledger.head()?.0;
    let mapper = Mapper::new(head, book).after_instruction(instruction);
    let mut batch = Batch::new(mapper, ledger.redactor());
    for rec in records {
        batch.map(rec);
    }
    let n = batch.flush(ledger)?;
    let end = batch.mapper.head();
    Ok(((end - n + 1)..=end).map(EventId).collect())
}

/// The hook payloads a live session would have sent for `records` (read from its
/// transcript), in order: replaying them through `remaind hook` gives the state an import
/// gives. A failed tool call is Claude Code's PostToolUseFailure (its `error` the failure's
/// text); Codex sends no hook for one, so it is left out.
///
/// `transcript` is the path the payloads name as `transcript_path` (a made-up one when
/// `None`): a replay that writes the transcript as it goes lets the hooks follow it.
pub fn replay_payloads(
    runtime: Runtime,
    records: &[Record],
    cwd: &str,
    transcript: Option<&str>,
) -> Vec<(HookEvent, Value)> {
    let mut out = Vec::new();
    for rec in records {
        if runtime == Runtime::Codex && matches!(rec.signal, Signal::ToolUse { failed: true, .. }) {
            continue;
        }
        let session = rec.source.session.clone().unwrap_or_default();
        let mut p = json!({
            "session_id": session,
            "transcript_path": match (transcript, runtime) {
                (Some(path), _) => path.to_owned(),
                (None, Runtime::ClaudeCode) => format!("/home/user/.claude/projects/p/{session}.jsonl"),
                (None, Runtime::Codex) => format!("/home/user/.codex/sessions/rollout-{session}.jsonl"),
                (None, other) => format!("/home/user/.{other}/{session}.json"),
            },
            "cwd": cwd,
        });
        if runtime == Runtime::Codex {
            p["turn_id"] = json!(rec.source.line.clone().unwrap_or_default());
            p["model"] = json!("gpt-5-codex");
        }
        let hook = match &rec.signal {
            // What no hook payload carries: only a transcript tells these.
            Signal::AssistantText { .. }
            | Signal::Interrupt
            | Signal::InterruptWentOn
            | Signal::QueuedPrompt { .. }
            | Signal::RuntimeTrace { .. }
            | Signal::Notification { .. }
            | Signal::LocalCommand { .. }
            | Signal::Remember { .. }
            | Signal::Framing(_) => continue,
            Signal::Prompt { text } => {
                p["prompt"] = json!(text);
                HookEvent::UserPromptSubmit
            }
            Signal::CompactInstructions { text } => {
                p["trigger"] = json!("manual");
                p["custom_instructions"] = json!(text);
                HookEvent::PreCompact
            }
            Signal::CompactSummary { text } => {
                p["trigger"] = json!("auto");
                p["compact_summary"] = json!(text);
                HookEvent::PostCompact
            }
            Signal::TurnEnd { text } => {
                p["last_assistant_message"] = json!(text);
                HookEvent::Stop
            }
            Signal::SubagentEnd { text } => {
                p["last_assistant_message"] = json!(text);
                HookEvent::SubagentStop
            }
            Signal::ToolUse {
                name,
                input,
                failed: true,
                output,
            } => {
                p["tool_name"] = json!(name);
                p["tool_input"] = input.clone();
                p["error"] = json!(crate::map::failure_text(output));
                HookEvent::PostToolUseFailure
            }
            Signal::ToolUse {
                name,
                input,
                output,
                ..
            } => {
                p["tool_name"] = json!(name);
                p["tool_input"] = input.clone();
                p["tool_response"] = output.clone();
                HookEvent::PostToolUse
            }
        };
        p["hook_event_name"] = json!(hook.as_str());
        out.push((hook, p));
    }
    out
}

/// The most a runtime's SessionStart hook may inject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct InjectionLimit {
    /// Characters (bytes of UTF-8 text).
    pub max_chars: usize,
    /// Tokens, as the runtime counts them.
    pub max_tokens: u64,
}

impl Runtime {
    /// What this runtime's SessionStart hook may inject: Claude Code truncates injected context
    /// near 10,000 characters; Codex spills hook output over about 2,500 tokens to a file (at
    /// two to three characters a token in a packet full of paths and ids).
    pub fn injection_limit(self) -> InjectionLimit {
        match self {
            Runtime::ClaudeCode => InjectionLimit {
                max_chars: 9_500,
                max_tokens: u64::MAX,
            },
            Runtime::Codex => InjectionLimit {
                max_chars: 6_000,
                max_tokens: 2_300,
            },
            // No documented limit: Claude Code's, so a packet reads the same everywhere.
            Runtime::Cursor | Runtime::Gemini | Runtime::OpenCode => InjectionLimit {
                max_chars: 9_500,
                max_tokens: u64::MAX,
            },
        }
    }
}

/// The JSON a SessionStart hook prints to add `context` to the session, in the output format
/// both runtimes read (`hookSpecificOutput.additionalContext`).
pub fn session_start_output(context: &str) -> Value {
    serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": context,
        }
    })
}
