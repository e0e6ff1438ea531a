//! The [`Redactor`]: finding secret spans, resolving overlaps, writing placeholders.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use hmac::{Hmac, Mac};
use regex::bytes::Regex;
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use super::error::Error;
use super::rules::{BUILTIN, NAMES};

/// One replacement made by a [`Redactor`]: which rule fired and what replaced the secret.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Applied {
    /// The rule's name: one of `BUILTIN_RULES` or a user rule's name.
    pub rule: String,
    /// The placeholder written in place of the secret, `[REDACTED:<rule>:<12 hex>]`.
    pub placeholder: String,
}

/// A user rule, as written in `schemas/redaction.json`.
///
/// `pattern` is Rust regex syntax matched on bytes. The whole match is the secret, unless the
/// pattern has a capture group named `secret`, in which case only that group is replaced (so a
/// rule can match `token=(?P<secret>\w+)` and keep `token=` readable).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserRule {
    /// Rule name: ASCII letters, digits and `_`; it appears in placeholders.
    pub name: String,
    /// The regex.
    pub pattern: String,
}

/// A compiled user rule.
struct UserCompiled {
    name: String,
    regex: Regex,
    /// Index of the `secret` group, if the pattern has one.
    secret_group: Option<usize>,
}

struct Inner {
    /// HMAC-SHA256 keyed with the project key, cloned for each placeholder.
    mac: Hmac<Sha256>,
    user: Vec<UserCompiled>,
}

/// Finds secrets and replaces them with deterministic, keyed placeholders.
///
/// Built-in rules (`BUILTIN_RULES`) are compiled once per process and
/// shared; a `Redactor` adds the project key and the project's user rules. It is `Send + Sync`
/// and cloning it is a reference-count increment.
///
/// # Placeholders
///
/// A secret becomes `[REDACTED:<rule>:<h>]` where `<h>` is the first 12 hex digits of
/// HMAC-SHA256(key, secret bytes): equal secrets get equal placeholders under one key, and a
/// placeholder holds no byte of the secret. Text already inside a placeholder is never matched
/// again, so redacting redacted output changes nothing.
///
/// # Overlaps
///
/// All rules are matched independently. Candidates are taken leftmost first; at the same start
/// the longest wins; at the same span the more specific rule wins (built-in order, then user
/// rules in file order). A candidate overlapping one already taken and reaching past its end
/// extends it, so no byte matched by any rule survives.
#[derive(Clone)]
pub struct Redactor {
    inner: Arc<Inner>,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redactor")
            .field(
                "user_rules",
                &self.inner.user.iter().map(|r| &r.name).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// A byte range to replace and the index of the rule (built-ins first, then user rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Span {
    start: usize,
    end: usize,
    rule: usize,
}

impl Redactor {
    /// Builds a redactor from the project key and the project's user rules.
    ///
    /// # Errors
    ///
    /// [`Error::EmptyKey`] for an empty key; [`Error::InvalidRuleName`],
    /// [`Error::DuplicateRuleName`] or [`Error::InvalidPattern`] for a bad user rule (naming it).
    pub fn new(key: &[u8], user_rules: &[UserRule]) -> Result<Self, Error> {
        if key.is_empty() {
            return Err(Error::EmptyKey);
        }
        let mac = <Hmac<Sha256> as Mac>::new_from_slice(key).map_err(|_| Error::EmptyKey)?;
        let mut names: Vec<&str> = NAMES.to_vec();
        let mut user = Vec::with_capacity(user_rules.len());
        for rule in user_rules {
            let valid = !rule.name.is_empty()
                && rule
                    .name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if !valid {
                return Err(Error::InvalidRuleName {
                    name: rule.name.clone(),
                });
            }
            if names.contains(&rule.name.as_str()) {
                return Err(Error::DuplicateRuleName {
                    name: rule.name.clone(),
                });
            }
            names.push(&rule.name);
            let regex = Regex::new(&rule.pattern).map_err(|e| Error::InvalidPattern {
                name: rule.name.clone(),
                message: e.to_string(),
            })?;
            let secret_group = regex
                .capture_names()
                .position(|name| name == Some("secret"));
            user.push(UserCompiled {
                name: rule.name.clone(),
                regex,
                secret_group,
            });
        }
        Ok(Self {
            inner: Arc::new(Inner { mac, user }),
        })
    }

