//! The state schema: the embedded `schemas/state.schema.json` and a hand-written check of
//! its rules.
//!
//! Why by hand: the schema is small and fixed, and a general JSON Schema engine would pull
//! its regex, URL and referencing stacks into every user of the validator. The check walks
//! the candidate once and reports each violation with the pointer and message a JSON Schema
//! 2020-12 validator gives; a property test (`tests/it/schema_agrees.rs`) holds it to the
//! `jsonschema` crate on valid, mutated and arbitrary states.

use std::fmt::{Display, Write as _};
use std::sync::LazyLock;

use remaind_events::EventId;
use serde_json::{Map, Number, Value};

use crate::state::{CURRENT_SECTIONS, Item, Link, State};
use crate::verdict::{Check, Failure};

/// The text of `schemas/state.schema.json` this build validates against.
pub const STATE_SCHEMA: &str = include_str!("../../../schemas/state.schema.json");

static SCHEMA: LazyLock<Value> = LazyLock::new(|| {
    serde_json::from_str(STATE_SCHEMA).expect("embedded state schema is valid JSON")
});

/// The state schema (JSON Schema 2020-12) as a value.
pub fn state_schema() -> &'static Value {
    &SCHEMA
}

/// Check a candidate state against the schema: one [`Check::Schema`] failure per violation,
/// each reason starting with the JSON pointer of the offending field (`/` for the root).
pub fn check_state_schema(state: &Value) -> Vec<Failure> {
    let mut walk = Walk::default();
    walk.state(state);
    walk.failures
}

/// The root's required fields, in the schema's order.
const REQUIRED: [&str; 16] = [
    "v",
    "through_seq",
    "log_digest",
    "generated_at",
    "compactor",
    "goal",
    "latest_user_instruction",
    "completed_work",
    "decisions",
    "constraints",
    "blockers",
    "remember",
    "files_changed",
    "open_loops",
    "next_step",
    "superseded",
];

const EVENT_ID_PATTERN: &str = "^e[1-9][0-9]*$";
const SHA256_PATTERN: &str = "^[0-9a-f]{64}$";

/// One pass over a candidate: `path` is the JSON pointer of the value being checked.
#[derive(Default)]
struct Walk {
    path: String,
    failures: Vec<Failure>,
}

/// What a field of an object must be.
#[derive(Clone, Copy)]
enum Rule {
    /// The constant `1`.
    One,
    /// An integer, 0 or above.
    Count,
    String,
    NonEmptyString,
    Sha256,
    EventId,
    /// A list of distinct event ids, with at least `min` of them.
    Ids {
        min: usize,
    },
    /// A list of `{text, events}` items.
    Items,
    /// A list of `{event, by}` links.
    Links,
    /// A list of `{text, events, rule?, refs?}` things the user said.
    AskedItems,
    /// A list of `{event, by, how}` settlements.
    SettledLinks,
    /// `true` or `false`.
    Bool,
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// `null` or an object of the given shape.
    NullOr(Shape),
}

/// An object with no other fields than `fields`, of which `required` must be present.
#[derive(Clone, Copy)]
struct Shape {
    required: &'static [&'static str],
    fields: &'static [(&'static str, Rule)],
}

const ITEM: Shape = Shape {
    required: &["text", "events"],
    fields: &[
        ("text", Rule::NonEmptyString),
        ("events", Rule::Ids { min: 1 }),
    ],
};

const LINK: Shape = Shape {
    required: &["event", "by"],
    fields: &[("event", Rule::EventId), ("by", Rule::EventId)],
};

const ASKED: Shape = Shape {
    required: &["text", "events"],
    fields: &[
        ("text", Rule::NonEmptyString),
        ("events", Rule::Ids { min: 1 }),
        ("rule", Rule::Bool),
        ("refs", Rule::Ids { min: 0 }),
    ],
};

const SETTLED: Shape = Shape {
    required: &["event", "by", "how"],
    fields: &[
        ("event", Rule::EventId),
        ("by", Rule::EventId),
        ("how", Rule::OneOf(&["superseded", "fulfilled"])),
    ],
};

