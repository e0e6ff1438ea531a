//! The hand-written schema check against the real JSON Schema: the `jsonschema` crate
//! (a dev-dependency only) run over `schemas/state.schema.json`. On valid states, states with
//! one or more fields broken, removed or added, and arbitrary JSON at any field, both must
//! accept or reject alike and report the same failures (pointer and message, in order).

use std::sync::LazyLock;

use proptest::prelude::*;
use remaind_validate::{check_state_schema, state_schema};
use serde_json::{Map, Value, json};

static REFERENCE: LazyLock<jsonschema::Validator> = LazyLock::new(|| {
    jsonschema::draft202012::new(state_schema()).expect("the state schema compiles")
});

/// What a JSON Schema 2020-12 validator says, in the check's reason format.
fn reference(state: &Value) -> Vec<String> {
    REFERENCE
        .iter_errors(state)
        .map(|e| {
            let pointer = e.instance_path().as_str();
            let pointer = if pointer.is_empty() { "/" } else { pointer };
            format!("{pointer}: {e}; fix this field to match state.schema.json")
        })
        .collect()
}

fn hand_written(state: &Value) -> Vec<String> {
    check_state_schema(state)
        .into_iter()
        .map(|f| f.reason)
        .collect()
}

fn pointers(reasons: &[String]) -> Vec<&str> {
    let mut p: Vec<&str> = reasons
        .iter()
        .map(|r| r.split_once(": ").map_or(r.as_str(), |(p, _)| p))
        .collect();
    p.sort_unstable();
    p.dedup();
    p
}

fn assert_agree(state: &Value) -> Result<(), TestCaseError> {
    let ours = hand_written(state);
    let theirs = reference(state);
    prop_assert_eq!(ours.is_empty(), REFERENCE.is_valid(state), "{:#}", state);
    prop_assert_eq!(pointers(&ours), pointers(&theirs), "{:#}", state);
    prop_assert_eq!(ours, theirs, "{:#}", state);
    Ok(())
}

fn event_id() -> impl Strategy<Value = Value> {
    prop_oneof![
        8 => (1u64..40).prop_map(|n| json!(format!("e{n}"))),
        1 => prop::sample::select(vec!["e0", "e01", "E1", "e", "e1 ", "e1\n", "1", "e٣", ""])
            .prop_map(Value::from),
    ]
}

fn ids(min: usize) -> impl Strategy<Value = Value> {
    prop::collection::vec(event_id(), min..4).prop_map(Value::from)
}

fn text() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => "[a-z ]{1,12}".prop_map(Value::from),
        1 => Just(json!("")),
        1 => Just(json!("é")),
    ]
}

fn item() -> impl Strategy<Value = Value> {
    (text(), ids(0)).prop_map(|(text, events)| json!({ "text": text, "events": events }))
}

fn link() -> impl Strategy<Value = Value> {
    (event_id(), event_id()).prop_map(|(event, by)| json!({ "event": event, "by": by }))
}

fn digest() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => "[0-9a-f]{64}".prop_map(Value::from),
        1 => "[0-9a-fA-F]{63,65}".prop_map(Value::from),
    ]
}

fn next_step() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => Just(Value::Null),
        3 => (text(), ids(0), prop::option::of(text())).prop_map(|(text, events, tool)| {
            let mut step = json!({ "text": text, "events": events });
            if let Some(tool) = tool {
                step["tool"] = tool;
            }
            step
        }),
    ]
}

fn instruction() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => Just(Value::Null),
        3 => (event_id(), ".{0,8}").prop_map(|(event, text)| json!({ "event": event, "text": text })),
    ]
}

