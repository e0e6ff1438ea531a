//! The [`Redactor`]: finding secret spans, resolving overlaps, writing placeholders.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, LazyLock};

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::error::Error;
use crate::judge::{ValueKind, is_credential, is_passphrase, is_placeholder};
use crate::prefilter::{BUILTIN, Hit, SECRET_KEY_NAME, is_builtin_placeholder};
use crate::rules::{GENERIC, NAMES, names_a_key_id};
use crate::search::{
    Admit, Known, Span, builtin_spans, find_placeholders, hits_cover, merge, moved_hits, scan_hits,
};
use crate::user::{self, UserRules};

/// One replacement made by a [`Redactor`]: which rule fired and what replaced the secret.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Applied {
    /// The rule's name: one of [`BUILTIN_RULES`](crate::BUILTIN_RULES) or a user rule's name.
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

/// A JSON key naming a credential header (see [`credential_header`]).
#[derive(Clone, Copy)]
enum Header {
    /// A header the rules read in text as `Name: value`, spelled so.
    Text(&'static str),
    /// `Cookie` (every value) or `Set-Cookie` (the first).
    Cookie { all: bool },
}

/// Headers whose value is a credential and which the rules read in text as `Name: value`.
const TEXT_HEADERS: &[&str] = &[
    "Authorization",
    "Proxy-Authorization",
    "X-API-Key",
    "x-goog-api-key",
    "X-Auth-Token",
    "X-Access-Token",
    "X-Vault-Token",
    "X-API-Token",
    "PRIVATE-TOKEN",
    "api-key",
    "apikey",
    "Ocp-Apim-Subscription-Key",
    "X-Amz-Security-Token",
];

/// Whether JSON text may hold a `Cookie` or `Set-Cookie` key, whose values no rule's literal
/// announces (in the case a header is written: `cookie`, `Cookie`, `COOKIE`).
fn names_a_cookie(json: &[u8]) -> bool {
    static LOWER: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"ookie"));
    static UPPER: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"OOKIE"));
    LOWER.find(json).is_some() || UPPER.find(json).is_some()
}

/// A cookie value shorter than this (`dark`, `en`, `1`) is a setting, not a session.
const COOKIE_VALUE_BYTES: usize = 8;

/// The credential header a JSON key names, in any case, with `_` for `-`
/// (`"authorization"`, `"Proxy_Authorization"`, `"Cookie"`).
fn credential_header(key: &str) -> Option<Header> {
    let same = |name: &str| {
        key.len() == name.len()
            && key
                .bytes()
                .zip(name.bytes())
                .all(|(k, n)| k.eq_ignore_ascii_case(&n) || (k == b'_' && n == b'-'))
    };
    // Most keys are neither long enough nor start like one: told apart at once.
    if !(6..=25).contains(&key.len()) {
        return None;
    }
    if same("cookie") {
        return Some(Header::Cookie { all: true });
    }
    if same("set-cookie") {
        return Some(Header::Cookie { all: false });
    }
    TEXT_HEADERS
        .iter()
        .find(|name| same(name))
        .map(|name| Header::Text(name))
}

struct Inner {
    /// HMAC-SHA256 keyed with the project key, cloned for each placeholder.
    mac: Hmac<Sha256>,
    user: UserRules,
}

