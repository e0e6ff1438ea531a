//! Claude Code: transcript lines (`~/.claude/projects/<project>/<session>.jsonl` and its
//! `subagents/agent-*.jsonl`) to signals.
//!
//! Used: user prompts (slash commands as `/name args`; `/compact args` as compaction
//! instructions), tool calls paired with their results, the assistant's last text of each
//! turn, `isCompactSummary` lines (the runtime's own summary), and prompts the user queued
//! while the agent worked (`queue-operation` `enqueue`; the user line that later delivers
//! one is not a second prompt). Skipped: meta lines (command expansions), `(no content)`
//! placeholders, local command output, progress, snapshots and every line type not listed.
//! Sidechain (subagent) lines contribute their tool calls only.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::signal::{Framing, Record, Runtime, Signal, Source};
use crate::transcript::{LastText, LineOutcome, Reader};

/// Reads one Claude Code transcript, line by line.
#[derive(Debug, Default)]
pub struct TranscriptReader {
    /// Tool calls waiting for their result, by `tool_use` id.
    calls: HashMap<String, (String, Value)>,
    /// The assistant's newest text, while nothing followed it: the turn's outcome if the
    /// turn ends next.
    last_text: Option<(String, Source)>,
    /// The framing the lines stated so far (a record is made when it changes).
    framing: Framing,
    /// Prompts the user queued while the agent worked, recorded when queued: the user line
    /// that later delivers one (the queue popped at the turn's end) is not a second prompt.
    queued: Vec<String>,
}

/// Commands Claude Code runs itself, never sending them to the model: not instructions.
const LOCAL_COMMANDS: &[&str] = &[
    "add-dir",
    "agents",
    "bashes",
    "bug",
    "clear",
    "config",
    "context",
    "cost",
    "doctor",
    "exit",
    "export",
    "feedback",
    "help",
    "hooks",
    "ide",
    "install-github-app",
    "login",
    "logout",
    "mcp",
    "memory",
    "migrate-installer",
    "model",
    "output-style",
    "permissions",
    "plugin",
    "privacy-settings",
    "quit",
    "release-notes",
    "resume",
    "rewind",
    "sandbox",
    "settings",
    "stats",
    "status",
    "statusline",
    "tasks",
    "terminal-setup",
    "theme",
    "todos",
    "upgrade",
    "usage",
    "vim",
];

/// True when `prompt` (as typed) is a command the runtime handles without the model.
pub(crate) fn is_local_command(prompt: &str) -> bool {
    let Some(name) = prompt.strip_prefix('/') else {
        return false;
    };
    let name = name.split_whitespace().next().unwrap_or("");
    LOCAL_COMMANDS.contains(&name)
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
    // The runtime's placeholder for a message without text (after a `#` memory input).
    if t.is_empty() || is_placeholder(t) {
        None
    } else {
        Some(text.to_owned())
    }
}

/// Claude Code's `(no content)`: a line the runtime wrote where a message had no text.
fn is_placeholder(text: &str) -> bool {
    text.trim() == "(no content)"
}

fn between<'a>(s: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = s.find(open)? + open.len();
    let end = s[start..].find(close)? + start;
    Some(&s[start..end])
}

