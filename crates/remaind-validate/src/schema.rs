//! The embedded state schema, compiled once per process.

use std::sync::LazyLock;

use remaind_events::EventId;
use serde_json::Value;

use crate::state::{CURRENT_SECTIONS, Item, Link, State};
use crate::verdict::{Check, Failure};

/// The text of `schemas/state.schema.json` this build validates against.
pub const STATE_SCHEMA: &str = include_str!("../../../schemas/state.schema.json");

static SCHEMA: LazyLock<Value> = LazyLock::new(|| {
    serde_json::from_str(STATE_SCHEMA).expect("embedded state schema is valid JSON")
});

static VALIDATOR: LazyLock<jsonschema::Validator> = LazyLock::new(|| {
    jsonschema::draft202012::new(&SCHEMA).expect("embedded state schema compiles")
});

/// The state schema (JSON Schema 2020-12) as a value.
pub fn state_schema() -> &'static Value {
    &SCHEMA
}

/// Check a candidate state against the schema: one [`Check::Schema`] failure per violation,
/// each reason starting with the JSON pointer of the offending field (`/` for the root).
pub fn check_state_schema(state: &Value) -> Vec<Failure> {
    VALIDATOR
        .iter_errors(state)
        .map(|e| {
            let pointer = e.instance_path().as_str();
            let pointer = if pointer.is_empty() { "/" } else { pointer };
            Failure {
                check: Check::Schema,
                events: Vec::new(),
                reason: format!("{pointer}: {e}; fix this field to match state.schema.json"),
            }
        })
        .collect()
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
        && state.log_digest.len() == 64
        && state
            .log_digest
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
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

    proptest! {
        /// The typed shortcut agrees with the schema on every state: it never passes one the
        /// schema rejects, and never sends a valid one down the slow path.
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
            prop_assert_eq!(surely_valid(&state), schema_ok, "{:#?}", state);
        }
    }
}
