//! Everything that happens to an event before it gets its place in the log: typed checks,
//! redaction, artifact routing and schema validation (with placeholder assigned fields, which
//! are later replaced by values that are valid by construction).

use std::borrow::Cow;

use remaind_artifacts::Content;
use remaind_redact::{Applied, Redactor};
use serde_json::{Map, Value};

use crate::config::Limits;
use crate::error::{Error, Result};
use crate::input::Entry;
use crate::schema;
use remaind_events::{
    ArtifactRecord, EventId, GENESIS_PREV, Kind, NewEvent, RedactionRecord, Tool,
};

/// Content routed out of an event, not yet written to the store.
#[derive(Debug)]
pub(crate) struct PendingArtifact {
    pub(crate) content: Content,
    pub(crate) media_type: String,
}

/// An event ready for its seq, id, ts and prev: checked against the schema with placeholder
/// assigned fields, and serialized without them. `body` is the stored line after its header
/// `{"v":1,"seq":N,"id":"eN","ts":"…","prev":"…",` (from `"kind"` to the closing brace);
/// the header, valid by construction, is written in front of it under the lock.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub(crate) body: Vec<u8>,
    pub(crate) refs: Vec<EventId>,
    pub(crate) supersedes: Vec<EventId>,
    pub(crate) resolves: Vec<EventId>,
    pub(crate) artifacts: Vec<PendingArtifact>,
}

/// The marker that replaces a routed field in the stored line.
pub(crate) fn marker(sha256: &str) -> String {
    format!("[artifact:{}]", &sha256[..12])
}

const PLACEHOLDER_TS: &str = "1970-01-01T00:00:00.000000Z";
const MAX_NAME_CHARS: usize = 200;

