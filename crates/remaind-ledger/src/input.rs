//! Turning caller input (JSON objects, JSON Lines) into [`NewEvent`]s with errors that name
//! the field and the fix.

use crate::strict::{StrictObject, StrictValue};
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use remaind_events::{EventId, Kind, NewEvent, Tool};

/// One event to append, plus an optional binary payload (a tool's raw output).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Entry {
    /// The event.
    pub(crate) event: NewEvent,
    /// A tool's raw output, possibly binary.
    pub(crate) output_bytes: Option<Vec<u8>>,
}

impl From<NewEvent> for Entry {
    fn from(event: NewEvent) -> Self {
        Entry {
            event,
            output_bytes: None,
        }
    }
}

/// What one [`Ledger::append`](crate::Ledger::append) writes: one event or a batch, all or
/// nothing.
///
/// A [`NewEvent`] converts into a one-event request (its errors carry no line number); a
/// `Vec<NewEvent>` or any iterator of them collects into a batch, whose errors name the
/// 1-based position in the batch as `line`. [`AppendRequest::json_lines`] and
/// [`AppendRequest::built`] make batches from JSON Lines input and from the head;
/// [`AppendRequest::system`] and [`AppendRequest::unless`] are for Remaind's own layers.
pub struct AppendRequest<'a> {
    pub(crate) source: Source<'a>,
    /// Bookkeeping kinds accepted (events written by Remaind itself).
    pub(crate) system: bool,
    pub(crate) unless: Option<Unless<'a>>,
}

/// Where the events of a request come from.
pub(crate) enum Source<'a> {
    /// One event; its errors carry no line number.
    One(Box<Entry>),
    /// A batch; errors name the 1-based position.
    Many(Vec<Entry>),
    /// JSON Lines, one caller event per line; errors name the physical line.
    JsonLines(&'a [u8]),
    /// Built from the head, under the lock.
    Built(Box<dyn FnOnce(u64) -> Vec<NewEvent> + 'a>),
}

/// The condition of [`AppendRequest::unless`].
pub(crate) struct Unless<'a> {
    pub(crate) kinds: &'a [Kind],
    pub(crate) since: u64,
    pub(crate) files: &'a [(&'a str, &'a [u8])],
}

impl std::fmt::Debug for AppendRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let source = match &self.source {
            Source::One(_) => "one event",
            Source::Many(_) => "a batch",
            Source::JsonLines(_) => "JSON Lines",
            Source::Built(_) => "built from the head",
        };
        f.debug_struct("AppendRequest")
            .field("source", &source)
            .field("system", &self.system)
            .field("unless", &self.unless.is_some())
            .finish()
    }
}

impl<'a> AppendRequest<'a> {
    fn of(source: Source<'a>) -> Self {
        AppendRequest {
            source,
            system: false,
            unless: None,
        }
    }

    /// One event with a tool's raw output, possibly binary (e.g. `remaind log --output-file
    /// F`). The output is always redacted with the byte scanner; it is stored inline as
    /// `tool.output` only when it is UTF-8 text without NUL bytes and within the artifact
    /// threshold, otherwise it is routed to `artifacts/`. When it is given, the event's own
    /// `tool.output` must be absent.
    pub fn with_output(event: NewEvent, output: Option<Vec<u8>>) -> Self {
        AppendRequest::of(Source::One(Box::new(Entry {
            event,
            output_bytes: output,
        })))
    }

    /// JSON Lines (one caller event per line, blank lines skipped) as one batch, parsed and
    /// prepared on every core while the lines are chained in order; errors name the physical
    /// 1-based line.
    pub fn json_lines(input: &'a [u8]) -> Self {
        AppendRequest::of(Source::JsonLines(input))
    }

    /// A batch that depends on the head: `build` is called with the head under the ledger's
    /// lock, so its events may cite each other by the ids they will get (`e{head + 1 + i}`)
    /// and no other writer can append before they are written (an importer's batch, built
    /// once, its payloads moved rather than kept for a retry). Other writers wait while the
    /// batch is prepared and written.
    pub fn built(build: impl FnOnce(u64) -> Vec<NewEvent> + 'a) -> Self {
        AppendRequest::of(Source::Built(Box::new(build)))
    }

    /// Events written by Remaind itself: unlike a caller's, they may be of the bookkeeping
    /// kinds (`compaction`, `validation`, `recovery`, `monitor`). Meant for Remaind's own
    /// layers, not for agents.
    pub fn system(mut self) -> Self {
        self.system = true;
        self
    }

