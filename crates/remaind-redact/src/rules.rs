//! The built-in rules: names, patterns, post-match checks and the order of specificity.
//!
//! Every pattern is ASCII-only (`(?-u)`) and is compiled once per process. A pattern either
//! matches the secret itself, or has a group named `s`, `t` or `v` holding the secret inside a
//! larger context (a key name, a header name, a boundary byte), in which case only that group
//! is replaced. Other named groups (`w`, `pw`, `user`) feed the rule's [`Check`].
//!
//! Each rule is admitted by at least one literal of [`LITERALS`](crate::literals) that every
//! one of its matches contains; `prefilter.rs` checks that with a test per rule.

use regex_automata::util::captures::Captures;

use crate::judge::{
    ValueKind, is_credential, is_passphrase, is_password_argument, is_placeholder,
    is_placeholder_token, is_quoted_password, is_quoted_token, is_relative_path, looks_random,
};

/// A start-of-token boundary: `\b`, or right after an escape of JSON text (`\n`, `\t`,
/// `\u0041`) or of a URL (`%20`), so that a token right after an escaped newline inside serialized JSON is still
/// found. The escape is consumed, which is why every rule using it puts the secret in the `s`
/// group. Being zero-width in the common case keeps the rule's literal visible to the regex
/// engine's prefilter.
const B: &str = r"(?:\b|\\[nrtbf]|\\u[0-9A-Fa-f]{4}|%[0-9A-Fa-f]{2})";

/// Separator between a key name and its value: optional (escaped) closing quote, then `:`, `=`,
/// `=>` or whitespace, then an optional (escaped) opening quote; each also URL-encoded.
const SEP: &str = r#"(?:\\*["']|%2[27])?(?:[ \t]|%20)*(?:=>|[:=]|%3[AaDd]|[ \t]|%20)(?:[ \t]|%20)*(?:\\*["']|%2[27])?"#;

/// Like [`SEP`] but without the bare-whitespace form: `Authorization` is a common word in prose,
/// `Authorization:` or `authorization=` is a header or a field. Also takes Go's `:=`, and a
/// backquote around the value (a Go raw string, a Markdown code span).
const SEP_STRICT: &str = r#"(?:\\*["'`]|%2[27])?(?:[ \t]|%20)*(?:=>|:=|[:=]|%3[AaDd])(?:[ \t]|%20)*(?:\\*["'`]|%2[27])?"#;

/// The bytes a bare (unquoted) value may hold: anything up to whitespace, a quote, a
/// backslash (an escape in JSON text), a list or parameter separator, or a bracket (which
/// would start a call, a placeholder or markup: what precedes `getenv(` is judged alone).
const VALUE: &str = r#"[^\s'"`\\,;&<>()\[\]|]"#;

/// One built-in rule: its contract name, its pattern, and its check on the candidate.
pub(crate) struct BuiltinRule {
    pub(crate) name: &'static str,
    pub(crate) pattern: String,
    /// Where the secret is in a match.
    pub(crate) secret: Secret,
    pub(crate) check: Check,
    /// No match holds `[` or `]`, and none looks outside itself but for `\b`: so every
    /// match is inside a placeholder or outside all of them, and the text between two
    /// placeholders can be searched alone. True of the key-word rules a placeholder's own
    /// name sets off (`generic_secret`, `api_key_header`, `aws_secret_access_key`), whose key
    /// words, separators, escapes and values ([`VALUE`], `[A-Za-z0-9/+=%]`) exclude both.
    pub(crate) bracket_free: bool,
}

/// Where a rule's secret is in one of its matches.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Secret {
    /// The whole match (its `s` group, if any, is the whole pattern).
    Whole,
    /// The match after the escape [`B`] consumed, if it consumed one: the pattern is `{B}`,
    /// then the `s` group starting with a letter, then possibly `\b`.
    AfterEscape,
    /// The whole match when it starts with one of these (the alternative whose secret is the
    /// match does, no other can), capture groups otherwise.
    WholeWhenPrefixed(&'static [&'static str]),
    /// The match from the offset this function gives, read off its fixed prefix.
    From(fn(&[u8]) -> usize),
    /// Capture groups, which the regex reads.
    Groups,
}

impl Secret {
    /// The span of the secret in `whole`, a match at `start` in its haystack; `None` when
    /// the regex has to read it from capture groups.
    pub(crate) fn span(self, start: usize, whole: &[u8]) -> Option<(usize, usize)> {
        let skip = match (self, whole) {
            (Secret::Groups, _) => return None,
            (Secret::WholeWhenPrefixed(prefixes), _) => {
                if !prefixes.iter().any(|p| whole.starts_with(p.as_bytes())) {
                    return None;
                }
                0
            }
            (Secret::From(offset), _) => offset(whole),
            (Secret::AfterEscape, [b'\\', b'u', ..]) => 6,
            (Secret::AfterEscape, [b'\\', ..]) => 2,
            (Secret::AfterEscape, [b'%', ..]) => 3,
            (Secret::Whole | Secret::AfterEscape, _) => 0,
        };
        Some((start + skip, start + whole.len()))
    }
}

/// The fixed starts of AWS STS session tokens.
const STS_PREFIXES: &[&str] = &["FwoGZXIvYXdz", "IQoJb3JpZ2luX2Vj"];

/// A post-match check: returns the accepted byte range (absolute, in the haystack) of the
/// secret, or `None` to reject the candidate.
#[derive(Clone, Copy)]
pub(crate) enum Check {
    /// Accept as matched.
    None,
    /// The span must hold an ASCII digit and not be a placeholder.
    HasDigit,
    /// A Slack token ([`is_slack_token`]): a letter after its prefix, ids that differ, no
    /// placeholder.
    SlackToken,
    /// A PEM private key block whose body is not masked ([`is_masked_pem`]).
    PemBlock,
    /// The span must not be a placeholder (`ghp_xxxx…`, `AKIAIOSFODNN7EXAMPLE`).
    NotPlaceholder,
    /// A Discord bot token: its first part is a user id ([`is_discord_token`]).
    DiscordToken,
    /// A JWT: its header is a JSON object ([`is_jwt`]).
    Jwt,
    /// Standalone `Bearer <token>`: the token must look random ([`looks_random`]).
    BearerToken,
    /// An `Authorization` value: see [`authorization`].
    Authorization,
    /// An API-key header value (`X-API-Key: …`): a credential-looking token.
    Header,
    /// A `key = value` assignment: [`is_credential`], a password when the key says so.
    Assignment,
    /// `scheme://user:password@`: the password is no placeholder and differs from the user.
    UrlPassword,
    /// A command-line credential (`curl -u`, `--password`, `mysql -p…`).
    CommandLine,
    /// A string literal compared with a secret-naming identifier: [`is_credential`], a
    /// password when the identifier says so (`pw` or `pw2`).
    Comparison,
}

/// The capture groups of one match of a built-in rule in its haystack.
pub(crate) struct Groups<'a> {
    pub(crate) hay: &'a [u8],
    pub(crate) caps: &'a Captures,
}

impl Groups<'_> {
    /// The span of the group called `name`, if it took part in the match.
    pub(crate) fn span(&self, name: &str) -> Option<(usize, usize)> {
        self.caps
            .get_group_by_name(name)
            .map(|span| (span.start, span.end))
    }

    /// The bytes of the group called `name`, if it took part in the match.
    fn bytes(&self, name: &str) -> Option<&[u8]> {
        self.span(name).map(|(start, end)| &self.hay[start..end])
    }
}

