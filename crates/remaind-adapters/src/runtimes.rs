//! The hooks of Cursor, Gemini CLI and OpenCode, translated into the Claude Code hook events
//! and payload fields the one recording path ([`crate::hook_records`]) reads, so every
//! runtime's prompt, tool results and failures, turn ends and compactions become the same
//! ledger events.
//!
//! Where each field comes from (payload fixtures: `fixtures/hooks/<runtime>/README.md`):
//!
//! - Cursor, <https://cursor.com/docs/agent/hooks>: every payload carries `conversation_id`,
//!   `generation_id`, `model`, `hook_event_name`, `cursor_version`, `workspace_roots`,
//!   `user_email` and `transcript_path`; `sessionStart` adds `session_id`; `beforeSubmitPrompt`
//!   `prompt`; `postToolUse` `tool_name`, `tool_input`, `tool_output` (a JSON string), `cwd`;
//!   `postToolUseFailure` `tool_name`, `tool_input`, `error_message`, `failure_type`,
//!   `is_interrupt`; `afterShellExecution` `command`, `output`, `duration`; `afterFileEdit`
//!   `file_path`, `edits`; `afterMCPExecution` `tool_name`, `tool_input`, `result_json`;
//!   `afterAgentResponse` `text`; `stop` `status` (`completed`, `aborted`, `error`) and
//!   `loop_count`; `preCompact` `trigger`; `subagentStop` `subagent_type`, `status`, `summary`;
//!   `sessionEnd` `reason`. `sessionStart` output `additional_context` is added to the session.
//! - Gemini CLI, <https://geminicli.com/docs/hooks/reference>: every payload carries
//!   `session_id`, `transcript_path`, `cwd`, `hook_event_name`, `timestamp`; `BeforeAgent`
//!   adds `prompt`; `AfterAgent` `prompt`, `prompt_response`; `AfterTool` `tool_name`,
//!   `tool_input`, `tool_response` (`llmContent`, `returnDisplay`, optional `error`);
//!   `PreCompress` `trigger`; `SessionStart` `source`; `SessionEnd` `reason`; `Notification`
//!   `notification_type`, `message`, `details`. `SessionStart` and `BeforeAgent` output
//!   `hookSpecificOutput.additionalContext`. `PreCompress` is advisory and no hook follows the
//!   compression, so the packet goes back in through the next `BeforeAgent`.
//! - OpenCode, <https://opencode.ai/docs/plugins/>: the plugin `remaind install opencode`
//!   writes (`examples/opencode/remaind.js`) builds the payloads from its hooks' arguments:
//!   `chat.message` (`input.sessionID`, `input.model`, `output.parts`' text), `tool.execute.after`
//!   (`input.tool`, `input.callID`, the arguments `tool.execute.before` saw, `output.title`,
//!   `output.output`, `output.metadata`), the `event` hook's `session.idle`,
//!   `session.compacted` and `session.error` (`event.properties`), and
//!   `experimental.session.compacting` and `experimental.chat.system.transform`, whose output
//!   (`output.context`, `output.system`) takes the packet.

use serde_json::{Map, Value, json};

use crate::hooks::HookEvent;
use crate::signal::Runtime;

/// Where a hook's output puts the resume packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Inject {
    /// Nowhere: the hook records only.
    Nothing,
    /// A session starts: the packet, in the runtime's output format.
    SessionStart,
    /// A prompt (Gemini's BeforeAgent): the packet only when a compaction ran since the
    /// last one was injected (Gemini has no hook after its compression).
    AfterCompaction,
    /// The runtime compacts (OpenCode's `experimental.session.compacting`): compact, then
    /// hand the packet to the runtime's own compaction.
    IntoCompaction,
}