const INSTRUCTION: Shape = Shape {
    required: &["event", "text"],
    fields: &[("event", Rule::EventId), ("text", Rule::String)],
};

const NEXT_STEP: Shape = Shape {
    required: &["text", "events"],
    fields: &[
        ("text", Rule::NonEmptyString),
        ("events", Rule::Ids { min: 0 }),
        ("tool", Rule::NonEmptyString),
    ],
};

const STATE: Shape = Shape {
    required: &REQUIRED,
    fields: &[
        ("v", Rule::One),
        ("through_seq", Rule::Count),
        ("log_digest", Rule::Sha256),
        ("generated_at", Rule::String),
        ("compactor", Rule::NonEmptyString),
        ("goal", Rule::Items),
        ("latest_user_instruction", Rule::NullOr(INSTRUCTION)),
        ("user_asked", Rule::AskedItems),
        ("completed_work", Rule::Items),
        ("decisions", Rule::Items),
        ("constraints", Rule::Items),
        ("blockers", Rule::Items),
        ("remember", Rule::Items),
        ("files_changed", Rule::Items),
        ("open_loops", Rule::Items),
        ("next_step", Rule::NullOr(NEXT_STEP)),
        ("superseded", Rule::Links),
        ("resolved", Rule::Links),
        ("user_settled", Rule::SettledLinks),
    ],
};

impl Walk {
    fn state(&mut self, value: &Value) {
        self.object(value, &STATE);
    }

    fn fail(&mut self, message: impl Display) {
        let pointer = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        self.failures.push(Failure {
            check: Check::Schema,
            events: Vec::new(),
            reason: format!("{pointer}: {message}; fix this field to match state.schema.json"),
        });
    }

    /// Check `value` at `path` + `/segment`.
    fn at(&mut self, segment: impl Display, check: impl FnOnce(&mut Self)) {
        let len = self.path.len();
        let _ = write!(self.path, "/{segment}");
        check(self);
        self.path.truncate(len);
    }

    /// Keyword order as a JSON Schema validator reports it: the type, then the missing
    /// fields, then each field in the candidate's order, then the unknown fields.
    fn object(&mut self, value: &Value, shape: &Shape) {
        let Some(object) = value.as_object() else {
            self.fail(format_args!("{value} is not of type \"object\""));
            return;
        };
        for name in shape.required {
            if !object.contains_key(*name) {
                self.fail(format_args!("\"{name}\" is a required property"));
            }
        }
        let mut unexpected: Vec<&str> = Vec::new();
        for (key, field) in object {
            match shape.fields.iter().find(|(name, _)| name == key) {
                Some((name, rule)) => self.at(name, |w| w.rule(field, *rule)),
                None => unexpected.push(key),
            }
        }
        if !unexpected.is_empty() {
            let quoted: Vec<String> = unexpected.iter().map(|k| format!("'{k}'")).collect();
            let verb = if unexpected.len() == 1 { "was" } else { "were" };
            self.fail(format_args!(
                "Additional properties are not allowed ({} {verb} unexpected)",
                quoted.join(", ")
            ));
        }
    }

