//! Reading user rules out of `schemas/redaction.json`.

use serde_json::Value;

use crate::error::Error;
use crate::redactor::UserRule;

fn config_error(field: impl Into<String>, message: impl Into<String>) -> Error {
    Error::Config {
        field: field.into(),
        message: message.into(),
    }
}

/// Parses `{"rules": [{"name": …, "pattern": …}, …]}`, ignoring other keys, into user rules.
pub(crate) fn parse_rules(text: &str) -> Result<Vec<UserRule>, Error> {
    let doc: Value = serde_json::from_str(text)
        .map_err(|e| config_error("$", format!("not valid JSON: {e}")))?;
    let Value::Object(doc) = doc else {
        return Err(config_error("$", "expected a JSON object"));
    };
    let rules = match doc.get("rules") {
        Some(Value::Array(rules)) => rules,
        Some(_) => return Err(config_error("rules", "expected an array")),
        None => return Err(config_error("rules", "missing")),
    };
    rules
        .iter()
        .enumerate()
        .map(|(i, rule)| {
            let Value::Object(rule) = rule else {
                return Err(config_error(format!("rules[{i}]"), "expected an object"));
            };
            let field = |key: &str| match rule.get(key) {
                Some(Value::String(s)) => Ok(s.clone()),
                Some(_) => Err(config_error(
                    format!("rules[{i}].{key}"),
                    "expected a string",
                )),
                None => Err(config_error(format!("rules[{i}].{key}"), "missing")),
            };
            Ok(UserRule {
                name: field("name")?,
                pattern: field("pattern")?,
            })
        })
        .collect()
}
