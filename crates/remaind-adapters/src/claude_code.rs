//! Claude Code: transcript lines (`~/.claude/projects/<project>/<session>.jsonl` and its
//! `subagents/agent-*.jsonl`) to signals.
//!
//! Used: user prompts (slash commands as `/name args`; `/compact args` as compaction
//! instructions), tool calls paired with their results, the assistant's last text of each
//! turn, and `isCompactSummary` lines (the runtime's own summary). Skipped: meta lines
//! (command expansions), local command output, task notifications, progress, snapshots and
//! every line type not listed. Sidechain (subagent) lines contribute their tool calls only.

use std::collections::HashMap;

use serde_json::Value;

use crate::signal::{Record, Runtime, Signal, Source};
use crate::transcript::{LineOutcome, Reader};

/// Reads one Claude Code transcript, line by line.
#[derive(Debug, Default)]
pub struct TranscriptReader {
    /// Tool calls waiting for their result, by `tool_use` id.
    calls: HashMap<String, (String, Value)>,
    /// The assistant's newest text in the current turn, and where it came from.
    last_text: Option<(String, Source)>,
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn source_of(line: &Value) -> Source {
    Source {
        runtime: Runtime::ClaudeCode,
        hook: None,
        session: str_at(line, "sessionId").map(str::to_owned),
        line: str_at(line, "uuid").map(str::to_owned),
        ts: str_at(line, "timestamp").map(str::to_owned),
    }
}

/// A user's typed text as the runtime shows it to hooks: a slash command as `/name args`;
/// `None` for text the user did not type (command output, notifications, caveats).
pub(crate) fn typed_prompt(text: &str) -> Option<String> {
    let t = text.trim_start();
    for skip in [
        "<local-command-stdout>",
        "<local-command-stderr>",
        "<local-command-caveat>",
        "<task-notification>",
        "<bash-stdout>",
        "<bash-stderr>",
        "Caveat: The messages below were generated",
        "[Request interrupted by user",
    ] {
        if t.starts_with(skip) {
            return None;
        }
    }
    if let Some(name) = between(text, "<command-name>", "</command-name>") {
        let args = between(text, "<command-args>", "</command-args>").unwrap_or("");
        let name = name.trim();
        let name = if name.starts_with('/') {
            name.to_owned()
        } else {
            format!("/{name}")
        };
        let args = args.trim();
        return Some(if args.is_empty() {
            name
        } else {
            format!("{name} {args}")
        });
    }
    if t.is_empty() {
        None
    } else {
        Some(text.to_owned())
    }
}

fn between<'a>(s: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = s.find(open)? + open.len();
    let end = s[start..].find(close)? + start;
    Some(&s[start..end])
}

/// The signal of a typed prompt: `/compact args` asks for a compaction with instructions
/// (recorded at PreCompact, so not as a prompt); anything else is a prompt.
pub(crate) fn prompt_signal(prompt: String) -> Option<Signal> {
    if prompt == "/compact" || prompt.starts_with("/compact ") {
        let args = prompt["/compact".len()..].trim();
        return (!args.is_empty()).then(|| Signal::CompactInstructions {
            text: args.to_owned(),
        });
    }
    Some(Signal::Prompt { text: prompt })
}

/// True when Claude Code marked a tool response as an error.
pub(crate) fn failed(response: &Value, block_error: bool) -> bool {
    block_error
        || response.get("success").and_then(Value::as_bool) == Some(false)
        || response.get("is_error").and_then(Value::as_bool) == Some(true)
        || response.get("interrupted").and_then(Value::as_bool) == Some(true)
}

impl TranscriptReader {
    fn flush_turn(&mut self, out: &mut Vec<Record>) {
        if let Some((text, source)) = self.last_text.take() {
            out.push(Record {
                source,
                signal: Signal::TurnEnd { text },
            });
        }
    }