    fn rule(&mut self, value: &Value, rule: Rule) {
        match rule {
            Rule::One => {
                if !value
                    .as_number()
                    .is_some_and(|n| number_eq(n, &Number::from(1)))
                {
                    self.fail("1 was expected");
                }
            }
            Rule::Count => {
                let Some(n) = value.as_number() else {
                    self.fail(format_args!("{value} is not of type \"integer\""));
                    return;
                };
                if !is_integer(n) {
                    self.fail(format_args!("{value} is not of type \"integer\""));
                }
                if is_negative(n) {
                    self.fail(format_args!("{value} is less than the minimum of 0"));
                }
            }
            Rule::String => {
                if !value.is_string() {
                    self.fail(format_args!("{value} is not of type \"string\""));
                }
            }
            Rule::NonEmptyString => match value.as_str() {
                None => self.fail(format_args!("{value} is not of type \"string\"")),
                Some("") => self.fail(format_args!("{value} is shorter than 1 character")),
                Some(_) => {}
            },
            Rule::Sha256 => self.pattern(value, SHA256_PATTERN, remaind_hash::is_sha256_hex),
            Rule::EventId => self.pattern(value, EVENT_ID_PATTERN, is_event_id),
            Rule::Ids { min } => self.ids(value, min),
            Rule::Items => self.array(value, |w, item| w.object(item, &ITEM)),
            Rule::Links => self.array(value, |w, link| w.object(link, &LINK)),
            Rule::AskedItems => self.array(value, |w, item| w.object(item, &ASKED)),
            Rule::SettledLinks => self.array(value, |w, link| w.object(link, &SETTLED)),
            Rule::Bool => {
                if !value.is_boolean() {
                    self.fail(format_args!("{value} is not of type \"boolean\""));
                }
            }
            Rule::OneOf(allowed) => {
                if !value.as_str().is_some_and(|s| allowed.contains(&s)) {
                    let quoted: Vec<String> = allowed.iter().map(|a| format!("\"{a}\"")).collect();
                    self.fail(format_args!(
                        "{value} is not one of [{}]",
                        quoted.join(", ")
                    ));
                }
            }
            Rule::NullOr(shape) => {
                if !value.is_null() && !Walk::passes(|w| w.object(value, &shape)) {
                    self.fail(format_args!(
                        "{value} is not valid under any of the schemas listed in the 'oneOf' \
                         keyword"
                    ));
                }
            }
        }
    }

    /// Whether `check` finds nothing (the branch test of a `oneOf`).
    fn passes(check: impl FnOnce(&mut Walk)) -> bool {
        let mut probe = Walk::default();
        check(&mut probe);
        probe.failures.is_empty()
    }

    fn pattern(&mut self, value: &Value, pattern: &str, matches: fn(&str) -> bool) {
        match value.as_str() {
            None => self.fail(format_args!("{value} is not of type \"string\"")),
            Some(s) if !matches(s) => {
                self.fail(format_args!("{value} does not match \"{pattern}\""))
            }
            Some(_) => {}
        }
    }

    fn array(&mut self, value: &Value, mut each: impl FnMut(&mut Self, &Value)) {
        let Some(array) = value.as_array() else {
            self.fail(format_args!("{value} is not of type \"array\""));
            return;
        };
        for (i, element) in array.iter().enumerate() {
            self.at(i, |w| each(w, element));
        }
    }

    /// `minItems` first, then the id list's own rules (type, `uniqueItems`, each id).
    fn ids(&mut self, value: &Value, min: usize) {
        if let Some(array) = value.as_array()
            && array.len() < min
        {
            let plural = if min == 1 { "" } else { "s" };
            self.fail(format_args!("{value} has less than {min} item{plural}"));
        }
        if let Some(array) = value.as_array()
            && !all_unique(array)
        {
            self.fail(format_args!("{value} has non-unique elements"));
        }
        self.array(value, |w, id| w.rule(id, Rule::EventId));
    }
}

fn is_event_id(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2
        && b[0] == b'e'
        && (b'1'..=b'9').contains(&b[1])
        && b[2..].iter().all(u8::is_ascii_digit)
}

/// JSON Schema's integer: any number without a fractional part (`1.0` included).
fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

fn is_negative(n: &Number) -> bool {
    match (n.as_i64(), n.as_f64()) {
        (Some(i), _) => i < 0,
        (None, Some(f)) => f < 0.0,
        (None, None) => false,
    }
}

/// JSON Schema's number equality: by value, so `1` and `1.0` are equal.
fn number_eq(a: &Number, b: &Number) -> bool {
    let int = |n: &Number| {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    match (int(a), int(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a.as_f64().is_some_and(|x| b.as_f64() == Some(x)),
    }
}

/// JSON Schema's value equality: numbers by value, objects whatever their key order.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => number_eq(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => objects_eq(x, y),
        _ => a == b,
    }
}

