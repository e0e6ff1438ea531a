//! The shape of `active/state.json` (validated by `schemas/state.schema.json`).

use remaind_events::EventId;
use serde::{Deserialize, Serialize};

/// One claim of the state, with the events it rests on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Item {
    /// The claim, in a sentence.
    pub text: String,
    /// The events it cites (at least one).
    pub events: Vec<EventId>,
}

/// The latest explicit user instruction, carried byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Instruction {
    /// The `user_message` event.
    pub event: EventId,
    /// Its text, byte for byte.
    pub text: String,
}

/// The next planned step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NextStep {
    /// What to do next.
    pub text: String,
    /// The events it rests on.
    pub events: Vec<EventId>,
    /// The tool the step plans to use, as named in tools.yaml.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

/// Something the user said that is still in force: a `user_message` (or a decision the user
/// made, such as a question's answer) carried into the state, in the order it was said, a
/// later item winning where two conflict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Asked {
    /// What the user said: verbatim when short, else its first sentences (and every rule or
    /// person-to-task line in it) with `(full text: eN)`.
    pub text: String,
    /// The message it carries (several only for a condensed item of older messages).
    pub events: Vec<EventId>,
    /// A standing rule (`never …`, `always …`, `from now on …`): no budget trims it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rule: bool,
    /// Earlier user messages this one points back to (`same as what we said about …`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refs: Vec<EventId>,
}

/// How something the user said stopped being in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Settlement {
    /// A later user message (or an event the ledger records as superseding it) replaced it.
    Superseded,
    /// A later turn's outcome (or a `result`, or an event resolving it) did what it asked.
    Fulfilled,
}

impl Settlement {
    /// The wire name: `superseded` or `fulfilled`.
    pub fn as_str(self) -> &'static str {
        match self {
            Settlement::Superseded => "superseded",
            Settlement::Fulfilled => "fulfilled",
        }
    }
}

/// A user message no longer in force, and the later event that settled it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settled {
    /// The user message.
    pub event: EventId,
    /// The later event that superseded or fulfilled it.
    pub by: EventId,
    /// Which of the two.
    pub how: Settlement,
}

/// A history link: `event` is no longer current because of `by`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// The event that is no longer current.
    pub event: EventId,
    /// The event that superseded or resolved it.
    pub by: EventId,
}

/// Derived working state: what an agent needs to continue, every claim cited.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    /// Format version, always 1.
    pub v: u32,
    /// The last event this state covers.
    pub through_seq: u64,
    /// The chain hash at `through_seq`, binding the state to that exact log prefix.
    pub log_digest: String,
    /// RFC 3339 UTC time the candidate was made.
    pub generated_at: String,
    /// Who proposed it (`builtin`, `candidate:DIR`, `command:CMD`).
    pub compactor: String,
    /// What the work is for.
    pub goal: Vec<Item>,
    /// The last `user_message` up to `through_seq`.
    pub latest_user_instruction: Option<Instruction>,
    /// What the user said that is still in force, oldest first (check 7).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user_asked: Vec<Asked>,
    /// Completed work (`result` events and the like).
    pub completed_work: Vec<Item>,
    /// Decisions and corrections.
    pub decisions: Vec<Item>,
    /// Constraints on the work.
    pub constraints: Vec<Item>,
    /// Unresolved blockers.
    pub blockers: Vec<Item>,
    /// Remember-instructions and other importance-3 items.
    pub remember: Vec<Item>,
    /// Files changed.
    pub files_changed: Vec<Item>,
    /// Open loops: active next steps other than the current one, pending questions.
    pub open_loops: Vec<Item>,
    /// The next step.
    pub next_step: Option<NextStep>,
    /// History, never current: superseded events and what superseded them.
    pub superseded: Vec<Link>,
    /// History, never current: resolved events and what resolved them.
    #[serde(default)]
    pub resolved: Vec<Link>,
    /// History, never current: user messages no longer in force and what settled them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user_settled: Vec<Settled>,
}

/// The name of the section of what the user said that is in force.
pub const USER_ASKED: &str = "user_asked";

