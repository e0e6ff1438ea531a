//! The runtime-neutral signals both runtimes produce, and where each came from.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use remaind_redact::Redactor;
use serde_json::{Map, Value};

/// An agent runtime Remaind has an adapter for. With the cargo feature `clap`, a command-line
/// value named as [`Runtime::as_str`] says (each variant's line below is its help).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Runtime {
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
    /// Cursor's agent (.cursor/hooks.json).
    Cursor,
    /// Google's Gemini CLI (.gemini/settings.json).
    Gemini,
    /// OpenCode (the plugin .opencode/plugins/remaind.js).
    #[cfg_attr(feature = "clap", value(name = "opencode"))]
    OpenCode,
}

impl Runtime {
    /// The name used on the command line and in `data.origin.runtime`.
    pub fn as_str(self) -> &'static str {
        match self {
            Runtime::ClaudeCode => "claude-code",
            Runtime::Codex => "codex",
            Runtime::Cursor => "cursor",
            Runtime::Gemini => "gemini",
            Runtime::OpenCode => "opencode",
        }
    }

    /// Every runtime, in the order the docs list them.
    pub fn all() -> [Runtime; 5] {
        [
            Runtime::ClaudeCode,
            Runtime::Codex,
            Runtime::Cursor,
            Runtime::Gemini,
            Runtime::OpenCode,
        ]
    }

    /// Whether Remaind reads this runtime's transcripts (import, the hooks' follower):
    /// Claude Code's and Codex's. The others are captured through their hooks only.
    pub fn reads_transcripts(self) -> bool {
        matches!(self, Runtime::ClaudeCode | Runtime::Codex)
    }

    /// The `actor` of the events the runtime's agent produced.
    pub(crate) fn actor(self) -> &'static str {
        self.as_str()
    }
}

impl fmt::Display for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Runtime {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "claude-code" | "claude" => Ok(Runtime::ClaudeCode),
            "codex" => Ok(Runtime::Codex),
            "cursor" => Ok(Runtime::Cursor),
            "gemini" | "gemini-cli" => Ok(Runtime::Gemini),
            "opencode" => Ok(Runtime::OpenCode),
            other => Err(crate::Error::UnknownName {
                what: "runtime",
                given: other.to_owned(),
                expected: "claude-code, codex, cursor, gemini or opencode",
            }),
        }
    }
}

/// Where a signal came from: stored as `data.origin` on every event it maps to.
///
/// `line` and `ts` are the transcript line's own id and time (an import); `hook` names the
/// hook that delivered it (a live session). The event's own `ts` is always its append time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The runtime.
    pub runtime: Runtime,
    /// The hook event name, e.g. `PostToolUse`, for a hook payload.
    pub hook: Option<String>,
    /// The runtime's session id.
    pub session: Option<String>,
    /// The source line's id (Claude Code's `uuid`, a Codex rollout's line number).
    pub line: Option<String>,
    /// The source line's own timestamp.
    pub ts: Option<String>,
}

impl Source {
    /// A source with only the runtime known.
    pub fn new(runtime: Runtime) -> Self {
        Source {
            runtime,
            hook: None,
            session: None,
            line: None,
            ts: None,
        }
    }

    /// The `data.origin` object.
    pub(crate) fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("runtime".into(), self.runtime.as_str().into());
        for (k, v) in [
            ("hook", &self.hook),
            ("session", &self.session),
            ("line", &self.line),
            ("ts", &self.ts),
        ] {
            if let Some(v) = v.as_ref().filter(|v| !v.is_empty()) {
                m.insert(k.into(), v.clone().into());
            }
        }
        Value::Object(m)
    }

    /// The import key of the line: `runtime`, session and line id, when it has a line id.
    pub(crate) fn line_key(&self) -> Option<String> {
        let line = self.line.as_deref().filter(|l| !l.is_empty())?;
        Some(line_key(
            self.runtime.as_str(),
            self.session.as_deref().unwrap_or(""),
            line,
        ))
    }
}

/// The import key of the transcript line `ev` came from, when it came from one of
/// `runtime`'s (its `data.origin` names the runtime and a line id).
pub(crate) fn origin_key(ev: &remaind_events::Event, runtime: Runtime) -> Option<String> {
    let src = ev.data.as_ref()?.get("origin")?;
    let field = |k: &str| src.get(k).and_then(Value::as_str);
    if field("runtime") != Some(runtime.as_str()) {
        return None;
    }
    Some(line_key(
        runtime.as_str(),
        field("session").unwrap_or(""),
        field("line")?,
    ))
}

/// The de-duplication key of a source line.
pub(crate) fn line_key(runtime: &str, session: &str, line: &str) -> String {
    format!("{runtime}\u{1f}{session}\u{1f}{line}")
}

