//! Appending events as `remaind log` is given them: from flags, one JSON event, or JSON
//! Lines (one batch). The flags become the JSON object a caller would give, so flag and
//! JSON input share one set of checks and messages.
//!
//! A [`LogRequest`] is checked when it is made, before any folder is opened (so bad input
//! is refused even where there is no ledger); [`log`] appends it.

use remaind_events::{EventId, NewEvent};
use remaind_fs::ContextDir;
use remaind_ledger::{AppendRequest, Ledger};
use serde_json::{Map, Value};

use crate::{Error, Result};

/// One event as flags give it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LogFlags {
    /// The event's kind, e.g. `decision` (required).
    pub kind: Option<String>,
    /// The event's text.
    pub text: Option<String>,
    /// Importance 0..=3 (default by kind).
    pub importance: Option<u8>,
    /// Who produced it.
    pub actor: Option<String>,
    /// Ids this event replaces.
    pub supersedes: Vec<String>,
    /// Ids this event closes.
    pub resolves: Vec<String>,
    /// Ids this event refers to.
    pub refs: Vec<String>,
    /// The tool involved (its name).
    pub tool: Option<String>,
    /// A JSON object to attach as `data`, as text.
    pub data: Option<String>,
}

/// Events checked and ready for [`log`].
#[derive(Debug, Clone)]
pub struct LogRequest(Request);

#[derive(Debug, Clone)]
enum Request {
    /// One event, with a tool's output.
    One(Box<NewEvent>, Option<Vec<u8>>),
    /// JSON Lines, one batch.
    Lines(Vec<u8>),
}

impl LogRequest {
    /// One event from flags, with a tool's output (large or binary output goes to
    /// artifacts).
    pub fn from_flags(flags: &LogFlags, output: Option<Vec<u8>>) -> Result<LogRequest> {
        LogRequest::from_value(flags_event(flags)?, output)
    }

    /// One event as a JSON object, with a tool's output.
    pub fn from_json(json: &str, output: Option<Vec<u8>>) -> Result<LogRequest> {
        let value = remaind_ledger::parse_json_strict(json.as_bytes()).map_err(|source| {
            Error::MalformedJson {
                what: "--json-event",
                source,
            }
        })?;
        LogRequest::from_value(value, output)
    }

    /// JSON Lines, one event per line, appended as one batch (all or nothing; an error
    /// names the line).
    pub fn from_json_lines(input: Vec<u8>) -> Result<LogRequest> {
        if input.iter().all(u8::is_ascii_whitespace) {
            return Err(Error::NoEvents);
        }
        Ok(LogRequest(Request::Lines(input)))
    }

    fn from_value(value: Value, output: Option<Vec<u8>>) -> Result<LogRequest> {
        let event = remaind_ledger::new_event_from_value(value)?;
        Ok(LogRequest(Request::One(Box::new(event), output)))
    }
}

/// Appends the request's events to the folder's ledger (validated and redacted before
/// anything touches disk; on invalid input nothing is written) and returns their ids.
pub fn log(ctx: &ContextDir, request: LogRequest) -> Result<Vec<EventId>> {
    let ledger = Ledger::open(ctx.root())?;
    let ids = match request.0 {
        Request::One(event, output) => ledger.append(AppendRequest::with_output(*event, output)),
        Request::Lines(input) => ledger.append(AppendRequest::json_lines(&input)),
    }?;
    Ok(ids)
}

fn ids(list: &[String]) -> Value {
    Value::Array(
        list.iter()
            .map(|s| Value::String(s.trim().to_owned()))
            .collect(),
    )
}

/// The flags as the JSON object a caller would give.
fn flags_event(flags: &LogFlags) -> Result<Value> {
    let Some(kind) = &flags.kind else {
        return Err(Error::NoKind);
    };
    let mut obj = Map::new();
    obj.insert("kind".into(), Value::String(kind.clone()));
    if let Some(t) = &flags.text {
        obj.insert("text".into(), Value::String(t.clone()));
    }
    if let Some(a) = &flags.actor {
        obj.insert("actor".into(), Value::String(a.clone()));
    }
    if let Some(i) = flags.importance {
        obj.insert("importance".into(), Value::from(i));
    }
    if let Some(d) = &flags.data {
        let v: Value = remaind_ledger::parse_json_strict(d.as_bytes()).map_err(|source| {
            Error::MalformedJson {
                what: "field `data`",
                source,
            }
        })?;
        obj.insert("data".into(), v);
    }
    for (key, list) in [
        ("refs", &flags.refs),
        ("supersedes", &flags.supersedes),
        ("resolves", &flags.resolves),
    ] {
        if !list.is_empty() {
            obj.insert(key.into(), ids(list));
        }
    }
    if let Some(t) = &flags.tool {
        let mut tool = Map::new();
        tool.insert("name".into(), Value::String(t.clone()));
        obj.insert("tool".into(), Value::Object(tool));
    }
    Ok(Value::Object(obj))
}
