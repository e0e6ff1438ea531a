//! `record`: one typed event from the model, through the same parsing, validation, redaction
//! and artifact routing as `remaind log --json-event`.

use remaind_events::Kind;

use remaind_ledger::AppendRequest;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::ToolError;
use crate::registry::{Effect, ToolDef, def};
use crate::session::Session;

/// The kinds a model records (tool calls, their results and assistant messages come from
/// hooks, bookkeeping from Remaind itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RecordKind {
    /// What the user said, verbatim (where no hook records it: the latest one is what a
    /// resumed agent follows, and every one is kept through compaction).
    UserMessage,
    /// A choice later work depends on; it survives every compaction.
    Decision,
    /// Replaces earlier events: give `supersedes`.
    Correction,
    /// A rule the work must keep.
    Constraint,
    /// Something the user asked to be remembered (always importance 3).
    Remember,
    /// Something that stops progress until a later event resolves it.
    Blocker,
    /// Completed work; give `resolves` for the next step or blocker it closes.
    Result,
    /// The next planned step; active until a later event resolves it.
    NextStep,
    /// A free-form note.
    Note,
    /// A file was changed (put the path in `text` or `data`).
    FileChange,
}

impl RecordKind {
    fn kind(self) -> Kind {
        match self {
            RecordKind::UserMessage => Kind::UserMessage,
            RecordKind::Decision => Kind::Decision,
            RecordKind::Correction => Kind::Correction,
            RecordKind::Constraint => Kind::Constraint,
            RecordKind::Remember => Kind::Remember,
            RecordKind::Blocker => Kind::Blocker,
            RecordKind::Result => Kind::Result,
            RecordKind::NextStep => Kind::NextStep,
            RecordKind::Note => Kind::Note,
            RecordKind::FileChange => Kind::FileChange,
        }
    }
}

/// A tool named by the event.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolArg {
    /// The tool's name (as in tools.yaml), e.g. `pytest`.
    name: String,
    /// Its input, any JSON.
    #[serde(default)]
    input: Option<Value>,
    /// Its output, any JSON; large output is moved to artifacts/.
    #[serde(default)]
    output: Option<Value>,
}

/// One event to record.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecordArgs {
    /// What kind of fact this is.
    kind: RecordKind,
    /// The fact in one or two sentences, e.g. "Use SQLite for the index".
    #[serde(default)]
    text: Option<String>,
    /// 0 (trace) to 3 (must never be lost); defaulted by kind.
    #[serde(default)]
    #[schemars(range(max = 3))]
    importance: Option<u8>,
    /// Who produced it: `user`, `assistant`, or an agent's name.
    #[serde(default)]
    actor: Option<String>,
    /// Ids of earlier events this one refers to, e.g. ["e12"].
    #[serde(default)]
    #[schemars(inner(regex(pattern = "^e[1-9][0-9]*$")))]
    refs: Vec<String>,
    /// Ids this event replaces (required for a correction).
    #[serde(default)]
    #[schemars(inner(regex(pattern = "^e[1-9][0-9]*$")))]
    supersedes: Vec<String>,
    /// Ids this event closes (a result closing a next_step or blocker).
    #[serde(default)]
    #[schemars(inner(regex(pattern = "^e[1-9][0-9]*$")))]
    resolves: Vec<String>,
    /// A tool involved.
    #[serde(default)]
    tool: Option<ToolArg>,
    /// Any JSON object with details.
    #[serde(default)]
    data: Option<Map<String, Value>>,
}

impl RecordArgs {
    /// The arguments as the JSON event `remaind log --json-event` takes, so both share one
    /// parser and its messages.
    fn into_json_event(self) -> Value {
        let mut obj = Map::new();
        obj.insert("kind".into(), Value::from(self.kind.kind().as_str()));
        let optional = [
            ("text", self.text.map(Value::from)),
            ("actor", self.actor.map(Value::from)),
            ("importance", self.importance.map(Value::from)),
            ("data", self.data.map(Value::Object)),
        ];
        for (key, value) in optional {
            if let Some(v) = value {
                obj.insert(key.into(), v);
            }
        }
        for (key, ids) in [
            ("refs", self.refs),
            ("supersedes", self.supersedes),
            ("resolves", self.resolves),
        ] {
            if !ids.is_empty() {
                obj.insert(key.into(), ids.into_iter().map(Value::from).collect());
            }
        }
        if let Some(t) = self.tool {
            let mut tool = Map::new();
            tool.insert("name".into(), Value::from(t.name));
            for (key, v) in [("input", t.input), ("output", t.output)] {
                if let Some(v) = v {
                    tool.insert(key.into(), v);
                }
            }
            obj.insert("tool".into(), Value::Object(tool));
        }
        Value::Object(obj)
    }
}

/// What was recorded.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Recorded {
    /// The new event's id; cite it in later `refs`, `supersedes` or `resolves`.
    id: String,
    /// Its sequence number in the ledger.
    seq: u64,
    /// Its kind.
    kind: String,
    /// Its importance after defaults.
    importance: u8,
    /// When it was appended (RFC 3339 UTC).
    ts: String,
    /// How many secrets were replaced by placeholders before it was written.
    redactions: usize,
    /// How many parts were moved to artifacts/ (large or binary output).
    artifacts: usize,
}

fn record(session: &Session, args: RecordArgs) -> Result<Recorded, ToolError> {
    // Parse and check the input before opening (and possibly recovering) the ledger.
    let event = remaind_ledger::new_event_from_value(args.into_json_event())?;
    let (_, ledger) = session.ledger()?;
    let id = ledger.append(AppendRequest::from(event))?[0];
    let ev = ledger.get(id.seq())?.ok_or_else(|| ToolError {
        message: format!("{id} was appended but cannot be read back"),
        invalid_input: false,
    })?;
    Ok(Recorded {
        id: id.to_string(),
        seq: ev.seq,
        kind: ev.kind.as_str().to_owned(),
        importance: ev.importance,
        ts: ev.ts,
        redactions: ev.redactions.len(),
        artifacts: ev.artifact.len(),
    })
}

pub(crate) fn record_tool() -> ToolDef {
    def(
        "record",
        "Record a fact in the ledger",
        "Append one event to the project's hash-chained ledger: a decision, a correction \
(with `supersedes`), a constraint, a remember-instruction, a blocker, a result (with \
`resolves` for the next_step or blocker it closes), the next_step, a note or a file_change. \
Secrets are redacted before anything is written; invalid input writes nothing and the error \
names the field. Returns the new id.",
        Effect::Writes,
        record,
    )
}