/// What a runtime told us, whatever the runtime: the unit the mapping core turns into
/// ledger events.
#[derive(Debug, Clone, PartialEq)]
pub enum Signal {
    /// The user typed a prompt.
    Prompt {
        /// The prompt, as typed (slash commands as `/name args`).
        text: String,
    },
    /// The user asked for a compaction with instructions (`/compact <instructions>`).
    CompactInstructions {
        /// The instructions.
        text: String,
    },
    /// The runtime's own summary of the conversation after a compaction.
    CompactSummary {
        /// The summary text.
        text: String,
    },
    /// The assistant's last message of a turn (Stop): the turn ended with it.
    TurnEnd {
        /// The message.
        text: String,
    },
    /// The assistant wrote text during a turn that went on after it (a transcript's
    /// intermediate message, or its last one when the transcript stops mid-turn).
    AssistantText {
        /// The message.
        text: String,
    },
    /// The user interrupted the turn, and nothing but the user's next prompt (or the end of
    /// what was read) followed: the turn ended there.
    Interrupt,
    /// The user interrupted, and the turn went on after it (a queued prompt, a task
    /// notification, more tool calls or text, a compaction): a note that ends no turn.
    InterruptWentOn,
    /// The user typed a prompt while the agent worked (Claude Code's `queue-operation`
    /// `enqueue`): an instruction the agent reads mid-turn, with no prompt line of its own.
    QueuedPrompt {
        /// The prompt, as typed.
        text: String,
    },
    /// Something a hook reported that a resumed agent may want to see, recorded as a
    /// `trace` (a permission asked, a runtime notification, a subagent started, a turn that
    /// failed on an API error).
    RuntimeTrace {
        /// What it is: `data.via` (`permission_request`, `runtime_notification`,
        /// `subagent_start`, `stop_failure`).
        via: String,
        /// What it says, in one line or a few.
        text: String,
    },
    /// The runtime told the agent something without the user (a background task finished).
    Notification {
        /// The notification.
        text: String,
    },
    /// The user ran a command the runtime handles itself, never sent to the model
    /// (`/export`, `/cost`, `/mcp`, …): not an instruction.
    LocalCommand {
        /// The command as typed.
        text: String,
    },
    /// The user asked the runtime to remember a standing rule (Claude Code's `#` input).
    Remember {
        /// The rule.
        text: String,
    },
    /// The conditions the runtime runs under, as a transcript line or a hook payload states
    /// them (workspace, model, permission mode, …). Recorded through the framing channel.
    Framing(Framing),
    /// A subagent's last message (SubagentStop).
    SubagentEnd {
        /// The message.
        text: String,
    },
    /// A tool was used and returned.
    ToolUse {
        /// The tool's name.
        name: String,
        /// Its input.
        input: Value,
        /// Its response.
        output: Value,
        /// True when the runtime reported an error.
        failed: bool,
    },
}

/// Runtime framing as a runtime states it: the values it gave, each only when given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Framing {
    /// The workspace the agent works in (`cwd`).
    pub workspace: Option<String>,
    /// The model in force.
    pub model: Option<String>,
    /// Further settings, e.g. `runtime=claude-code 2.1.39`, `permission_mode=plan`,
    /// `git_branch=main`, `sandbox=workspace-write`, `effort=high`.
    pub settings: std::collections::BTreeMap<String, String>,
}

impl Framing {
    /// True when it states nothing.
    pub fn is_empty(&self) -> bool {
        self.workspace.is_none() && self.model.is_none() && self.settings.is_empty()
    }

    /// `newer` laid over `self`: what it states replaces, what it does not state stays.
    pub fn merge(&mut self, newer: Framing) {
        if newer.workspace.is_some() {
            self.workspace = newer.workspace;
        }
        if newer.model.is_some() {
            self.model = newer.model;
        }
        self.settings.extend(newer.settings);
    }

    /// Replace every secret `redactor` finds in the values.
    pub fn redact(&mut self, redactor: &Redactor) {
        let values = self
            .workspace
            .iter_mut()
            .chain(self.model.iter_mut())
            .chain(self.settings.values_mut());
        for v in values {
            if let (Cow::Owned(clean), _) = redactor.redact_str(v) {
                *v = clean;
            }
        }
    }
}

/// One signal and its source.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Where it came from.
    pub source: Source,
    /// What it says.
    pub signal: Signal,
}

impl Record {
    /// Replace every secret `redactor` finds in what the mapping may cut: the signal's text
    /// and a tool's input (its description). A tool's output reaches events only whole (the
    /// stored payload, an answer's text), where the ledger's own pass redacts it, so it is
    /// not redacted twice.
    pub fn redact(&mut self, redactor: &Redactor) {
        let text = match &mut self.signal {
            Signal::Prompt { text }
            | Signal::CompactInstructions { text }
            | Signal::CompactSummary { text }
            | Signal::TurnEnd { text }
            | Signal::AssistantText { text }
            | Signal::Notification { text }
            | Signal::LocalCommand { text }
            | Signal::Remember { text }
            | Signal::QueuedPrompt { text }
            | Signal::RuntimeTrace { text, .. }
            | Signal::SubagentEnd { text } => text,
            // A failure's text is cut into `data.error`: redacted whole first.
            Signal::ToolUse {
                input,
                output,
                failed,
                ..
            } => {
                redactor.redact_json(input);
                if *failed {
                    redactor.redact_json(output);
                }
                return;
            }
            Signal::Framing(framing) => {
                framing.redact(redactor);
                return;
            }
            Signal::Interrupt | Signal::InterruptWentOn => return,
        };
        if let (Cow::Owned(clean), _) = redactor.redact_str(text) {
            *text = clean;
        }
    }
}
