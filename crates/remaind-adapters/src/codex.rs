//! Codex CLI: rollout lines (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) to signals.
//!
//! Used: `session_meta` (the session id), `event_msg` `user_message` (what the user typed;
//! the `response_item` user messages also carry AGENTS.md and environment context, which
//! are not instructions), assistant messages and `task_complete` (the turn's last message),
//! `function_call`/`custom_tool_call` paired with their outputs (`update_plan` is the plan),
//! and `compacted` (the runtime's summary). Everything else is skipped. A line's id is its
//! line number in the rollout, which only ever grows, keyed by `session_meta`'s session id; in a
//! rollout without a readable one, the line number follows a digest of the rollout's first
//! line (`3f2a…:12`), so two such rollouts never share line keys (a first line holds its
//! start time).

use std::collections::HashMap;

use serde_json::Value;

use crate::claude_code::{prompt_signal, typed_prompt};
use crate::signal::{Framing, Record, Runtime, Signal, Source};
use crate::transcript::{LastText, LineOutcome, Reader};

/// Reads one Codex rollout, line by line.
#[derive(Debug, Default)]
pub struct TranscriptReader {
    session: Option<String>,
    /// What identifies the rollout until (or without) a `session_meta`: a digest of its
    /// first line.
    first_line: Option<String>,
    calls: HashMap<String, (String, Value)>,
    last_text: Option<(String, Source)>,
    /// The framing stated so far.
    seen: Framing,
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// True when a Codex tool output reports failure: `success: false` or a non-zero exit code,
/// also inside a JSON-encoded output string.
pub(crate) fn failed(output: &Value) -> bool {
    let parsed;
    let v = match output {
        Value::String(s) if s.trim_start().starts_with('{') => {
            parsed = serde_json::from_str::<Value>(s).unwrap_or(Value::Null);
            &parsed
        }
        other => other,
    };
    v.get("success").and_then(Value::as_bool) == Some(false)
        || v.pointer("/metadata/exit_code")
            .or_else(|| v.get("exit_code"))
            .and_then(Value::as_i64)
            .is_some_and(|c| c != 0)
}

impl TranscriptReader {
    fn source(&self, n: usize, line: &Value) -> Source {
        Source {
            runtime: Runtime::Codex,
            hook: None,
            session: self.session.clone(),
            line: Some(match (&self.session, &self.first_line) {
                (None, Some(digest)) => format!("{digest}:{n}"),
                _ => n.to_string(),
            }),
            ts: str_at(line, "timestamp").map(str::to_owned),
        }
    }

    fn flush_turn(&mut self, out: &mut Vec<Record>) {
        if let Some((text, source)) = self.last_text.take() {
            out.push(Record {
                source,
                signal: Signal::TurnEnd { text },
            });
        }
    }

    /// Something followed the newest text within the turn: it was not the outcome.
    fn text_went_on(&mut self, out: &mut Vec<Record>) {
        if let Some((text, source)) = self.last_text.take() {
            out.push(Record {
                source,
                signal: Signal::AssistantText { text },
            });
        }
    }

    /// The assistant wrote `text` (Codex writes a message twice, as a response item and as
    /// an event: the second is the same message).
    fn text(&mut self, text: String, source: Source, out: &mut Vec<Record>) {
        if self.last_text.as_ref().is_some_and(|(t, _)| *t == text) {
            return;
        }
        self.text_went_on(out);
        self.last_text = Some((text, source));
    }

    /// A framing record from `session_meta` or `turn_context`, when it states something new.
    fn framing(&mut self, n: usize, line: &Value, p: &Value, out: &mut Vec<Record>) {
        let mut f = Framing {
            workspace: str_at(p, "cwd")
                .filter(|c| !c.is_empty())
                .map(str::to_owned),
            model: str_at(p, "model")
                .filter(|m| !m.is_empty())
                .map(str::to_owned),
            ..Framing::default()
        };
        let sandbox = p
            .get("sandbox_policy")
            .and_then(|s| str_at(s, "type").or_else(|| s.as_str()));
        let version = str_at(p, "cli_version").map(|v| format!("codex {v}"));
        for (key, value) in [
            ("runtime", version.as_deref()),
            ("approval_policy", str_at(p, "approval_policy")),
            ("sandbox", sandbox),
            (
                "effort",
                str_at(p, "effort").or_else(|| str_at(p, "reasoning_effort")),
            ),
        ] {
            if let Some(v) = value.filter(|v| !v.is_empty()) {
                f.settings.insert(key.to_owned(), v.to_owned());
            }
        }
        let mut merged = self.seen.clone();
        merged.merge(f.clone());
        if merged != self.seen {
            self.seen = merged;
            out.push(Record {
                source: self.source(n, line),
                signal: Signal::Framing(f),
            });
        }
    }

