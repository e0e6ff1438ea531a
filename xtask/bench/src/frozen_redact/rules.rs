//! The built-in rules: names, patterns and the order of specificity.
//!
//! Every pattern is ASCII-only (`(?-u)`) and is compiled once per process. A pattern either
//! matches the secret itself, or has a group named `s` (or `t`) holding the secret inside a larger
//! context (a key name, a header name, a boundary byte), in which case only the group is replaced.

use std::cell::RefCell;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, Input, Span, packed};
use regex::bytes::Regex;

/// A start-of-token boundary: `\b`, or right after an escape of JSON text (`\n`, `\t`,
/// `\u0041`), so that a token right after an escaped newline inside serialized JSON is still
/// found. The escape is consumed, which is why every rule using it puts the secret in the `s`
/// group. Being zero-width in the common case keeps the rule's literal visible to the regex
/// engine's prefilter.
const B: &str = r"(?:\b|\\[nrtbf]|\\u[0-9A-Fa-f]{4})";

/// Separator between a key name and its value: optional (escaped) closing quote, then `:`, `=`,
/// `=>` or whitespace, then an optional (escaped) opening quote.
const SEP: &str = r#"(?:\\*["'])?[ \t]*(?:=>|[:=]|[ \t])[ \t]*(?:\\*["'])?"#;

/// Like [`SEP`] but without the bare-whitespace form: `Authorization` is a common word in prose,
/// `Authorization:` or `authorization=` is a header or a field.
const SEP_STRICT: &str = r#"(?:\\*["'])?[ \t]*(?:=>|[:=])[ \t]*(?:\\*["'])?"#;

/// One built-in rule: its contract name, its pattern, and an optional check on the secret span.
pub(crate) struct BuiltinRule {
    pub(crate) name: &'static str,
    pub(crate) pattern: String,
    pub(crate) check: Check,
}

/// A post-match check on the secret span: returns the accepted sub-range (start, end) of the
/// span, or `None` to reject the candidate.
#[derive(Clone, Copy)]
pub(crate) enum Check {
    /// Accept as matched.
    None,
    /// The span must hold an ASCII digit.
    HasDigit,
    /// Standalone `Bearer <token>`: the token must look random (see [`looks_random`]).
    BearerToken,
    /// An `Authorization` value running to the end of the line or quoted string: see
    /// [`authorization_value`].
    Authorization,
}

impl Check {
    pub(crate) fn accept(self, secret: &[u8]) -> Option<(usize, usize)> {
        match self {
            Check::None => Some((0, secret.len())),
            Check::HasDigit => secret
                .iter()
                .any(u8::is_ascii_digit)
                .then_some((0, secret.len())),
            Check::BearerToken => {
                // `.` and `~` are legal in a token but end sentences far more often than tokens.
                let mut len = secret.len();
                while len > 0 && matches!(secret[len - 1], b'.' | b'~') {
                    len -= 1;
                }
                looks_random(&secret[..len]).then_some((0, len))
            }
            Check::Authorization => authorization_value(secret),
        }
    }
}

/// Schemes whose credential is a single token.
const TOKEN_SCHEMES: &[&[u8]] = &[b"bearer", b"basic", b"token", b"apikey"];
/// Schemes whose credential runs to the end of the value (parameter lists).
const LIST_SCHEMES: &[&[u8]] = &[
    b"digest",
    b"negotiate",
    b"ntlm",
    b"aws4-hmac-sha256",
    b"hoba",
    b"mutual",
    b"vapid",
];

/// Checks the credential of an `Authorization` value. The regex keeps a leading `Bearer`,
/// `Basic`, `Token` or `ApiKey` out of the span and takes one token; for `Digest`,
/// `AWS4-HMAC-SHA256` and other parameter-list schemes the span is the rest of the value. A span
/// that is only a scheme word (its credential was cut off or is already a placeholder) is
/// rejected, and trailing separators are trimmed.
fn authorization_value(value: &[u8]) -> Option<(usize, usize)> {
    let is_sep = |b: &u8| matches!(b, b' ' | b'\t' | b',' | b';');
    let len = value.len() - value.iter().rev().take_while(|b| is_sep(b)).count();
    let value = &value[..len];
    let word_len = value
        .iter()
        .position(|b| *b == b' ' || *b == b'\t')
        .unwrap_or(value.len());
    let word = value[..word_len].to_ascii_lowercase();
    if TOKEN_SCHEMES.contains(&word.as_slice()) && word_len == value.len() {
        return None;
    }
    if LIST_SCHEMES.contains(&word.as_slice()) {
        let rest = value[word_len..].trim_ascii_start();
        if rest.is_empty() || rest.starts_with(b"[") {
            return None;
        }
        return Some((value.len() - rest.len(), value.len()));
    }
    (len > 0).then_some((0, len))
}