fn caller_kinds() -> String {
    Kind::ALL
        .iter()
        .filter(|k| !k.is_bookkeeping())
        .map(|k| k.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The checks that need no knowledge of the log: kind, importance, correction, id lists,
/// name lengths. Returns the kind and the effective importance.
pub(crate) fn check_typed(ev: &NewEvent, system: bool) -> Result<(Kind, u8)> {
    let Some(kind) = ev.kind else {
        return Err(Error::invalid(
            "kind",
            format!("is required; use one of: {}", caller_kinds()),
        ));
    };
    if kind.is_bookkeeping() && !system {
        return Err(Error::invalid(
            "kind",
            format!(
                "`{kind}` events are written by Remaind itself; log one of: {}",
                caller_kinds()
            ),
        ));
    }
    let importance = match ev.importance {
        None => kind.default_importance(),
        Some(i) if i > 3 => {
            return Err(Error::invalid(
                "importance",
                format!("{i} is out of range; use an integer 0, 1, 2 or 3"),
            ));
        }
        Some(i) if i < kind.min_importance() => {
            let min = kind.min_importance();
            let fix = if min == 3 {
                "use 3 or leave it out".to_owned()
            } else {
                format!("use {min}..=3 or leave it out")
            };
            return Err(Error::invalid(
                "importance",
                format!("{i} is below the minimum {min} for `{kind}`; {fix}"),
            ));
        }
        Some(i) => i,
    };
    if kind.needs_text() && ev.text.as_deref().is_none_or(|t| t.trim().is_empty()) {
        return Err(Error::invalid(
            "text",
            format!(
                "a `{kind}` is its text and this one has none; give it (`--text \"…\"`, or \"text\" in JSON)"
            ),
        ));
    }
    if !system && holds_nothing(ev) {
        return Err(Error::invalid(
            "text",
            format!(
                "this `{kind}` holds nothing (no text, data, tool or ids); give its text (`--text \"…\"`, or \"text\" in JSON)"
            ),
        ));
    }
    if kind == Kind::Correction && ev.supersedes.is_empty() {
        return Err(Error::invalid(
            "supersedes",
            "a `correction` must supersede at least one event; give the ids it replaces, e.g. [\"e12\"]",
        ));
    }
    for (field, ids) in [
        ("refs", &ev.refs),
        ("supersedes", &ev.supersedes),
        ("resolves", &ev.resolves),
    ] {
        for (i, id) in ids.iter().enumerate() {
            if ids[..i].contains(id) {
                return Err(Error::invalid(
                    field,
                    format!("lists {id} twice; list each id once"),
                ));
            }
        }
    }
    if let Some(actor) = &ev.actor {
        check_name("actor", actor)?;
    }
    if let Some(tool) = &ev.tool {
        check_name("tool.name", &tool.name)?;
    }
    Ok((kind, importance))
}

/// An event a caller gives with nothing in it: it would only be a line saying "something
/// happened" to every reader after it.
fn holds_nothing(ev: &NewEvent) -> bool {
    ev.text.as_deref().is_none_or(|t| t.trim().is_empty())
        && ev.data.as_ref().is_none_or(Map::is_empty)
        && ev.tool.is_none()
        && ev.refs.is_empty()
        && ev.supersedes.is_empty()
        && ev.resolves.is_empty()
}

fn check_name(field: &str, s: &str) -> Result<()> {
    if s.is_empty() {
        return Err(Error::invalid(
            field,
            "must not be empty; leave the field out instead",
        ));
    }
    // A name is printed on one line (packets, listings): a newline or other control
    // character would let it start a line of its own, e.g. a forged packet section.
    if let Some(c) = s.chars().find(|c| c.is_control()) {
        return Err(Error::invalid(
            field,
            format!(
                "contains the control character U+{:04X}; a name is a single line of printable text",
                u32::from(c)
            ),
        ));
    }
    let n = s.chars().count();
    if n > MAX_NAME_CHARS {
        return Err(Error::invalid(
            field,
            format!("is {n} characters long; use at most {MAX_NAME_CHARS}"),
        ));
    }
    Ok(())
}

/// Checks that need the log head: every cited id must name an earlier event.
/// `own_seq` is the seq this event will get.
pub(crate) fn check_citations(p: &Prepared, own_seq: u64) -> Result<()> {
    for (field, ids) in [
        ("refs", &p.refs),
        ("supersedes", &p.supersedes),
        ("resolves", &p.resolves),
    ] {
        for id in ids {
            if id.seq() >= own_seq {
                let head = own_seq - 1;
                let reason = if id.seq() == own_seq {
                    format!("cites {id}, which is this event itself; cite earlier events only")
                } else if head == 0 {
                    format!("cites {id}, which does not exist; the ledger is empty so far")
                } else {
                    format!(
                        "cites {id}, which does not exist; the latest event before this one is e{head}"
                    )
                };
                return Err(Error::invalid(field, reason));
            }
        }
    }
    Ok(())
}

struct Work<'a> {
    redactor: &'a Redactor,
    limits: &'a Limits,
    /// The event's strings are known to need no redaction (see [`prepare`]).
    clean: bool,
    /// Remaind wrote this event: the field names of its own schema (`snake_case`) are kept
    /// from redaction, so no user rule can rename `state_sha256` or `memory`.
    own_keys: bool,
    applied: Vec<RedactionRecord>,
    records: Vec<ArtifactRecord>,
    pending: Vec<PendingArtifact>,
    /// The serialized text of the value [`Work::route_or_keep`] last kept inline.
    kept: Option<Vec<u8>>,
}

/// What became of a JSON value of an event.
enum Routed {
    /// Routed to an artifact: the marker that replaced it.
    Marker(String),
    /// Kept inline, with its serialized text when it was serialized.
    Kept(Option<Vec<u8>>),
}

impl Routed {
    fn text(self) -> Option<Vec<u8>> {
        match self {
            Routed::Marker(_) => None,
            Routed::Kept(text) => text,
        }
    }
}

impl Work<'_> {
    /// The event's text, redacted, routed to an artifact when over the limit.
    fn text(&mut self, t: String) -> String {
        let t = self.string(t);
        if !self.over(t.len()) {
            return t;
        }
        let bytes = t.into_bytes();
        let media = remaind_artifacts::sniff_media_type(&bytes);
        self.route("text", bytes, media)
    }

    /// The event's data, redacted (all of it routed to an artifact when over the limit), and
    /// its serialized text when kept inline.
    fn data(
        &mut self,
        kind: Kind,
        system: bool,
        mut map: Map<String, Value>,
    ) -> (Value, Option<Vec<u8>>) {
        // The hashes and ids Remaind writes into its own events are bookkeeping, not user
        // text: no rule, however broad (a `[0-9a-f]{64}` API-key shape, a UUID shape), may
        // change them, or every later resume would find the state unrecorded and every
        // printed memory id would name nothing.
        let own = if system {
            take_own_fields(kind, &mut map)
        } else {
            Vec::new()
        };
        let mut v = Value::Object(map);
        let routed = self.value("data", &mut v);
        if !own.is_empty() && matches!(routed, Routed::Kept(_)) {
            // The kept text has nulls where the own values go: serialized again from `v`.
            put_back_own_fields(&mut v, own);
            return (v, None);
        }
        match routed {
            Routed::Marker(m) => {
                let mut obj = Map::new();
                obj.insert("artifact".to_owned(), Value::String(m));
                (Value::Object(obj), None)
            }
            Routed::Kept(text) => (v, text),
        }
    }

    /// The tool's name, input and output, redacted; the output given as a file
    /// (`output_bytes`) is redacted as bytes and kept inline only when small text.
    fn tool(&mut self, t: Tool, output_bytes: Option<Vec<u8>>) -> ToolParts {
        let name = self.string(t.name);
        let mut input = t.input;
        let input_text = self.value("tool.input", &mut input).text();
        let mut output_text = None;
        let mut output = t.output;
        if let Some(raw) = output_bytes {
            let (bytes, applied) = self.redactor.redact_bytes(&raw);
            self.note(applied);
            let inline = !self.over(bytes.len()) && !bytes.contains(&0);
            let bytes = match String::from_utf8(bytes) {
                Ok(s) if inline => {
                    output = Value::String(s);
                    None
                }
                Ok(s) => Some(s.into_bytes()),
                Err(e) => Some(e.into_bytes()),
            };
            if let Some(bytes) = bytes {
                let media = remaind_artifacts::sniff_media_type(&bytes);
                output = Value::String(self.route("tool.output", bytes, media));
            }
        } else {
            output_text = self.value("tool.output", &mut output).text();
        }
        ToolParts {
            name,
            input,
            output,
            input_text,
            output_text,
        }
    }

    fn note(&mut self, applied: Vec<Applied>) {
        for a in applied {
            if !self
                .applied
                .iter()
                .any(|r| r.rule == a.rule && r.placeholder == a.placeholder)
            {
                self.applied.push(RedactionRecord {
                    rule: a.rule,
                    placeholder: a.placeholder,
                });
            }
        }
    }

    fn str(&mut self, s: &str) -> String {
        let (out, applied) = self.redactor.redact_str(s);
        if !applied.is_empty() {
            self.note(applied);
        }
        out.into_owned()
    }

    /// Redact an owned string, reusing it when nothing was found.
    fn string(&mut self, s: String) -> String {
        if self.clean {
            return s;
        }
        let (out, applied) = self.redactor.redact_str(&s);
        if applied.is_empty() {
            if let Cow::Borrowed(_) = out {
                return s;
            }
        } else {
            self.note(applied);
        }
        out.into_owned()
    }

    /// Route already-redacted bytes to an artifact; returns the marker for the line. The
    /// excerpts are always redacted: cut out of serialized JSON, they may hold what no
    /// string of the event did.
    fn route(&mut self, field: &str, bytes: Vec<u8>, media_type: &str) -> String {
        let content = Content::new(bytes);
        let sha256 = content.sha256().to_owned();
        let (head, tail) = remaind_artifacts::excerpts(content.bytes(), self.limits.excerpt_bytes);
        let head = self.str(&head);
        let tail = self.str(&tail);
        self.records.push(ArtifactRecord {
            field: field.to_owned(),
            path: remaind_fs::layout::artifact_path(&sha256),
            sha256: sha256.clone(),
            bytes: content.bytes().len() as u64,
            media_type: media_type.to_owned(),
            head,
            tail,
        });
        let m = marker(&sha256);
        if !self.pending.iter().any(|p| p.content.sha256() == sha256) {
            self.pending.push(PendingArtifact {
                content,
                media_type: media_type.to_owned(),
            });
        }
        m
    }

    fn over(&self, len: usize) -> bool {
        len as u64 > self.limits.artifact_threshold_bytes
    }

    /// Redact a JSON value (a tool's input or output, an event's data) and route it to an
    /// artifact if it is too large.
    ///
    /// An object or array is serialized first (its size decides the routing) and its strings
    /// are scanned only when that text is not clean ([`Redactor::json_text_is_clean`]): one
    /// pass over the text instead of a search per string, on the values of nearly every
    /// event. The text is kept for the line ([`Routed::Kept`]), which is then not serialized
    /// twice.
    fn value(&mut self, field: &str, v: &mut Value) -> Routed {
        match self.route_or_keep(field, v) {
            Some(marker) => {
                *v = Value::String(marker.clone());
                Routed::Marker(marker)
            }
            None => Routed::Kept(self.kept.take()),
        }
    }

    fn route_or_keep(&mut self, field: &str, v: &mut Value) -> Option<String> {
        match v {
            Value::Null => None,
            Value::String(s) => {
                let owned = std::mem::take(s);
                *s = self.string(owned);
                if self.over(s.len()) {
                    let bytes = std::mem::take(s).into_bytes();
                    let media = remaind_artifacts::sniff_media_type(&bytes);
                    return Some(self.route(field, bytes, media));
                }
                None
            }
            _ => {
                let mut bytes = serde_json::to_vec(&*v).unwrap_or_default();
                if !self.clean && !self.redactor.serialized_json_is_clean(&bytes) {
                    let applied = if self.own_keys {
                        self.redactor.redact_json_keeping(v, &is_schema_key)
                    } else {
                        self.redactor.redact_json(v)
                    };
                    if !applied.is_empty() {
                        self.note(applied);
                        bytes = serde_json::to_vec(&*v).unwrap_or_default();
                    }
                }
                if self.over(bytes.len()) {
                    return Some(self.route(field, bytes, "application/json"));
                }
                self.kept = Some(bytes);
                None
            }
        }
    }
}