impl Check {
    /// Applies the check to one match of the rule (`secret` being the span of its secret
    /// group).
    pub(crate) fn accept(
        self,
        groups: &Groups<'_>,
        secret: (usize, usize),
    ) -> Option<(usize, usize)> {
        let bytes = &groups.hay[secret.0..secret.1];
        if let Some(accepted) = self.accept_secret(bytes, secret.0) {
            return accepted;
        }
        let whole = Some(secret);
        let ok = match self {
            Check::Authorization => return authorization(groups, secret),
            Check::Assignment => {
                if groups
                    .caps
                    .get_match()
                    .is_some_and(|m| names_a_key_id(&groups.hay[m.start()..secret.0]))
                {
                    return None;
                }
                let kind = if groups.span("pw").is_some() {
                    ValueKind::Password
                } else {
                    ValueKind::Token
                };
                return assignment_secret(groups.hay, secret, kind);
            }
            Check::UrlPassword => password_differs(bytes, groups.bytes("user").unwrap_or_default()),
            Check::CommandLine => match groups.bytes("user") {
                Some(user) => password_differs(bytes, user),
                None if groups.span("v").is_some() => is_password_argument(bytes),
                None if groups.span("pw").is_some() => is_credential(bytes, ValueKind::Password),
                None => is_credential(bytes, ValueKind::Token),
            },
            Check::Comparison => {
                // The literal is quoted whole: a password however short ([`is_quoted_password`]).
                if ["pw", "pw2", "pw3"]
                    .iter()
                    .any(|g| groups.span(g).is_some())
                {
                    is_quoted_password(bytes)
                } else {
                    is_quoted_token(bytes) && !is_relative_path(bytes)
                }
            }
            Check::None
            | Check::HasDigit
            | Check::SlackToken
            | Check::PemBlock
            | Check::NotPlaceholder
            | Check::DiscordToken
            | Check::Jwt
            | Check::BearerToken
            | Check::Header => false,
        };
        if ok { whole } else { None }
    }

    /// The check on a secret alone (`bytes`, at `start` in the haystack), for the checks
    /// that need no other group of the match; `None` for those that do.
    pub(crate) fn accept_secret(
        self,
        bytes: &[u8],
        start: usize,
    ) -> Option<Option<(usize, usize)>> {
        let whole = Some((start, start + bytes.len()));
        let ok = match self {
            Check::None => true,
            Check::HasDigit => bytes.iter().any(u8::is_ascii_digit) && !is_placeholder_token(bytes),
            Check::SlackToken => is_slack_token(bytes),
            Check::PemBlock => !is_masked_pem(bytes),
            Check::NotPlaceholder => !is_placeholder_token(bytes),
            Check::DiscordToken => is_discord_token(bytes) && !is_placeholder_token(bytes),
            Check::Jwt => is_jwt(bytes),
            Check::BearerToken => {
                // `.` and `~` are legal in a token but end sentences far more often than tokens.
                let len = trim_end(bytes, |b| matches!(b, b'.' | b'~'));
                return Some(looks_random(&bytes[..len]).then_some((start, start + len)));
            }
            Check::Header => header_value(bytes),
            Check::Authorization
            | Check::Assignment
            | Check::UrlPassword
            | Check::CommandLine
            | Check::Comparison => {
                return None;
            }
        };
        Some(if ok { whole } else { None })
    }
}

/// A Slack token: a letter after its prefix (a token whose secret part is masked,
/// `xoxp-5723…-5723…-####`, is a string of ids), ids that differ (a team, a user and an
/// install are never one number: `xoxp-1234-1234-1234-…` is typed by hand) and no placeholder.
fn is_slack_token(token: &[u8]) -> bool {
    let body = token
        .iter()
        .position(|&b| b == b'-')
        .map_or(token, |i| &token[i..]);
    let ids: Vec<&[u8]> = token
        .split(|&b| b == b'-')
        .skip(1)
        .filter(|part| !part.is_empty() && part.iter().all(u8::is_ascii_digit))
        .collect();
    let repeated_id = ids.len() >= 2 && ids.windows(2).all(|w| w[0] == w[1]);
    body.iter().any(u8::is_ascii_alphabetic) && !repeated_id && !is_placeholder_token(token)
}

/// A PEM block whose body was masked (`-----BEGIN PRIVATE KEY-----XXXX…`): half its bytes or
/// more are `X`. Base64 of a real key holds a few.
fn is_masked_pem(block: &[u8]) -> bool {
    let masked = block.iter().filter(|&&b| matches!(b, b'X' | b'x')).count();
    masked * 2 >= block.len()
}

/// Whether an assignment's key, from its secret word on (`_key_id` of `private_key_id`),
/// names the id of a key rather than the key: key ids are published beside what they name
/// (a service account's `private_key_id`, an `access_key_id`, a JWT's signing `keyId`), and
/// a key that is a credential by its shape has its own rule.
pub(crate) fn names_a_key_id(key: &[u8]) -> bool {
    let name_len = key
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        .count();
    let name = key[..name_len].to_ascii_lowercase();
    [&b"key_id"[..], b"keyid", b"key-id", b"key.id"]
        .iter()
        .any(|end| name.ends_with(end))
}

/// The secret of an assignment whose value [`VALUE`] found at `hay[start..end]`, if it is
/// judged a credential: the value ([`is_credential`]) run on to its closing quote
/// ([`through_closing_quote`]); under a password key, the value run on over brackets
/// ([`password_run`]: `db_pass: m{{h}o)p${e]nob(ody[`), or a quoted value whose first part is
/// no credential judged whole ([`is_passphrase`]: `password = "value with quotes and
/// spaces"`).
pub(crate) fn assignment_secret(
    hay: &[u8],
    (start, end): (usize, usize),
    kind: ValueKind,
) -> Option<(usize, usize)> {
    let password = kind == ValueKind::Password;
    if password && let Some(run_end) = password_run(hay, start, end) {
        return Some((start, run_end));
    }
    if is_credential(&hay[start..end], kind) {
        return Some(through_closing_quote(hay, (start, end)));
    }
    // A string literal whole (or a backquoted one: a Go raw string), stopped short of its
    // closing quote by a bracket or a separator: a token in its own right
    // ([`is_quoted_token`], which takes no white space, so no command substitution).
    let backquoted = start.checked_sub(1).is_some_and(|i| hay[i] == b'`');
    let stop = if backquoted {
        let rest = &hay[end..hay.len().min(end + QUOTED_REACH)];
        rest.iter()
            .position(|&c| matches!(c, b'`' | b'\n' | b'\r'))
            .filter(|&i| rest[i] == b'`')
            .map_or(end, |i| end + i)
    } else {
        through_closing_quote(hay, (start, end)).1
    };
    let whole = if backquoted {
        hay.get(stop) == Some(&b'`')
    } else {
        quoted_whole(hay, start, stop)
    };
    if stop > end && whole && is_quoted_token(&hay[start..stop]) {
        return Some((start, stop));
    }
    if password {
        let (_, stop) = through_closing_quote(hay, (start, end));
        if stop > end && is_passphrase(&hay[start..stop]) {
            return Some((start, stop));
        }
        if quoted_whole(hay, start, end) && is_quoted_password(&hay[start..end]) {
            return Some((start, end));
        }
    }
    None
}

/// Whether the value `hay[start..end]` is a string literal whole: a quote right before it and
/// the same quote right after it (both escaped alike in JSON text: `\"bar\"`).
fn quoted_whole(hay: &[u8], start: usize, end: usize) -> bool {
    let Some(open) = start.checked_sub(1) else {
        return false;
    };
    let quote = hay[open];
    if !matches!(quote, b'"' | b'\'') {
        return false;
    }
    let escaped = open >= 1 && hay[open - 1] == b'\\';
    let close: &[u8] = if escaped { &[b'\\', quote] } else { &[quote] };
    hay.get(end..).is_some_and(|rest| rest.starts_with(close))
}

