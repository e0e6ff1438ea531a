//! The hash chain: how a caller's [`NewEvent`] becomes the stored [`Event`] at a position,
//! and the digest that links each line to the next. The on-disk ledger and
//! [`crate::MemoryLedger`] both build events here, so the rules cannot drift apart.

use crate::Error;
use crate::event::{Event, EventId, Kind, NewEvent};

/// The chain digest of a stored line: lowercase hex SHA-256 of its bytes without the
/// newline. The next line's `prev` is this value; line 1's is [`crate::GENESIS_PREV`].
pub fn line_digest(line: &[u8]) -> String {
    remaind_hash::sha256_hex(line)
}

/// The event a caller's `new` becomes at `seq`, after the line whose digest is `prev`,
/// appended at `ts`: `v`, `seq`, `id` and `prev` assigned, importance defaulted by kind.
///
/// Refuses, with a reason that names the field and the fix: a missing kind, an importance
/// outside `min_importance..=3`, a correction that supersedes nothing, and citations
/// (`refs`, `supersedes`, `resolves`) of events at or after `seq`. Redaction, artifact
/// routing and schema checks are the writer's business, not this function's.
pub fn build_event(new: NewEvent, seq: u64, prev: &str, ts: &str) -> Result<Event, Error> {
    let invalid = |reason: String| Error::InvalidEvent { seq, reason };
    let kind = new
        .kind
        .ok_or_else(|| invalid("`kind` is required".to_owned()))?;
    let importance = new.importance.unwrap_or_else(|| kind.default_importance());
    if importance > 3 || importance < kind.min_importance() {
        return Err(invalid(format!(
            "importance {importance} is outside {}..=3 for `{kind}`",
            kind.min_importance()
        )));
    }
    if kind == Kind::Correction && new.supersedes.is_empty() {
        return Err(invalid(
            "a correction must supersede at least one event".to_owned(),
        ));
    }
    for (field, ids) in [
        ("refs", &new.refs),
        ("supersedes", &new.supersedes),
        ("resolves", &new.resolves),
    ] {
        if let Some(bad) = ids.iter().find(|id| id.seq() >= seq) {
            return Err(invalid(format!(
                "`{field}` cites {bad}, which does not exist yet"
            )));
        }
    }
    Ok(Event {
        v: 1,
        seq,
        id: EventId(seq),
        ts: ts.to_owned(),
        prev: prev.to_owned(),
        kind,
        importance,
        actor: new.actor,
        text: new.text,
        data: new.data,
        refs: new.refs,
        supersedes: new.supersedes,
        resolves: new.resolves,
        tool: new.tool,
        artifact: Vec::new(),
        redactions: Vec::new(),
    })
}
