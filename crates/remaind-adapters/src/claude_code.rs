//! Claude Code: transcript lines (`~/.claude/projects/<project>/<session>.jsonl` and its
//! `subagents/agent-*.jsonl`) to signals.
//!
//! Used: user prompts (slash commands as `/name args`; `/compact args` as compaction
//! instructions), tool calls paired with their results, the assistant's last text of each
//! turn, and `isCompactSummary` lines (the runtime's own summary). Skipped: meta lines
//! (command expansions), local command output, task notifications, progress, snapshots and
//! every line type not listed. Sidechain (subagent) lines contribute their tool calls only.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

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

/// A value taken only when it has the type the reader expects: anything else reads as
/// absent, as `Value::get` followed by `as_str` or `as_bool` would.
struct Lenient<T>(Option<T>);

impl<T> Default for Lenient<T> {
    fn default() -> Self {
        Lenient(None)
    }
}

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'de RawValue>::deserialize(d)?;
        Ok(Lenient(serde_json::from_str(raw.get()).ok()))
    }
}

/// The fields of a transcript line the reader looks at. The large ones (the message, the
/// tool result) stay unparsed text until a record needs them: a line is read about three
/// times faster than into a `Value`, which most of its bytes (usage, thinking, the copy of a
/// tool result inside the message) never need.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(default, rename = "type")]
    kind: Lenient<String>,
    #[serde(default, rename = "sessionId")]
    session: Lenient<String>,
    #[serde(default)]
    uuid: Lenient<String>,
    #[serde(default)]
    timestamp: Lenient<String>,
    #[serde(default, rename = "isSidechain")]
    sidechain: Lenient<bool>,
    #[serde(default, rename = "isMeta")]
    meta: Lenient<bool>,
    #[serde(default, rename = "isCompactSummary")]
    compact_summary: Lenient<bool>,
    #[serde(default, borrow)]
    message: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "toolUseResult")]
    tool_use_result: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
}

/// One content block of a message.
#[derive(Deserialize)]
struct Block<'a> {
    #[serde(default, rename = "type")]
    kind: Lenient<String>,
    #[serde(default)]
    text: Lenient<String>,
    #[serde(default)]
    id: Lenient<String>,
    #[serde(default)]
    name: Lenient<String>,
    #[serde(default, borrow)]
    input: Option<&'a RawValue>,
    #[serde(default)]
    tool_use_id: Lenient<String>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    #[serde(default)]
    is_error: Lenient<bool>,
}

/// A message's content: its text, or its blocks (those that are objects).
enum Content<'a> {
    Text(String),
    Blocks(Vec<Block<'a>>),
}

