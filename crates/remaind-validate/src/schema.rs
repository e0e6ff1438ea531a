//! The embedded state schema, compiled once per process.

use std::sync::LazyLock;

use serde_json::Value;

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