/// Finds secrets and replaces them with deterministic, keyed placeholders.
///
/// Built-in rules ([`BUILTIN_RULES`](crate::BUILTIN_RULES)) are compiled once per process and
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
                &self
                    .inner
                    .user
                    .rules
                    .iter()
                    .map(|r| &r.name)
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Redactor {
    /// Builds a redactor from the project key and the project's user rules.
    ///
    /// # Errors
    ///
    /// [`Error::EmptyKey`] for an empty key; [`Error::InvalidRuleName`],
    /// [`Error::DuplicateRuleName`] or [`Error::InvalidPattern`] for a bad user rule (naming it).
    pub fn new(key: &[u8], user_rules: &[UserRule]) -> Result<Self, Error> {
        let keywords = vec![Vec::new(); user_rules.len()];
        Self::build(key, user_rules, keywords, Vec::new())
    }

    /// Builds a redactor from a project's rule sources: the text of `schemas/redaction.json`
    /// (if there is one) and gitleaks TOML rule files as `(name, text)` pairs, the name being
    /// what errors call the file (its path). User rules apply after the built-in ones: JSON
    /// rules first, then each file's rules in order.
    ///
    /// # Errors
    ///
    /// Everything [`Redactor::from_config_json`] reports, and [`Error::RuleFile`] naming the
    /// file and the rule for a malformed rule file, a bad regex, a `secretGroup` the regex does
    /// not have, or a regex whose compiled size could make matching slow.
    pub fn from_sources(
        key: &[u8],
        redaction_json: Option<&str>,
        rule_files: &[(&str, &str)],
    ) -> Result<Self, Error> {
        let (json_rules, keywords) = match redaction_json {
            Some(text) => (
                crate::config::parse_rules(text)?,
                crate::config::keywords(text)?,
            ),
            None => (Vec::new(), Vec::new()),
        };
        let mut toml = Vec::new();
        for (file, text) in rule_files {
            toml.extend(crate::gitleaks::parse(file, text)?);
        }
        Self::build(key, &json_rules, keywords, toml)
    }

    fn build(
        key: &[u8],
        user_rules: &[UserRule],
        mut keywords: Vec<Vec<String>>,
        toml: Vec<user::Compiled>,
    ) -> Result<Self, Error> {
        if key.is_empty() {
            return Err(Error::EmptyKey);
        }
        let mac = <Hmac<Sha256> as Mac>::new_from_slice(key).map_err(|_| Error::EmptyKey)?;
        let mut names: Vec<&str> = NAMES.to_vec();
        let mut user = Vec::with_capacity(user_rules.len() + toml.len());
        keywords.resize(user_rules.len(), Vec::new());
        for (rule, keywords) in user_rules.iter().zip(keywords) {
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
            user.push(crate::config::compile(rule, keywords)?);
        }
        // gitleaks ids may repeat a built-in's name (`jwt`, `private_key`): the placeholder
        // then names the family either way.
        user.extend(toml);
        let user = UserRules::new(user).map_err(|message| Error::Config {
            field: "rules".to_owned(),
            message,
        })?;
        Ok(Self {
            inner: Arc::new(Inner { mac, user }),
        })
    }

    /// Builds a redactor from the text of `schemas/redaction.json`:
    /// `{"rules": [{"name": …, "pattern": …}, …]}`. Other keys are ignored.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] naming the offending field (`rules`, `rules[2].pattern`, …) when the
    /// document is not of that shape, then everything [`Redactor::new`] reports.
    pub fn from_config_json(key: &[u8], redaction_json: &str) -> Result<Self, Error> {
        Self::from_sources(key, Some(redaction_json), &[])
    }

    /// Redacts a string.
    ///
    /// Returns the text, borrowed unchanged when nothing matched, and one [`Applied`] per
    /// replacement in order of position. Spans are widened to character boundaries, so the
    /// output is always valid UTF-8.
    pub fn redact_str<'a>(&self, s: &'a str) -> (Cow<'a, str>, Vec<Applied>) {
        self.redact_str_knowing(s, None)
    }

    /// [`redact_str`](Self::redact_str), given what the pass before knew of `s`.
    fn redact_str_knowing<'a>(
        &self,
        s: &'a str,
        known: Option<Known>,
    ) -> (Cow<'a, str>, Vec<Applied>) {
        let (mut spans, placeholders, hits) = self.spans_knowing(s.as_bytes(), known);
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
        let (out, mut applied, out_placeholders) =
            self.replace(s.as_bytes(), &spans, &placeholders);
        // Only whole characters were replaced, by ASCII placeholders.
        let (out, known) = match String::from_utf8(out) {
            Ok(out) => (
                out,
                Some(Known {
                    placeholders: out_placeholders,
                    hits: moved_hits(&hits, &spans, &applied, &placeholders),
                }),
            ),
            Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), None),
        };
        // A replacement can expose a secret that was glued to the one before it (a key
        // boundary appears where the first key was): redact again until nothing changes.
        let (again, more) = self.redact_str_knowing(&out, known);
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
        let (spans, placeholders, _) = self.spans_knowing(b, None);
        if spans.is_empty() {
            return (b.to_vec(), Vec::new());
        }
        let (mut out, mut applied, mut placeholders) = self.replace(b, &spans, &placeholders);
        // As in `redact_str`: repeat until a pass finds nothing. Every pass that changes the
        // bytes replaces at least one secret, so this ends.
        loop {
            let (spans, known, _) = self.spans_knowing(
                &out,
                Some(Known {
                    placeholders,
                    hits: None,
                }),
            );
            if spans.is_empty() {
                return (out, applied);
            }
            let (next, more, next_placeholders) = self.replace(&out, &spans, &known);
            out = next;
            placeholders = next_placeholders;
            applied.extend(more);
        }
    }

    /// Redacts every string in a JSON value in place: object keys and values, nested to any
    /// depth. Returns what was applied, in document order (an object's keys before its values).
    ///
    /// A string value under a key that names a secret (`"password"`, `"client_secret"`,
    /// `"apiKey"`) is replaced whole when it looks like a credential (see `generic_secret` in
    /// `docs/redaction.md`), since the key and the value are separate strings here.
    ///
    /// If a redacted key equals another key of the same object, the later entry wins, as in
    /// any JSON object with a repeated key.
    pub fn redact_json(&self, v: &mut serde_json::Value) -> Vec<Applied> {
        self.redact_json_keeping(v, &|_| false)
    }

    /// [`Redactor::redact_json`], leaving every object key for which `keep` is true as it is
    /// (the field names of a schema the caller owns; their values are redacted as ever).
    pub fn redact_json_keeping(
        &self,
        v: &mut serde_json::Value,
        keep: &dyn Fn(&str) -> bool,
    ) -> Vec<Applied> {
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
                    if map
                        .keys()
                        .any(|k| !keep(k) && self.contains_secret(k.as_bytes()))
                    {
                        let old = std::mem::take(map);
                        for (k, v) in old {
                            if keep(&k) {
                                map.insert(k, v);
                                continue;
                            }
                            let (k, a) = self.redact_str(&k);
                            applied.extend(a);
                            map.insert(k.into_owned(), v);
                        }
                    }
                    for (k, v) in map.iter_mut() {
                        let Value::String(s) = v else { continue };
                        if let Some(header) = credential_header(k) {
                            self.redact_header_value(header, s, &mut applied);
                        } else if let Some(a) = self.redact_by_key_name(k, s) {
                            applied.push(a);
                        }
                    }
                    stack.extend(map.values_mut().rev());
                }
                Value::Null | Value::Bool(_) | Value::Number(_) => {}
            }
        }
        applied
    }

    /// The value of a credential header held as a JSON key and its string value
    /// (`{"Authorization": "Basic …"}`), read as the header is in text: `Name: value`
    /// searched by every rule, whatever they take of the value kept; a cookie's values
    /// (each `name=value` of a `Cookie`, the first of a `Set-Cookie`) replaced whole.
    fn redact_header_value(&self, header: Header, value: &mut String, applied: &mut Vec<Applied>) {
        match header {
            Header::Text(name) => {
                let text = format!("{name}: {value}");
                let (out, a) = self.redact_str(&text);
                if let Cow::Owned(out) = out
                    && let Some(rest) = out.strip_prefix(name).and_then(|r| r.strip_prefix(": "))
                {
                    *value = rest.to_owned();
                    applied.extend(a);
                }
            }
            Header::Cookie { all } => {
                let mut out = String::with_capacity(value.len());
                let mut changed = false;
                for (i, pair) in value.split(';').enumerate() {
                    if i > 0 {
                        out.push(';');
                    }
                    let secret = (all || i == 0)
                        .then(|| pair.split_once('='))
                        .flatten()
                        .map(|(_, v)| v.trim())
                        .filter(|v| {
                            v.len() >= COOKIE_VALUE_BYTES
                                && !is_placeholder(v.as_bytes())
                                && self.placeholders(v.as_bytes()) != [(0, v.len())]
                        });
                    match secret {
                        Some(v) => {
                            // `v` is a slice of `pair`.
                            let at = v.as_ptr() as usize - pair.as_ptr() as usize;
                            let placeholder = self.placeholder(GENERIC, v.as_bytes());
                            out.push_str(&pair[..at]);
                            out.push_str(&placeholder);
                            out.push_str(&pair[at + v.len()..]);
                            applied.push(Applied {
                                rule: GENERIC.to_owned(),
                                placeholder,
                            });
                            changed = true;
                        }
                        None => out.push_str(pair),
                    }
                }
                if changed {
                    *value = out;
                }
            }
        }
    }

    /// A string under a key that names a secret (`"password"`, `"client_secret"`, `"apiKey"`)
    /// is replaced whole when it is judged a credential and no rule finds a secret in it by
    /// itself (those are left to the ordinary scan, which names them better).
    fn redact_by_key_name(&self, key: &str, value: &mut String) -> Option<Applied> {
        // Every secret-naming key holds one of these words: most keys are told apart without
        // the regex (which a short-lived process then never compiles).
        let lower = key.to_ascii_lowercase();
        if !["pass", "pwd", "secret", "token", "credential", "key"]
            .iter()
            .any(|w| lower.contains(w))
        {
            return None;
        }
        if names_a_key_id(key.as_bytes()) {
            return None;
        }
        let caps = SECRET_KEY_NAME.captures(key.as_bytes())?;
        let kind = if caps.name("pw").is_some() {
            ValueKind::Password
        } else {
            ValueKind::Token
        };
        // A message about a password (`"must be at least 8 characters"`) has spaces, as a
        // passphrase may: judged as a quoted value is.
        let credential = if kind == ValueKind::Password && value.contains(' ') {
            is_passphrase(value.as_bytes())
        } else {
            is_credential(value.as_bytes(), kind)
        };
        if !credential || self.contains_secret(value.as_bytes()) {
            return None;
        }
        let placeholder = self.placeholder(GENERIC, value.as_bytes());
        *value = placeholder.clone();
        Some(Applied {
            rule: GENERIC.to_owned(),
            placeholder,
        })
    }

    /// Whether no string of the JSON text `json` (no key or value, once decoded) holds
    /// anything a rule would redact, found in one pass over the text: there are no user
    /// rules, the text has no `\u` or `\/` escape (which could spell a rule's literal), and no
    /// built-in rule's literal occurs in it. Every other escape decodes to a character no
    /// literal contains, so a literal in a decoded string is verbatim in the text. `false`
    /// means "redact each string": the text may or may not hold a secret.
    pub fn json_text_is_clean(&self, json: &[u8]) -> bool {
        self.json_is_clean(json, |_| false)
    }

    /// [`json_text_is_clean`](Self::json_text_is_clean) for JSON text as `serde_json`
    /// writes it, whose only `\u` escapes are of control characters (`\u0000` to
    /// `\u001f`): no literal holds a control character, so those escapes spell none, and
    /// they are taken. Any other `\u` escape still means "redact each string".
    pub fn serialized_json_is_clean(&self, json: &[u8]) -> bool {
        self.json_is_clean(
            json,
            |hex| matches!(hex, [b'0', b'0', b'0' | b'1', d, ..] if d.is_ascii_hexdigit()),
        )
    }

    /// Whether `json` is clean, taking the `\u` escapes whose four digits `takes` accepts.
    fn json_is_clean(&self, json: &[u8], takes: impl Fn(&[u8]) -> bool) -> bool {
        let user = &self.inner.user;
        (user.is_empty() || (user.keyword_gated && !user.any_keyword(json)))
            && memchr::memchr_iter(b'\\', json).all(|at| match json.get(at + 1) {
                Some(b'/') => false,
                Some(b'u') => takes(json.get(at + 2..).unwrap_or_default()),
                _ => true,
            })
            && BUILTIN.candidates(json) == 0
            && !names_a_cookie(json)
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
        // Written in place: every replacement makes one, and formatting cost more than the
        // HMAC of a short secret.
        let mut placeholder = String::with_capacity(rule.len() + "[REDACTED::0123456789ab]".len());
        placeholder.push_str("[REDACTED:");
        placeholder.push_str(rule);
        placeholder.push(':');
        for byte in &digest[..6] {
            for nibble in [byte >> 4, byte & 0xf] {
                placeholder.push(char::from(b"0123456789abcdef"[usize::from(nibble)]));
            }
        }
        placeholder.push(']');
        placeholder
    }

    fn rule_name(&self, index: usize) -> &str {
        match NAMES.get(index) {
            Some(name) => name,
            None => &self.inner.user.rules[index - NAMES.len()].name,
        }
    }

    /// The placeholders in `b` this redactor could have written: those of its rules' names
    /// (see [`find_placeholders`]).
    fn placeholders(&self, b: &[u8]) -> Vec<(usize, usize)> {
        find_placeholders(b, |name| self.is_rule_name(name))
    }

    /// Whether `name` is the name of one of this redactor's rules, as its placeholders
    /// spell it.
    fn is_rule_name(&self, name: &[u8]) -> bool {
        NAMES.iter().any(|n| n.as_bytes() == name)
            || self
                .inner
                .user
                .rules
                .iter()
                .any(|r| r.name.as_bytes() == name)
    }

    /// Every span to replace, sorted and disjoint.
    fn spans(&self, b: &[u8]) -> Vec<Span> {
        self.spans_knowing(b, None).0
    }

    /// [`spans`](Self::spans), the placeholders of `b` and the prefilter's hits in it,
    /// given what the pass that wrote `b` knew (see [`replace`](Self::replace) and
    /// [`moved_hits`]).
    fn spans_knowing(
        &self,
        b: &[u8],
        known: Option<Known>,
    ) -> (Vec<Span>, Vec<(usize, usize)>, Vec<Hit>) {
        let (placeholders, admit) = match known {
            Some(known) => {
                debug_assert_eq!(
                    known.placeholders,
                    self.placeholders(b),
                    "{}",
                    String::from_utf8_lossy(b)
                );
                let admit = match known.hits {
                    Some(hits) => {
                        debug_assert!(
                            hits_cover(&hits, &scan_hits(b, &known.placeholders)),
                            "{}",
                            String::from_utf8_lossy(b)
                        );
                        Admit::Hits(hits)
                    }
                    None => Admit::Scan,
                };
                (known.placeholders, admit)
            }
            None => {
                // Most strings hold no literal: the scan tells before placeholders are
                // looked for. Where there are some, the hits inside built-in placeholders are
                // dropped (see `hits_outside`); those left admit the same rules as a scan of
                // the text between placeholders, or more (their tests read more of the text,
                // which never fails one that passed).
                let mut hits = BUILTIN.hits(b);
                if hits.is_empty() && self.inner.user.is_empty() {
                    return (Vec::new(), Vec::new(), hits);
                }
                let placeholders = self.placeholders(b);
                if !placeholders.is_empty() {
                    hits.retain(|hit| {
                        !placeholders.iter().any(|&(start, end)| {
                            start <= hit.at
                                && hit.end <= end
                                && is_builtin_placeholder(&b[start..end])
                        })
                    });
                }
                (placeholders, Admit::Hits(hits))
            }
        };
        let (spans, hits) = self.spans_admitting(b, &placeholders, admit, true);
        (spans, placeholders, hits)
    }

    /// [`spans`](Self::spans) of the built-in rules `admit` tells and the user rules, with
    /// the hits that admitted them. Bracket-free rules are searched only between
    /// placeholders when `between` is set (unset for tests).
    fn spans_admitting(
        &self,
        b: &[u8],
        placeholders: &[(usize, usize)],
        admit: Admit,
        between: bool,
    ) -> (Vec<Span>, Vec<Hit>) {
        let builtin = &*BUILTIN;
        let mut candidates = Vec::new();
        // One pass over the input tells which built-in rules can match at all. Rule literals
        // inside a built-in rule's placeholder (`token` in `[REDACTED:github_token:…]`) are
        // not counted: text redacted once is searched again, and every built-in placeholder
        // holds a key word, which would send every rule that takes one over it for nothing.
        let (admitted, hits, everywhere) = match admit {
            Admit::Scan => {
                let mut hits = Vec::new();
                let admitted = builtin.hits_outside(b, placeholders, &mut hits);
                (admitted, hits, false)
            }
            Admit::Hits(hits) => (hits.iter().fold(0, |set, hit| set | hit.rules), hits, false),
            #[cfg(test)]
            Admit::All(all) => (all, Vec::new(), true),
        };
        builtin_spans(
            b,
            placeholders,
            admitted,
            (!everywhere).then_some(&hits[..]),
            between,
            &mut candidates,
        );
        let user = &self.inner.user;
        if !user.is_empty() {
            let admitted = user.admitted(b);
            for (offset, rule) in user.rules.iter().enumerate() {
                if !admitted[offset] || !rule.regex.is_match(b) {
                    continue;
                }
                let index = NAMES.len() + offset;
                user.spans(rule, b, |start, end| {
                    candidates.push(Span {
                        start,
                        end,
                        rule: index,
                    });
                });
            }
        }
        if candidates.is_empty() {
            return (candidates, hits);
        }
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
        (merge(candidates), hits)
    }

    /// Writes `b` with every span replaced by its placeholder. Also returns the placeholders
    /// of the result: those of `b` (`placeholders`) no span touched, moved, and the new ones.
    /// No other appears: a placeholder has `[` only at its start, so none can start inside
    /// another or reach over the `[` of a new one, and one that a span cut lost its `[` or
    /// its end to it.
    fn replace(
        &self,
        b: &[u8],
        spans: &[Span],
        placeholders: &[(usize, usize)],
    ) -> (Vec<u8>, Vec<Applied>, Vec<(usize, usize)>) {
        let mut out = Vec::with_capacity(b.len());
        let mut applied = Vec::with_capacity(spans.len());
        let mut written = Vec::with_capacity(placeholders.len() + spans.len());
        let mut old = placeholders.iter().peekable();
        let mut at = 0;
        for span in spans.iter().copied().chain(std::iter::once(Span {
            start: b.len(),
            end: b.len(),
            rule: usize::MAX,
        })) {
            // `b[at..span.start]` is copied to `out[base..]`.
            let base = out.len();
            out.extend_from_slice(&b[at..span.start]);
            while let Some(&&(start, end)) = old.peek() {
                if end <= span.start && start >= at {
                    written.push((base + start - at, base + end - at));
                } else if start >= span.end && span.rule != usize::MAX {
                    break;
                }
                old.next();
            }
            if span.rule == usize::MAX {
                break;
            }
            let rule = self.rule_name(span.rule);
            let placeholder = self.placeholder(rule, &b[span.start..span.end]);
            let start = out.len();
            out.extend_from_slice(placeholder.as_bytes());
            written.push((start, out.len()));
            applied.push(Applied {
                rule: rule.to_owned(),
                placeholder,
            });
            at = span.end;
        }
        (out, applied, written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prefilter::RuleSet;

    #[test]
    fn merge_prefers_leftmost_longest_then_specific() {
        let spans = merge(vec![
            Span {
                start: 5,
                end: 9,
                rule: 0,
            },
            Span {
                start: 2,
                end: 6,
                rule: 3,
            },
            Span {
                start: 2,
                end: 6,
                rule: 1,
            },
            Span {
                start: 20,
                end: 22,
                rule: 4,
            },
        ]);
        assert_eq!(
            spans,
            vec![
                Span {
                    start: 2,
                    end: 9,
                    rule: 1
                },
                Span {
                    start: 20,
                    end: 22,
                    rule: 4
                },
            ]
        );
    }

    /// Rule literals inside a built-in rule's placeholder admit no rule, which changes
    /// nothing: whatever precedes or follows the placeholder, running every rule finds the
    /// same spans.
    #[test]
    fn literals_inside_builtin_placeholders_change_nothing() {
        let r = Redactor::new(&[7; 32], &[]).expect("redactor");
        let all = RuleSet::MAX >> (RuleSet::BITS as usize - NAMES.len());
        let around = [
            "",
            " ",
            "=",
            ": ",
            "\"",
            "'",
            "x",
            "Bearer ",
            "Authorization: ",
            "token=",
            "--password ",
            "https://user:",
            "abcdefABCDEF0123456789abcdefABCDEF0123456789",
            "@host",
            "%20",
            "\\n",
            "-u ",
        ];
        for name in NAMES {
            let placeholder = r.placeholder(name, b"secret");
            for before in around {
                for after in around {
                    let text = format!("{before}{placeholder}{after}");
                    assert_eq!(
                        r.spans(text.as_bytes()),
                        r.spans_admitting(
                            text.as_bytes(),
                            &r.placeholders(text.as_bytes()),
                            Admit::All(all),
                            false
                        )
                        .0,
                        "{text}"
                    );
                }
            }
        }
    }

    /// Searching bracket-free rules only between placeholders finds what searching the
    /// whole text does, around placeholders of built-in and user rules.
    #[test]
    fn bracket_free_rules_searched_between_placeholders_find_the_same() {
        let r = Redactor::new(&[7; 32], &[]).expect("redactor");
        let pieces = [
            "[REDACTED:generic_secret:0123456789ab]",
            "[REDACTED:api_key_header:0123456789ab]",
            "[REDACTED:my_secret_rule:abcdef012345]",
            "[REDACTED:x:abcdef012345]",
            "password=",
            "token: ",
            "X-API-Key: ",
            "aws_secret_access_key=",
            "\"",
            " ",
            "\\n",
            "[",
            "]",
            "Zq8vT2mK9pLx4Rw7",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8vT2mK9p",
            "S3cr3t!x",
        ];
        let mut next = crate::test_rng(0x2545_f491_4f6c_dd1du64);
        let mut found = 0;
        for _ in 0..3_000 {
            let n = 1 + next() as usize % 8;
            let text: String = (0..n)
                .map(|_| pieces[next() as usize % pieces.len()])
                .collect();
            let placeholders = r.placeholders(text.as_bytes());
            let spans = r
                .spans_admitting(text.as_bytes(), &placeholders, Admit::Scan, true)
                .0;
            assert_eq!(
                spans,
                r.spans_admitting(text.as_bytes(), &placeholders, Admit::Scan, false)
                    .0,
                "{text}"
            );
            found += usize::from(!spans.is_empty());
        }
        assert!(found > 300, "{found}");
    }

    /// The placeholders a replacement reports are those a search of its output finds (a
    /// debug assertion compares them on every pass), around, beside and inside the spans
    /// replaced.
    #[test]
    fn replacements_know_their_placeholders() {
        let r = Redactor::new(&[7; 32], &[]).expect("redactor");
        let token = "ghp_0123456789abcdefghijABCDEFGHIJ0123456789";
        let old = "[REDACTED:jwt:0123456789ab]";
        for text in [
            format!("{old}{token}"),
            format!("{token}{old}"),
            format!("{old} {token} {old}"),
            format!("Authorization: Digest {old} nonce={token}"),
            format!("password={token}{old}x"),
            format!("[REDACTED:{token}:0123456789ab]"),
            format!("{old}{old}token={token}"),
        ] {
            let (once, _) = r.redact_str(&text);
            let (twice, applied) = r.redact_str(&once);
            assert!(applied.is_empty(), "{text} -> {once} -> {twice}");
            let (bytes, _) = r.redact_bytes(text.as_bytes());
            assert_eq!(bytes, once.as_bytes(), "{text}");
        }
    }

    #[test]
    fn json_text_is_clean_only_when_no_decoded_string_can_hold_a_secret() {
        let r = Redactor::new(&[7; 32], &[]).expect("redactor");
        let clean = r#"{"kind":"note","text":"build passes\non line 3","data":{"k":[1,"x"]}}"#;
        assert!(r.json_text_is_clean(clean.as_bytes()));
        let key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";
        for dirty in [
            format!(r#"{{"kind":"note","text":"key {key}"}}"#),
            format!(r#"{{"kind":"note","data":{{"{key}":1}}}}"#),
            // An escape can spell a literal's byte.
            r#"{"kind":"note","text":"key sk\u002dproj-abcdefghijklmnopqrstuvwxyz0123456789"}"#
                .to_owned(),
            r#"{"kind":"note","text":"Authorization: token"}"#.to_owned(),
        ] {
            assert!(!r.json_text_is_clean(dirty.as_bytes()), "{dirty}");
        }
        // Text serde_json wrote escapes control characters only; other escapes could spell
        // a literal.
        let escaped = serde_json::to_vec(&serde_json::json!({"text": "bell \u{7} and \u{1b}[0m"}))
            .unwrap_or_default();
        assert!(escaped.windows(6).any(|w| w == b"\\u001b"));
        assert!(r.serialized_json_is_clean(&escaped));
        assert!(!r.json_text_is_clean(&escaped));
        for dirty in [
            r#"{"text":"key sk\u002dproj-abcdefghijklmnopqrstuvwxyz0123456789"}"#,
            r#"{"text":"\u0020"}"#,
            r#"{"text":"\u00"}"#,
            r#"{"text":"a\/b"}"#,
            r#"{"text":"Authorization: token"}"#,
        ] {
            assert!(!r.serialized_json_is_clean(dirty.as_bytes()), "{dirty}");
        }
        let user = Redactor::new(
            &[7; 32],
            &[UserRule {
                name: "build".to_owned(),
                pattern: "build".to_owned(),
            }],
        )
        .expect("redactor");
        assert!(!user.json_text_is_clean(clean.as_bytes()));
    }
}