    /// A change built on the last event of `kinds` (seq `since`, 0 for none), such as a
    /// compaction built on the state the last one wrote: under the append lock (on a
    /// replica, after catching up with the shared store) an event of those kinds after
    /// `since` refuses the append with [`Error::Raced`], so of two writers that built on the
    /// same event exactly one lands. On a replica, `files` (paths under `.context/`, e.g. the
    /// derived pair the event records) commit to the shared store in the same transaction as
    /// the events; a plain folder ignores them (its caller writes them).
    pub fn unless(
        mut self,
        kinds: &'a [Kind],
        since: u64,
        files: &'a [(&'a str, &'a [u8])],
    ) -> Self {
        self.unless = Some(Unless {
            kinds,
            since,
            files,
        });
        self
    }
}

impl From<NewEvent> for AppendRequest<'_> {
    fn from(event: NewEvent) -> Self {
        AppendRequest::of(Source::One(Box::new(event.into())))
    }
}

impl From<Vec<NewEvent>> for AppendRequest<'_> {
    fn from(events: Vec<NewEvent>) -> Self {
        events.into_iter().collect()
    }
}

impl<const N: usize> From<[NewEvent; N]> for AppendRequest<'_> {
    fn from(events: [NewEvent; N]) -> Self {
        events.into_iter().collect()
    }
}

impl FromIterator<NewEvent> for AppendRequest<'_> {
    fn from_iter<I: IntoIterator<Item = NewEvent>>(events: I) -> Self {
        AppendRequest::of(Source::Many(events.into_iter().map(Entry::from).collect()))
    }
}

const CALLER_FIELDS: [&str; 9] = [
    "kind",
    "text",
    "actor",
    "importance",
    "data",
    "refs",
    "supersedes",
    "resolves",
    "tool",
];
const ASSIGNED_FIELDS: [&str; 7] = ["v", "seq", "id", "ts", "prev", "artifact", "redactions"];

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn expected(field: &str, what: &str, got: &Value) -> Error {
    Error::invalid(field, format!("expected {what}, got {}", type_name(got)))
}

fn parse_ids(field: &str, v: Value) -> Result<Vec<EventId>> {
    let Value::Array(items) = v else {
        return Err(expected(field, "an array of event ids like [\"e3\"]", &v));
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let Value::String(s) = &item else {
            return Err(expected(field, "event ids as strings like \"e3\"", &item));
        };
        let id: EventId = s
            .parse()
            .map_err(|e: remaind_events::Error| Error::invalid(field, e.to_string()))?;
        out.push(id);
    }
    Ok(out)
}

/// Parse the kind of an event a caller logs: the kinds Remaind writes itself are neither
/// suggested nor listed, since `log` refuses them.
fn parse_caller_kind(s: &str) -> Result<Kind> {
    let caller: Vec<Kind> = Kind::ALL
        .into_iter()
        .filter(|k| !k.is_bookkeeping())
        .collect();
    match s.parse::<Kind>() {
        // A bookkeeping kind is refused at append time with its own message.
        Ok(kind) => Ok(kind),
        Err(_) => Kind::parse_among(s, &caller).map_err(|e| Error::invalid("kind", e.to_string())),
    }
}

/// Parse one event as given by a caller from a JSON value.
///
/// Errors name the field and the fix: unknown fields, fields the ledger assigns, wrong types,
/// unknown kinds (listing the valid ones), malformed ids. Range and citation rules are checked
/// at append time.
pub fn new_event_from_value(value: Value) -> Result<NewEvent> {
    let Value::Object(obj) = value else {
        return Err(Error::invalid(
            "line",
            format!(
                "expected a JSON object like {{\"kind\":\"note\",\"text\":\"…\"}}, got {}",
                type_name(&value)
            ),
        ));
    };
    let mut ev = NewEvent::default();
    for (key, v) in obj {
        match key.as_str() {
            "kind" => {
                let Value::String(s) = &v else {
                    return Err(expected("kind", "a string such as \"note\"", &v));
                };
                ev.kind = Some(parse_caller_kind(s)?);
            }
            "text" => match v {
                Value::String(s) => ev.text = Some(s),
                Value::Null => {}
                other => return Err(expected("text", "a string", &other)),
            },
            "actor" => match v {
                Value::String(s) => ev.actor = Some(s),
                Value::Null => {}
                other => return Err(expected("actor", "a string", &other)),
            },
            "importance" => match &v {
                Value::Null => {}
                Value::Number(n) => match n.as_u64() {
                    Some(i) if i <= 3 => ev.importance = Some(i as u8),
                    _ => {
                        return Err(Error::invalid(
                            "importance",
                            format!("{n} is out of range; use an integer 0, 1, 2 or 3"),
                        ));
                    }
                },
                other => return Err(expected("importance", "an integer 0..=3", other)),
            },
            "data" => match v {
                Value::Object(m) => ev.data = Some(m),
                Value::Null => {}
                other => return Err(expected("data", "a JSON object", &other)),
            },
            "refs" => ev.refs = parse_ids("refs", v)?,
            "supersedes" => ev.supersedes = parse_ids("supersedes", v)?,
            "resolves" => ev.resolves = parse_ids("resolves", v)?,
            "tool" => ev.tool = Some(parse_tool(v)?),
            other if ASSIGNED_FIELDS.contains(&other) => {
                return Err(Error::invalid(
                    other,
                    "is assigned by the ledger; remove it from the input",
                ));
            }
            other => {
                return Err(Error::invalid(
                    other,
                    format!(
                        "unknown field; expected one of: {}",
                        CALLER_FIELDS.join(", ")
                    ),
                ));
            }
        }
    }
    if ev.kind.is_none() {
        let names: Vec<&str> = Kind::ALL
            .iter()
            .filter(|k| !k.is_bookkeeping())
            .map(|k| k.as_str())
            .collect();
        return Err(Error::invalid(
            "kind",
            format!("is required; use one of: {}", names.join(", ")),
        ));
    }
    Ok(ev)
}