/// Where an unquoted password value that [`VALUE`] stopped at a bracket ends: its run of bytes
/// up to white space, a quote, a backslash, a separator (`,;&|<>`) or a placeholder, less
/// closing brackets more than it opens (those of a call around it: `f(password=S3cr3t!)`),
/// when that run is longer and is a password: no placeholder, no code (a name then `(` or
/// `[`: `getpass()`, `args[1]`), no variable reference inside (`${NAME}`, `$(`), six bytes or
/// more. `None` otherwise.
fn password_run(hay: &[u8], start: usize, end: usize) -> Option<usize> {
    let quoted = start
        .checked_sub(1)
        .is_some_and(|i| matches!(hay[i], b'"' | b'\''));
    if quoted || !matches!(hay.get(end), Some(b'(' | b')' | b'[' | b']')) {
        return None;
    }
    let limit = hay.len().min(start + QUOTED_REACH);
    let mut stop = end;
    while stop < limit
        && (is_value_byte(hay[stop]) || matches!(hay[stop], b'(' | b')' | b'[' | b']'))
        && !hay[stop..].starts_with(b"[REDACTED:")
    {
        stop += 1;
    }
    let count = |run: &[u8], c: u8| run.iter().filter(|&&b| b == c).count();
    while let Some(&last @ (b')' | b']')) = hay[start..stop].last() {
        let open = if last == b')' { b'(' } else { b'[' };
        let run = &hay[start..stop];
        if count(run, last) <= count(run, open) {
            break;
        }
        stop -= 1;
    }
    let run = &hay[start..stop];
    if stop <= end || run.len() < 6 || is_placeholder(run) {
        return None;
    }
    let name = run
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'$'))
        .count();
    let call = name > 0 && matches!(run.get(name), Some(b'(' | b'['));
    let reference = run
        .windows(2)
        .enumerate()
        .any(|(i, w)| w == b"$(" || (w == b"${" && is_placeholder(&run[i..])));
    (!call && !reference).then_some(stop)
}

/// Bytes a quoted value may run on past where [`VALUE`] stopped.
const QUOTED_REACH: usize = 256;

/// The secret `hay[start..end]` of an assignment, run on to its closing quote when the value
/// is quoted and stopped short of it (`DB_PASSWORD="S3cret! and more"` stops at the space,
/// `'S3cr3t,x'` at the comma): no word of a quoted password is left after its placeholder.
/// Only a closing quote on the same line, within [`QUOTED_REACH`] bytes, counts; an escaped
/// opening quote (`\"` in JSON text) ends at its escaped closing one.
pub(crate) fn through_closing_quote(hay: &[u8], (start, end): (usize, usize)) -> (usize, usize) {
    let Some(&quote) = start.checked_sub(1).and_then(|i| hay.get(i)) else {
        return (start, end);
    };
    if !matches!(quote, b'"' | b'\'') || hay.get(end) == Some(&quote) {
        return (start, end);
    }
    let rest = &hay[end..hay.len().min(end + QUOTED_REACH)];
    let Some(close) = rest
        .iter()
        .position(|&c| matches!(c, b'\n' | b'\r') || c == quote)
    else {
        return (start, end);
    };
    if rest[close] != quote {
        return (start, end);
    }
    let escaped = start >= 2 && hay[start - 2] == b'\\';
    let mut stop = end + close;
    if escaped {
        stop = end + trim_end(&hay[end..stop], |b| b == b'\\');
    }
    (start, stop.max(end))
}

/// The length of `v` without its trailing bytes that satisfy `drop`.
fn trim_end(v: &[u8], drop: impl Fn(u8) -> bool) -> usize {
    v.len() - v.iter().rev().take_while(|&&b| drop(b)).count()
}

/// The bytes a canonical, unpadded base64url text encodes; `None` for anything else.
fn base64url_decode(text: &[u8]) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'-' => Some(62),
        b'_' => Some(63),
        _ => None,
    };
    // A base64 text of n bytes without padding is never 1 more than a multiple of 4 long.
    if text.len() % 4 == 1 {
        return None;
    }
    let mut bytes = Vec::with_capacity(text.len() * 3 / 4);
    let (mut bits, mut held) = (0u32, 0);
    for &c in text {
        bits = (bits << 6) | u32::from(value(c)?);
        held += 6;
        if held >= 8 {
            held -= 8;
            bytes.push((bits >> held) as u8);
            bits &= (1 << held) - 1;
        }
    }
    // The bits left over from the last character are zero in a canonical encoding.
    (bits == 0).then_some(bytes)
}

/// Whether the first part of `token`, a match of the Discord rule, is base64url of a user id:
/// 17 to 20 ASCII digits (a snowflake). Dotted names and other dotted tokens that happen to
/// have the parts' lengths decode to anything else.
fn is_discord_token(token: &[u8]) -> bool {
    let id = token.split(|&b| b == b'.').next().unwrap_or_default();
    base64url_decode(id)
        .is_some_and(|id| (17..=20).contains(&id.len()) && id.iter().all(u8::is_ascii_digit))
}

/// Whether `token`, a match of the JWT rule, starts with a header a JWT library would read: a
/// whole JSON object. `eyJ` followed by base64-looking text is no token otherwise (a header cut
/// short, or letters that only begin like one).
fn is_jwt(token: &[u8]) -> bool {
    let header = token.split(|&b| b == b'.').next().unwrap_or_default();
    base64url_decode(header).is_some_and(|json| {
        serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(&json).is_ok()
    })
}

/// A header value such as `X-API-Key: …` or `PRIVATE-TOKEN: …`: a token, or at least
/// random-looking (prose after `Token:` is not).
fn header_value(v: &[u8]) -> bool {
    is_credential(v, ValueKind::Token) || looks_random(v)
}