/// Where Remaind keeps its own values in the `data` of an event it wrote itself: the SHA-256
/// hashes of a bookkeeping event (a top-level key ending in `sha256` or `digest`, 64 lowercase
/// hex digits) and the action, ids, event references and markers of a memory note
/// (`memory.action`, `memory.id`, `memory.cites`, `memory.rebase`, `memory.markers`). They are bookkeeping, not user text: each is swapped for
/// `null` before redaction (so no rule sees it, and its key keeps its place) and put back after.
fn take_own_fields(kind: Kind, map: &mut Map<String, Value>) -> Vec<(Vec<String>, Value)> {
    let mut own = Vec::new();
    if kind.is_bookkeeping() {
        for (k, v) in map.iter_mut() {
            if (k.ends_with("sha256") || k.ends_with("digest"))
                && v.as_str().is_some_and(remaind_hash::is_sha256_hex)
            {
                own.push((vec![k.clone()], v.take()));
            }
        }
    }
    if kind == Kind::Note
        && let Some(Value::Object(memory)) = map.get_mut("memory")
    {
        for key in ["action", "id", "cites", "rebase", "markers"] {
            if let Some(v) = memory.get_mut(key)
                && is_memory_bookkeeping(key, v)
            {
                own.push((vec!["memory".to_owned(), key.to_owned()], v.take()));
            }
        }
    }
    own
}

