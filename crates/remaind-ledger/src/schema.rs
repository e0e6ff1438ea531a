//! The embedded event schema, compiled once per process.

use std::sync::LazyLock;

use serde_json::Value;

/// The text of `schemas/event.schema.json` this build validates against.
pub(crate) const EVENT_SCHEMA: &str = include_str!("../../../schemas/event.schema.json");

static VALIDATOR: LazyLock<jsonschema::Validator> = LazyLock::new(|| {
    let schema: Value =
        serde_json::from_str(EVENT_SCHEMA).expect("embedded event schema is valid JSON");
    jsonschema::draft202012::new(&schema).expect("embedded event schema compiles")
});

/// Validate one stored-line value; on failure, the first error as `(field path, message)`.
pub(crate) fn check(value: &Value) -> Result<(), (String, String)> {
    // The boolean check is much cheaper; the detailed error is only computed on failure.
    if VALIDATOR.is_valid(value) {
        return Ok(());
    }
    match VALIDATOR.validate(value) {
        Ok(()) => Ok(()),
        Err(e) => {
            let path = e
                .instance_path()
                .as_str()
                .trim_start_matches('/')
                .replace('/', ".");
            let field = if path.is_empty() {
                "line".to_owned()
            } else {
                path
            };
            Err((field, format!("schema: {e}")))
        }
    }
}
