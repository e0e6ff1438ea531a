//! Reading rule files in the gitleaks TOML format.
//!
//! Read: `[[rules]]` with `id`, `regex` (Go's RE2 syntax, which the `regex` crate reads once a
//! `{` that opens no repetition is escaped), `secretGroup`,
//! `entropy`, `keywords`, and allowlists (`[rules.allowlist]` or `[[rules.allowlists]]` with
//! `regexes`, `regexTarget`, `stopwords`, `condition`); the file's global `[allowlist]` /
//! `[[allowlists]]` applies to each of its rules. Text has no file path or commit, so `path`
//! and allowlist `paths`/`commits` never match: a rule with only a `path` is skipped, and a rule
//! with both is applied everywhere. `[extend]` with `useDefault` is accepted (the built-in rules
//! play the part of gitleaks' defaults); `extend.path` is refused, since the extended file would
//! silently not be read.

use toml::{Table, Value};

use crate::error::Error;
use crate::user::{self, Allowlist, Compiled, SecretGroup, Target};

fn rule_error(file: &str, rule: &str, message: impl Into<String>) -> Error {
    Error::RuleFile {
        file: file.to_owned(),
        rule: rule.to_owned(),
        message: message.into(),
    }
}

/// `pattern` in Go's RE2 syntax rewritten where the `regex` crate reads it differently: a `{`
/// that does not open a repetition (`{2}`, `{2,}`, `{2,5}`) is a literal in Go
/// (`^\$(?:\d+|{\d+})$` in gitleaks' own default rules) and an error here, so it is escaped.
fn from_go(pattern: &str) -> std::borrow::Cow<'_, str> {
    let b = pattern.as_bytes();
    let opens_repetition = |at: usize| {
        let rest = &b[at + 1..];
        let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return false;
        }
        let rest = &rest[digits..];
        match rest.first() {
            Some(b'}') => true,
            Some(b',') => {
                let more = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
                rest.get(1 + more) == Some(&b'}')
            }
            _ => false,
        }
    };
    let mut literal = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            // An escape: `\{` stays, and `\p{Greek}`, `\x{41}` keep their braces.
            b'\\' => {
                i += 2;
                if matches!(b.get(i - 1), Some(b'p' | b'P' | b'x')) && b.get(i) == Some(&b'{') {
                    i += b[i..]
                        .iter()
                        .position(|&c| c == b'}')
                        .map_or(b.len() - i, |p| p + 1);
                }
            }
            b'{' if !opens_repetition(i) => {
                literal.push(i);
                i += 1;
            }
            _ => i += 1,
        }
    }
    if literal.is_empty() {
        return pattern.into();
    }
    let mut out = String::with_capacity(pattern.len() + literal.len());
    let mut from = 0;
    for at in literal {
        out.push_str(&pattern[from..at]);
        out.push('\\');
        from = at;
    }
    out.push_str(&pattern[from..]);
    out.into()
}

/// A rule id as a placeholder name: ASCII letters and digits kept, anything else `_`
/// (`generic-api-key` → `generic_api_key`).
fn rule_name(id: &str) -> String {
    id.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

fn strings(v: Option<&Value>, what: &str) -> Result<Vec<String>, String> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => Ok(s.clone()),
                _ => Err(format!("`{what}` must be an array of strings")),
            })
            .collect(),
        Some(_) => Err(format!("`{what}` must be an array of strings")),
    }
}

fn allowlist(table: &Table, what: &str) -> Result<Allowlist, String> {
    let regexes = strings(table.get("regexes"), &format!("{what}.regexes"))?
        .iter()
        .map(|p| user::compile(&from_go(p)).map_err(|e| format!("`{what}.regexes`: `{p}`: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let target = match table.get("regexTarget") {
        None => Target::Secret,
        Some(Value::String(t)) => match t.as_str() {
            "secret" | "" => Target::Secret,
            "match" => Target::Match,
            "line" => Target::Line,
            other => {
                return Err(format!(
                    "`{what}.regexTarget` is `{other}`: use `secret`, `match` or `line`"
                ));
            }
        },
        Some(_) => return Err(format!("`{what}.regexTarget` must be a string")),
    };
    let all = match table.get("condition") {
        None => false,
        Some(Value::String(c)) if c.eq_ignore_ascii_case("or") => false,
        Some(Value::String(c)) if c.eq_ignore_ascii_case("and") => true,
        Some(_) => return Err(format!("`{what}.condition` must be `OR` or `AND`")),
    };
    let stopwords = strings(table.get("stopwords"), &format!("{what}.stopwords"))?
        .into_iter()
        .map(|w| w.to_ascii_lowercase().into_bytes())
        .collect();
    let needs_path = !strings(table.get("paths"), &format!("{what}.paths"))?.is_empty()
        || !strings(table.get("commits"), &format!("{what}.commits"))?.is_empty();
    Ok(Allowlist {
        regexes,
        target,
        stopwords,
        all,
        needs_path,
    })
}

/// The allowlists under `single` (a table) and `many` (an array of tables) of `table`.
fn allowlists(table: &Table, single: &str, many: &str) -> Result<Vec<Allowlist>, String> {
    let mut out = Vec::new();
    match table.get(single) {
        None => {}
        Some(Value::Table(t)) => out.push(allowlist(t, single)?),
        Some(_) => return Err(format!("`{single}` must be a table")),
    }
    match table.get(many) {
        None => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let Value::Table(t) = item else {
                    return Err(format!("`{many}[{i}]` must be a table"));
                };
                out.push(allowlist(t, &format!("{many}[{i}]"))?);
            }
        }
        Some(_) => return Err(format!("`{many}` must be an array of tables")),
    }
    Ok(out)
}