/// Whether `v` has the shape Remaind gives a memory note's `key`: an id `{slug}--{uuid}`, event
/// ids `eN`, marker lines `<!-- {id} eN … -->`. Anything else is redacted like user text.
fn is_memory_bookkeeping(key: &str, v: &Value) -> bool {
    fn event_id(w: &str) -> bool {
        w.strip_prefix('e')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    }
    fn memory_id(w: &str) -> bool {
        w.rsplit_once("--").is_some_and(|(slug, uuid)| {
            !slug.is_empty()
                && slug
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && uuid.len() == 36
                && uuid.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
        })
    }
    fn marker(line: &str) -> bool {
        let Some(inner) = line
            .strip_prefix("<!-- ")
            .and_then(|l| l.strip_suffix(" -->"))
        else {
            return false;
        };
        let mut words = inner.split(' ');
        words.next().is_some_and(memory_id) && words.all(|w| w == "cites" || event_id(w))
    }
    let all = |f: fn(&str) -> bool| {
        v.as_array()
            .is_some_and(|a| a.iter().all(|x| x.as_str().is_some_and(f)))
    };
    match key {
        "action" => v.as_str().is_some_and(is_schema_key),
        "id" => v.as_str().is_some_and(memory_id),
        "cites" | "rebase" => all(event_id),
        "markers" => all(marker),
        _ => false,
    }
}