/// A hook of Cursor, Gemini CLI or OpenCode as the recording path reads it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Translated {
    /// The event whose recording runs (`None`: documented, accepted, nothing to record).
    pub hook: Option<HookEvent>,
    /// The runtime's own name of the event, kept as `data.origin.hook`.
    pub event: &'static str,
    /// The payload with the fields the recording path reads (`prompt`, `tool_name`,
    /// `tool_input`, `tool_response`, `error`, `last_assistant_message`, `cwd`, `model`,
    /// `session_id`, ...).
    pub payload: Map<String, Value>,
    /// Where the packet goes.
    pub inject: Inject,
    /// `runtime` framing: the runtime's name and version when the payload states it.
    pub runtime_label: String,
    /// The user stopped the turn (Cursor's `stop` with status `aborted`, OpenCode's
    /// `MessageAbortedError`): recorded as an interrupt ending the turn, as Claude Code's
    /// transcript says it, rather than as `hook`'s payload.
    pub interrupted: bool,
}

/// The hook events each runtime documents (Cursor's agent and Tab hooks, Gemini CLI's
/// events, OpenCode's plugin hooks and bus events), in the runtime's spelling.
pub fn documented_events(runtime: Runtime) -> &'static [&'static str] {
    match runtime {
        Runtime::Cursor => &[
            "sessionStart",
            "sessionEnd",
            "beforeSubmitPrompt",
            "preToolUse",
            "postToolUse",
            "postToolUseFailure",
            "subagentStart",
            "subagentStop",
            "beforeShellExecution",
            "afterShellExecution",
            "beforeMCPExecution",
            "afterMCPExecution",
            "beforeReadFile",
            "afterFileEdit",
            "afterAgentResponse",
            "afterAgentThought",
            "preCompact",
            "stop",
            "beforeTabFileRead",
            "afterTabFileEdit",
        ],
        Runtime::Gemini => &[
            "SessionStart",
            "SessionEnd",
            "BeforeAgent",
            "AfterAgent",
            "BeforeModel",
            "AfterModel",
            "BeforeToolSelection",
            "BeforeTool",
            "AfterTool",
            "PreCompress",
            "Notification",
        ],
        Runtime::OpenCode => &[
            "chat.message",
            "chat.params",
            "chat.headers",
            "permission.ask",
            "command.execute.before",
            "tool.execute.before",
            "tool.execute.after",
            "shell.env",
            "tool.definition",
            "experimental.chat.system.transform",
            "experimental.chat.messages.transform",
            "experimental.session.compacting",
            "experimental.text.complete",
            "command.executed",
            "file.edited",
            "file.watcher.updated",
            "installation.updated",
            "lsp.client.diagnostics",
            "lsp.updated",
            "message.part.removed",
            "message.part.updated",
            "message.removed",
            "message.updated",
            "permission.asked",
            "permission.replied",
            "permission.updated",
            "server.connected",
            "session.created",
            "session.compacted",
            "session.deleted",
            "session.diff",
            "session.error",
            "session.idle",
            "session.status",
            "session.updated",
            "todo.updated",
            "tui.prompt.append",
            "tui.command.execute",
            "tui.toast.show",
        ],
        Runtime::ClaudeCode | Runtime::Codex => &[],
    }
}

/// `SessionStart`, `session-start`, `session_start` and `sessionstart` are one name.
fn fold(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The runtime's own spelling of `name` (any case, `-`, `_` or `.` between words), when the
/// runtime documents it.
pub(crate) fn runtime_event(runtime: Runtime, name: &str) -> Option<&'static str> {
    let folded = fold(name);
    documented_events(runtime)
        .iter()
        .find(|e| fold(e) == folded)
        .copied()
}

fn str_at<'a>(p: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    p.get(key).and_then(Value::as_str)
}