/// Parses the gitleaks TOML `text` of `file` (a name for messages) into user rules.
pub(crate) fn parse(file: &str, text: &str) -> Result<Vec<Compiled>, Error> {
    let doc: Table = text
        .parse()
        .map_err(|e: toml::de::Error| rule_error(file, "-", format!("not valid TOML: {e}")))?;
    if let Some(Value::Table(extend)) = doc.get("extend")
        && extend.contains_key("path")
    {
        return Err(rule_error(
            file,
            "-",
            "`extend.path` is not supported: list each rule file in redaction.json `gitleaks` instead",
        ));
    }
    let global =
        allowlists(&doc, "allowlist", "allowlists").map_err(|e| rule_error(file, "-", e))?;
    let rules = match doc.get("rules") {
        None => return Ok(Vec::new()),
        Some(Value::Array(rules)) => rules,
        Some(_) => {
            return Err(rule_error(
                file,
                "-",
                "`rules` must be an array of tables ([[rules]])",
            ));
        }
    };
    let mut out = Vec::with_capacity(rules.len());
    for (i, rule) in rules.iter().enumerate() {
        let Value::Table(rule) = rule else {
            return Err(rule_error(file, &format!("rules[{i}]"), "must be a table"));
        };
        let id = match rule.get("id") {
            Some(Value::String(id)) if !id.is_empty() => id.clone(),
            _ => {
                return Err(rule_error(
                    file,
                    &format!("rules[{i}]"),
                    "has no `id` (a non-empty string)",
                ));
            }
        };
        let err = |m: String| rule_error(file, &id, m);
        let regex = match rule.get("regex") {
            Some(Value::String(r)) => r.clone(),
            Some(_) => return Err(err("`regex` must be a string".to_owned())),
            None if rule.contains_key("path") => continue,
            None => return Err(err("has neither `regex` nor `path`".to_owned())),
        };
        let compiled = user::compile(&from_go(&regex)).map_err(|e| err(format!("`regex`: {e}")))?;
        let groups = compiled.captures_len() - 1;
        let secret = match rule.get("secretGroup") {
            None => SecretGroup::FirstNonEmpty,
            Some(Value::Integer(0)) => SecretGroup::FirstNonEmpty,
            Some(Value::Integer(n)) if *n > 0 && (*n as u64) <= groups as u64 => {
                SecretGroup::Index(*n as usize)
            }
            Some(Value::Integer(n)) => {
                return Err(err(format!(
                    "`secretGroup` is {n} but the regex has {groups} capture group(s)"
                )));
            }
            Some(_) => return Err(err("`secretGroup` must be an integer".to_owned())),
        };
        let min_entropy = match rule.get("entropy") {
            None => None,
            Some(Value::Float(e)) if *e >= 0.0 && e.is_finite() => Some(*e),
            Some(Value::Integer(e)) if *e >= 0 => Some(*e as f64),
            Some(_) => return Err(err("`entropy` must be a non-negative number".to_owned())),
        };
        let keywords = strings(rule.get("keywords"), "keywords")
            .map_err(err)?
            .into_iter()
            .filter(|k| !k.is_empty())
            .map(|k| k.to_ascii_lowercase())
            .collect();
        let mut lists = allowlists(rule, "allowlist", "allowlists").map_err(err)?;
        lists.extend(global.iter().cloned());
        out.push(Compiled {
            name: rule_name(&id),
            regex: compiled,
            secret,
            min_entropy,
            keywords,
            allowlists: lists,
        });
    }
    Ok(out)
}