/// A field name of Remaind's own event schemas: `snake_case`, at most 64 bytes.
fn is_schema_key(key: &str) -> bool {
    key.len() <= 64
        && key.starts_with(|c: char| c.is_ascii_lowercase())
        && key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// Puts the values [`take_own_fields`] took back in their places.
fn put_back_own_fields(v: &mut Value, own: Vec<(Vec<String>, Value)>) {
    for (path, value) in own {
        let pointer: String = path
            .iter()
            .map(|k| format!("/{}", k.replace('~', "~0").replace('/', "~1")))
            .collect();
        if let Some(at) = v.pointer_mut(&pointer) {
            *at = value;
        }
    }
}

/// A tool output given as a file needs a tool to belong to, and no inline output beside it.
fn check_output_file(tool: Option<&Tool>) -> Result<()> {
    match tool {
        None => Err(Error::invalid(
            "tool.name",
            "is required with a tool output file; name the tool that produced it",
        )),
        Some(t) if !t.output.is_null() => Err(Error::invalid(
            "tool.output",
            "is given twice (inline and as a file); give one of them",
        )),
        Some(_) => Ok(()),
    }
}

/// The stored line's body: the fast serialization when the line is surely valid, else the
/// schema check and the generic one.
fn line_body(line: &Line<'_>) -> Result<Vec<u8>> {
    if !line.surely_valid() {
        let value = line.to_value()?;
        schema::check(&value).map_err(|(field, reason)| Error::invalid(field, reason))?;
        return serialize_body(&value);
    }
    let body = line.body()?;
    #[cfg(debug_assertions)]
    {
        // Tests hold the fast path to the schema and to the generic serialization.
        let value = line.to_value()?;
        assert_eq!(
            schema::check(&value),
            Ok(()),
            "surely_valid accepted {value}"
        );
        assert_eq!(serialize_body(&value)?, body, "body() differs for {value}");
    }
    Ok(body)
}

/// Check, redact and route one event. `system` allows the bookkeeping kinds. `clean` says
/// that no string of the event needs redacting (the caller checked the JSON text it was
/// parsed from with [`Redactor::json_text_is_clean`]), so its strings are not scanned again.
pub(crate) fn prepare(
    req: Entry,
    system: bool,
    clean: bool,
    redactor: &Redactor,
    limits: &Limits,
) -> Result<Prepared> {
    let Entry {
        event: ev,
        output_bytes,
    } = req;
    let (kind, importance) = check_typed(&ev, system)?;
    if output_bytes.is_some() {
        check_output_file(ev.tool.as_ref())?;
    }
    let mut w = Work {
        redactor,
        limits,
        clean,
        own_keys: system,
        applied: Vec::new(),
        records: Vec::new(),
        pending: Vec::new(),
        kept: None,
    };

    let actor = ev.actor.map(|a| w.string(a));
    let text = ev.text.map(|t| w.text(t));
    let (data, data_text) = match ev.data {
        None => (None, None),
        Some(map) => {
            let (data, text) = w.data(kind, system, map);
            (Some(data), text)
        }
    };
    let tool = ev.tool.map(|t| w.tool(t, output_bytes));

    let line = Line {
        kind,
        importance,
        actor,
        text,
        data,
        data_text,
        refs: &ev.refs,
        supersedes: &ev.supersedes,
        resolves: &ev.resolves,
        tool,
        artifact: &w.records,
        redactions: &w.applied,
    };
    let body = line_body(&line)?;
    drop(line);
    Ok(Prepared {
        body,
        refs: ev.refs,
        supersedes: ev.supersedes,
        resolves: ev.resolves,
        artifacts: w.pending,
    })
}

/// A redacted and routed tool invocation.
struct ToolParts {
    name: String,
    input: Value,
    output: Value,
    /// `input` serialized, when [`Work::value`] kept its text.
    input_text: Option<Vec<u8>>,
    /// `output` serialized, likewise.
    output_text: Option<Vec<u8>>,
}

/// A stored line without its assigned fields, ready to be checked and serialized.
struct Line<'a> {
    kind: Kind,
    importance: u8,
    actor: Option<String>,
    text: Option<String>,
    data: Option<Value>,
    /// `data` serialized, when [`Work::value`] kept its text.
    data_text: Option<Vec<u8>>,
    refs: &'a [EventId],
    supersedes: &'a [EventId],
    resolves: &'a [EventId],
    tool: Option<ToolParts>,
    artifact: &'a [ArtifactRecord],
    redactions: &'a [RedactionRecord],
}

/// `data.origin` is absent or of the schema's `$defs/origin` shape: an object whose `runtime`
/// is a name and whose other known keys are strings (a non-empty `line`).
fn origin_is_valid(data: &Value) -> bool {
    let Some(source) = data.get("origin") else {
        return true;
    };
    let Some(obj) = source.as_object() else {
        return false;
    };
    obj.get("runtime")
        .and_then(Value::as_str)
        .is_some_and(name_fits)
        && ["hook", "session", "line", "ts", "file"]
            .iter()
            .all(|k| obj.get(*k).is_none_or(Value::is_string))
        && obj
            .get("line")
            .and_then(Value::as_str)
            .is_none_or(|l| !l.is_empty())
}

