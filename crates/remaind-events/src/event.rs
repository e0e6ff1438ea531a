//! The event model: kinds, importance rules, ids, and the stored line shape.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Every kind of event the ledger accepts (docs/contract.md#kinds-and-importance).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// An explicit instruction from the user; the last one is the latest user instruction.
    UserMessage,
    /// A turn of the assistant.
    AssistantMessage,
    /// A tool invocation.
    ToolCall,
    /// The outcome of a tool invocation.
    ToolResult,
    /// A free-form note.
    Note,
    /// Debug output, rarely needed again.
    Trace,
    /// A decision that must survive every compaction.
    Decision,
    /// A constraint on the work.
    Constraint,
    /// A file was changed.
    FileChange,
    /// Completed work.
    Result,
    /// Something stops progress until resolved.
    Blocker,
    /// Replaces earlier events; must supersede at least one.
    Correction,
    /// A remember-instruction; always importance 3.
    Remember,
    /// The next planned step; active until a later event resolves it.
    NextStep,
    /// Written by Remaind: an accepted compaction.
    Compaction,
    /// Written by Remaind: a rejected compaction and its failed checks.
    Validation,
    /// Written by Remaind: a torn tail was quarantined on open.
    Recovery,
    /// Written by Remaind: the token band changed.
    Monitor,
}

impl Kind {
    /// All kinds, in the order of docs/contract.md's kinds table.
    pub const ALL: [Kind; 18] = [
        Kind::UserMessage,
        Kind::AssistantMessage,
        Kind::ToolCall,
        Kind::ToolResult,
        Kind::Note,
        Kind::Trace,
        Kind::Decision,
        Kind::Constraint,
        Kind::FileChange,
        Kind::Result,
        Kind::Blocker,
        Kind::Correction,
        Kind::Remember,
        Kind::NextStep,
        Kind::Compaction,
        Kind::Validation,
        Kind::Recovery,
        Kind::Monitor,
    ];

    /// The wire name, e.g. `user_message`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::UserMessage => "user_message",
            Kind::AssistantMessage => "assistant_message",
            Kind::ToolCall => "tool_call",
            Kind::ToolResult => "tool_result",
            Kind::Note => "note",
            Kind::Trace => "trace",
            Kind::Decision => "decision",
            Kind::Constraint => "constraint",
            Kind::FileChange => "file_change",
            Kind::Result => "result",
            Kind::Blocker => "blocker",
            Kind::Correction => "correction",
            Kind::Remember => "remember",
            Kind::NextStep => "next_step",
            Kind::Compaction => "compaction",
            Kind::Validation => "validation",
            Kind::Recovery => "recovery",
            Kind::Monitor => "monitor",
        }
    }

    /// Importance given when the caller gives none.
    pub fn default_importance(self) -> u8 {
        match self {
            Kind::Trace => 0,
            Kind::Decision
            | Kind::Constraint
            | Kind::FileChange
            | Kind::Result
            | Kind::Blocker
            | Kind::Correction => 2,
            Kind::Remember | Kind::NextStep => 3,
            _ => 1,
        }
    }

    /// The lowest importance a caller may give this kind.
    pub fn min_importance(self) -> u8 {
        match self {
            Kind::Decision
            | Kind::Constraint
            | Kind::FileChange
            | Kind::Result
            | Kind::Blocker
            | Kind::Correction => 2,
            Kind::Remember => 3,
            _ => 0,
        }
    }

    /// True for the kinds whose meaning is their text (an empty decision decides nothing):
    /// the ledger refuses them without text.
    pub fn needs_text(self) -> bool {
        matches!(
            self,
            Kind::UserMessage
                | Kind::Decision
                | Kind::Constraint
                | Kind::Result
                | Kind::Blocker
                | Kind::Correction
                | Kind::Remember
                | Kind::NextStep
        )
    }

    /// True for the kinds Remaind writes itself; callers may not log them and the
    /// checks never require a state to cite them.
    pub fn is_bookkeeping(self) -> bool {
        matches!(
            self,
            Kind::Compaction | Kind::Validation | Kind::Recovery | Kind::Monitor
        )
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Kind {
    type Err = crate::Error;
    /// Any kind, by its wire name; the error names the closest kind and lists them all.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Kind::parse_among(s, &Kind::ALL)
    }
}

impl Kind {
    /// The kind among `kinds` named `s`; otherwise an error naming the closest of them
    /// (`did you mean`) and listing them, so that a caller offered only some kinds (an event
    /// a person logs) is never pointed to one it may not use.
    pub fn parse_among(s: &str, kinds: &[Kind]) -> Result<Kind, crate::Error> {
        if let Some(kind) = kinds.iter().find(|k| k.as_str() == s) {
            return Ok(*kind);
        }
        let expected: Vec<&'static str> = kinds.iter().map(|k| k.as_str()).collect();
        let closest = expected
            .iter()
            .map(|n| (strsim::jaro_winkler(&s.to_ascii_lowercase(), n), *n))
            .filter(|(score, _)| *score >= 0.8)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, n)| n);
        Err(crate::Error::UnknownKind {
            given: s.to_owned(),
            closest,
            expected,
        })
    }
}