/// A state in the schema's shape, mostly valid; `event_id`, `text` and `digest` sometimes
/// give a value that breaks a rule.
fn state() -> impl Strategy<Value = Value> {
    let items = || prop::collection::vec(item(), 0..3).prop_map(Value::from);
    let links = || prop::collection::vec(link(), 0..3).prop_map(Value::from);
    (
        (0u64..100, digest(), text(), instruction(), next_step()),
        (items(), items(), items(), items()),
        (items(), items(), items(), items()),
        (links(), prop::option::of(links())),
    )
        .prop_map(
            |(
                (through, digest, compactor, instruction, step),
                (goal, done, decisions, constraints),
                (blockers, remember, files, open),
                (superseded, resolved),
            )| {
                let mut state = json!({
                    "v": 1, "through_seq": through, "log_digest": digest,
                    "generated_at": "2026-11-21T21:00:00Z", "compactor": compactor,
                    "goal": goal, "latest_user_instruction": instruction,
                    "completed_work": done, "decisions": decisions,
                    "constraints": constraints, "blockers": blockers, "remember": remember,
                    "files_changed": files, "open_loops": open, "next_step": step,
                    "superseded": superseded,
                });
                if let Some(resolved) = resolved {
                    state["resolved"] = resolved;
                }
                state
            },
        )
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-3i64..3).prop_map(Value::from),
        prop::sample::select(vec![0.0, 1.0, -0.5, 0.5, -1.0, 2.5, 1e300]).prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        event_id(),
        ".{0,6}".prop_map(Value::from),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec(
                (
                    prop::sample::select(vec!["text", "events", "event", "by", "tool", "x"]),
                    inner
                ),
                0..4
            )
            .prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

/// Every pointer into `value` (objects and arrays included), root first.
fn all_pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                all_pointers(v, format!("{at}/{k}"), out);
            }
        }
        Value::Array(list) => {
            for (i, v) in list.iter().enumerate() {
                all_pointers(v, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

#[derive(Debug, Clone)]
enum Mutation {
    /// Put an arbitrary value at the chosen pointer.
    Replace(prop::sample::Index, Value),
    /// Remove the field (or array element) at the chosen pointer.
    Remove(prop::sample::Index),
    /// Add a field to the object at the chosen pointer.
    Add(prop::sample::Index, String, Value),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<prop::sample::Index>(), json_value()).prop_map(|(i, v)| Mutation::Replace(i, v)),
        2 => any::<prop::sample::Index>().prop_map(Mutation::Remove),
        1 => (
            any::<prop::sample::Index>(),
            prop::sample::select(vec!["extra", "text", "events", "tool", "resolved", "v"]),
            json_value()
        )
            .prop_map(|(i, k, v)| Mutation::Add(i, k.to_owned(), v)),
    ]
}

fn apply(state: &mut Value, mutation: &Mutation) {
    let mut pointers = Vec::new();
    all_pointers(state, String::new(), &mut pointers);
    match mutation {
        Mutation::Replace(i, value) => {
            if let Some(slot) = state.pointer_mut(i.get(&pointers).as_str()) {
                *slot = value.clone();
            }
        }
        Mutation::Remove(i) => {
            let pointer = i.get(&pointers);
            let Some((parent, last)) = pointer.rsplit_once('/') else {
                return; // the root itself
            };
            match state.pointer_mut(parent) {
                Some(Value::Object(map)) => {
                    map.shift_remove(last);
                }
                Some(Value::Array(list)) => {
                    if let Ok(n) = last.parse::<usize>() {
                        list.remove(n);
                    }
                }
                _ => {}
            }
        }
        Mutation::Add(i, key, value) => {
            if let Some(Value::Object(map)) = state.pointer_mut(i.get(&pointers).as_str()) {
                map.insert(key.clone(), value.clone());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn prop_hand_written_check_agrees_with_json_schema(
        mut candidate in state(),
        mutations in prop::collection::vec(mutation(), 0..4),
    ) {
        for m in &mutations {
            apply(&mut candidate, m);
        }
        assert_agree(&candidate)?;
    }

    #[test]
    fn prop_agrees_on_arbitrary_json(value in json_value()) {
        assert_agree(&value)?;
        let mut object = Map::new();
        object.insert("v".to_owned(), value);
        assert_agree(&Value::Object(object))?;
    }
}

#[test]
fn agrees_on_the_fixture_states() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/validate");
    let mut seen = 0;
    for case in std::fs::read_dir(dir).expect("fixtures/validate") {
        let case = case.expect("a case folder").path();
        for name in ["state.json", "prior.json"] {
            let Ok(text) = std::fs::read_to_string(case.join(name)) else {
                continue;
            };
            let mut state: Value = serde_json::from_str(&text).expect("fixture is JSON");
            if state["log_digest"] == "$DIGEST" {
                state["log_digest"] = json!("0".repeat(64));
            }
            assert_agree(&state).unwrap_or_else(|e| panic!("{}: {e}", case.display()));
            seen += 1;
        }
    }
    assert!(seen > 20, "only {seen} fixture states");
}