fn parse_tool(v: Value) -> Result<Tool> {
    let Value::Object(obj) = v else {
        return Err(expected(
            "tool",
            "an object like {\"name\":\"bash\",\"input\":…,\"output\":…}",
            &v,
        ));
    };
    let mut name = None;
    let mut input = Value::Null;
    let mut output = Value::Null;
    for (key, v) in obj {
        match key.as_str() {
            "name" => match v {
                Value::String(s) => name = Some(s),
                other => return Err(expected("tool.name", "a string", &other)),
            },
            "input" => input = v,
            "output" => output = v,
            other => {
                return Err(Error::invalid(
                    format!("tool.{other}"),
                    "unknown field; expected one of: name, input, output",
                ));
            }
        }
    }
    let name =
        name.ok_or_else(|| Error::invalid("tool.name", "is required when `tool` is given"))?;
    Ok(Tool {
        name,
        input,
        output,
    })
}

/// Parse one line of JSON Lines input (errors without a line number).
///
/// The line is first read straight into the typed shape [`Wire`], which accepts a subset of
/// what [`new_event_from_value`] accepts and gives the same event for it; anything else (an
/// unknown, assigned or repeated field, a wrong type, an out-of-range importance, malformed
/// JSON) is read again through a generic value, whose errors name the field and the fix.
pub(crate) fn parse_line(line: &[u8]) -> Result<NewEvent> {
    if let Ok(wire) = serde_json::from_slice::<Wire>(line)
        && let Some(ev) = wire.into_event()
    {
        return Ok(ev);
    }
    let value: Value = crate::strict::parse_json_strict(line)
        .map_err(|e| Error::invalid("line", format!("malformed JSON: {}", on_one_line(&e))))?;
    new_event_from_value(value)
}

/// A JSON error inside one line of JSON Lines: the line is numbered by the caller, so the
/// position is its column alone ("… at column 16", not "… at line 1 column 16").
fn on_one_line(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    match full.strip_suffix(&position) {
        Some(message) if e.line() == 1 => format!("{message} at column {}", e.column()),
        _ => full,
    }
}

/// A caller's event as the common case writes it. Serde refuses unknown and repeated fields
/// and every type [`new_event_from_value`] refuses (a null `refs` or `tool` included); the
/// importance range is checked by [`Wire::into_event`].
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    /// A string (a `Kind` would also take serde's `{"note":null}` enum form).
    kind: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    actor: Option<String>,
    #[serde(default)]
    importance: Option<u64>,
    #[serde(default)]
    data: Option<StrictObject>,
    #[serde(default)]
    refs: Vec<EventId>,
    #[serde(default)]
    supersedes: Vec<EventId>,
    #[serde(default)]
    resolves: Vec<EventId>,
    #[serde(default, deserialize_with = "present_tool")]
    tool: Option<WireTool>,
}

/// `tool` as [`parse_tool`] accepts it.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireTool {
    name: String,
    #[serde(default)]
    input: Option<StrictValue>,
    #[serde(default)]
    output: Option<StrictValue>,
}

/// A `tool` that is present must be an object (`null` is refused, as by [`parse_tool`]).
fn present_tool<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<WireTool>, D::Error> {
    <WireTool as serde::Deserialize>::deserialize(d).map(Some)
}