    fn user_line(&mut self, line: &Value, out: &mut Vec<Record>) {
        let source = source_of(line);
        let sidechain = line.get("isSidechain").and_then(Value::as_bool) == Some(true);
        let meta = line.get("isMeta").and_then(Value::as_bool) == Some(true);
        let content = line.pointer("/message/content");
        if line.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
            if let Some(Value::String(text)) = content {
                out.push(Record {
                    source,
                    signal: Signal::CompactSummary { text: text.clone() },
                });
            }
            return;
        }
        let mut typed = Vec::new();
        match content {
            Some(Value::String(s)) => typed.push(s.as_str()),
            Some(Value::Array(blocks)) => {
                for b in blocks {
                    match str_at(b, "type") {
                        Some("text") => typed.extend(str_at(b, "text")),
                        Some("tool_result") => self.tool_result(line, b, &source, out),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        if sidechain || meta || typed.is_empty() {
            return;
        }
        let Some(prompt) = typed_prompt(&typed.join("\n")) else {
            return;
        };
        self.flush_turn(out);
        if let Some(signal) = prompt_signal(prompt) {
            out.push(Record { source, signal });
        }
    }

    fn tool_result(&mut self, line: &Value, block: &Value, source: &Source, out: &mut Vec<Record>) {
        let Some(id) = str_at(block, "tool_use_id") else {
            return;
        };
        let Some((name, input)) = self.calls.remove(id) else {
            return;
        };
        // The structured result when the runtime kept one, else the block's content.
        let output = match line.get("toolUseResult") {
            Some(v) if !v.is_null() => v.clone(),
            _ => block.get("content").cloned().unwrap_or(Value::Null),
        };
        let is_error = block.get("is_error").and_then(Value::as_bool) == Some(true);
        out.push(Record {
            source: source.clone(),
            signal: Signal::ToolUse {
                failed: failed(&output, is_error),
                name,
                input,
                output,
            },
        });
    }

    fn assistant_line(&mut self, line: &Value) {
        let sidechain = line.get("isSidechain").and_then(Value::as_bool) == Some(true);
        let Some(Value::Array(blocks)) = line.pointer("/message/content") else {
            return;
        };
        for b in blocks {
            match str_at(b, "type") {
                Some("tool_use") => {
                    if let (Some(id), Some(name)) = (str_at(b, "id"), str_at(b, "name")) {
                        let input = b.get("input").cloned().unwrap_or(Value::Null);
                        self.calls.insert(id.to_owned(), (name.to_owned(), input));
                    }
                }
                Some("text") if !sidechain => {
                    if let Some(t) = str_at(b, "text").filter(|t| !t.trim().is_empty()) {
                        self.last_text = Some((t.to_owned(), source_of(line)));
                    }
                }
                _ => {}
            }
        }
    }
}

impl Reader for TranscriptReader {
    fn line(&mut self, _n: usize, line: &Value, out: &mut Vec<Record>) -> LineOutcome {
        match str_at(line, "type") {
            Some("user") => {
                self.user_line(line, out);
                LineOutcome::Used
            }
            Some("assistant") => {
                self.assistant_line(line);
                LineOutcome::Used
            }
            _ => LineOutcome::Unused,
        }
    }

    fn finish(&mut self, out: &mut Vec<Record>) {
        self.flush_turn(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slash_commands_read_as_typed_and_compact_gives_instructions() {
        let cmd = "<command-message>orchestrator is running…</command-message>\n<command-name>/orchestrator</command-name>\n<command-args>create TODO app</command-args>";
        assert_eq!(
            typed_prompt(cmd).as_deref(),
            Some("/orchestrator create TODO app")
        );
        assert_eq!(
            typed_prompt("<local-command-stdout>ok</local-command-stdout>"),
            None
        );
        assert_eq!(
            prompt_signal("/compact keep the API notes".into()),
            Some(Signal::CompactInstructions {
                text: "keep the API notes".into()
            })
        );
        assert_eq!(prompt_signal("/compact".into()), None);
    }
}