/// A field as text: a string as is, anything else (an object, a number) as JSON.
fn text_of(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// A value the runtime sends as a JSON string (Cursor's `tool_input`, `tool_output`,
/// `result_json`), parsed when it is JSON.
fn maybe_json(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => {
            serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(other) => other.clone(),
        None => Value::Null,
    }
}

/// What every payload of `runtime` says about the session: its id, the folder, the model.
fn common(runtime: Runtime, p: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    let session = match runtime {
        Runtime::Cursor => str_at(p, "session_id").or_else(|| str_at(p, "conversation_id")),
        _ => str_at(p, "session_id").or_else(|| str_at(p, "sessionID")),
    };
    if let Some(s) = session {
        out.insert("session_id".into(), s.into());
    }
    let cwd = str_at(p, "cwd").filter(|c| !c.is_empty()).or_else(|| {
        p.get("workspace_roots")
            .and_then(Value::as_array)
            .and_then(|roots| roots.first())
            .and_then(Value::as_str)
    });
    if let Some(cwd) = cwd {
        out.insert("cwd".into(), cwd.into());
    }
    let model = match p.get("model") {
        Some(Value::String(m)) => Some(m.clone()),
        // OpenCode's `{providerID, modelID}`.
        Some(Value::Object(m)) => match (str_at(m, "providerID"), str_at(m, "modelID")) {
            (Some(p), Some(id)) => Some(format!("{p}/{id}")),
            (None, Some(id)) => Some(id.to_owned()),
            _ => None,
        },
        _ => None,
    };
    if let Some(m) = model.filter(|m| !m.is_empty()) {
        out.insert("model".into(), m.into());
    }
    out
}

fn runtime_label(runtime: Runtime, p: &Map<String, Value>) -> String {
    let version = match runtime {
        Runtime::Cursor => str_at(p, "cursor_version"),
        _ => str_at(p, "runtime_version").or_else(|| str_at(p, "version")),
    };
    match version.filter(|v| !v.is_empty()) {
        Some(v) => format!("{runtime} {v}"),
        None => runtime.as_str().to_owned(),
    }
}

/// Translate the hook `name` of `runtime` (Cursor, Gemini CLI or OpenCode) with its payload.
/// `None` when the runtime documents no such event (the caller says so in
/// `hook-errors.jsonl` and exits 0).
pub fn translate(runtime: Runtime, name: &str, p: &Map<String, Value>) -> Option<Translated> {
    let event = runtime_event(runtime, name)?;
    let mut out = common(runtime, p);
    let mut inject = Inject::Nothing;
    let interrupted = match (runtime, event) {
        (Runtime::Cursor, "stop") => str_at(p, "status") == Some("aborted"),
        (Runtime::OpenCode, "session.error") => {
            p.get("error")
                .and_then(|e| e.get("name"))
                .and_then(Value::as_str)
                == Some("MessageAbortedError")
        }
        _ => false,
    };
    let hook = match runtime {
        Runtime::Cursor => cursor(event, p, &mut out, &mut inject),
        Runtime::Gemini => gemini(event, p, &mut out, &mut inject),
        Runtime::OpenCode => opencode(event, p, &mut out, &mut inject),
        Runtime::ClaudeCode | Runtime::Codex => None,
    };
    Some(Translated {
        hook,
        event,
        payload: out,
        inject,
        runtime_label: runtime_label(runtime, p),
        interrupted,
    })
}

fn put(out: &mut Map<String, Value>, key: &str, v: impl Into<Value>) {
    out.insert(key.to_owned(), v.into());
}

/// A failed tool's text: its error, then what it printed.
/// A Gemini or OpenCode tool call as Claude Code names it (`tool_name`, `tool_input`, both
/// payloads giving them under those keys); returns its `tool_response` for the caller to read.
fn put_tool_call(out: &mut Map<String, Value>, p: &Map<String, Value>) -> Value {
    put(out, "tool_name", str_at(p, "tool_name").unwrap_or("tool"));
    put(
        out,
        "tool_input",
        p.get("tool_input").cloned().unwrap_or(Value::Null),
    );
    p.get("tool_response").cloned().unwrap_or(Value::Null)
}

fn failure(error: &str, output: &str) -> String {
    match (error.trim().is_empty(), output.trim().is_empty()) {
        (_, true) => error.to_owned(),
        (true, false) => output.to_owned(),
        (false, false) => format!("{error}\n{output}"),
    }
}

fn cursor(
    event: &str,
    p: &Map<String, Value>,
    out: &mut Map<String, Value>,
    inject: &mut Inject,
) -> Option<HookEvent> {
    Some(match event {
        "sessionStart" => {
            *inject = Inject::SessionStart;
            HookEvent::SessionStart
        }
        "beforeSubmitPrompt" => {
            put(out, "prompt", text_of(p.get("prompt")));
            HookEvent::UserPromptSubmit
        }
        "postToolUse" | "afterMCPExecution" => {
            put(out, "tool_name", str_at(p, "tool_name").unwrap_or("tool"));
            put(out, "tool_input", maybe_json(p.get("tool_input")));
            let response = p.get("tool_output").or_else(|| p.get("result_json"));
            put(out, "tool_response", maybe_json(response));
            HookEvent::PostToolUse
        }
        "postToolUseFailure" => {
            put(out, "tool_name", str_at(p, "tool_name").unwrap_or("tool"));
            put(out, "tool_input", maybe_json(p.get("tool_input")));
            let kind = str_at(p, "failure_type").unwrap_or("error");
            let message = text_of(p.get("error_message").or_else(|| p.get("error")));
            let output = text_of(p.get("tool_output").or_else(|| p.get("output")));
            put(
                out,
                "error",
                failure(&format!("{kind}: {message}"), &output),
            );
            if let Some(i) = p.get("is_interrupt").and_then(Value::as_bool) {
                put(out, "is_interrupt", i);
            }
            HookEvent::PostToolUseFailure
        }
        "afterShellExecution" => {
            put(out, "tool_name", "Shell");
            put(
                out,
                "tool_input",
                json!({ "command": text_of(p.get("command")) }),
            );
            put(
                out,
                "tool_response",
                json!({ "output": text_of(p.get("output")) }),
            );
            HookEvent::PostToolUse
        }
        "afterFileEdit" => {
            put(out, "tool_name", "Edit");
            put(
                out,
                "tool_input",
                json!({
                    "file_path": text_of(p.get("file_path")),
                    "edits": p.get("edits").cloned().unwrap_or(Value::Null),
                }),
            );
            put(out, "tool_response", json!({}));
            HookEvent::PostToolUse
        }
        "afterAgentResponse" => {
            put(out, "last_assistant_message", text_of(p.get("text")));
            HookEvent::Stop
        }
        "stop" => {
            // A completed turn's text came with afterAgentResponse; an aborted or failed
            // one is its outcome.
            let status = str_at(p, "status").unwrap_or("completed");
            if status == "completed" {
                return None;
            }
            let loops = p.get("loop_count").and_then(Value::as_u64).unwrap_or(0);
            put(out, "error_type", status);
            put(
                out,
                "error_message",
                format!("Cursor's agent loop ended `{status}` after {loops} loop(s)"),
            );
            HookEvent::StopFailure
        }
        "preCompact" => {
            put(out, "trigger", text_of(p.get("trigger")));
            HookEvent::PreCompact
        }
        "subagentStart" => {
            put(
                out,
                "agent_type",
                str_at(p, "subagent_type").unwrap_or("subagent"),
            );
            if let Some(id) = str_at(p, "subagent_id") {
                put(out, "agent_id", id);
            }
            HookEvent::SubagentStart
        }
        "subagentStop" => {
            let kind = str_at(p, "subagent_type").unwrap_or("subagent");
            let status = str_at(p, "status").unwrap_or("completed");
            let summary = text_of(p.get("summary").or_else(|| p.get("result")));
            put(
                out,
                "last_assistant_message",
                format!("{kind} ({status}): {summary}")
                    .trim_end_matches([' ', ':'])
                    .to_owned(),
            );
            HookEvent::SubagentStop
        }
        "sessionEnd" => {
            put(out, "reason", text_of(p.get("reason")));
            HookEvent::SessionEnd
        }
        _ => return None,
    })
}

fn gemini(
    event: &str,
    p: &Map<String, Value>,
    out: &mut Map<String, Value>,
    inject: &mut Inject,
) -> Option<HookEvent> {
    Some(match event {
        "SessionStart" => {
            *inject = Inject::SessionStart;
            HookEvent::SessionStart
        }
        "BeforeAgent" => {
            *inject = Inject::AfterCompaction;
            put(out, "prompt", text_of(p.get("prompt")));
            HookEvent::UserPromptSubmit
        }
        "AfterAgent" => {
            put(
                out,
                "last_assistant_message",
                text_of(p.get("prompt_response")),
            );
            HookEvent::Stop
        }
        "AfterTool" => {
            let response = put_tool_call(out, p);
            let error = match response.get("error") {
                None | Some(Value::Null | Value::Bool(false)) => None,
                Some(Value::String(e)) if e.trim().is_empty() => None,
                Some(Value::Object(e)) => Some(e.get("message").map_or_else(
                    || Value::Object(e.clone()).to_string(),
                    |m| text_of(Some(m)),
                )),
                Some(other) => Some(text_of(Some(other))),
            };
            match error {
                Some(error) => {
                    let shown = text_of(
                        response
                            .get("llmContent")
                            .or_else(|| response.get("returnDisplay")),
                    );
                    put(out, "error", failure(&error, &shown));
                    HookEvent::PostToolUseFailure
                }
                None => {
                    put(out, "tool_response", response);
                    HookEvent::PostToolUse
                }
            }
        }
        "PreCompress" => {
            put(out, "trigger", text_of(p.get("trigger")));
            HookEvent::PreCompact
        }
        "Notification" => {
            put(out, "message", text_of(p.get("message")));
            if let Some(kind) = str_at(p, "notification_type") {
                put(out, "notification_type", kind);
            }
            HookEvent::Notification
        }
        "SessionEnd" => {
            put(out, "reason", text_of(p.get("reason")));
            HookEvent::SessionEnd
        }
        _ => return None,
    })
}

fn opencode(
    event: &str,
    p: &Map<String, Value>,
    out: &mut Map<String, Value>,
    inject: &mut Inject,
) -> Option<HookEvent> {
    Some(match event {
        "session.created" | "experimental.chat.system.transform" => {
            *inject = Inject::SessionStart;
            HookEvent::SessionStart
        }
        "chat.message" => {
            put(out, "prompt", text_of(p.get("prompt")));
            HookEvent::UserPromptSubmit
        }
        "tool.execute.after" => {
            let response = put_tool_call(out, p);
            let metadata = response.get("metadata");
            // The bash tool's metadata carries the command's exit code.
            let exit = metadata
                .and_then(|m| m.get("exit"))
                .and_then(Value::as_i64)
                .filter(|code| *code != 0);
            let error = metadata
                .and_then(|m| m.get("error"))
                .filter(|e| !e.is_null() && *e != &Value::Bool(false));
            let output = text_of(response.get("output"));
            match (exit, error) {
                (None, None) => {
                    put(out, "tool_response", response);
                    HookEvent::PostToolUse
                }
                (code, error) => {
                    let mut why = match code {
                        Some(code) => format!("exit code {code}"),
                        None => String::new(),
                    };
                    if let Some(e) = error.filter(|e| e.as_bool() != Some(true)) {
                        why = failure(&why, &text_of(Some(e)));
                    }
                    put(out, "error", failure(&why, &output));
                    HookEvent::PostToolUseFailure
                }
            }
        }
        "session.idle" => {
            if let Some(text) = p.get("last_assistant_message") {
                put(out, "last_assistant_message", text_of(Some(text)));
            }
            HookEvent::Stop
        }
        "session.error" => {
            let error = p.get("error");
            let kind = error
                .and_then(|e| e.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("error");
            let message = error
                .and_then(|e| {
                    e.get("data")
                        .and_then(|d| d.get("message"))
                        .or_else(|| e.get("message"))
                })
                .map(|m| text_of(Some(m)))
                .unwrap_or_else(|| text_of(error.filter(|e| e.is_string())));
            put(out, "error_type", kind);
            put(out, "error_message", message);
            HookEvent::StopFailure
        }
        "experimental.session.compacting" => {
            *inject = Inject::IntoCompaction;
            HookEvent::PreCompact
        }
        "session.compacted" => {
            put(out, "compact_summary", text_of(p.get("compact_summary")));
            HookEvent::PostCompact
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn every_documented_event_translates_and_a_made_up_one_does_not() {
        for runtime in [Runtime::Cursor, Runtime::Gemini, Runtime::OpenCode] {
            for event in documented_events(runtime) {
                let t = translate(runtime, event, &Map::new());
                assert_eq!(t.map(|t| t.event), Some(*event), "{runtime} {event}");
            }
            assert!(translate(runtime, "no-such-event", &Map::new()).is_none());
        }
        assert_eq!(
            runtime_event(Runtime::Cursor, "before-submit-prompt"),
            Some("beforeSubmitPrompt")
        );
        assert_eq!(
            runtime_event(Runtime::Gemini, "pre-compress"),
            Some("PreCompress")
        );
    }

    #[test]
    fn failures_carry_their_error_and_output() {
        let t = translate(
            Runtime::Gemini,
            "AfterTool",
            &obj(
                json!({"tool_name": "run_shell_command", "tool_input": {"command": "cargo test"},
                "tool_response": {"llmContent": "1 failed", "error": {"message": "exit 101"}}}),
            ),
        );
        let t = t.unwrap_or_else(|| panic!("AfterTool is documented"));
        assert_eq!(t.hook, Some(HookEvent::PostToolUseFailure));
        assert_eq!(t.payload["error"], json!("exit 101\n1 failed"));
        for no_error in [json!(null), json!(""), json!(false)] {
            let t = translate(
                Runtime::Gemini,
                "AfterTool",
                &obj(
                    json!({"tool_name": "read_file", "tool_response": {"llmContent": "ok", "error": no_error}}),
                ),
            );
            assert_eq!(t.and_then(|t| t.hook), Some(HookEvent::PostToolUse));
        }
        let t = translate(
            Runtime::OpenCode,
            "tool.execute.after",
            &obj(
                json!({"tool_name": "bash", "tool_response": {"output": "boom", "metadata": {"exit": 2}}}),
            ),
        );
        let t = t.unwrap_or_else(|| panic!("tool.execute.after is documented"));
        assert_eq!(t.hook, Some(HookEvent::PostToolUseFailure));
        assert_eq!(t.payload["error"], json!("exit code 2\nboom"));
    }

    #[test]
    fn cursor_states_the_folder_model_and_version() {
        let t = translate(
            Runtime::Cursor,
            "sessionStart",
            &obj(
                json!({"conversation_id": "c1", "workspace_roots": ["/srv/app"],
                "model": "gpt-5", "cursor_version": "2.0.77"}),
            ),
        );
        let t = t.unwrap_or_else(|| panic!("sessionStart is documented"));
        assert_eq!(t.payload["cwd"], json!("/srv/app"));
        assert_eq!(t.payload["session_id"], json!("c1"));
        assert_eq!(t.payload["model"], json!("gpt-5"));
        assert_eq!(t.runtime_label, "cursor 2.0.77");
        assert_eq!(t.inject, Inject::SessionStart);
    }
}