impl Wire {
    /// The event, or `None` when [`new_event_from_value`] must decide.
    fn into_event(self) -> Option<NewEvent> {
        let importance = match self.importance {
            None => None,
            Some(i) if i <= 3 => Some(i as u8),
            Some(_) => return None,
        };
        Some(NewEvent {
            kind: Some(self.kind.parse().ok()?),
            text: self.text,
            actor: self.actor,
            importance,
            data: self.data.map(|d| d.0),
            refs: self.refs,
            supersedes: self.supersedes,
            resolves: self.resolves,
            tool: self.tool.map(|t| Tool {
                name: t.name,
                input: t.input.map_or(Value::Null, |v| v.0),
                output: t.output.map_or(Value::Null, |v| v.0),
            }),
        })
    }
}

/// Build a [`Map`] from pairs; a small helper for bookkeeping events.
pub(crate) fn object<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::*;

    /// What the generic path alone makes of a line (with the strict reader that refuses
    /// repeated keys, as every caller's line is read).
    fn generic(line: &[u8]) -> Result<NewEvent> {
        let value: Value = crate::strict::parse_json_strict(line)
            .map_err(|e| Error::invalid("line", format!("malformed JSON: {}", on_one_line(&e))))?;
        new_event_from_value(value)
    }

    fn same(line: &[u8]) {
        let fast = parse_line(line).map_err(|e| e.to_string());
        let slow = generic(line).map_err(|e| e.to_string());
        assert_eq!(fast, slow, "{}", String::from_utf8_lossy(line));
    }

    #[test]
    fn the_typed_path_agrees_with_the_generic_one_on_edge_cases() {
        for line in [
            r#"{"kind":"note","text":"a"}"#,
            r#"{"kind":"note","text":null,"actor":null,"importance":null,"data":null}"#,
            r#"{"kind":"note","refs":null}"#,
            r#"{"kind":"note","tool":null}"#,
            r#"{"kind":"note","tool":{"name":"x","input":null,"output":[1,{"a":null}]}}"#,
            r#"{"kind":"note","tool":{"name":"x","extra":1}}"#,
            r#"{"kind":"note","tool":{"input":1}}"#,
            r#"{"kind":"note","text":"a","text":"b"}"#,
            r#"{"kind":"note","data":{"k":1,"k":2,"j":3}}"#,
            r#"{"kind":"note","importance":3}"#,
            r#"{"kind":"note","importance":7}"#,
            r#"{"kind":"note","importance":2.0}"#,
            r#"{"kind":"note","importance":-1}"#,
            r#"{"kind":"note","importance":"2"}"#,
            r#"{"kind":"bogus"}"#,
            r#"{"kind":null}"#,
            r#"{"kind":{"note":null}}"#,
            r#"{"kind":"note","tool":{"name":{"x":null}}}"#,
            r#"{"text":"no kind"}"#,
            r#"{"kind":"note","seq":3}"#,
            r#"{"kind":"note","colour":"red"}"#,
            r#"{"kind":"correction","supersedes":["e1","e2"],"refs":["e0"]}"#,
            r#"{"kind":"note","refs":["e1",2]}"#,
            r#"["kind","note"]"#,
            r#"{"kind":"note""#,
            r#"{"kind":"note","text":"\u00e9\n"}"#,
        ] {
            same(line.as_bytes());
        }
    }

    fn any_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            Just(json!(true)),
            (-2i64..6).prop_map(|n| json!(n)),
            Just(json!(2.0)),
            "[a-z ]{0,6}".prop_map(Value::String),
            prop::sample::select(vec!["note", "decision", "remember", "bogus", "e1", "e0"])
                .prop_map(|s| json!(s)),
            Just(json!({"note": null})),
            Just(json!(["e1", "e2"])),
            Just(json!(["e1", "e1"])),
            Just(json!({"name": "bash", "output": "x"})),
            Just(json!({"name": "bash", "input": null, "extra": 1})),
            Just(json!({"k": [1, null]})),
        ]
    }

    proptest! {
        /// Any object of caller (and other) fields: the typed path and the generic one give
        /// the same event or the same error.
        #[test]
        fn prop_typed_and_generic_parsing_agree(
            fields in prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "kind", "text", "actor", "importance", "data", "refs", "supersedes",
                        "resolves", "tool", "seq", "other",
                    ]),
                    any_value(),
                ),
                0..7,
            )
        ) {
            let mut line = String::from("{");
            for (i, (k, v)) in fields.iter().enumerate() {
                if i > 0 {
                    line.push(',');
                }
                line.push_str(&format!("{}:{v}", json!(k)));
            }
            line.push('}');
            same(line.as_bytes());
        }
    }
}
