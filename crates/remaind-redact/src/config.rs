//! Reading user rules out of `schemas/redaction.json`.

use serde_json::Value;

use crate::error::Error;
use crate::redactor::UserRule;
use crate::user::{self, Compiled, SecretGroup};

fn config_error(field: impl Into<String>, message: impl Into<String>) -> Error {
    Error::Config {
        field: field.into(),
        message: message.into(),
    }
}

fn object(text: &str) -> Result<serde_json::Map<String, Value>, Error> {
    let doc: Value = serde_json::from_str(text)
        .map_err(|e| config_error("$", format!("not valid JSON: {e}")))?;
    let Value::Object(doc) = doc else {
        return Err(config_error("$", "expected a JSON object"));
    };
    Ok(doc)
}

/// The gitleaks rule files listed under `gitleaks` (a path or an array of paths).
pub(crate) fn rule_files(text: &str) -> Result<Vec<String>, Error> {
    match object(text)?.get("gitleaks") {
        None => Ok(Vec::new()),
        Some(Value::String(path)) => Ok(vec![path.clone()]),
        Some(Value::Array(paths)) => paths
            .iter()
            .enumerate()
            .map(|(i, p)| match p {
                Value::String(p) => Ok(p.clone()),
                _ => Err(config_error(
                    format!("gitleaks[{i}]"),
                    "expected a path (a string)",
                )),
            })
            .collect(),
        Some(_) => Err(config_error(
            "gitleaks",
            "expected a path or an array of paths",
        )),
    }
}

/// Each rule's optional `keywords` (strings; the rule then only runs on text holding one).
pub(crate) fn keywords(text: &str) -> Result<Vec<Vec<String>>, Error> {
    let doc = object(text)?;
    let Some(Value::Array(rules)) = doc.get("rules") else {
        return Ok(Vec::new());
    };
    rules
        .iter()
        .enumerate()
        .map(|(i, rule)| match rule.get("keywords") {
            None => Ok(Vec::new()),
            Some(Value::Array(words)) => words
                .iter()
                .map(|w| match w {
                    Value::String(w) if !w.is_empty() => Ok(w.to_ascii_lowercase()),
                    _ => Err(config_error(
                        format!("rules[{i}].keywords"),
                        "expected an array of non-empty strings",
                    )),
                })
                .collect(),
            Some(_) => Err(config_error(
                format!("rules[{i}].keywords"),
                "expected an array of non-empty strings",
            )),
        })
        .collect()
}

/// A `redaction.json` user rule compiled: the whole match is the secret, or its `secret` group.
pub(crate) fn compile(rule: &UserRule, keywords: Vec<String>) -> Result<Compiled, Error> {
    let regex = user::compile(&rule.pattern).map_err(|message| Error::InvalidPattern {
        name: rule.name.clone(),
        message,
    })?;
    let secret = match regex.capture_names().position(|n| n == Some("secret")) {
        Some(i) => SecretGroup::Index(i),
        None => SecretGroup::Whole,
    };
    Ok(Compiled {
        name: rule.name.clone(),
        regex,
        secret,
        min_entropy: None,
        keywords,
        allowlists: Vec::new(),
    })
}

/// Parses `{"rules": [{"name": …, "pattern": …}, …]}`, ignoring other keys, into user rules.
pub(crate) fn parse_rules(text: &str) -> Result<Vec<UserRule>, Error> {
    let doc = object(text)?;
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