/// A token after a bare `Bearer ` is taken as a credential when it is at least 16 bytes long and
/// holds a digit, a symbol, or both upper- and lower-case letters after its first byte: random
/// tokens almost always do, while the English words that follow "bearer" in prose do not.
fn looks_random(token: &[u8]) -> bool {
    if token.len() < 16 {
        return false;
    }
    let rest = &token[1..];
    let digit_or_symbol = token.iter().any(|b| !b.is_ascii_alphabetic());
    let upper = rest.iter().any(u8::is_ascii_uppercase);
    let lower = rest.iter().any(u8::is_ascii_lowercase);
    digit_or_symbol || (upper && lower)
}

/// Name of the PEM private key rule.
pub(crate) const PRIVATE_KEY: &str = "private_key";
/// Name of the Anthropic key rule.
pub(crate) const ANTHROPIC: &str = "anthropic_api_key";
/// Name of the OpenAI key rule.
pub(crate) const OPENAI: &str = "openai_api_key";
/// Name of the GitHub token rule.
pub(crate) const GITHUB: &str = "github_token";
/// Name of the Slack token rule.
pub(crate) const SLACK: &str = "slack_token";
/// Name of the AWS access key id rule.
pub(crate) const AWS_ACCESS_KEY_ID: &str = "aws_access_key_id";
/// Name of the JWT rule.
pub(crate) const JWT: &str = "jwt";
/// Name of the AWS secret access key rule.
pub(crate) const AWS_SECRET_ACCESS_KEY: &str = "aws_secret_access_key";
/// Name of the bare `Bearer <token>` rule.
pub(crate) const BEARER: &str = "bearer_token";
/// Name of the `Authorization` header rule.
pub(crate) const AUTHORIZATION: &str = "authorization_header";

/// Rule names, most specific first. This order breaks ties between matches of equal span.
pub(crate) const NAMES: &[&str] = &[
    PRIVATE_KEY,
    ANTHROPIC,
    OPENAI,
    GITHUB,
    SLACK,
    AWS_ACCESS_KEY_ID,
    JWT,
    AWS_SECRET_ACCESS_KEY,
    BEARER,
    AUTHORIZATION,
];