/// A password in `user:password` form: not a placeholder, not the user name again (`postgres:
/// postgres`), not a number a port or group id would be (`-u 1000:1000`).
fn password_differs(password: &[u8], user: &[u8]) -> bool {
    // `<user:password>`: a template for the pair, not a pair.
    let template = user.starts_with(b"<");
    let short_number = password.len() <= 5 && password.iter().all(u8::is_ascii_digit);
    !(template || is_placeholder(password) || password == user || short_number)
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

/// Checks the credential of an `Authorization` value.
///
/// - Parameter-list schemes (`Digest`, `AWS4-HMAC-SHA256`, …, group `t`): the rest of the value.
/// - After a known single-token scheme (`Bearer`, `Basic`, `Token`, `ApiKey`) or none (group
///   `s`): the token, unless it is only a scheme word or a placeholder (`$API_KEY`, `<token>`),
///   or a word that does not look like a credential before a placeholder.
/// - After an unknown scheme word (group `w`, `Api-Token X`): the token if it looks like a
///   credential, else the word itself if that does, else nothing (prose such as
///   `Authorization: required header`).
fn authorization(groups: &Groups<'_>, (start, end): (usize, usize)) -> Option<(usize, usize)> {
    let is_sep = |b: u8| matches!(b, b' ' | b'\t' | b',' | b';');
    let value = &groups.hay[start..end];
    let len = trim_end(value, is_sep);
    let value = &value[..len];
    if groups.span("t").is_some() {
        let word_len = value
            .iter()
            .position(|b| *b == b' ' || *b == b'\t')
            .unwrap_or(value.len());
        let rest = value[word_len..].trim_ascii_start();
        if rest.is_empty() || rest.starts_with(b"[") {
            return None;
        }
        return Some((start + value.len() - rest.len(), start + value.len()));
    }
    if let Some((word_start, word_end)) = groups.span("w") {
        if header_value(value) {
            return Some((start, start + len));
        }
        return header_value(&groups.hay[word_start..word_end]).then_some((word_start, word_end));
    }
    let lower = value.to_ascii_lowercase();
    let scheme_only =
        TOKEN_SCHEMES.contains(&lower.as_slice()) || LIST_SCHEMES.contains(&lower.as_slice());
    if len == 0 || scheme_only || is_placeholder(value) {
        return None;
    }
    // Before a placeholder the token is the scheme word of a credential redacted already
    // (`Api-Token [REDACTED:…]` when redacted text is searched again): taken only if it
    // looks like a credential itself.
    let after = &groups.hay[end..];
    let blanks = after
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    if blanks > 0 && after[blanks..].starts_with(b"[REDACTED:") && !header_value(value) {
        return None;
    }
    Some((start, start + len))
}

macro_rules! names {
    ($($(#[$doc:meta])* $id:ident = $name:literal;)*) => {
        $($(#[$doc])* pub(crate) const $id: &str = $name;)*
    };
}

names! {
    /// PEM private key blocks.
    PRIVATE_KEY = "private_key";
    /// Anthropic API keys.
    ANTHROPIC = "anthropic_api_key";
    /// OpenRouter API keys (`sk-or-`), before the OpenAI rule that would also take them.
    OPENROUTER = "openrouter_api_key";
    /// OpenAI API keys.
    OPENAI = "openai_api_key";
    /// GitHub tokens.
    GITHUB = "github_token";
    /// GitLab tokens.
    GITLAB = "gitlab_token";
    /// Slack tokens.
    SLACK = "slack_token";
    /// Slack incoming-webhook URLs.
    SLACK_WEBHOOK = "slack_webhook";
    /// Stripe secret and restricted keys, webhook secrets.
    STRIPE = "stripe_key";
    /// Google API keys.
    GOOGLE = "google_api_key";
    /// npm access tokens.
    NPM = "npm_token";
    /// PyPI upload tokens.
    PYPI = "pypi_token";
    /// Hugging Face tokens.
    HUGGINGFACE = "huggingface_token";
    /// SendGrid API keys.
    SENDGRID = "sendgrid_api_key";
    /// Twilio API keys and auth tokens under a Twilio key name.
    TWILIO = "twilio_credential";
    /// HashiCorp Vault tokens.
    VAULT = "vault_token";
    /// DigitalOcean tokens.
    DIGITALOCEAN = "digitalocean_token";
    /// Databricks personal access tokens.
    DATABRICKS = "databricks_token";
    /// Sentry auth tokens.
    SENTRY = "sentry_token";
    /// Shopify access tokens and shared secrets.
    SHOPIFY = "shopify_token";
    /// Linear API keys.
    LINEAR = "linear_api_key";
    /// Mailchimp API keys (32 hex, `-us`, the data centre).
    MAILCHIMP = "mailchimp_api_key";
    /// Telegram bot tokens (the bot id, `:AA…`).
    TELEGRAM = "telegram_bot_token";
    /// Square OAuth secrets and access tokens (`sq0csp-`, `sq0atp-`).
    SQUARE = "square_oauth_secret";
    /// JFrog Artifactory API keys (`AKC…`) and, next to an Artifactory or JFrog word,
    /// passwords (`AP…`).
    ARTIFACTORY = "artifactory_token";
    /// IBM SoftLayer API keys (64 hex under a SoftLayer name or in its API's URL).
    SOFTLAYER = "softlayer_api_key";
    /// Discord bot tokens.
    DISCORD = "discord_bot_token";
    /// Azure storage account and shared access keys.
    AZURE_KEY = "azure_storage_key";
    /// Azure shared access signatures.
    AZURE_SAS = "azure_sas_signature";
    /// AWS access key ids.
    AWS_ACCESS_KEY_ID = "aws_access_key_id";
    /// AWS session tokens.
    AWS_SESSION_TOKEN = "aws_session_token";
    /// Amazon Bedrock API keys.
    AWS_BEDROCK = "aws_bedrock_api_key";
    /// JSON Web Tokens.
    JWT = "jwt";
    /// AWS secret access keys.
    AWS_SECRET_ACCESS_KEY = "aws_secret_access_key";
    /// Bare `Bearer <token>`.
    BEARER = "bearer_token";
    /// `Authorization` headers.
    AUTHORIZATION = "authorization_header";
    /// API-key headers (`X-API-Key`, `PRIVATE-TOKEN`, …).
    API_KEY_HEADER = "api_key_header";
    /// Passwords in URLs.
    URL_CREDENTIALS = "url_credentials";
    /// Credentials on command lines.
    COMMAND_LINE = "command_line_credential";
    /// String literals compared with a secret-naming identifier in code.
    COMPARISON = "secret_comparison";
    /// Key-named assignments with a credential-looking value.
    GENERIC = "generic_secret";
}

/// Rule names, most specific first. This order breaks ties between matches of equal span.
pub(crate) const NAMES: &[&str] = &[
    PRIVATE_KEY,
    ANTHROPIC,
    OPENROUTER,
    OPENAI,
    GITHUB,
    GITLAB,
    SLACK,
    SLACK_WEBHOOK,
    STRIPE,
    GOOGLE,
    NPM,
    PYPI,
    HUGGINGFACE,
    SENDGRID,
    TWILIO,
    VAULT,
    DIGITALOCEAN,
    DATABRICKS,
    SENTRY,
    SHOPIFY,
    LINEAR,
    MAILCHIMP,
    TELEGRAM,
    SQUARE,
    ARTIFACTORY,
    SOFTLAYER,
    DISCORD,
    AZURE_KEY,
    AZURE_SAS,
    AWS_ACCESS_KEY_ID,
    AWS_SESSION_TOKEN,
    AWS_BEDROCK,
    JWT,
    AWS_SECRET_ACCESS_KEY,
    BEARER,
    AUTHORIZATION,
    API_KEY_HEADER,
    URL_CREDENTIALS,
    COMMAND_LINE,
    COMPARISON,
    GENERIC,
];

/// Key-name words that announce a secret value in an assignment (`pw`: a password);
/// `secrete` is a common misspelling of `secret` in names.
const SECRET_KEY_WORDS: &str = r"(?i:(?P<pw>passw(?:or)?d|passwd|_pass|pwd|_pw)|secrete?|token|credentials?|api[_.-]?key|apikey|[_-]key)";

/// What may follow the secret word in a key name: up to two segments, separated or
/// camel-cased (`_KEY_BASE`, `_access_key`, `Secret` in `tokenSecret`), never a plain
/// continuation (`tokenizer`, `max_tokens`).
const KEY_SUFFIX: &str = r"(?:[_.-][A-Za-z0-9]+|[A-Z][A-Za-z0-9]*){0,2}";

/// How far before the hit of its key word's literal a match of `secret_comparison` can start:
/// an opening quote (4 bytes, `\\\"`), the literal (128), a closing quote (4), blanks (8
/// of 3 bytes, `%20`), the operator (9, `%21%3D%3D`), blanks (24), an identifier's prefix
/// (40) and the key word's bytes before its literal (4, `api_` of `api_key`).
pub(crate) const COMPARISON_REACH: usize = 4 + 128 + 4 + 24 + 9 + 24 + 40 + 4;

/// `secret_comparison`: an identifier holding a secret word (or a subscript by one,
/// `["token"]`, or a quoted variable, `"$TOKEN"`), an equality operator, a quoted string
/// (`s`); or the string (`t`), the operator and the identifier. Quotes may be escaped (JSON text) or URL-encoded, as may
/// blanks and the operator.
///
/// Also a string literal declared or built for such an identifier in the shapes of C-family
/// code, which the assignment rule's separator does not take: a C array declarator
/// (`char password[32] = "…"`, `password[] = "…"`), an Objective-C or C# `@"…"`
/// (`password = @"…"`) (all `s`); a C++ constructor or `assign` on a bare key word
/// (`std::string secret("…")`, `secret.assign("…", 17)`: `u`, the word at a word start and
/// with no suffix, so that `getToken("id")` and `verify_password("x")` stay calls); and a
/// configuration directive ending in `;` (`private_key "…";`, `ssl_password '…';`: `v`).
fn comparison_pattern() -> String {
    let blanks = r"(?:[ \t]|%20){0,8}";
    let op = r"(?:[=!]|%21|%3[Dd])(?:=|%3[Dd]){1,2}";
    let eq = r"(?:=|%3[Dd])";
    let quote = r#"(?:\\{0,3}["']|%2[27])"#;
    let literal = |group: &str| format!(r#"{quote}(?P<{group}>[^"'\\\r\n]{{1,128}}?){quote}"#);
    let (s, t, u, v) = (literal("s"), literal("t"), literal("u"), literal("v"));
    let words_after = SECRET_KEY_WORDS.replace("(?P<pw>", "(?P<pw2>");
    let words_called = SECRET_KEY_WORDS.replace("(?P<pw>", "(?P<pw3>");
    // `KEY_SUFFIX` with bounded segments, so that the literal tables' test of a key word's
    // neighbours reads a bounded distance (`COMPARED_REACH` in `literals.rs`).
    let suffix = r"(?:[_.-][A-Za-z0-9]{1,24}|[A-Z][A-Za-z0-9]{0,24}){0,2}";
    format!(
        r#"(?-u)(?:{SECRET_KEY_WORDS}{suffix}(?:(?:(?:{quote}(?:\]|%5[Dd])?)?{blanks}{op}{blanks}|\[[0-9]{{0,4}}\]{blanks}{eq}{blanks}@?|{blanks}{eq}{blanks}@){s}|{blanks}{v};)|{t}{blanks}{op}{blanks}[A-Za-z0-9_$.]{{0,40}}?{words_after}{suffix}\b|\b{words_called}(?:\.assign)?\({u})"#
    )
}

/// A built-in rule before it is compiled: its name, its pattern with the part that is the
/// secret, and the check a match must pass.
type RuleSpec = (&'static str, (String, Secret), Check);

/// A token recognised by its own shape anywhere: all of it is the secret.
fn token(body: &str) -> (String, Secret) {
    (format!("(?-u)(?P<s>{body})"), Secret::Whole)
}

/// A token that must start at a word boundary (after an escape such as `\n`).
fn bounded(body: &str) -> (String, Secret) {
    (format!(r"(?-u){B}(?P<s>{body})\b"), Secret::AfterEscape)
}

fn whole(pattern: String) -> (String, Secret) {
    (pattern, Secret::Whole)
}

fn escaped(pattern: String) -> (String, Secret) {
    (pattern, Secret::AfterEscape)
}

fn groups(pattern: String) -> (String, Secret) {
    (pattern, Secret::Groups)
}

fn pem_pattern() -> String {
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
    format!(r"(?-u){pem_begin}(?:{pem_body}?{pem_end}|{pem_body})")
}

/// Private keys and the tokens of model vendors, code hosts, chat, payments and package
/// registries, recognised by their own prefixes.
fn vendor_rules() -> Vec<RuleSpec> {
    vec![
        (PRIVATE_KEY, whole(pem_pattern()), Check::PemBlock),
        (ANTHROPIC, token(r"sk-ant-[A-Za-z0-9_-]{20,}"), Check::NotPlaceholder),
        (OPENROUTER, token(r"sk-or-[A-Za-z0-9_-]{20,}"), Check::NotPlaceholder),
        (
            // Legacy `sk-` + 48, `sk-proj-`, `sk-svcacct-`, `sk-admin-`: at least 20 bytes after
            // `sk-` and a digit somewhere, so hyphenated words after "sk-" never qualify.
            // A project, service-account or admin key is taken glued to a word too
            // (`apikey_sk-proj-…`): its prefix is its own.
            OPENAI,
            escaped(format!(
                r"(?-u)(?:{B}(?P<s>sk-[A-Za-z0-9_-]{{20,}})|sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{{20,}})"
            )),
            Check::HasDigit,
        ),
        (
            // `_` is legal inside the body of every `gh*_` token.
            GITHUB,
            token(r"gh[pousr]_[A-Za-z0-9_]{36,}|github_pat_[A-Za-z0-9_]{40,}"),
            Check::NotPlaceholder,
        ),
        (
            GITLAB,
            token(r"gl(?:pat|ptt|dt|rt|oas)-[A-Za-z0-9_-]{20,}"),
            Check::NotPlaceholder,
        ),
        (
            // A numeric team or workspace segment first: `xoxb-123-456-abc…`. Words such as
            // `xoxo-indieweb-1` in an image name have none.
            SLACK,
            token(
                r"(?:xoxe\.)?xox[abeoprs]-[0-9]+-[A-Za-z0-9-]{8,}|xapp-[0-9]+-[A-Za-z0-9-]{10,}",
            ),
            Check::SlackToken,
        ),
        (
            SLACK_WEBHOOK,
            (
                r"(?-u)hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9+/_-]{20,})"
                    .to_owned(),
                // After `hooks.slack.com/<word>/`.
                Secret::From(|whole| {
                    let word = whole.iter().skip(16).position(|&c| c == b'/');
                    word.map_or(0, |w| 16 + w + 1)
                }),
            ),
            Check::NotPlaceholder,
        ),
        (
            STRIPE,
            token(r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9+/=]{24,}"),
            Check::NotPlaceholder,
        ),
        // 39 long: a longer run of the same characters is some other string.
        (
            GOOGLE,
            groups(r"(?-u)(?P<s>AIza[0-9A-Za-z_-]{35})(?:[^0-9A-Za-z_-]|$)".to_owned()),
            Check::NotPlaceholder,
        ),
        // Glued to a word too (`MY_npm_…`): 36 letters and digits then a boundary. Or the
        // value of an `.npmrc` registry credential (`//host/path/:_authToken=…`,
        // `:_auth=…`, `:_password=…`), whatever its shape, but a variable (`${NPM_TOKEN}`).
        (
            NPM,
            (
                r#"(?-u)(?P<s>npm_[A-Za-z0-9]{36})\b|//[A-Za-z0-9.-]{1,128}(?::[0-9]{1,5})?(?:/[^\s/]{1,64}){0,4}/:_(?:authToken|auth|password)=[ \t]*(?P<t>[^\s$'"`\\][^\s'"`\\]*)"#
                    .to_owned(),
                Secret::WholeWhenPrefixed(&["npm_"]),
            ),
            Check::NotPlaceholder,
        ),
        (
            PYPI,
            token(r"pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}"),
            Check::NotPlaceholder,
        ),
    ]
}

/// Tokens of hosted services after the code hosts, chat, payments and package registries,
/// recognised by their own prefixes.
fn service_rules() -> Vec<RuleSpec> {
    vec![
        (HUGGINGFACE, bounded(r"hf_[A-Za-z0-9]{30,}"), Check::BearerToken),
        (
            SENDGRID,
            token(r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}"),
            Check::NotPlaceholder,
        ),
        (
            TWILIO,
            (
                format!(
                    r"(?-u)(?i:twilio)[A-Za-z0-9_.-]{{0,40}}{SEP_STRICT}(?P<s>SK[0-9a-fA-F]{{32}}|[0-9a-f]{{32}})\b"
                ),
                // The last 34 bytes when they start with `SK`, else the last 32: what precedes
                // the secret is a separator, which never ends with `K`.
                Secret::From(|whole| {
                    let sk = whole.len().saturating_sub(34);
                    if whole[sk..].starts_with(b"SK") {
                        sk
                    } else {
                        whole.len().saturating_sub(32)
                    }
                }),
            ),
            Check::NotPlaceholder,
        ),
        (VAULT, bounded(r"hv[sb]\.[A-Za-z0-9_-]{24,}"), Check::NotPlaceholder),
        (
            DIGITALOCEAN,
            token(r"do[opr]_v1_[a-f0-9]{64}"),
            Check::NotPlaceholder,
        ),
        (
            DATABRICKS,
            bounded(r"dapi[a-f0-9]{32}(?:-[0-9]+)?"),
            Check::NotPlaceholder,
        ),
        (
            SENTRY,
            token(r"sntry[su]_[A-Za-z0-9+/=_-]{20,}"),
            Check::NotPlaceholder,
        ),
        (
            SHOPIFY,
            token(r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
            Check::NotPlaceholder,
        ),
        (
            LINEAR,
            token(r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}"),
            Check::NotPlaceholder,
        ),
        (
            // 32 lower-case hex, `-us` and the data centre's number.
            MAILCHIMP,
            groups(format!(r"(?-u){B}(?P<s>[0-9a-f]{{32}}-us[0-9]{{1,2}})\b")),
            Check::NotPlaceholder,
        ),
        (
            // The bot's id (8 to 10 digits, after `bot` in a URL path), `:`, then 35 bytes
            // starting `AA`.
            TELEGRAM,
            groups(format!(
                r"(?-u){B}(?:bot)?(?P<s>[0-9]{{8,10}}:AA[0-9A-Za-z_-]{{33}})"
            )),
            Check::NotPlaceholder,
        ),
        (
            SQUARE,
            token(r"sq0(?:csp|atp)-[0-9A-Za-z_-]{22,}"),
            Check::NotPlaceholder,
        ),
        (
            // `AKC` + 10 or more anywhere a word starts (an API key); `AP`, a hex digit and 8
            // or more (a password or an identity token) only within 40 bytes after
            // `artif…` or `jfrog`, and after a separator. Both prefixes are exact: a
            // placeholder body (`AKCxxxx…`) is taken too, as the prefix is the vendor's.
            ARTIFACTORY,
            (
                format!(
                    r#"(?-u)(?:{B}(?P<s>AKC[A-Za-z0-9]{{10,}})\b|(?i:artif|jfrog)(?s:.){{0,40}}?[\s=:"'](?P<t>AP[0-9A-F][A-Za-z0-9]{{8,}}|AKC[A-Za-z0-9]{{10,}})\b)"#
                ),
                Secret::WholeWhenPrefixed(&["AKC"]),
            ),
            Check::None,
        ),
        (
            // 64 lower-case hex or alphanumerics after a SoftLayer key name and a separator
            // (blanks too: `--softlayer-api-key KEY`), or in the path of its SOAP or REST API.
            SOFTLAYER,
            groups(
                r#"(?-u)(?i:softlayer)(?:[A-Za-z0-9_-]{0,24}(?:\\*["']|%2[27])?(?:(?:[ \t]|%20)*(?::=|[:=]|%3[AaDd])(?:[ \t]|%20)*|(?:[ \t]|%20)+)(?:\\*["']|%2[27])?|\.com/(?:soap|rest)/v3(?:\.1)?/)(?P<s>[a-z0-9]{64})\b"#
                    .to_owned(),
            ),
            Check::NotPlaceholder,
        ),
    ]
}

/// Cloud and platform credentials, and JWTs.
fn platform_rules() -> Vec<RuleSpec> {
    vec![
        (
            // Three base64url parts: a user id (digits; its base64 starts `MT` for every id
            // starting with 1, which the literal tables need), a 6-character timestamp, an
            // HMAC. Not a JWT (`eyJ`), and a dotted name's first part is no id.
            DISCORD,
            bounded(r"MT[AEIMQUYcgk][A-Za-z0-9_-]{20,23}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}"),
            Check::DiscordToken,
        ),
        (
            // `AccountKey=` or `SharedAccessKey=` (the value quoted too); or a storage account
            // key's own shape (64 bytes in base64: 86 and `==`) on the line of a mention of
            // Azure or on one of the two lines below it (a portal snippet, a SQL credential),
            // not glued to other base64 (`sha512-…==` of a lock file).
            AZURE_KEY,
            (
                r#"(?-u)(?i:AccountKey|SharedAccessKey)=(?:\\*["'])?(?P<s>[A-Za-z0-9+/]{20,}={0,2})|(?i:azure)[^\n]{0,200}(?:\n[^\n]{0,200}){0,2}?[^A-Za-z0-9+/=-](?P<t>[A-Za-z0-9+/]{86}==)(?:[^A-Za-z0-9+/=]|\z)"#
                    .to_owned(),
                Secret::Groups,
            ),
            Check::NotPlaceholder,
        ),
        (
            AZURE_SAS,
            (
                r"(?-u)(?i:sig)=(?P<s>[A-Za-z0-9%+/]{30,}(?:=|%3[Dd]){0,2})".to_owned(),
                Secret::From(|_| "sig=".len()),
            ),
            Check::NotPlaceholder,
        ),
        (
            // `AKIA`/`ASIA` keys are taken glued to a word too (`ID_AKIA…`, `xxxxAKIA…`):
            // four capitals no word holds before 16 more capitals and digits. The rarer
            // prefixes are runs an upper-case word may hold (`ACCA`), so those need a boundary.
            // A key is 20 long: the 16 end at a word's end, so capitals running on
            // (`TODAYINASIAASACKOFRICEFELLOVER`) are words, not a key.
            AWS_ACCESS_KEY_ID,
            escaped(format!(
                r"(?-u)(?:{B}(?P<s>(?:A3T[A-Z0-9]|ABIA|ACCA)[A-Z0-9]{{16}})|(?:AKIA|ASIA)[A-Z0-9]{{16}})\b"
            )),
            Check::NotPlaceholder,
        ),
        (
            // STS tokens by their fixed base64 prefix anywhere, or any long value under a
            // session-token key name.
            AWS_SESSION_TOKEN,
            (
                format!(
                    r"(?-u)(?P<s>(?:{sts})[A-Za-z0-9/+=]{{100,}})|(?i:aws[_.-]?session[_.-]?token|aws[_.-]?security[_.-]?token|x-amz-security-token|sessiontoken){SEP}(?P<t>[A-Za-z0-9/+=%]{{100,}})",
                    sts = STS_PREFIXES.join("|")
                ),
                Secret::WholeWhenPrefixed(STS_PREFIXES),
            ),
            Check::NotPlaceholder,
        ),
        (
            AWS_BEDROCK,
            token(r"ABSK[A-Za-z0-9+/]{100,}={0,2}|bedrock-api-key-[A-Za-z0-9+/]{40,}={0,2}"),
            Check::NotPlaceholder,
        ),
        (
            // Three base64url segments, or two (an unsigned token) when the second is JSON too.
            JWT,
            token(
                r"eyJ[A-Za-z0-9_-]{7,}\.(?:[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*|eyJ[A-Za-z0-9_-]{4,})",
            ),
            Check::Jwt,
        ),
    ]
}

/// Secrets known by their context: a key name, a header, a URL, a command line, a comparison.
fn context_rules() -> Vec<RuleSpec> {
    vec![
        (
            // Only in an assignment context: `aws_secret_access_key = …`,
            // `AWS_SECRET_ACCESS_KEY=…`, `"SecretAccessKey": "…"`, `aws-secret-key: …`.
            AWS_SECRET_ACCESS_KEY,
            groups(format!(
                r"(?-u)(?i:aws[_.-]?secret(?:[_.-]?access)?(?:[_.-]?key)?|secret[_.-]?access[_.-]?key){SEP}(?P<s>[A-Za-z0-9/+=%]{{40,}})"
            )),
            Check::NotPlaceholder,
        ),
        (
            BEARER,
            groups(format!(
                r"(?-u){B}(?i:bearer)(?:[ \t]+|%20)(?:(?i:bearer)(?:[ \t]+|%20))*(?P<s>[A-Za-z0-9._~+/-]+=*)"
            )),
            Check::BearerToken,
        ),
        (
            // One token after optional single-token schemes and an optional unknown scheme
            // word (`w`), or, for parameter-list schemes such as Digest whose values hold
            // quotes, the rest of the line (`t`).
            AUTHORIZATION,
            groups(format!(
                r"(?-u){B}(?i:(?:proxy[_-])?authorization){SEP_STRICT}(?:(?P<t>(?i:digest|negotiate|ntlm|aws4-hmac-sha256|hoba|mutual|vapid)[ \t]+(?:[^\r\n\\]|\\[^nr])*)|(?:(?i:bearer|basic|token|apikey)[ \t]+)*(?:(?P<w>[A-Za-z][A-Za-z0-9_-]*)[ \t]+)?(?P<s>[^\s'\x22\\\[&,;]+))"
            )),
            Check::Authorization,
        ),
        (
            API_KEY_HEADER,
            groups(format!(
                r#"(?-u){B}(?i:x-api-key|x-goog-api-key|x-auth-token|x-access-token|x-vault-token|x-api-token|private-token|api-key|apikey|token|ocp-apim-subscription-key)(?:\\*["'])?[ \t]*:[ \t]*(?:\\*["'])?(?P<s>{VALUE}+)"#
            )),
            Check::Header,
        ),
        (
            URL_CREDENTIALS,
            groups(r#"(?-u)://(?P<user>[^:/?#@\s'"`\\<>\[\]]*):(?P<s>[^@/?#\s'"`\\<>\[\]]+)@"#.to_owned()),
            Check::UrlPassword,
        ),
        (
            // `curl -u user:pass`, `--password=…`/`--token …` and friends, `mysql -pSECRET`
            // (or `-p'SECRET'`), `redis-cli -a SECRET`, `sshpass -p SECRET`.
            COMMAND_LINE,
            groups(r#"(?-u)(?:(?m:^)|[ \t'"]|%20)(?:-u(?:[ ]|%20)+|--(?:proxy-)?user(?:(?:[ ]|%20)+|=))(?:['"]|%2[27])?(?P<user>[^\s:'"\\&;|%]+):(?P<s>[^\s'"\\&;|%]+)|(?:[ \t]|%20)--(?:(?P<pw>password|passwd)|token|api-key|apikey|secret|client-secret|auth-token|access-token)(?:(?:[ ]|%20)+|=)(?:['"]|%2[27])?(?P<t>[^\s'"\\&;|%]+)|(?:(?:mysql|mysqldump|mysqladmin)\b[^\r\n]*?(?:[ \t]|%20)-p|redis-cli\b[^\r\n]*?(?:[ \t]|%20)-a(?:[ ]|%20)+|sshpass(?:[ ]|%20)+-p(?:[ ]|%20)*)(?:['"]|%2[27])?(?P<v>[^\s'"\\&;|%]+)"#
                .to_owned()),
            Check::CommandLine,
        ),
        (
            // `if (password == "…")`, `"…" !== apiKey`: a string literal on either side of
            // `==`, `===`, `!=`, `!==` next to an identifier holding a secret word, judged as an
            // assignment's value is. Bounded so that a match starts at most
            // `COMPARISON_REACH` bytes before its key word.
            COMPARISON,
            groups(comparison_pattern()),
            Check::Comparison,
        ),
        (
            // `API_KEY=…`, `DB_PASSWORD: …`, `"client_secret": "…"`, `token := "…"`: a key name
            // holding a secret word, then a value judged by `Check::Assignment`.
            GENERIC,
            groups(format!(
                r#"(?-u){SECRET_KEY_WORDS}{KEY_SUFFIX}{SEP_STRICT}(?P<s>{VALUE}+)"#
            )),
            Check::Assignment,
        ),
    ]
}

pub(crate) fn builtin_rules() -> Vec<BuiltinRule> {
    vendor_rules()
        .into_iter()
        .chain(service_rules())
        .chain(platform_rules())
        .chain(context_rules())
        .map(|(name, (pattern, secret), check)| BuiltinRule {
            name,
            pattern,
            secret,
            check,
            bracket_free: matches!(name, GENERIC | API_KEY_HEADER | AWS_SECRET_ACCESS_KEY),
        })
        .collect()
}

/// The secret group of a `generic_secret` match `b[start..end]` and whether its key names a
/// password (the `pw` group), read off the match; `None` where the regex has to say.
///
/// The pattern is `{SECRET_KEY_WORDS}{KEY_SUFFIX}{SEP_STRICT}(?P<s>{VALUE}+)`. The key part is
/// made of `[A-Za-z0-9_.-]`, none of which can start the separator, so in every way of
/// matching it ends where that run of bytes ends; which key word it starts with decides
/// `pw` (a password word starts with `passw`, `_pass`, `pwd` or `_pw`, no other word does). The
/// regex takes the first way, in priority order, that matches: the separator is followed
/// here taking at each step the alternative the regex tries first (an opening quote, every
/// space, `=>` before `:=` before `:` or `=`, …, the longest run of value bytes). When that
/// way reaches the end of the match it is the regex's; when it fails somewhere (`token=%20`
/// at the end of the text, whose value is `%20`), the regex, which would try the other
/// alternatives, is asked instead.
pub(crate) fn assignment_value(b: &[u8], start: usize, end: usize) -> Option<(usize, ValueKind)> {
    let key_byte = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-');
    let at = |i: usize, s: &[u8]| b.get(i..).is_some_and(|rest| rest.starts_with(s));
    // `(?:\\*["']|%2[27])?`
    let quote = |i: usize| {
        let mut j = i;
        while b.get(j) == Some(&b'\\') {
            j += 1;
        }
        if matches!(b.get(j), Some(b'"' | b'\'' | b'`')) {
            j + 1
        } else if at(i, b"%22") || at(i, b"%27") {
            i + 3
        } else {
            i
        }
    };
    // `(?:[ \t]|%20)*`
    let spaces = |mut i: usize| loop {
        if matches!(b.get(i), Some(b' ' | b'\t')) {
            i += 1;
        } else if at(i, b"%20") {
            i += 3;
        } else {
            return i;
        }
    };
    let mut i = start;
    while b.get(i).copied().is_some_and(key_byte) {
        i += 1;
    }
    i = spaces(quote(i));
    i += if at(i, b"=>") || at(i, b":=") {
        2
    } else if matches!(b.get(i), Some(b':' | b'=')) {
        1
    } else if at(i, b"%3") && matches!(b.get(i + 2), Some(b'A' | b'a' | b'D' | b'd')) {
        3
    } else {
        return None;
    };
    let value = quote(spaces(i));
    let value_end = value
        + b.get(value..)?
            .iter()
            .take_while(|&&c| is_value_byte(c))
            .count();
    if value_end == value || value_end != end {
        return None;
    }
    let key = &b[start..];
    let password = [&b"passw"[..], b"_pass", b"pwd", b"_pw"].iter().any(|w| {
        key.get(..w.len())
            .is_some_and(|k| k.eq_ignore_ascii_case(w))
    });
    let kind = if password {
        ValueKind::Password
    } else {
        ValueKind::Token
    };
    Some((value, kind))
}

/// A byte of [`VALUE`]: not ASCII white space (`\s` without Unicode: space, `\t`, `\n`,
/// `\x0B`, `\x0C`, `\r`), a quote, a backslash, a separator or a bracket.
fn is_value_byte(c: u8) -> bool {
    !matches!(
        c,
        b' ' | b'\t'
            | b'\n'
            | 0x0B
            | 0x0C
            | b'\r'
            | b'\''
            | b'"'
            | b'`'
            | b'\\'
            | b','
            | b';'
            | b'&'
            | b'<'
            | b'>'
            | b'('
            | b')'
            | b'['
            | b']'
            | b'|'
    )
}

/// A JSON object key that announces a secret value (`"client_secret"`, `"password"`,
/// `"apiKey"`): the whole key is a secret word with at most two segments around it.
pub(crate) fn secret_key_name_pattern() -> String {
    format!(r"(?-u)^(?:[A-Za-z0-9]+[_.-]?){{0,3}}{SECRET_KEY_WORDS}{KEY_SUFFIX}$")
}

#[cfg(test)]
mod tests {
    use regex::bytes::Regex;

    use super::*;

    /// Each prefix's shortest body in the key-name rules' table is the shortest its vendor
    /// rule takes: one byte less and the vendor rule finds nothing, so the key-name rules
    /// leave only what no rule would call that vendor's token.
    #[test]
    fn prefix_bodies_are_the_vendor_rules_minimums() {
        let rules = builtin_rules();
        let vendor = |prefix: &str| match prefix {
            "sk-ant-" => ANTHROPIC,
            "npm_" => NPM,
            "hf_" => HUGGINGFACE,
            other => panic!("no vendor rule named for {other}"),
        };
        for (prefix, min) in crate::judge::PREFIX_BODIES {
            let prefix = std::str::from_utf8(prefix).expect("ASCII");
            let rule = rules
                .iter()
                .find(|r| r.name == vendor(prefix))
                .expect("the vendor rule");
            let regex = Regex::new(&rule.pattern).expect("compiles");
            let finds = |len: usize| {
                let body = &"Q7vLm2Xk9P".repeat(4)[..len];
                regex.is_match(format!(" {prefix}{body} ").as_bytes())
            };
            assert!(finds(*min), "{prefix}: {min} bytes of body are a token");
            assert!(!finds(min - 1), "{prefix}: {} bytes are too short", min - 1);
        }
    }

    /// Where a rule says its secret is the match (after a leading escape), it is the secret
    /// group the regex finds, in every text of the secrets corpus and around escapes; and
    /// the check of such a rule needs no other group.
    #[test]
    fn secrets_read_off_the_match_are_the_secret_group() {
        let corpus = include_str!("../../../fixtures/redact/corpus/secrets.jsonl");
        let rows: Vec<serde_json::Value> = corpus
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let secrets: Vec<String> = rows
            .iter()
            .filter_map(|row| row["secret"].as_str().map(str::to_owned))
            .collect();
        let mut texts: Vec<String> = rows
            .iter()
            .filter_map(|row| row["text"].as_str().map(str::to_owned))
            .chain(secrets.iter().cloned())
            .collect();
        // Families the corpus does not hold yet.
        let secrets: Vec<String> = secrets
            .into_iter()
            .chain(
                [
                    "sq0csp-Kx8vQ2mL5pR9tW3yZ6bN1cF4hJ7dG0sA2eU5iO8kM3n",
                    "AKCp8kQ2vL9mX4tR7wZ1yB5nC8hF3dG6sJ0aE2uK5oP9iM4qT7lN1xW",
                ]
                .map(str::to_owned),
            )
            .collect();
        texts.extend(secrets[secrets.len() - 2..].iter().cloned());
        for secret in &secrets {
            for before in ["\\n", "\\u0041", "%20", "%0A", " ", "x", "\\", "%", "\\q"] {
                texts.push(format!("{before}{secret} {before}{secret}"));
            }
        }
        let mut checked = 0;
        for rule in builtin_rules() {
            if matches!(rule.secret, Secret::Groups) {
                continue;
            }
            assert!(
                rule.check.accept_secret(b"x", 0).is_some(),
                "{}: its check needs groups",
                rule.name
            );
            let regex = Regex::new(&rule.pattern).expect("rule compiles");
            let before = checked;
            for text in &texts {
                let b = text.as_bytes();
                for caps in regex.captures_iter(b) {
                    let Some(whole) = caps.get(0) else { continue };
                    let secret = caps.name("s").or_else(|| caps.name("t")).unwrap_or(whole);
                    let Some(span) = rule.secret.span(whole.start(), whole.as_bytes()) else {
                        continue;
                    };
                    assert_eq!(
                        span,
                        (secret.start(), secret.end()),
                        "{}: {text}",
                        rule.name
                    );
                    checked += 1;
                }
            }
            assert!(checked > before, "{}: no match read off", rule.name);
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// A Discord token's first part is the base64 of a user id: 17 to 20 digits, canonically
    /// encoded; a dotted token or name whose first part decodes to anything else is not one.
    #[test]
    fn discord_tokens_start_with_a_user_id() {
        for token in [
            "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
            "MTA5ODc2NTQzMjEwOTg3NjU0Mw.GhIjKl.Q7vLm2Xk9PzR4tYwB8nJc3HfD6sGa1UeK5oV",
            "MTIzNDU2Nzg5MDEyMzQ1Njc.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
        ] {
            assert!(is_discord_token(token.as_bytes()), "{token}");
        }
        for token in [
            // "123abcdefghijklmnop"
            "MTIzYWJjZGVmZ2hpamtsbW5vcA.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
            // 16 digits, 21 digits
            "MTIzNDU2Nzg5MDEyMzQ1Ng.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
            "MTIzNDU2Nzg5MDEyMzQ1Njc4OTAx.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
            // Not canonical (leftover bits), not base64url, a length no encoding has.
            "MTIzNDU2Nzg5MDEyMzQ1Njc4OR.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
            "MTk4NjIyNDgzNDcx+TI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
            "MTk4NjIyNDgzNDcxOTI1MjQ4M.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
        ] {
            assert!(!is_discord_token(token.as_bytes()), "{token}");
        }
    }

    /// No match of a rule said to be bracket-free holds `[` or `]`, on text built from key
    /// words, separators, values and brackets.
    #[test]
    fn bracket_free_rules_never_match_a_bracket() {
        let pieces: &[&str] = &[
            "password",
            "secret",
            "token",
            "api_key",
            "x-api-key",
            "aws_secret_access_key",
            "SecretAccessKey",
            "_KEY",
            "=",
            ": ",
            "\"",
            "'",
            "%3A",
            "%20",
            "\\n",
            "%5D",
            "]",
            "[",
            "]]",
            "abcdefABCDEF0123456789/+=abcdefABCDEF0123456789",
            "S3cr3t!x",
            " ",
        ];
        let mut next = crate::test_rng(0x9e37_79b9_7f4a_7c15u64);
        let rules: Vec<(&str, Regex)> = builtin_rules()
            .into_iter()
            .filter(|r| r.bracket_free)
            .map(|r| {
                let regex = Regex::new(&r.pattern).expect("rule compiles");
                (r.name, regex)
            })
            .collect();
        assert_eq!(rules.len(), 3);
        let mut matched = 0;
        for _ in 0..5_000 {
            let n = 1 + next() as usize % 8;
            let text: String = (0..n)
                .map(|_| pieces[next() as usize % pieces.len()])
                .collect();
            for (name, regex) in &rules {
                for at in 0..text.len() {
                    if let Some(m) = regex.find_at(text.as_bytes(), at) {
                        assert!(
                            !m.as_bytes().iter().any(|c| matches!(c, b'[' | b']')),
                            "{name}: {text:?}"
                        );
                        matched += 1;
                    }
                }
            }
        }
        assert!(matched > 1_000, "{matched}");
    }

    /// [`assignment_value`] agrees with the regex's own groups wherever it answers, on text
    /// built from the pieces that decide them, and answers for ordinary assignments.
    #[test]
    fn assignment_value_reads_the_groups_the_regex_would() {
        let regex = builtin_rules()
            .into_iter()
            .find(|r| r.name == GENERIC)
            .map(|r| Regex::new(&r.pattern).expect("generic compiles"))
            .expect("generic rule");
        let pieces: &[&str] = &[
            "password",
            "PassWord",
            "passwd",
            "_pass",
            "pwd",
            "secret",
            "Token",
            "credentials",
            "api_key",
            "api.key",
            "apikey",
            "-key",
            "_KEY",
            "Base",
            "_base",
            ".x",
            "word",
            "=",
            ":",
            "=>",
            ":=",
            "%3A",
            "%3d",
            "%20",
            "%22",
            "%27",
            "%2",
            " ",
            "\t",
            "\"",
            "'",
            "\\",
            "\\\"",
            "x",
            "S3cr3t",
            "abc123XYZ",
            "%",
            "[",
            "]",
            ",",
            "\n",
            "\x0b",
            "é",
            "$X",
            "-",
            "_",
        ];
        let mut next = crate::test_rng(0x9e37_79b9_7f4a_7c15u64);
        let mut answered = 0;
        for _ in 0..20_000 {
            let n = 1 + next() as usize % 9;
            let text: String = (0..n)
                .map(|_| pieces[next() as usize % pieces.len()])
                .collect();
            let b = text.as_bytes();
            let mut at = 0;
            while let Some(caps) = regex.captures_at(b, at) {
                let (Some(whole), Some(s)) = (caps.get(0), caps.name("s")) else {
                    panic!("{text:?}: no secret group");
                };
                if let Some((value, kind)) = assignment_value(b, whole.start(), whole.end()) {
                    answered += 1;
                    assert_eq!(value, s.start(), "{text:?}");
                    let pw = kind == ValueKind::Password;
                    assert_eq!(pw, caps.name("pw").is_some(), "{text:?}");
                }
                at = whole.start() + 1;
            }
        }
        assert!(answered > 1_000, "{answered}");
        for text in [
            "API_KEY=abc",
            "password: \"hunter22\"",
            "token := 'x'",
            "secret%3Dabc",
        ] {
            let m = regex.find(text.as_bytes()).map(|m| (m.start(), m.end()));
            let Some((start, end)) = m else {
                panic!("{text}: no match")
            };
            assert!(
                assignment_value(text.as_bytes(), start, end).is_some(),
                "{text}"
            );
        }
    }
}