/// The length of `s` as JSON Schema counts it (in characters) is within `1..=MAX_NAME_CHARS`.
fn name_fits(s: &str) -> bool {
    !s.is_empty() && (s.len() <= MAX_NAME_CHARS || s.chars().count() <= MAX_NAME_CHARS)
}

impl Line<'_> {
    /// True only when the line (with valid assigned fields) is valid against the event
    /// schema; false when it may not be, and then the schema decides (and names the error).
    ///
    /// The line is built from checked parts: its kind comes from [`Kind`], [`check_typed`]
    /// bounded the importance by the kind's minimum (which is the schema's `if`/`then` rules),
    /// required a `correction` to supersede something and refused repeated ids; the assigned
    /// fields are placeholders of the right form, `data` is an object, the artifact paths and
    /// hashes are lowercase hex SHA-256 digests, and only the schema's properties are written.
    /// What is left to check are the values redaction may have changed or a program may have
    /// given: the lengths of `actor` and `tool.name` after redaction, ids `e0`, and empty
    /// media types, rule names and placeholders.
    fn surely_valid(&self) -> bool {
        let ids_ok = |ids: &[EventId]| ids.iter().all(|id| id.seq() >= 1);
        self.importance <= 3
            && self.importance >= self.kind.min_importance()
            && (self.kind != Kind::Correction || !self.supersedes.is_empty())
            && self.actor.as_deref().is_none_or(name_fits)
            && self.tool.as_ref().is_none_or(|t| name_fits(&t.name))
            && self.data.as_ref().is_none_or(Value::is_object)
            && self.data.as_ref().is_none_or(origin_is_valid)
            && ids_ok(self.refs)
            && ids_ok(self.supersedes)
            && ids_ok(self.resolves)
            && self.artifact.iter().all(|a| {
                !a.field.is_empty()
                    && !a.media_type.is_empty()
                    && remaind_hash::is_sha256_hex(&a.sha256)
                    && a.path == remaind_fs::layout::artifact_path(&a.sha256)
            })
            && self
                .redactions
                .iter()
                .all(|r| !r.rule.is_empty() && !r.placeholder.is_empty())
    }

    /// The line as a generic JSON value with placeholder assigned fields, in the field order
    /// of `Event`.
    fn to_value(&self) -> Result<Value> {
        let ids = |ids: &[EventId]| {
            Value::Array(ids.iter().map(|id| Value::String(id.to_string())).collect())
        };
        let mut line = Map::with_capacity(16);
        line.insert("v".to_owned(), Value::from(1));
        line.insert("seq".to_owned(), Value::from(1));
        line.insert("id".to_owned(), Value::from("e1"));
        line.insert("ts".to_owned(), Value::from(PLACEHOLDER_TS));
        line.insert("prev".to_owned(), Value::from(GENESIS_PREV));
        line.insert("kind".to_owned(), Value::from(self.kind.as_str()));
        line.insert("importance".to_owned(), Value::from(self.importance));
        if let Some(a) = &self.actor {
            line.insert("actor".to_owned(), Value::String(a.clone()));
        }
        if let Some(t) = &self.text {
            line.insert("text".to_owned(), Value::String(t.clone()));
        }
        if let Some(d) = &self.data {
            line.insert("data".to_owned(), d.clone());
        }
        for (key, list) in [
            ("refs", self.refs),
            ("supersedes", self.supersedes),
            ("resolves", self.resolves),
        ] {
            if !list.is_empty() {
                line.insert(key.to_owned(), ids(list));
            }
        }
        if let Some(t) = &self.tool {
            let mut obj = Map::new();
            obj.insert("name".to_owned(), Value::String(t.name.clone()));
            if !t.input.is_null() {
                obj.insert("input".to_owned(), t.input.clone());
            }
            if !t.output.is_null() {
                obj.insert("output".to_owned(), t.output.clone());
            }
            line.insert("tool".to_owned(), Value::Object(obj));
        }
        if !self.artifact.is_empty() {
            let records = serde_json::to_value(self.artifact).map_err(|e| {
                Error::invalid("artifact", format!("cannot be represented as JSON: {e}"))
            })?;
            line.insert("artifact".to_owned(), records);
        }
        if !self.redactions.is_empty() {
            let applied = serde_json::to_value(self.redactions).map_err(|e| {
                Error::invalid("redactions", format!("cannot be represented as JSON: {e}"))
            })?;
            line.insert("redactions".to_owned(), applied);
        }
        Ok(Value::Object(line))
    }

    /// The serialized line after its header, written straight from the parts: the same bytes
    /// as serializing [`to_value`](Self::to_value) and cutting off the placeholder header.
    fn body(&self) -> Result<Vec<u8>> {
        fn json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) -> Result<()> {
            serde_json::to_writer(out, v)
                .map_err(|e| Error::invalid("line", format!("cannot be serialized: {e}")))
        }
        with_buffer(|out| {
            out.extend_from_slice(br#""kind":""#);
            out.extend_from_slice(self.kind.as_str().as_bytes());
            out.extend_from_slice(br#"","importance":"#);
            json(out, &self.importance)?;
            if let Some(a) = &self.actor {
                out.extend_from_slice(br#","actor":"#);
                json(out, a)?;
            }
            if let Some(t) = &self.text {
                out.extend_from_slice(br#","text":"#);
                json(out, t)?;
            }
            // A value's text serialized for routing is the text it serializes to here.
            let value = |out: &mut Vec<u8>, v: &Value, text: &Option<Vec<u8>>| match text {
                Some(text) => {
                    out.extend_from_slice(text);
                    Ok(())
                }
                None => json(out, v),
            };
            if let Some(d) = &self.data {
                out.extend_from_slice(br#","data":"#);
                value(out, d, &self.data_text)?;
            }
            for (key, list) in [
                (&br#","refs":["#[..], self.refs),
                (br#","supersedes":["#, self.supersedes),
                (br#","resolves":["#, self.resolves),
            ] {
                if !list.is_empty() {
                    out.extend_from_slice(key);
                    for (i, id) in list.iter().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        out.extend_from_slice(b"\"e");
                        json(out, &id.seq())?;
                        out.push(b'"');
                    }
                    out.push(b']');
                }
            }
            if let Some(t) = &self.tool {
                out.extend_from_slice(br#","tool":{"name":"#);
                json(out, &t.name)?;
                if !t.input.is_null() {
                    out.extend_from_slice(br#","input":"#);
                    value(out, &t.input, &t.input_text)?;
                }
                if !t.output.is_null() {
                    out.extend_from_slice(br#","output":"#);
                    value(out, &t.output, &t.output_text)?;
                }
                out.push(b'}');
            }
            if !self.artifact.is_empty() {
                out.extend_from_slice(br#","artifact":"#);
                json(out, self.artifact)?;
            }
            if !self.redactions.is_empty() {
                out.extend_from_slice(br#","redactions":"#);
                json(out, self.redactions)?;
            }
            out.push(b'}');
            Ok(())
        })
    }
}

/// Run `write` on a per-thread buffer that keeps its capacity, and copy out what it wrote.
fn with_buffer(write: impl FnOnce(&mut Vec<u8>) -> Result<()>) -> Result<Vec<u8>> {
    thread_local! {
        static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUF.with(|buf| {
        let mut buf = buf
            .try_borrow_mut()
            .map_err(|_| Error::invalid("line", "cannot be serialized (serializer busy)"))?;
        buf.clear();
        write(&mut buf)?;
        let out = buf.to_vec();
        // Do not keep a huge buffer alive for the rest of the thread's life.
        if buf.capacity() > 1 << 20 {
            *buf = Vec::new();
        }
        Ok(out)
    })
}

/// Serialize a checked placeholder line and cut off its header.
///
/// The placeholder header is the serialized line's prefix (the fields come in `Event` order,
/// and `kind` always follows `prev`); it is written anew under the lock.
fn serialize_body(value: &Value) -> Result<Vec<u8>> {
    let mut line = Vec::new();
    serde_json::to_writer(&mut line, value)
        .map_err(|e| Error::invalid("line", format!("cannot be serialized: {e}")))?;
    let header = placeholder_header();
    match line.strip_prefix(header.as_bytes()) {
        Some(body) if !header.is_empty() => Ok(body.to_vec()),
        _ => Err(Error::invalid(
            "line",
            "cannot be serialized in the stored field order",
        )),
    }
}

/// The serialized assigned fields of a line, up to and including the comma before `kind`.
/// `ts_json` is a JSON string (with its quotes); `prev` is hex.
pub(crate) fn write_header(out: &mut Vec<u8>, seq: u64, ts_json: &str, prev: &str) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut n = seq;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let digits = &digits[i..];
    out.extend_from_slice(br#"{"v":1,"seq":"#);
    out.extend_from_slice(digits);
    out.extend_from_slice(br#","id":"e"#);
    out.extend_from_slice(digits);
    out.extend_from_slice(br#"","ts":"#);
    out.extend_from_slice(ts_json.as_bytes());
    out.extend_from_slice(br#","prev":""#);
    out.extend_from_slice(prev.as_bytes());
    out.extend_from_slice(br#"","#);
}

/// The header of the placeholder line `prepare` validates.
fn placeholder_header() -> &'static str {
    static HEADER: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        let mut out = Vec::new();
        let ts = serde_json::to_string(PLACEHOLDER_TS).unwrap_or_default();
        write_header(&mut out, 1, &ts, GENESIS_PREV);
        String::from_utf8(out).unwrap_or_default()
    });
    &HEADER
}

/// The rule that would change an artifact's bytes: `None` for one the ledger could have
/// written under these rules. Asked of every artifact a replica copies from a shared store.
/// An artifact holds a routed string (redacted as text) or a routed JSON value (redacted as
/// JSON, schema keys kept); which one is not recorded, so a JSON artifact is refused only
/// when both readings find a secret (a real one is found by both; neither redaction changes
/// what it wrote).
#[cfg(feature = "store")]
pub(crate) fn unredacted_artifact(redactor: &Redactor, bytes: &[u8]) -> Option<String> {
    let as_bytes = redactor.redact_bytes(bytes).1.into_iter().next()?.rule;
    match serde_json::from_slice::<Value>(bytes) {
        Ok(mut v @ (Value::Object(_) | Value::Array(_))) => redactor
            .redact_json_keeping(&mut v, &is_schema_key)
            .into_iter()
            .next()
            .map(|a| a.rule),
        _ => Some(as_bytes),
    }
}

/// The first field of a stored event that `redactor` would change, with the rule that would
/// change it: `None` for a line the ledger could have written under these rules. Asked of
/// every line a replica copies from a shared store, which must hold no more than the replica
/// would have written itself. Remaind's own bookkeeping values and schema keys are left out,
/// as the append leaves them out.
#[cfg(feature = "store")]
pub(crate) fn unredacted_field(
    redactor: &Redactor,
    line: &[u8],
    ev: &remaind_events::Event,
) -> Option<(String, String)> {
    // One pass over the line decides for nearly every line.
    if redactor.serialized_json_is_clean(line) {
        return None;
    }
    let first = |applied: Vec<Applied>| applied.into_iter().next().map(|a| a.rule);
    let in_str = |s: &str| first(redactor.redact_str(s).1);
    let in_value = |v: &Value| {
        let mut v = v.clone();
        first(redactor.redact_json_keeping(&mut v, &is_schema_key))
    };
    let mut found: Vec<(String, Option<String>)> = vec![
        ("actor".into(), ev.actor.as_deref().and_then(in_str)),
        ("text".into(), ev.text.as_deref().and_then(in_str)),
    ];
    if let Some(data) = &ev.data {
        let mut map = data.clone();
        take_own_fields(ev.kind, &mut map);
        found.push(("data".into(), in_value(&Value::Object(map))));
    }
    if let Some(tool) = &ev.tool {
        found.push(("tool.name".into(), in_str(&tool.name)));
        found.push(("tool.input".into(), in_value(&tool.input)));
        found.push(("tool.output".into(), in_value(&tool.output)));
    }
    for (i, a) in ev.artifact.iter().enumerate() {
        found.push((format!("artifact[{i}].head"), in_str(&a.head)));
        found.push((format!("artifact[{i}].tail"), in_str(&a.tail)));
    }
    found
        .into_iter()
        .find_map(|(field, rule)| rule.map(|rule| (field, rule)))
}

#[cfg(test)]
mod tests {
    use sha2::{Digest, Sha256};

    /// [`super::Line::surely_valid`] restates the event schema for the lines `prepare` builds;
    /// a changed schema needs it reviewed (debug builds also check every line it accepts
    /// against the schema).
    #[test]
    fn surely_valid_is_written_for_this_event_schema() {
        assert_eq!(
            hex::encode(Sha256::digest(crate::schema::EVENT_SCHEMA)),
            "54f761ae28f461f6152e4d0ecc8f86e37a9a685eaa90340b452939879c798f22",
            "schemas/event.schema.json changed: review Line::surely_valid in prepare.rs, \
             then update this hash"
        );
    }
}