/// An event id: `e<seq>`, e.g. `e42`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId(pub u64);

impl EventId {
    /// The sequence number this id names.
    pub fn seq(self) -> u64 {
        self.0
    }
}

impl fmt::Display for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "e{}", self.0)
    }
}

impl FromStr for EventId {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.strip_prefix('e')
            .filter(|d| {
                !d.is_empty() && !d.starts_with('0') && d.bytes().all(|b| b.is_ascii_digit())
            })
            .and_then(|d| d.parse().ok())
            .map(EventId)
            .ok_or_else(|| crate::Error::InvalidId {
                given: s.to_owned(),
            })
    }
}

impl EventId {
    /// `e<seq>` written into `buf` (ids are serialized by the ten thousand in a state file, so
    /// without the formatting machinery or an allocation).
    fn write_into(self, buf: &mut [u8; 21]) -> &str {
        let mut i = buf.len();
        let mut n = self.0;
        loop {
            i -= 1;
            buf[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        i -= 1;
        buf[i] = b'e';
        // Only ASCII digits and `e` were written.
        std::str::from_utf8(&buf[i..]).unwrap_or_default()
    }
}

impl Serialize for EventId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.write_into(&mut [0; 21]))
    }
}

impl<'de> Deserialize<'de> for EventId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct IdVisitor;
        impl serde::de::Visitor<'_> for IdVisitor {
            type Value = EventId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an event id like `e42`")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<EventId, E> {
                s.parse().map_err(E::custom)
            }
        }
        d.deserialize_str(IdVisitor)
    }
}

/// A tool invocation carried by an event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    /// The tool's name, as listed in tools.yaml.
    pub name: String,
    /// The input given to the tool.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub input: Value,
    /// The tool's output (may be routed to an artifact).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub output: Value,
}

/// Where content routed out of an event now lives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArtifactRecord {
    /// Which field of the event was routed out, e.g. `tool.output` or `text`.
    pub field: String,
    /// Path relative to `.context/`, e.g. `artifacts/ab/abcdef….bin`.
    pub path: String,
    /// Hex SHA-256 of the stored (redacted) bytes.
    pub sha256: String,
    /// Length of the stored bytes.
    pub bytes: u64,
    /// Media type, e.g. `text/plain` or `application/octet-stream`.
    pub media_type: String,
    /// Redacted excerpt from the start.
    pub head: String,
    /// Redacted excerpt from the end.
    pub tail: String,
}

/// One redaction applied to an event before it was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedactionRecord {
    /// The rule that matched, e.g. `openai_key`.
    pub rule: String,
    /// The placeholder that replaced the secret.
    pub placeholder: String,
}

/// What a caller gives to append an event. Everything else is assigned by the ledger.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewEvent {
    /// The event's kind (required).
    pub kind: Option<Kind>,
    /// The event's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Who produced it: `user`, `assistant`, a tool or agent name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// 0..=3; defaulted by kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub importance: Option<u8>,
    /// Any JSON object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Map<String, Value>>,
    /// Events this one refers to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refs: Vec<EventId>,
    /// Events this one replaces.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supersedes: Vec<EventId>,
    /// Events (typically next steps or blockers) this one closes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resolves: Vec<EventId>,
    /// A tool invocation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<Tool>,
}

/// The genesis value of `prev` for seq 1: 64 zero hex digits.
pub const GENESIS_PREV: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// One stored line of `logs/events.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Event {
    /// Format version, always 1.
    pub v: u32,
    /// Gapless sequence number from 1.
    pub seq: u64,
    /// `e<seq>`.
    pub id: EventId,
    /// RFC 3339 UTC time of the append.
    pub ts: String,
    /// Hex SHA-256 of the previous line's bytes (without its newline), or [`GENESIS_PREV`].
    pub prev: String,
    /// The event's kind.
    pub kind: Kind,
    /// Importance 0..=3.
    pub importance: u8,
    /// Who produced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// The event's (redacted) text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Any JSON object (redacted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Map<String, Value>>,
    /// Events this one refers to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refs: Vec<EventId>,
    /// Events this one replaces.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supersedes: Vec<EventId>,
    /// Events this one closes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resolves: Vec<EventId>,
    /// A tool invocation (redacted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<Tool>,
    /// Content routed out to `artifacts/`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artifact: Vec<ArtifactRecord>,
    /// Redactions applied.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redactions: Vec<RedactionRecord>,
}

#[cfg(test)]
mod tests {
    use super::EventId;

    #[test]
    fn event_ids_round_trip_through_json_at_every_width() {
        for seq in [1, 9, 10, 42, 1_000_000, u64::MAX] {
            let id = EventId(seq);
            let json = serde_json::to_string(&id).expect("serialize");
            assert_eq!(json, format!("\"e{seq}\""));
            assert_eq!(serde_json::from_str::<EventId>(&json).expect("parse"), id);
        }
        for bad in [
            "\"e0\"", "\"e01\"", "\"42\"", "\"e\"", "\"e1x\"", "42", "null",
        ] {
            assert!(serde_json::from_str::<EventId>(bad).is_err(), "{bad}");
        }
    }
}