    fn response_item(&mut self, n: usize, line: &Value, p: &Value, out: &mut Vec<Record>) {
        match str_at(p, "type") {
            Some("message") if str_at(p, "role") == Some("assistant") => {
                let text: Vec<&str> = p
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|c| str_at(c, "text"))
                    .collect();
                let text = text.join("\n");
                if !text.trim().is_empty() {
                    self.text(text, self.source(n, line), out);
                }
            }
            Some("function_call" | "custom_tool_call") => {
                self.text_went_on(out);
                if let (Some(id), Some(name)) = (str_at(p, "call_id"), str_at(p, "name")) {
                    let input = p
                        .get("arguments")
                        .or_else(|| p.get("input"))
                        .cloned()
                        .unwrap_or(Value::Null);
                    self.calls.insert(id.to_owned(), (name.to_owned(), input));
                }
            }
            Some("function_call_output" | "custom_tool_call_output") => {
                let Some((name, input)) = str_at(p, "call_id").and_then(|id| self.calls.remove(id))
                else {
                    return;
                };
                let output = p.get("output").cloned().unwrap_or(Value::Null);
                out.push(Record {
                    source: self.source(n, line),
                    signal: Signal::ToolUse {
                        failed: failed(&output),
                        name,
                        input,
                        output,
                    },
                });
            }
            _ => {}
        }
    }

    fn event_msg(&mut self, n: usize, line: &Value, p: &Value, out: &mut Vec<Record>) {
        match str_at(p, "type") {
            Some("user_message") => {
                let Some(prompt) = str_at(p, "message").and_then(typed_prompt) else {
                    return;
                };
                self.flush_turn(out);
                if let Some(signal) = prompt_signal(prompt) {
                    out.push(Record {
                        source: self.source(n, line),
                        signal,
                    });
                }
            }
            Some("agent_message") => {
                if let Some(t) = str_at(p, "message").filter(|t| !t.trim().is_empty()) {
                    self.text(t.to_owned(), self.source(n, line), out);
                }
            }
            Some("task_complete") => {
                if let Some(t) = str_at(p, "last_agent_message").filter(|t| !t.trim().is_empty()) {
                    self.text(t.to_owned(), self.source(n, line), out);
                }
                self.flush_turn(out);
            }
            Some("turn_aborted") => {
                self.text_went_on(out);
                out.push(Record {
                    source: self.source(n, line),
                    signal: Signal::Interrupt,
                });
            }
            _ => {}
        }
    }
}

impl Reader for TranscriptReader {
    fn line(&mut self, n: usize, line: &[u8], out: &mut Vec<Record>) -> Option<LineOutcome> {
        if self.first_line.is_none() {
            let digest = remaind_hash::sha256_hex(line);
            self.first_line = Some(digest[..16].to_owned());
        }
        let line = serde_json::from_slice::<Value>(line)
            .ok()
            .filter(Value::is_object)?;
        Some(self.value_line(n, &line, out))
    }

    fn finish(&mut self, out: &mut Vec<Record>) {
        self.flush_turn(out);
    }
}

impl TranscriptReader {
    fn value_line(&mut self, n: usize, line: &Value, out: &mut Vec<Record>) -> LineOutcome {
        let payload = line.get("payload").unwrap_or(&Value::Null);
        match str_at(line, "type") {
            Some("session_meta") => {
                self.session = str_at(payload, "id").map(str::to_owned);
                self.framing(n, line, payload, out);
                LineOutcome::Used
            }
            Some("response_item") => {
                self.response_item(n, line, payload, out);
                LineOutcome::Used
            }
            Some("event_msg") => {
                self.event_msg(n, line, payload, out);
                LineOutcome::Used
            }
            Some("compacted") => {
                if let Some(text) = str_at(payload, "message").filter(|t| !t.trim().is_empty()) {
                    self.text_went_on(out);
                    out.push(Record {
                        source: self.source(n, line),
                        signal: Signal::CompactSummary {
                            text: text.to_owned(),
                        },
                    });
                }
                LineOutcome::Used
            }
            Some("turn_context") => {
                self.framing(n, line, payload, out);
                LineOutcome::Used
            }
            _ => LineOutcome::Unused,
        }
    }
}

/// What a rollout line (read from the end) says about the assistant's last text: an agent
/// message, a turn's `last_agent_message`, an assistant response item; or a tool call or
/// the user's message, after which there was none.
pub(crate) fn last_text_of(line: &Value) -> LastText {
    let p = line.get("payload").unwrap_or(&Value::Null);
    let text = match (str_at(line, "type"), str_at(p, "type")) {
        (Some("event_msg"), Some("user_message"))
        | (Some("response_item"), Some("function_call" | "custom_tool_call")) => {
            return LastText::Boundary;
        }
        (Some("event_msg"), Some("agent_message")) => str_at(p, "message").map(str::to_owned),
        (Some("event_msg"), Some("task_complete")) => {
            str_at(p, "last_agent_message").map(str::to_owned)
        }
        (Some("response_item"), Some("message")) if str_at(p, "role") == Some("assistant") => {
            let parts: Vec<&str> = p
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|c| str_at(c, "text"))
                .collect();
            Some(parts.join("\n"))
        }
        _ => None,
    };
    match text.filter(|t| !t.trim().is_empty()) {
        Some(t) => LastText::Text(t),
        None => LastText::Nothing,
    }
}
