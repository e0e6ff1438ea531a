//! Hook payloads (Claude Code's settings.json hooks, Codex's hooks.json) to records, their
//! recording in the ledger, and the reverse: the payloads a transcript's session would have
//! sent (to replay a session through the hooks).

use std::fmt;
use std::str::FromStr;

use remaind_ledger::{EventId, Ledger};
use serde_json::{Map, Value, json};

use crate::claude_code::{self, prompt_signal};
use crate::codex;
use crate::error::{Error, Result};
use crate::import::Batch;
use crate::map::Mapper;
use crate::plan::{self, PlanBook};
use crate::signal::{Framing, Record, Runtime, Signal, Source};

/// The hook events that carry context, in both runtimes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookEvent {
    /// A session starts or resumes: Remaind injects the resume packet.
    SessionStart,
    /// The user submitted a prompt.
    UserPromptSubmit,
    /// A tool returned.
    PostToolUse,
    /// A compaction is about to run (`custom_instructions` for `/compact <instructions>`).
    PreCompact,
    /// A compaction ran (`compact_summary`).
    PostCompact,
    /// The assistant finished its turn (`last_assistant_message`).
    Stop,
    /// A subagent finished (`last_assistant_message`).
    SubagentStop,
    /// The session ends (`reason`): its transcript's last lines are read (an interrupted
    /// last turn fires no Stop).
    SessionEnd,
}

impl HookEvent {
    /// Every hook event.
    pub const ALL: [HookEvent; 8] = [
        HookEvent::SessionStart,
        HookEvent::UserPromptSubmit,
        HookEvent::PostToolUse,
        HookEvent::PreCompact,
        HookEvent::PostCompact,
        HookEvent::Stop,
        HookEvent::SubagentStop,
        HookEvent::SessionEnd,
    ];

    /// The runtimes' name, e.g. `PostToolUse`.
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::PostCompact => "PostCompact",
            HookEvent::Stop => "Stop",
            HookEvent::SubagentStop => "SubagentStop",
            HookEvent::SessionEnd => "SessionEnd",
        }
    }

    /// The command-line name, e.g. `post-tool-use`.
    pub fn cli_name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "session-start",
            HookEvent::UserPromptSubmit => "user-prompt-submit",
            HookEvent::PostToolUse => "post-tool-use",
            HookEvent::PreCompact => "pre-compact",
            HookEvent::PostCompact => "post-compact",
            HookEvent::Stop => "stop",
            HookEvent::SubagentStop => "subagent-stop",
            HookEvent::SessionEnd => "session-end",
        }
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for HookEvent {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        HookEvent::ALL
            .into_iter()
            .find(|h| h.as_str() == s || h.cli_name() == s)
            .ok_or_else(|| format!("unknown hook event `{s}`"))
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

/// The records a hook payload gives (none for SessionStart, or for an empty prompt).
/// Errors name the payload field that is missing or of the wrong type.
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
        HookEvent::SessionStart | HookEvent::SessionEnd => None,
        HookEvent::UserPromptSubmit => {
            let Some(prompt) = str_at(payload, "prompt") else {
                return Err(Error::payload(
                    "stdin: `prompt`",
                    "a UserPromptSubmit payload needs a string `prompt`",
                ));
            };
            if prompt.trim().is_empty() {
                None
            } else {
                // `/compact args` is recorded once, by PreCompact's `custom_instructions`.
                prompt_signal(prompt.to_owned())
                    .filter(|s| !matches!(s, Signal::CompactInstructions { .. }))
            }
        }
        HookEvent::PostToolUse => {
            let Some(name) = str_at(payload, "tool_name") else {
                return Err(Error::payload(
                    "stdin: `tool_name`",
                    "a PostToolUse payload needs a string `tool_name`",
                ));
            };
            let input = payload.get("tool_input").cloned().unwrap_or(Value::Null);
            let output = payload.get("tool_response").cloned().unwrap_or(Value::Null);
            let failed = match runtime {
                Runtime::ClaudeCode => claude_code::failed(&output, false),
                Runtime::Codex => codex::failed(&output),
            };
            Some(Signal::ToolUse {
                name: name.to_owned(),
                input,
                output,
                failed,
            })
        }
        HookEvent::PreCompact => {
            let text = text_field(payload, hook, "custom_instructions")?;
            (!text.trim().is_empty()).then_some(Signal::CompactInstructions { text })
        }
        HookEvent::PostCompact => {
            let text = text_field(payload, hook, "compact_summary")?;
            (!text.trim().is_empty()).then_some(Signal::CompactSummary { text })
        }
        HookEvent::Stop => Some(Signal::TurnEnd {
            text: text_field(payload, hook, "last_assistant_message")?,
        }),
        HookEvent::SubagentStop => Some(Signal::SubagentEnd {
            text: text_field(payload, hook, "last_assistant_message")?,
        }),
    };
    Ok(signal
        .into_iter()
        .map(|signal| Record {
            source: source.clone(),
            signal,
        })
        .collect())
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
        .last_of_kinds(&[remaind_ledger::Kind::UserMessage], INSTRUCTION_LOOKBACK)?
        .map(|ev| ev.id))
}

/// The plan as the newest plan-carrying event left it, reading the ledger backwards from the
/// head (a plan update is usually among the last few hundred events).
fn plan_from_ledger(ledger: &Ledger) -> Result<PlanBook> {
    let mut before = ledger.head()?.0 + 1;
    while before > 1 {
        let chunk = ledger.before(before, 512)?;
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

/// Record `records` (from one hook payload) in the ledger as one batch. The plan is read
/// from the ledger only when a record can change it.
pub fn record(ledger: &Ledger, records: Vec<Record>) -> Result<Vec<EventId>> {
    if records.is_empty() {
        return Ok(Vec::new());
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
        Signal::TurnEnd { .. } | Signal::Interrupt | Signal::CompactInstructions { .. } => true,
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
/// gives. Failed tool calls are left out: the runtimes send PostToolUse for successes only.
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
        // PostToolUse fires for tools that succeeded only.
        if matches!(rec.signal, Signal::ToolUse { failed: true, .. }) {
            continue;
        }
        let session = rec.source.session.clone().unwrap_or_default();
        let mut p = json!({
            "session_id": session,
            "transcript_path": match (transcript, runtime) {
                (Some(path), _) => path.to_owned(),
                (None, Runtime::ClaudeCode) => format!("/home/user/.claude/projects/p/{session}.jsonl"),
                (None, Runtime::Codex) => format!("/home/user/.codex/sessions/rollout-{session}.jsonl"),
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