    /// Redacts a string.
    ///
    /// Returns the text, borrowed unchanged when nothing matched, and one [`Applied`] per
    /// replacement in order of position. Spans are widened to character boundaries, so the
    /// output is always valid UTF-8.
    pub fn redact_str<'a>(&self, s: &'a str) -> (Cow<'a, str>, Vec<Applied>) {
        let mut spans = self.spans(s.as_bytes());
        if spans.is_empty() {
            return (Cow::Borrowed(s), Vec::new());
        }
        for span in &mut spans {
            while !s.is_char_boundary(span.start) {
                span.start -= 1;
            }
            while !s.is_char_boundary(span.end) {
                span.end += 1;
            }
        }
        let spans = merge(spans);
        let (out, mut applied) = self.replace(s.as_bytes(), &spans);
        // Only whole characters were replaced, by ASCII placeholders.
        let out = match String::from_utf8(out) {
            Ok(out) => out,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        // A replacement can expose a secret that was glued to the one before it (a key
        // boundary appears where the first key was): redact again until nothing changes.
        let (again, more) = self.redact_str(&out);
        match again {
            Cow::Borrowed(_) => (Cow::Owned(out), applied),
            Cow::Owned(again) => {
                applied.extend(more);
                (Cow::Owned(again), applied)
            }
        }
    }

    /// Redacts bytes (which need not be UTF-8). Returns the redacted bytes and one [`Applied`]
    /// per replacement in order of position.
    pub fn redact_bytes(&self, b: &[u8]) -> (Vec<u8>, Vec<Applied>) {
        let spans = self.spans(b);
        if spans.is_empty() {
            return (b.to_vec(), Vec::new());
        }
        let (mut out, mut applied) = self.replace(b, &spans);
        // As in `redact_str`: repeat until a pass finds nothing. Every pass that changes the
        // bytes replaces at least one secret, so this ends.
        loop {
            let spans = self.spans(&out);
            if spans.is_empty() {
                return (out, applied);
            }
            let (next, more) = self.replace(&out, &spans);
            out = next;
            applied.extend(more);
        }
    }

    /// Redacts every string in a JSON value in place: object keys and values, nested to any
    /// depth. Returns what was applied, in document order (an object's keys before its values).
    ///
    /// If a redacted key equals another key of the same object, the later entry wins, as in
    /// any JSON object with a repeated key.
    pub fn redact_json(&self, v: &mut serde_json::Value) -> Vec<Applied> {
        use serde_json::Value;
        let mut applied = Vec::new();
        // An explicit stack: values built in memory may be nested deeper than the call stack.
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            match v {
                Value::String(s) => {
                    let (out, a) = self.redact_str(s);
                    if let Cow::Owned(out) = out {
                        *s = out;
                        applied.extend(a);
                    }
                }
                Value::Array(items) => stack.extend(items.iter_mut().rev()),
                Value::Object(map) => {
                    if map.keys().any(|k| self.contains_secret(k.as_bytes())) {
                        let old = std::mem::take(map);
                        for (k, v) in old {
                            let (k, a) = self.redact_str(&k);
                            applied.extend(a);
                            map.insert(k.into_owned(), v);
                        }
                    }
                    stack.extend(map.values_mut().rev());
                }
                Value::Null | Value::Bool(_) | Value::Number(_) => {}
            }
        }
        applied
    }

    /// Whether no string of the JSON text `json` (no key or value, once decoded) holds
    /// anything a rule would redact, found in one pass over the text: there are no user
    /// rules, the text has no `\u` escape (which could spell a rule's literal), and no
    /// built-in rule's literal occurs in it. Every other escape decodes to a character no
    /// literal contains, so a literal in a decoded string is verbatim in the text. `false`
    /// means "redact each string": the text may or may not hold a secret.
    pub fn json_text_is_clean(&self, json: &[u8]) -> bool {
        self.inner.user.is_empty()
            && memchr::memmem::find(json, b"\\u").is_none()
            && BUILTIN.candidates(json) == 0
    }

    /// Whether `b` holds anything a rule would redact.
    pub fn contains_secret(&self, b: &[u8]) -> bool {
        !self.spans(b).is_empty()
    }