fn builtin_rules() -> Vec<BuiltinRule> {
    // PEM: a complete block (lazily up to the first END line), or a truncated block running to
    // the end of its base64 body. The body admits base64, whitespace, backslashes (literal `\n`
    // escapes, JSON-escaped `\/`) and RFC 1421 header lines such as `Proc-Type: 4,ENCRYPTED`.
    // The space in the armour lines may be URL-encoded (`%20`, `+`); `%` in the body admits
    // URL-encoded newlines and base64 symbols.
    let sp = r"(?: |%20|\+)";
    let pem_begin = format!(r"-----BEGIN{sp}(?:[A-Z0-9]+{sp})*PRIVATE{sp}KEY(?:{sp}BLOCK)?-----");
    let pem_end = format!(r"-----END{sp}(?:[A-Z0-9]+{sp})*PRIVATE{sp}KEY(?:{sp}BLOCK)?-----");
    let pem_header = r"[A-Za-z][A-Za-z0-9-]*:[^\r\n\\]*";
    let pem_body = format!(r"(?:[A-Za-z0-9+/=%\s\\]|{pem_header})*");
    let pem = format!(r"(?-u){pem_begin}(?:{pem_body}?{pem_end}|{pem_body})");
    let rules = [
        (PRIVATE_KEY, pem, Check::None),
        (
            ANTHROPIC,
            r"(?-u)(?P<s>sk-ant-[A-Za-z0-9_-]{20,})".to_owned(),
            Check::None,
        ),
        (
            // Legacy `sk-` + 48, `sk-proj-`, `sk-svcacct-`, `sk-admin-`: at least 20 bytes after
            // `sk-` and a digit somewhere, so hyphenated words after "sk-" never qualify.
            OPENAI,
            format!(r"(?-u){B}(?P<s>sk-[A-Za-z0-9_-]{{20,}})"),
            Check::HasDigit,
        ),
        (
            GITHUB,
            r"(?-u)(?P<s>gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})".to_owned(),
            Check::None,
        ),
        (
            SLACK,
            r"(?-u)(?P<s>(?:xoxe\.)?xox[abeoprs]-[A-Za-z0-9-]{10,}|xapp-[0-9]+-[A-Za-z0-9-]{10,})"
                .to_owned(),
            Check::None,
        ),
        (
            AWS_ACCESS_KEY_ID,
            format!(r"(?-u){B}(?P<s>(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{{16}})"),
            Check::None,
        ),
        (
            JWT,
            r"(?-u)(?P<s>eyJ[A-Za-z0-9_-]{7,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*)".to_owned(),
            Check::None,
        ),
        (
            // Only in an assignment context: `aws_secret_access_key = …`,
            // `AWS_SECRET_ACCESS_KEY=…`, `"SecretAccessKey": "…"`, `aws-secret-key: …`.
            AWS_SECRET_ACCESS_KEY,
            format!(
                r"(?-u)(?i:aws[_.-]?secret(?:[_.-]?access)?[_.-]?key|secret[_.-]?access[_.-]?key){SEP}(?P<s>[A-Za-z0-9/+=%]{{40,}})"
            ),
            Check::None,
        ),
        (
            BEARER,
            format!(
                r"(?-u){B}(?i:bearer)(?:[ \t]+|%20)(?:(?i:bearer)(?:[ \t]+|%20))*(?P<s>[A-Za-z0-9._~+/-]+=*)"
            ),
            Check::BearerToken,
        ),
        (
            // One token after an optional single-token scheme (`s`), or, for parameter-list
            // schemes such as Digest whose values hold quotes, the rest of the line (`t`).
            AUTHORIZATION,
            format!(
                r"(?-u){B}(?i:(?:proxy[_-])?authorization){SEP_STRICT}(?:(?P<t>(?i:digest|negotiate|ntlm|aws4-hmac-sha256|hoba|mutual|vapid)[ \t]+(?:[^\r\n\\]|\\[^nr])*)|(?:(?i:bearer|basic|token|apikey)[ \t]+)*(?P<s>[^\s'\x22\\\[&,;]+))"
            ),
            Check::Authorization,
        ),
    ];
    rules
        .into_iter()
        .map(|(name, pattern, check)| BuiltinRule {
            name,
            pattern,
            check,
        })
        .collect()
}

/// Literals at least one of which occurs (ASCII case-insensitively) in every match of a rule,
/// with the rules they admit. Text holding none of them is clean as far as built-ins go.
///
/// The middle column is the part of each literal, in lower case, that the SIMD searcher looks
/// for: every occurrence of a literal holds its part, so text without any part holds no
/// literal. Parts start with bytes that are rare in prose and code (`asi`, `acc`, `sec`, `aut`
/// start common words), which keeps the searcher's false candidates few.
const LITERALS: &[(&str, &str, &[&str])] = &[
    ("-----BEGIN", "-begin", &[PRIVATE_KEY]),
    ("sk-", "sk-", &[ANTHROPIC, OPENAI]),
    ("ghp_", "ghp_", &[GITHUB]),
    ("gho_", "gho_", &[GITHUB]),
    ("ghu_", "ghu_", &[GITHUB]),
    ("ghs_", "ghs_", &[GITHUB]),
    ("ghr_", "ghr_", &[GITHUB]),
    ("github_pat_", "b_pat_", &[GITHUB]),
    ("xox", "xox", &[SLACK]),
    ("xapp-", "xapp-", &[SLACK]),
    ("AKIA", "kia", &[AWS_ACCESS_KEY_ID]),
    ("ASIA", "sia", &[AWS_ACCESS_KEY_ID]),
    ("ABIA", "bia", &[AWS_ACCESS_KEY_ID]),
    ("ACCA", "cca", &[AWS_ACCESS_KEY_ID]),
    ("eyJ", "eyj", &[JWT]),
    ("secret", "ecret", &[AWS_SECRET_ACCESS_KEY]),
    ("bearer", "bearer", &[BEARER]),
    ("authorization", "rizat", &[AUTHORIZATION]),
];

/// Bytes of input lower-cased and searched at once by [`Compiled::candidates`].
const FOLD_CHUNK: usize = 8192;