fn objects_eq(x: &Map<String, Value>, y: &Map<String, Value>) -> bool {
    x.len() == y.len()
        && x.iter()
            .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
}

fn all_unique(values: &[Value]) -> bool {
    // Id lists are short or ascending; compare strings fast, anything else pairwise.
    if values.iter().all(Value::is_string) {
        let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
        return values
            .iter()
            .filter_map(Value::as_str)
            .all(|s| seen.insert(s));
    }
    values
        .iter()
        .enumerate()
        .all(|(i, a)| values[i + 1..].iter().all(|b| !json_eq(a, b)))
}

/// Whether a typed state certainly satisfies the schema, decided without building a JSON
/// tree: the types already give the shape (no unknown fields, the right JSON types), so what
/// is left are the schema's value rules: `v` is 1, `log_digest` is 64 lowercase hex digits,
/// `compactor` and every text are non-empty, every item cites at least one event, no id
/// list repeats an id, and every id is `e1` or above. `false` means "run the schema" (which
/// then names each failing field), not "invalid".
pub(crate) fn surely_valid(state: &State) -> bool {
    let id_ok = |id: &EventId| id.seq() >= 1;
    let ids_ok = |ids: &[EventId]| ids.iter().all(id_ok) && all_distinct(ids);
    let items_ok = |items: &[Item]| {
        items
            .iter()
            .all(|i| !i.text.is_empty() && !i.events.is_empty() && ids_ok(&i.events))
    };
    let links_ok = |links: &[Link]| links.iter().all(|l| id_ok(&l.event) && id_ok(&l.by));
    state.v == 1
        && remaind_hash::is_sha256_hex(&state.log_digest)
        && !state.compactor.is_empty()
        && CURRENT_SECTIONS
            .iter()
            .filter_map(|name| state.section(name))
            .all(items_ok)
        && state
            .latest_user_instruction
            .as_ref()
            .is_none_or(|i| id_ok(&i.event))
        && state.next_step.as_ref().is_none_or(|s| {
            !s.text.is_empty() && ids_ok(&s.events) && s.tool.as_ref().is_none_or(|t| !t.is_empty())
        })
        && links_ok(&state.superseded)
        && links_ok(&state.resolved)
        && state.user_asked.iter().all(|a| {
            !a.text.is_empty() && !a.events.is_empty() && ids_ok(&a.events) && ids_ok(&a.refs)
        })
        && state
            .user_settled
            .iter()
            .all(|l| id_ok(&l.event) && id_ok(&l.by))
}

