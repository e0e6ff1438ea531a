//! Everything that happens to an event before it gets its place in the log: typed checks,
//! redaction, artifact routing and schema validation (with placeholder assigned fields, which
//! are later replaced by values that are valid by construction).

use remaind_redact::{Applied, Redactor};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::config::Limits;
use crate::error::{Error, Result};
use crate::event::{
    ArtifactRecord, Event, EventId, GENESIS_PREV, Kind, NewEvent, RedactionRecord, Tool,
};
use crate::input::AppendRequest;
use crate::schema;

/// Content routed out of an event, not yet written to the store.
#[derive(Debug)]
pub(crate) struct PendingArtifact {
    pub(crate) bytes: Vec<u8>,
    pub(crate) media_type: String,
    pub(crate) sha256: String,
}

/// An event ready for its seq, id, ts and prev.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub(crate) event: Event,
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
pub(crate) fn check_citations(ev: &Event, own_seq: u64) -> Result<()> {
    for (field, ids) in [
        ("refs", &ev.refs),
        ("supersedes", &ev.supersedes),
        ("resolves", &ev.resolves),
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
        out.into()
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

    let actor = ev.actor.as_deref().map(|a| w.str(a));
    let text = ev.text.as_deref().map(|t| {
        let t = w.str(t);
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
        let bytes = serde_json::to_vec(&v).unwrap_or_default();
        if w.over(bytes.len()) {
            let m = w.route("data", bytes, "application/json");
            let mut obj = Map::new();
            obj.insert("artifact".to_owned(), Value::String(m));
            obj
        } else {
            match v {
                Value::Object(m) => m,
                _ => Map::new(),
            }
        }
    });
    let tool = match ev.tool {
        None => None,
        Some(t) => {
            let name = w.str(&t.name);
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
            Some(Tool {
                name,
                input,
                output,
            })
        }
    };

    let event = Event {
        v: 1,
        seq: 1,
        id: EventId(1),
        ts: PLACEHOLDER_TS.to_owned(),
        prev: GENESIS_PREV.to_owned(),
        kind,
        importance,
        actor,
        text,
        data,
        refs: ev.refs,
        supersedes: ev.supersedes,
        resolves: ev.resolves,
        tool,
        artifact: w.records,
        redactions: w.applied,
    };
    let value = serde_json::to_value(&event)
        .map_err(|e| Error::invalid("line", format!("cannot be represented as JSON: {e}")))?;
    schema::check(&value).map_err(|(field, reason)| Error::invalid(field, reason))?;
    Ok(Prepared {
        event,
        artifacts: w.pending,
    })
}