    /// The placeholder for `secret` under `rule`.
    fn placeholder(&self, rule: &str, secret: &[u8]) -> String {
        let mut mac = self.inner.mac.clone();
        mac.update(secret);
        let digest = mac.finalize().into_bytes();
        format!("[REDACTED:{rule}:{}]", hex::encode(&digest[..6]))
    }

    fn rule_name(&self, index: usize) -> &str {
        match NAMES.get(index) {
            Some(name) => name,
            None => &self.inner.user[index - NAMES.len()].name,
        }
    }

    /// Every span to replace, sorted and disjoint.
    fn spans(&self, b: &[u8]) -> Vec<Span> {
        let builtin = &*BUILTIN;
        let mut candidates = Vec::new();
        // One pass over the input tells which built-in rules can match at all.
        let admitted = builtin.candidates(b);
        for (index, (rule, regex)) in builtin.rules.iter().enumerate() {
            if admitted & (1 << index) == 0 {
                continue;
            }
            for caps in regex.captures_iter(b) {
                let Some(m) = caps
                    .name("s")
                    .or_else(|| caps.name("t"))
                    .or_else(|| caps.get(0))
                else {
                    continue;
                };
                if let Some((start, end)) = rule.check.accept(m.as_bytes())
                    && end > start
                {
                    candidates.push(Span {
                        start: m.start() + start,
                        end: m.start() + end,
                        rule: index,
                    });
                }
            }
        }
        for (offset, rule) in self.inner.user.iter().enumerate() {
            let index = NAMES.len() + offset;
            let mut push = |start: usize, end: usize| {
                if end > start {
                    candidates.push(Span {
                        start,
                        end,
                        rule: index,
                    });
                }
            };
            match rule.secret_group {
                None => rule
                    .regex
                    .find_iter(b)
                    .for_each(|m| push(m.start(), m.end())),
                Some(group) => {
                    for caps in rule.regex.captures_iter(b) {
                        if let Some(m) = caps.get(group) {
                            push(m.start(), m.end());
                        }
                    }
                }
            }
        }
        if candidates.is_empty() {
            return candidates;
        }
        // Text inside an existing placeholder is never redacted again.
        let placeholders: Vec<(usize, usize)> = builtin
            .placeholder
            .find_iter(b)
            .map(|m| (m.start(), m.end()))
            .collect();
        if !placeholders.is_empty() {
            // Placeholders are sorted and disjoint: one forward walk over both lists.
            candidates.sort_unstable();
            let mut next = 0;
            candidates.retain(|c| {
                while next < placeholders.len() && placeholders[next].1 <= c.start {
                    next += 1;
                }
                !placeholders
                    .get(next)
                    .is_some_and(|&(start, end)| start <= c.start && c.end <= end)
            });
        }
        merge(candidates)
    }

    /// Writes `b` with every span replaced by its placeholder.
    fn replace(&self, b: &[u8], spans: &[Span]) -> (Vec<u8>, Vec<Applied>) {
        let mut out = Vec::with_capacity(b.len());
        let mut applied = Vec::with_capacity(spans.len());
        let mut at = 0;
        for span in spans {
            out.extend_from_slice(&b[at..span.start]);
            let rule = self.rule_name(span.rule);
            let placeholder = self.placeholder(rule, &b[span.start..span.end]);
            out.extend_from_slice(placeholder.as_bytes());
            applied.push(Applied {
                rule: rule.to_owned(),
                placeholder,
            });
            at = span.end;
        }
        out.extend_from_slice(&b[at..]);
        (out, applied)
    }
}

/// Sorts candidates leftmost first, longest first, most specific first, and folds overlapping
/// ones into the span taken first (extending it when they reach further).
fn merge(mut candidates: Vec<Span>) -> Vec<Span> {
    candidates.sort_by(|a, b| {
        a.start
            .cmp(&b.start)
            .then(b.end.cmp(&a.end))
            .then(a.rule.cmp(&b.rule))
    });
    let mut out: Vec<Span> = Vec::with_capacity(candidates.len());
    for c in candidates {
        match out.last_mut() {
            Some(last) if c.start < last.end => last.end = last.end.max(c.end),
            _ => out.push(c),
        }
    }
    out
}
