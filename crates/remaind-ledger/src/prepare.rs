//! Everything that happens to an event before it gets its place in the log: typed checks,
//! redaction, artifact routing and schema validation (with placeholder assigned fields, which
//! are later replaced by values that are valid by construction).

use std::borrow::Cow;

use remaind_redact::{Applied, Redactor};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::config::Limits;
use crate::error::{Error, Result};
use crate::event::{ArtifactRecord, EventId, GENESIS_PREV, Kind, NewEvent, RedactionRecord};
use crate::input::AppendRequest;
use crate::schema;

/// Content routed out of an event, not yet written to the store.
#[derive(Debug)]
pub(crate) struct PendingArtifact {
    pub(crate) bytes: Vec<u8>,
    pub(crate) media_type: String,
    pub(crate) sha256: String,
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

fn check_name(field: &str, s: &str) -> Result<()> {
    if s.is_empty() {
        return Err(Error::invalid(
            field,
            "must not be empty; leave the field out instead",
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
    applied: Vec<RedactionRecord>,
    records: Vec<ArtifactRecord>,
    pending: Vec<PendingArtifact>,
}

impl Work<'_> {
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

    fn json(&mut self, v: &mut Value) {
        let applied = self.redactor.redact_json(v);
        if !applied.is_empty() {
            self.note(applied);
        }
    }

    /// Route already-redacted bytes to an artifact; returns the marker for the line.
    fn route(&mut self, field: &str, bytes: Vec<u8>, media_type: &str) -> String {
        let sha256 = hex::encode(Sha256::digest(&bytes));
        let (head, tail) = remaind_artifacts::excerpts(&bytes, self.limits.excerpt_bytes);
        let head = self.str(&head);
        let tail = self.str(&tail);
        self.records.push(ArtifactRecord {
            field: field.to_owned(),
            path: format!("artifacts/{}/{}", &sha256[..2], sha256),
            sha256: sha256.clone(),
            bytes: bytes.len() as u64,
            media_type: media_type.to_owned(),
            head,
            tail,
        });
        let m = marker(&sha256);
        if !self.pending.iter().any(|p| p.sha256 == sha256) {
            self.pending.push(PendingArtifact {
                bytes,
                media_type: media_type.to_owned(),
                sha256,
            });
        }
        m
    }

    fn over(&self, len: usize) -> bool {
        len as u64 > self.limits.artifact_threshold_bytes
    }

    /// Route a JSON value (a tool's input or output) if it is too large.
    fn route_value(&mut self, field: &str, v: &mut Value) {
        match v {
            Value::Null => {}
            Value::String(s) => {
                if self.over(s.len()) {
                    let bytes = std::mem::take(s).into_bytes();
                    let media = remaind_artifacts::sniff_media_type(&bytes);
                    *v = Value::String(self.route(field, bytes, media));
                }
            }
            _ => {
                let bytes = serde_json::to_vec(&*v).unwrap_or_default();
                if self.over(bytes.len()) {
                    *v = Value::String(self.route(field, bytes, "application/json"));
                }
            }
        }
    }
}

/// Check, redact and route one event. `system` allows the bookkeeping kinds.
pub(crate) fn prepare(
    req: AppendRequest,
    system: bool,
    redactor: &Redactor,
    limits: &Limits,
) -> Result<Prepared> {
    let AppendRequest {
        event: ev,
        output_bytes,
    } = req;
    let (kind, importance) = check_typed(&ev, system)?;
    if output_bytes.is_some() {
        match &ev.tool {
            None => {
                return Err(Error::invalid(
                    "tool.name",
                    "is required with a tool output file; name the tool that produced it",
                ));
            }
            Some(t) if !t.output.is_null() => {
                return Err(Error::invalid(
                    "tool.output",
                    "is given twice (inline and as a file); give one of them",
                ));
            }
            Some(_) => {}
        }
    }
    let mut w = Work {
        redactor,
        limits,
        applied: Vec::new(),
        records: Vec::new(),
        pending: Vec::new(),
    };

    let actor = ev.actor.map(|a| w.string(a));
    let text = ev.text.map(|t| {
        let t = w.string(t);
        if w.over(t.len()) {
            let bytes = t.into_bytes();
            let media = remaind_artifacts::sniff_media_type(&bytes);
            w.route("text", bytes, media)
        } else {
            t
        }
    });
    let data = ev.data.map(|map| {
        let mut v = Value::Object(map);
        w.json(&mut v);
        if w.over(json_len_bound(&v)) {
            let bytes = serde_json::to_vec(&v).unwrap_or_default();
            if w.over(bytes.len()) {
                let m = w.route("data", bytes, "application/json");
                let mut obj = Map::new();
                obj.insert("artifact".to_owned(), Value::String(m));
                return Value::Object(obj);
            }
        }
        v
    });
    let tool = match ev.tool {
        None => None,
        Some(t) => {
            let name = w.string(t.name);
            let mut input = t.input;
            w.json(&mut input);
            w.route_value("tool.input", &mut input);
            let mut output = t.output;
            if let Some(raw) = output_bytes {
                let (bytes, applied) = w.redactor.redact_bytes(&raw);
                w.note(applied);
                let inline = !w.over(bytes.len()) && !bytes.contains(&0);
                output = match String::from_utf8(bytes) {
                    Ok(s) if inline => Value::String(s),
                    Ok(s) => {
                        let bytes = s.into_bytes();
                        let media = remaind_artifacts::sniff_media_type(&bytes);
                        Value::String(w.route("tool.output", bytes, media))
                    }
                    Err(e) => {
                        let bytes = e.into_bytes();
                        let media = remaind_artifacts::sniff_media_type(&bytes);
                        Value::String(w.route("tool.output", bytes, media))
                    }
                };
            } else {
                w.json(&mut output);
                w.route_value("tool.output", &mut output);
            }
            let mut obj = Map::new();
            obj.insert("name".to_owned(), Value::String(name));
            if !input.is_null() {
                obj.insert("input".to_owned(), input);
            }
            if !output.is_null() {
                obj.insert("output".to_owned(), output);
            }
            Some(Value::Object(obj))
        }
    };

    // The stored line, in the field order of `Event` (assigned fields are placeholders).
    let ids = |ids: &[EventId]| {
        Value::Array(ids.iter().map(|id| Value::String(id.to_string())).collect())
    };
    let mut line = Map::with_capacity(16);
    line.insert("v".to_owned(), Value::from(1));
    line.insert("seq".to_owned(), Value::from(1));
    line.insert("id".to_owned(), Value::from("e1"));
    line.insert("ts".to_owned(), Value::from(PLACEHOLDER_TS));
    line.insert("prev".to_owned(), Value::from(GENESIS_PREV));
    line.insert("kind".to_owned(), Value::from(kind.as_str()));
    line.insert("importance".to_owned(), Value::from(importance));
    if let Some(a) = actor {
        line.insert("actor".to_owned(), Value::String(a));
    }
    if let Some(t) = text {
        line.insert("text".to_owned(), Value::String(t));
    }
    if let Some(d) = data {
        line.insert("data".to_owned(), d);
    }
    for (key, list) in [
        ("refs", &ev.refs),
        ("supersedes", &ev.supersedes),
        ("resolves", &ev.resolves),
    ] {
        if !list.is_empty() {
            line.insert(key.to_owned(), ids(list));
        }
    }
    if let Some(t) = tool {
        line.insert("tool".to_owned(), t);
    }
    if !w.records.is_empty() {
        let records = serde_json::to_value(&w.records).map_err(|e| {
            Error::invalid("artifact", format!("cannot be represented as JSON: {e}"))
        })?;
        line.insert("artifact".to_owned(), records);
    }
    if !w.applied.is_empty() {
        let applied = serde_json::to_value(&w.applied).map_err(|e| {
            Error::invalid("redactions", format!("cannot be represented as JSON: {e}"))
        })?;
        line.insert("redactions".to_owned(), applied);
    }
    let value = Value::Object(line);
    schema::check(&value).map_err(|(field, reason)| Error::invalid(field, reason))?;
    let body = serialize_body(&value)?;
    Ok(Prepared {
        body,
        refs: ev.refs,
        supersedes: ev.supersedes,
        resolves: ev.resolves,
        artifacts: w.pending,
    })
}

/// Serialize a checked placeholder line and cut off its header.
///
/// The placeholder header is the serialized line's prefix (the fields come in `Event` order,
/// and `kind` always follows `prev`); it is written anew under the lock. The line is
/// serialized into a per-thread buffer that keeps its capacity, then copied out at its size.
fn serialize_body(value: &Value) -> Result<Vec<u8>> {
    thread_local! {
        static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUF.with(|buf| {
        let mut buf = buf
            .try_borrow_mut()
            .map_err(|_| Error::invalid("line", "cannot be serialized (serializer busy)"))?;
        buf.clear();
        serde_json::to_writer(&mut *buf, value)
            .map_err(|e| Error::invalid("line", format!("cannot be serialized: {e}")))?;
        let header = placeholder_header();
        if header.is_empty() || !buf.starts_with(header.as_bytes()) {
            return Err(Error::invalid(
                "line",
                "cannot be serialized in the stored field order",
            ));
        }
        let body = buf[header.len()..].to_vec();
        // Do not keep a huge buffer alive for the rest of the thread's life.
        if buf.capacity() > 1 << 20 {
            *buf = Vec::new();
        }
        Ok(body)
    })
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

/// An upper bound of the length of `v` serialized compactly (every string byte may need
/// up to six bytes of escaping), computed without serializing.
fn json_len_bound(v: &Value) -> usize {
    match v {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 24,
        Value::String(s) => s.len() * 6 + 2,
        Value::Array(a) => 2 + a.iter().map(|x| json_len_bound(x) + 1).sum::<usize>(),
        Value::Object(m) => {
            2 + m
                .iter()
                .map(|(k, x)| k.len() * 6 + 4 + json_len_bound(x))
                .sum::<usize>()
        }
    }
}