/// The current sections of a state, by name, in the order a reader wants them.
pub const CURRENT_SECTIONS: [&str; 9] = [
    "goal",
    "completed_work",
    "decisions",
    "constraints",
    "blockers",
    "remember",
    "files_changed",
    "open_loops",
    "next_step",
];

impl State {
    /// The items of a current section by name (`next_step` excluded: see [`State::next_step`]).
    pub fn section(&self, name: &str) -> Option<&[Item]> {
        Some(match name {
            "goal" => &self.goal,
            "completed_work" => &self.completed_work,
            "decisions" => &self.decisions,
            "constraints" => &self.constraints,
            "blockers" => &self.blockers,
            "remember" => &self.remember,
            "files_changed" => &self.files_changed,
            "open_loops" => &self.open_loops,
            _ => return None,
        })
    }

    /// Every (section, event) citation in the current sections, including
    /// `latest_user_instruction` and `next_step`; history sections excluded.
    pub fn current_citations(&self) -> Vec<(&'static str, EventId)> {
        let mut out = Vec::new();
        for name in CURRENT_SECTIONS {
            if let Some(items) = self.section(name) {
                for item in items {
                    out.extend(item.events.iter().map(|e| (name, *e)));
                }
            }
        }
        if let Some(step) = &self.next_step {
            out.extend(step.events.iter().map(|e| ("next_step", *e)));
        }
        if let Some(ins) = &self.latest_user_instruction {
            out.push(("latest_user_instruction", ins.event));
        }
        for asked in &self.user_asked {
            out.extend(asked.events.iter().map(|e| (USER_ASKED, *e)));
        }
        out
    }

    /// The canonical bytes of this state as stored in `state.json`: JSON laid out one field
    /// of the state and one item (or link) per line, then a newline. The handover's binding
    /// line hashes exactly these bytes.
    ///
    /// ```text
    /// {
    ///   "through_seq": 42,
    ///   "completed_work": [
    ///     {"text": "Importer streams rows", "events": ["e12", "e15"]}
    ///   ],
    ///   "next_step": {
    ///     "text": "Write the header parser",
    ///     "events": ["e40"]
    ///   },
    /// ```
    ///
    /// A long session's state cites ten thousand events; one line per item instead of one per
    /// id keeps it easy to read and half the size to parse, hash and write.
    pub fn to_canonical_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(4096);
        let mut ser = serde_json::Serializer::with_formatter(&mut bytes, ItemPerLine::default());
        // Serializing plain structs and strings into a Vec cannot fail.
        let _ = self.serialize(&mut ser);
        bytes.push(b'\n');
        bytes
    }
}

/// The layout of [`State::to_canonical_bytes`]: containers at the first two levels (the state
/// and its sections) are pretty-printed with two-space indents; deeper ones (items, links, id
/// lists) are written on one line with `, ` and `: ` separators.
#[derive(Default)]
struct ItemPerLine {
    /// Containers open, the one being written included.
    depth: usize,
    has_value: bool,
}

impl ItemPerLine {
    /// Containers at this depth or less are pretty-printed.
    const PRETTY_DEPTH: usize = 2;

    fn pretty(&self) -> bool {
        self.depth <= Self::PRETTY_DEPTH
    }

    fn newline<W: ?Sized + std::io::Write>(&self, w: &mut W, depth: usize) -> std::io::Result<()> {
        w.write_all(b"\n")?;
        for _ in 0..depth {
            w.write_all(b"  ")?;
        }
        Ok(())
    }

    fn separate<W: ?Sized + std::io::Write>(&self, w: &mut W, first: bool) -> std::io::Result<()> {
        if self.pretty() {
            if !first {
                w.write_all(b",")?;
            }
            self.newline(w, self.depth)
        } else if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn close<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        let was_pretty = self.pretty();
        self.depth -= 1;
        if was_pretty && self.has_value {
            self.newline(w, self.depth)?;
        }
        w.write_all(bracket)
    }
}

impl serde_json::ser::Formatter for ItemPerLine {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.separate(w, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.separate(w, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}