fn all_distinct(ids: &[EventId]) -> bool {
    match ids {
        [] | [_] => true,
        [a, b] => a != b,
        // Long lists (a condensed item's) are usually ascending, which settles it in one pass.
        _ if ids.windows(2).all(|w| w[0] < w[1]) => true,
        _ => {
            let mut seen = crate::prior::IdSet::default();
            ids.iter().all(|id| seen.insert(*id))
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::state::{Instruction, NextStep};

    fn ids(seqs: &[u64]) -> Vec<EventId> {
        seqs.iter().map(|s| EventId(*s)).collect()
    }

    fn item(text: &str, seqs: &[u64]) -> Item {
        Item {
            text: text.to_owned(),
            events: ids(seqs),
        }
    }

    /// A valid state, with `seed` choosing list lengths and ids.
    fn valid(seed: &[u8]) -> State {
        let n = |i: usize| usize::from(seed.get(i).copied().unwrap_or(0) % 4);
        let list = |k: usize, base: u64| -> Vec<Item> {
            (0..n(k))
                .map(|j| item("done", &[base + j as u64, base + 10 + j as u64]))
                .collect()
        };
        State {
            v: 1,
            through_seq: 40,
            log_digest: "0123456789abcdef".repeat(4),
            generated_at: "2026-11-22T00:00:00Z".to_owned(),
            compactor: "builtin".to_owned(),
            goal: list(0, 1),
            latest_user_instruction: Some(Instruction {
                event: EventId(1),
                text: String::new(),
            }),
            completed_work: list(1, 2),
            decisions: list(2, 3),
            constraints: Vec::new(),
            blockers: Vec::new(),
            remember: list(3, 4),
            files_changed: Vec::new(),
            open_loops: list(4, 5),
            next_step: Some(NextStep {
                text: "go on".to_owned(),
                events: ids(&[7, 8]),
                tool: Some("cargo".to_owned()),
            }),
            superseded: vec![Link {
                event: EventId(2),
                by: EventId(9),
            }],
            resolved: Vec::new(),
            user_asked: Vec::new(),
            user_settled: Vec::new(),
        }
    }

    /// The first item of the first non-empty list `valid` fills.
    fn first_item(s: &mut State) -> Option<&mut Item> {
        [
            &mut s.goal,
            &mut s.completed_work,
            &mut s.decisions,
            &mut s.remember,
            &mut s.open_loops,
        ]
        .into_iter()
        .find_map(|l| l.first_mut())
    }

    /// Break one value rule (or none, for `rule` past the last).
    fn break_rule(state: &mut State, rule: u8) {
        match rule {
            0 => state.v = 2,
            1 => state.log_digest = "0123456789ABCDEF".repeat(4),
            2 => state.log_digest.pop().map(drop).unwrap_or(()),
            3 => state.compactor.clear(),
            4 => {
                if let Some(i) = first_item(state) {
                    i.text.clear()
                }
            }
            5 => {
                if let Some(i) = first_item(state) {
                    i.events.clear()
                }
            }
            6 => {
                if let Some(i) = first_item(state)
                    && let Some(&id) = i.events.first()
                {
                    i.events.push(id);
                }
            }
            7 => {
                if let Some(id) = first_item(state).and_then(|i| i.events.first_mut()) {
                    *id = EventId(0);
                }
            }
            8 => {
                if let Some(s) = &mut state.next_step {
                    s.text.clear()
                }
            }
            9 => {
                if let Some(s) = &mut state.next_step
                    && let Some(&id) = s.events.first()
                {
                    s.events.push(id);
                }
            }
            10 => {
                if let Some(s) = &mut state.next_step {
                    s.tool = Some(String::new())
                }
            }
            11 => {
                if let Some(s) = &mut state.next_step {
                    s.events.clear()
                }
            }
            12 => {
                if let Some(i) = &mut state.latest_user_instruction {
                    i.event = EventId(0)
                }
            }
            13 => state.superseded[0].by = EventId(0),
            14 => state.resolved.push(Link {
                event: EventId(0),
                by: EventId(3),
            }),
            15 => {
                if let Some(i) = first_item(state) {
                    i.events = ids(&[5, 6, 7, 5]);
                }
            }
            16 => {
                if let Some(i) = first_item(state) {
                    i.events = ids(&[5, 5]);
                }
            }
            _ => {}
        }
    }

    static REFERENCE: LazyLock<jsonschema::Validator> = LazyLock::new(|| {
        jsonschema::draft202012::new(state_schema()).expect("the state schema compiles")
    });

    proptest! {
        /// The typed shortcut agrees with the schema check, and both with a real JSON Schema
        /// validator, on every state: it never passes one the schema rejects, and never sends
        /// a valid one down the slow path.
        #[test]
        fn prop_surely_valid_matches_the_schema(
            seed in proptest::collection::vec(any::<u8>(), 5),
            rules in proptest::collection::vec(0u8..20, 0..3),
        ) {
            let mut state = valid(&seed);
            for rule in rules {
                break_rule(&mut state, rule);
            }
            let value = serde_json::to_value(&state).expect("a state serializes");
            let schema_ok = check_state_schema(&value).is_empty();
            prop_assert_eq!(schema_ok, REFERENCE.is_valid(&value), "{:#?}", state);
            prop_assert_eq!(surely_valid(&state), schema_ok, "{:#?}", state);
        }
    }
}