/// The signal of a typed prompt: `/compact args` asks for a compaction with instructions
/// (recorded at PreCompact, so not as a prompt); a local command (`/export`) is no
/// instruction; a `#` memory input is a standing rule to remember; anything else is a prompt.
pub(crate) fn prompt_signal(prompt: String) -> Option<Signal> {
    if let Some(rule) = between(&prompt, "<user-memory-input>", "</user-memory-input>") {
        let text = rule.trim().to_owned();
        return (!text.is_empty()).then_some(Signal::Remember { text });
    }
    if is_local_command(&prompt) {
        return Some(Signal::LocalCommand { text: prompt });
    }
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
    #[serde(default)]
    cwd: Lenient<String>,
    #[serde(default, rename = "gitBranch")]
    git_branch: Lenient<String>,
    #[serde(default)]
    version: Lenient<String>,
    #[serde(default, rename = "permissionMode")]
    permission_mode: Lenient<String>,
    /// A `queue-operation` line's operation (`enqueue`, `dequeue`, `remove`, `popAll`).
    #[serde(default)]
    operation: Lenient<String>,
    /// A `queue-operation` line's text (the queued prompt).
    #[serde(default, rename = "content")]
    queued_text: Lenient<String>,
    #[serde(default, borrow)]
    message: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "toolUseResult")]
    tool_use_result: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    #[serde(default)]
    model: Lenient<String>,
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

    /// The framing this line states: workspace, runtime version, branch, permission mode,
    /// and the model of an assistant line.
    fn framing(&self, model: Option<String>) -> Framing {
        let mut f = Framing {
            workspace: self.cwd.0.clone().filter(|c| !c.is_empty()),
            model: model.filter(|m| !m.is_empty() && !m.starts_with('<')),
            ..Framing::default()
        };
        for (key, value) in [
            (
                "runtime",
                self.version.0.as_ref().map(|v| format!("claude-code {v}")),
            ),
            ("git_branch", self.git_branch.0.clone()),
            ("permission_mode", self.permission_mode.0.clone()),
        ] {
            if let Some(v) = value.filter(|v| !v.is_empty()) {
                f.settings.insert(key.to_owned(), v);
            }
        }
        f
    }

    /// The message's model, if any.
    fn model(&self) -> Option<String> {
        let message = self.message.map(object::<Message>)?.ok()??;
        message.model.0
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
    /// The turn ended: its newest text is the outcome.
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

    /// A framing record when the line states something new.
    fn note_framing(&mut self, line: &Line<'_>, model: Option<String>, out: &mut Vec<Record>) {
        if line.sidechain.0 == Some(true) {
            return;
        }
        let seen = line.framing(model);
        let mut merged = self.framing.clone();
        merged.merge(seen.clone());
        if merged != self.framing {
            self.framing = merged;
            out.push(Record {
                source: line.source(),
                signal: Signal::Framing(seen),
            });
        }
    }

    /// Reads a parsed line; an error (a repeated key) sends it to the fallback before it
    /// changed anything.
    fn typed_line(
        &mut self,
        line: &Line<'_>,
        n: usize,
        out: &mut Vec<Record>,
    ) -> serde_json::Result<LineOutcome> {
        match line.kind.0.as_deref() {
            Some("user") => {
                let content = line.content()?;
                self.note_framing(line, None, out);
                self.user_line(line, content, out);
                Ok(LineOutcome::Used)
            }
            Some("assistant") => {
                let content = line.content()?;
                self.note_framing(line, line.model(), out);
                self.assistant_line(line, content, out);
                Ok(LineOutcome::Used)
            }
            Some("queue-operation") => {
                self.queue_operation(line, n, out);
                Ok(LineOutcome::Used)
            }
            _ => Ok(LineOutcome::Unused),
        }
    }

    /// A prompt the user typed while the agent worked (`enqueue`): an instruction from when
    /// it was typed. What the runtime queues itself (a task notification) is recorded when
    /// it is delivered; the other operations (`dequeue`, `remove`, `popAll`) add nothing.
    fn queue_operation(&mut self, line: &Line<'_>, n: usize, out: &mut Vec<Record>) {
        if line.operation.0.as_deref() != Some("enqueue") {
            return;
        }
        let Some(prompt) = line.queued_text.0.as_deref().and_then(typed_prompt) else {
            return;
        };
        let Some(Signal::Prompt { text }) = prompt_signal(prompt) else {
            return;
        };
        // The line has no uuid: it is keyed by its time (else its number), as an import of
        // the whole file and a hook reading its tail both see it.
        let mut source = line.source();
        source.line = Some(match &line.timestamp.0 {
            Some(ts) => format!("enqueue@{ts}"),
            None => format!("enqueue:{n}"),
        });
        self.queued.push(text.clone());
        out.push(Record {
            source,
            signal: Signal::QueuedPrompt { text },
        });
    }

    fn user_line(&mut self, line: &Line<'_>, content: Option<Content<'_>>, out: &mut Vec<Record>) {
        let source = line.source();
        if line.compact_summary.0 == Some(true) {
            if let Some(Content::Text(text)) = content {
                self.text_went_on(out);
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
        let text = typed.join("\n");
        let trimmed = text.trim_start();
        if trimmed.starts_with("[Request interrupted by user") {
            self.text_went_on(out);
            out.push(Record {
                source,
                signal: Signal::Interrupt,
            });
            return;
        }
        if trimmed.starts_with("<task-notification>") {
            // The runtime woke the agent after its turn ended: the turn's outcome stands.
            self.flush_turn(out);
            out.push(Record {
                source,
                signal: Signal::Notification { text },
            });
            return;
        }
        let Some(prompt) = typed_prompt(&text) else {
            return;
        };
        self.flush_turn(out);
        if let Some(at) = self.queued.iter().position(|q| *q == prompt) {
            // The queued prompt, delivered: recorded when it was queued.
            self.queued.remove(at);
            return;
        }
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
        self.text_went_on(out);
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

    fn assistant_line(
        &mut self,
        line: &Line<'_>,
        content: Option<Content<'_>>,
        out: &mut Vec<Record>,
    ) {
        let Some(Content::Blocks(blocks)) = content else {
            return;
        };
        let main = line.sidechain.0 != Some(true);
        for b in blocks {
            match b.kind.0.as_deref() {
                Some("tool_use") => {
                    if main {
                        self.text_went_on(out);
                    }
                    if let (Some(id), Some(name)) = (b.id.0, b.name.0) {
                        self.calls.insert(id, (name, value(b.input)));
                    }
                }
                Some("text") if main => {
                    if let Some(t) = b
                        .text
                        .0
                        .filter(|t| !t.trim().is_empty() && !is_placeholder(t))
                    {
                        self.text_went_on(out);
                        self.last_text = Some((t, line.source()));
                    }
                }
                _ => {}
            }
        }
    }
}

impl Reader for TranscriptReader {
    fn line(&mut self, n: usize, line: &[u8], out: &mut Vec<Record>) -> Option<LineOutcome> {
        // Not UTF-8 is damaged, as a `Value` parse would have it (a typed read skipping a
        // field would not look).
        let line = std::str::from_utf8(line).ok()?;
        if !is_object(line.as_bytes()) {
            return None;
        }
        let typed =
            serde_json::from_str::<Line>(line).and_then(|parsed| self.typed_line(&parsed, n, out));
        match typed {
            Ok(outcome) => Some(outcome),
            // A repeated key, which a typed read refuses and a `Value` takes the last of:
            // read the line as a `Value` would have it.
            Err(_) => {
                let v = serde_json::from_str::<Value>(line).ok()?;
                let deduped = serde_json::to_vec(&v).ok()?;
                let parsed = serde_json::from_slice::<Line>(&deduped).ok()?;
                self.typed_line(&parsed, n, out).ok()
            }
        }
    }

    /// A transcript whose last main-chain message is the assistant's text ended its turn
    /// there (the runtime's Stop); one that stops anywhere else (a tool call, a compaction
    /// summary) stopped mid-turn, and every text before was already recorded.
    fn finish(&mut self, out: &mut Vec<Record>) {
        self.flush_turn(out);
    }
}

/// What a transcript line (read from the end) says about the assistant's last text: an
/// assistant line's text (a subagent's too); a tool call or the user's typed prompt, after
/// which there was none.
pub(crate) fn last_text_of(line: &Value) -> LastText {
    let blocks = line.pointer("/message/content");
    let of_type = |t: &str| -> Vec<&Value> {
        blocks
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some(t))
            .collect()
    };
    let text = match blocks {
        Some(Value::String(s)) => s.clone(),
        _ => of_type("text")
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
    };
    match line.get("type").and_then(Value::as_str) {
        Some("assistant") if !text.trim().is_empty() && !is_placeholder(&text) => {
            LastText::Text(text)
        }
        Some("assistant") if !of_type("tool_use").is_empty() => LastText::Boundary,
        Some("user") if line.get("isMeta") != Some(&Value::Bool(true)) => {
            if typed_prompt(&text).is_some() {
                LastText::Boundary
            } else {
                LastText::Nothing
            }
        }
        _ => LastText::Nothing,
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
        // The text came before the tool's result: it was not the turn's outcome.
        assert_eq!(texts(&records[..1]), ["AssistantText { text: \"done\" }"]);
        let records = &records[1..];
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

        // A byte that is not UTF-8, or a lone surrogate escape, costs a character, not the
        // line: the prompt is kept with U+FFFD and the line counted as repaired.
        let mut bad = br#"{"type":"user","message":{"content":"fix the caf"#.to_vec();
        bad.extend_from_slice(b"\xe9 test\"}}");
        let cut = br#"{"type":"user","message":{"content":"ship it \ud83d"}}"#;
        for (line, want) in [
            (&bad[..], "fix the caf\u{fffd} test"),
            (cut, "ship it \u{fffd}"),
        ] {
            let (records, counts) = crate::read_transcript(Runtime::ClaudeCode, line);
            assert_eq!((counts.used, counts.damaged, counts.repaired), (1, 0, 1));
            assert_eq!(
                records[0].signal,
                Signal::Prompt {
                    text: want.to_owned()
                }
            );
        }
        for damaged in [
            &b"[1,2]"[..],
            b"\"text\"",
            b"{\"type\":\"user\"",
            b"{\"type\":\"user\"} trailing",
        ] {
            let (records, counts) = crate::read_transcript(Runtime::ClaudeCode, damaged);
            assert!(records.is_empty());
            assert_eq!(counts.damaged, 1, "{}", String::from_utf8_lossy(damaged));
        }
    }

    fn signals(lines: &[&str]) -> Vec<String> {
        texts(&read(lines).0)
            .into_iter()
            .filter(|s| !s.starts_with("Framing"))
            .collect()
    }

    const PROMPT: &str = r#"{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"content":"Fix the test"}}"#;
    const CALL: &str = r#"{"type":"assistant","uuid":"a1","sessionId":"s","timestamp":"2026-01-01T00:00:01Z","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#;
    const RESULT: &str = r#"{"type":"user","uuid":"r1","sessionId":"s","timestamp":"2026-01-01T00:00:02Z","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"a"}]}}"#;
    const INTERRUPT: &str = r#"{"type":"user","uuid":"i1","sessionId":"s","timestamp":"2026-01-01T00:00:03Z","message":{"content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#;
    const ENQUEUE: &str = r#"{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-01T00:00:04Z","sessionId":"s","content":"and the docs"}"#;

    #[test]
    fn a_queued_prompt_is_recorded_when_queued_and_not_again_when_delivered() {
        let delivered = r#"{"type":"user","uuid":"u2","sessionId":"s","timestamp":"2026-01-01T00:00:09Z","message":{"content":"and the docs"}}"#;
        let notice = r#"{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-01T00:00:05Z","sessionId":"s","content":"<task-notification><task-id>b1</task-id></task-notification>"}"#;
        let removed = r#"{"type":"queue-operation","operation":"remove","timestamp":"2026-01-01T00:00:06Z","sessionId":"s","content":"and the docs"}"#;
        let got = signals(&[PROMPT, CALL, ENQUEUE, notice, removed, RESULT, delivered]);
        assert_eq!(
            got,
            [
                "Prompt { text: \"Fix the test\" }",
                "QueuedPrompt { text: \"and the docs\" }",
                "ToolUse { name: \"Bash\", input: Object {\"command\": String(\"ls\")}, output: String(\"a\"), failed: false }",
            ]
        );
        let (records, _) = read(&[ENQUEUE]);
        let queued = records.last().unwrap();
        assert_eq!(
            queued.source.line.as_deref(),
            Some("enqueue@2026-01-01T00:00:04Z")
        );
        assert_eq!(queued.source.session.as_deref(), Some("s"));
        // A prompt typed again later (not queued) is a prompt.
        let got = signals(&[PROMPT, PROMPT]);
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn an_interrupt_ends_the_turn_only_when_the_turn_did_not_go_on() {
        let next = r#"{"type":"user","uuid":"u3","sessionId":"s","timestamp":"2026-01-01T00:00:10Z","message":{"content":"Start over"}}"#;
        assert_eq!(
            signals(&[PROMPT, INTERRUPT, next])[1..],
            ["Interrupt", "Prompt { text: \"Start over\" }"]
        );
        assert_eq!(signals(&[PROMPT, INTERRUPT])[1..], ["Interrupt"]);
        for then in [ENQUEUE, CALL] {
            let got = signals(&[PROMPT, INTERRUPT, then, RESULT]);
            assert_eq!(got[1], "InterruptWentOn", "{got:?}");
        }
    }

    #[test]
    fn placeholders_are_no_prompt_and_no_text() {
        let placeholder =
            r#"{"type":"user","uuid":"u9","sessionId":"s","message":{"content":"(no content)"}}"#;
        let empty_text = r#"{"type":"assistant","uuid":"a9","sessionId":"s","message":{"content":[{"type":"text","text":"(no content)"}]}}"#;
        assert_eq!(
            signals(&[PROMPT, placeholder, empty_text]),
            ["Prompt { text: \"Fix the test\" }"]
        );
    }

    #[test]
    fn the_last_text_is_read_back_to_the_turns_prompt() {
        let text = |t: &str| serde_json::json!({"type": "assistant", "message": {"content": [{"type": "text", "text": t}]}});
        let user = serde_json::json!({"type": "user", "message": {"content": "go"}});
        let result = serde_json::json!({"type": "user", "message": {"content": [{"type": "tool_result", "content": "x"}]}});
        assert!(matches!(last_text_of(&text("done")), LastText::Text(t) if t == "done"));
        assert!(matches!(
            last_text_of(&text("(no content)")),
            LastText::Nothing
        ));
        assert!(matches!(last_text_of(&user), LastText::Boundary));
        let call = serde_json::json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Bash"}]}});
        assert!(matches!(last_text_of(&call), LastText::Boundary));
        assert!(matches!(last_text_of(&result), LastText::Nothing));
    }
}