/// Whether `raw` is a JSON object (a struct also reads from an array, which `Value::get`
/// never looks into).
fn is_object(raw: &[u8]) -> bool {
    raw.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// Parses `raw` into `T` when it is an object; an object that does not parse (a repeated
/// key) is an error, which sends the line to [`TranscriptReader::line`]'s fallback.
fn object<'a, T: Deserialize<'a>>(raw: &'a RawValue) -> serde_json::Result<Option<T>> {
    if is_object(raw.get().as_bytes()) {
        serde_json::from_str(raw.get()).map(Some)
    } else {
        Ok(None)
    }
}

/// The value of `raw`, `Null` when absent.
fn value(raw: Option<&RawValue>) -> Value {
    raw.and_then(|r| serde_json::from_str(r.get()).ok())
        .unwrap_or(Value::Null)
}

impl Line<'_> {
    fn source(&self) -> Source {
        Source {
            runtime: Runtime::ClaudeCode,
            hook: None,
            session: self.session.0.clone(),
            line: self.uuid.0.clone(),
            ts: self.timestamp.0.clone(),
        }
    }

    /// `/message/content`.
    fn content(&self) -> serde_json::Result<Option<Content<'_>>> {
        let Some(message) = self.message.map(object::<Message>).transpose()?.flatten() else {
            return Ok(None);
        };
        let Some(raw) = message.content else {
            return Ok(None);
        };
        match raw.get().as_bytes().first() {
            Some(b'"') => Ok(serde_json::from_str(raw.get()).ok().map(Content::Text)),
            Some(b'[') => {
                let items: Vec<&RawValue> = serde_json::from_str(raw.get())?;
                let mut blocks = Vec::with_capacity(items.len());
                for item in items {
                    blocks.extend(object::<Block>(item)?);
                }
                Ok(Some(Content::Blocks(blocks)))
            }
            _ => Ok(None),
        }
    }
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

    /// Reads a parsed line; an error (a repeated key) sends it to the fallback before it
    /// changed anything.
    fn typed_line(
        &mut self,
        line: &Line<'_>,
        out: &mut Vec<Record>,
    ) -> serde_json::Result<LineOutcome> {
        match line.kind.0.as_deref() {
            Some("user") => {
                let content = line.content()?;
                self.user_line(line, content, out);
                Ok(LineOutcome::Used)
            }
            Some("assistant") => {
                let content = line.content()?;
                self.assistant_line(line, content);
                Ok(LineOutcome::Used)
            }
            _ => Ok(LineOutcome::Unused),
        }
    }

    fn user_line(&mut self, line: &Line<'_>, content: Option<Content<'_>>, out: &mut Vec<Record>) {
        let source = line.source();
        if line.compact_summary.0 == Some(true) {
            if let Some(Content::Text(text)) = content {
                out.push(Record {
                    source,
                    signal: Signal::CompactSummary { text },
                });
            }
            return;
        }
        let mut typed = Vec::new();
        match &content {
            Some(Content::Text(s)) => typed.push(s.as_str()),
            Some(Content::Blocks(blocks)) => {
                for b in blocks {
                    match b.kind.0.as_deref() {
                        Some("text") => typed.extend(b.text.0.as_deref()),
                        Some("tool_result") => self.tool_result(line, b, &source, out),
                        _ => {}
                    }
                }
            }
            None => {}
        }
        if line.sidechain.0 == Some(true) || line.meta.0 == Some(true) || typed.is_empty() {
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

    fn tool_result(
        &mut self,
        line: &Line<'_>,
        block: &Block<'_>,
        source: &Source,
        out: &mut Vec<Record>,
    ) {
        let Some(id) = block.tool_use_id.0.as_deref() else {
            return;
        };
        let Some((name, input)) = self.calls.remove(id) else {
            return;
        };
        // The structured result when the runtime kept one, else the block's content.
        let output = match line.tool_use_result.map(|r| value(Some(r))) {
            Some(v) if !v.is_null() => v,
            _ => value(block.content),
        };
        let is_error = block.is_error.0 == Some(true);
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

    fn assistant_line(&mut self, line: &Line<'_>, content: Option<Content<'_>>) {
        let Some(Content::Blocks(blocks)) = content else {
            return;
        };
        for b in blocks {
            match b.kind.0.as_deref() {
                Some("tool_use") => {
                    if let (Some(id), Some(name)) = (b.id.0, b.name.0) {
                        self.calls.insert(id, (name, value(b.input)));
                    }
                }
                Some("text") if line.sidechain.0 != Some(true) => {
                    if let Some(t) = b.text.0.filter(|t| !t.trim().is_empty()) {
                        self.last_text = Some((t, line.source()));
                    }
                }
                _ => {}
            }
        }
    }
}

impl Reader for TranscriptReader {
    fn line(&mut self, _n: usize, line: &[u8], out: &mut Vec<Record>) -> Option<LineOutcome> {
        // Not UTF-8 is damaged, as a `Value` parse would have it (a typed read skipping a
        // field would not look).
        let line = std::str::from_utf8(line).ok()?;
        if !is_object(line.as_bytes()) {
            return None;
        }
        let typed =
            serde_json::from_str::<Line>(line).and_then(|parsed| self.typed_line(&parsed, out));
        match typed {
            Ok(outcome) => Some(outcome),
            // A repeated key, which a typed read refuses and a `Value` takes the last of:
            // read the line as a `Value` would have it.
            Err(_) => {
                let v = serde_json::from_str::<Value>(line).ok()?;
                let deduped = serde_json::to_vec(&v).ok()?;
                let parsed = serde_json::from_slice::<Line>(&deduped).ok()?;
                self.typed_line(&parsed, out).ok()
            }
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

    fn read(lines: &[&str]) -> (Vec<Record>, crate::LineCounts) {
        crate::read_transcript(Runtime::ClaudeCode, lines.join("\n").as_bytes())
    }

    fn texts(records: &[Record]) -> Vec<String> {
        records.iter().map(|r| format!("{:?}", r.signal)).collect()
    }

    /// The typed read takes a field only when it has the expected type, as `Value::get`
    /// would; a line with a repeated key reads as a `Value` has it (the last one wins);
    /// what is not a JSON object (or not UTF-8) is damaged.
    #[test]
    fn lines_read_as_their_value_would() {
        let call = r#"{"type":"assistant","uuid":"a1","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}},"stray",{"type":"text","text":"done"}]}}"#;
        let result = r#"{"type":"user","uuid":"u1","sessionId":7,"isSidechain":"yes","toolUseResult":null,"message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"a b","is_error":"no"}]}}"#;
        let (records, counts) = read(&[call, result]);
        assert_eq!(counts.used, 2);
        assert_eq!(records.len(), 2, "{records:?}");
        // A null structured result falls back to the block's content; a non-bool flag is no flag.
        assert_eq!(
            records[0].signal,
            Signal::ToolUse {
                name: "Bash".into(),
                input: serde_json::json!({"command": "ls"}),
                output: Value::String("a b".into()),
                failed: false,
            }
        );
        // A session id that is not a string is no session.
        assert_eq!(records[0].source.session, None);
        assert_eq!(records[0].source.line.as_deref(), Some("u1"));
        assert_eq!(texts(&records[1..]), ["TurnEnd { text: \"done\" }"]);

        // Repeated keys: the last wins, at the top and inside the message.
        let (records, counts) = read(&[
            r#"{"type":"assistant","type":"user","uuid":"u2","message":{"content":"first","content":"fix the tests"}}"#,
        ]);
        assert_eq!(counts.used, 1);
        assert_eq!(texts(&records), ["Prompt { text: \"fix the tests\" }"]);

        // A message that is not an object, content that is neither text nor blocks.
        let (records, counts) = read(&[
            r#"{"type":"user","message":["content","x"]}"#,
            r#"{"type":"user","message":{"content":5}}"#,
            r#"{"type":"progress","data":{}}"#,
        ]);
        assert!(records.is_empty());
        assert_eq!((counts.used, counts.unused, counts.damaged), (2, 1, 0));

        let mut bad = br#"{"type":"user","junk":""#.to_vec();
        bad.extend_from_slice(b"\xff\"}");
        for damaged in [
            &b"[1,2]"[..],
            b"\"text\"",
            b"{\"type\":\"user\"",
            b"{\"type\":\"user\"} trailing",
            &bad,
        ] {
            let (records, counts) = crate::read_transcript(Runtime::ClaudeCode, damaged);
            assert!(records.is_empty());
            assert_eq!(counts.damaged, 1, "{}", String::from_utf8_lossy(damaged));
        }
    }
}