/// The built-in rules compiled once per process, with a literal prefilter.
pub(crate) struct Compiled {
    pub(crate) rules: Vec<(BuiltinRule, Regex)>,
    /// Finds [`LITERALS`], lower-cased, in lower-cased text (a SIMD searcher where the CPU
    /// has one); `None` where it cannot be built, and then `prefilter` is used.
    pub(crate) folded: Option<packed::Searcher>,
    /// The length of the longest literal.
    pub(crate) longest: usize,
    /// Finds [`LITERALS`] ASCII case-insensitively in one pass.
    pub(crate) prefilter: AhoCorasick,
    /// For each literal, the bit set (by index in [`NAMES`]) of the rules it admits.
    pub(crate) literal_rules: Vec<u32>,
    pub(crate) placeholder: Regex,
}

impl Compiled {
    /// The bit set of the rules that can match somewhere in `b`.
    ///
    /// Literals only share a start when one is a prefix of another (`sk-`, `sk-ant-`), and those
    /// admit the same rules, so restarting one byte after each hit sees every rule's literal
    /// while the automaton's own prefilter skips through clean text.
    pub(crate) fn candidates(&self, b: &[u8]) -> u32 {
        let all = (1u32 << self.rules.len()) - 1;
        let Some(folded) = &self.folded else {
            return self.candidates_unfolded(b, all);
        };
        // The text is lower-cased a chunk at a time into a buffer and searched for the
        // lower-cased literals: the same occurrences as an ASCII case-insensitive search, at
        // the speed of a case-sensitive one. Consecutive chunks overlap by one byte less than
        // the longest literal, so an occurrence across a chunk boundary is whole in the next.
        thread_local! {
            static BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
        }
        BUF.with(|buf| {
            let Ok(mut buf) = buf.try_borrow_mut() else {
                return self.candidates_unfolded(b, all);
            };
            let mut found = 0;
            let mut start = 0;
            loop {
                let end = b.len().min(start + FOLD_CHUNK);
                buf.clear();
                // Branch-free, so that it vectorizes.
                buf.extend(
                    b[start..end]
                        .iter()
                        .map(|&c| c | (u8::from(c.wrapping_sub(b'A') < 26) << 5)),
                );
                let chunk = buf.as_slice();
                let mut at = 0;
                while let Some(m) = folded.find_in(chunk, Span::from(at..chunk.len())) {
                    found |= self.literal_rules[m.pattern().as_usize()];
                    if found == all {
                        return found;
                    }
                    at = m.start() + 1;
                }
                if end == b.len() {
                    return found;
                }
                start = end - (self.longest - 1);
            }
        })
    }

    /// [`candidates`](Self::candidates) with the case-insensitive automaton.
    fn candidates_unfolded(&self, b: &[u8], all: u32) -> u32 {
        let mut found = 0;
        let mut at = 0;
        while at < b.len() {
            let Some(m) = self.prefilter.find(Input::new(b).range(at..)) else {
                break;
            };
            found |= self.literal_rules[m.pattern().as_usize()];
            if found == all {
                break;
            }
            at = m.start() + 1;
        }
        found
    }
}

pub(crate) static BUILTIN: LazyLock<Compiled> = LazyLock::new(|| {
    // The patterns are constants of this crate and the test suite compiles every one.
    #[allow(clippy::expect_used)]
    let rules: Vec<(BuiltinRule, Regex)> = builtin_rules()
        .into_iter()
        .map(|rule| {
            let regex = Regex::new(&rule.pattern).expect("built-in redaction rule compiles");
            (rule, regex)
        })
        .collect();
    #[allow(clippy::expect_used)]
    let prefilter = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(LITERALS.iter().map(|(literal, _, _)| literal))
        .expect("redaction prefilter builds");
    let lower = || LITERALS.iter().map(|(_, part, _)| *part);
    let folded = packed::Config::new()
        .match_kind(packed::MatchKind::LeftmostFirst)
        .builder()
        .extend(lower())
        .build();
    let longest = lower().map(|l| l.len()).max().unwrap_or(1);
    let literal_rules = LITERALS
        .iter()
        .map(|(_, _, names)| {
            names
                .iter()
                .filter_map(|name| NAMES.iter().position(|n| n == name))
                .fold(0u32, |set, i| set | (1 << i))
        })
        .collect();
    #[allow(clippy::expect_used)]
    let placeholder = Regex::new(r"(?-u)\[REDACTED:[A-Za-z0-9_]+:[0-9a-f]{12}\]")
        .expect("placeholder pattern compiles");
    debug_assert!(rules.iter().map(|(r, _)| r.name).eq(NAMES.iter().copied()));
    Compiled {
        rules,
        folded,
        longest,
        prefilter,
        literal_rules,
        placeholder,
    }
});
