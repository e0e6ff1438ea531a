//! Which literals admit which built-in rules, where in the text they must sit to admit them,
//! and where a match starts relative to a literal's hit: the tables the prefilter is built
//! from. The prefilter owns the searching; this module owns what the literals mean.

use crate::rules::*;

/// Literals, in lower case, at least one of which occurs (ASCII case-insensitively, or exactly
/// when marked) in every match of a rule, with the rules they admit. Text holding none of them
/// is clean as far as built-ins go, which is what the ledger's fast path relies on.
///
/// Literals are parts of the rules' fixed text chosen to be rare in prose and code (`asi`,
/// `acc`, `sec`, `aut` start common words, so `sia`, `cca`, `ecret`, `rizat` are searched), at
/// least three bytes long (the SIMD searcher's masks are as wide as the shortest literal), and
/// at most 128 of them (its limit; past 64 it is built without its own heuristic limit, see
/// [`SEARCH_ORDER`]).
pub(crate) const LITERALS: &[(&str, Case, &[&str])] = &[
    ("-begin", Case::Any, &[PRIVATE_KEY]),
    ("sk-", Case::Any, &[ANTHROPIC, OPENROUTER, OPENAI]),
    ("ghp_", Case::Any, &[GITHUB]),
    ("gho_", Case::Any, &[GITHUB]),
    ("ghu_", Case::Any, &[GITHUB]),
    ("ghs_", Case::Any, &[GITHUB]),
    ("ghr_", Case::Any, &[GITHUB]),
    ("b_pat_", Case::Any, &[GITHUB]),
    ("glpat-", Case::Any, &[GITLAB]),
    ("glptt-", Case::Any, &[GITLAB]),
    ("gldt-", Case::Any, &[GITLAB]),
    ("glrt-", Case::Any, &[GITLAB]),
    ("gloas-", Case::Any, &[GITLAB]),
    ("xox", Case::Any, &[SLACK]),
    ("xapp-", Case::Any, &[SLACK]),
    ("hooks.slack", Case::Any, &[SLACK_WEBHOOK]),
    ("k_live_", Case::Any, &[STRIPE]),
    ("k_test_", Case::Any, &[STRIPE]),
    ("whsec_", Case::Any, &[STRIPE]),
    ("aiza", Case::Any, &[GOOGLE]),
    ("npm_", Case::Any, &[NPM]),
    ("pypi-ag", Case::Any, &[PYPI]),
    ("hf_", Case::Any, &[HUGGINGFACE]),
    // `msg.` is everywhere in code; SendGrid keys start with capitals.
    ("sg.", Case::Exact("SG."), &[SENDGRID]),
    ("twilio", Case::Any, &[TWILIO]),
    ("hvs.", Case::Any, &[VAULT]),
    ("hvb.", Case::Any, &[VAULT]),
    ("_v1_", Case::Any, &[DIGITALOCEAN]),
    ("dapi", Case::Any, &[DATABRICKS]),
    ("sntry", Case::Any, &[SENTRY]),
    ("shp", Case::Any, &[SHOPIFY]),
    ("lin_", Case::Any, &[LINEAR]),
    (":aa", Case::Exact(":AA"), &[TELEGRAM]),
    ("sq0", Case::Any, &[SQUARE]),
    ("akc", Case::Exact("AKC"), &[ARTIFACTORY]),
    (
        "artif",
        Case::Then(artifactory_token_follows),
        &[ARTIFACTORY],
    ),
    (
        "jfrog",
        Case::Then(artifactory_token_follows),
        &[ARTIFACTORY],
    ),
    ("softlayer", Case::Any, &[SOFTLAYER]),
    // `//host/path/:_authToken=`, `:_auth=`, `:_password=` in an `.npmrc`.
    (":_auth", Case::Any, &[NPM]),
    (":_password", Case::Any, &[NPM]),
    // `MT` and the base64 of an id's second digit: every id starting with 1 (all since 2022,
    // and those of 2015–16); other ids' tokens have no literal of their own (see the rule).
    ("mta", Case::Then(discord_parts_follow), &[DISCORD]),
    ("mte", Case::Then(discord_parts_follow), &[DISCORD]),
    ("mti", Case::Then(discord_parts_follow), &[DISCORD]),
    ("mtm", Case::Then(discord_parts_follow), &[DISCORD]),
    ("mtq", Case::Then(discord_parts_follow), &[DISCORD]),
    ("mtu", Case::Then(discord_parts_follow), &[DISCORD]),
    ("mty", Case::Then(discord_parts_follow), &[DISCORD]),
    ("mtc", Case::Then(discord_parts_follow), &[DISCORD]),
    ("mtg", Case::Then(discord_parts_follow), &[DISCORD]),
    ("mtk", Case::Then(discord_parts_follow), &[DISCORD]),
    ("sig=", Case::Any, &[AZURE_SAS]),
    ("azure", Case::Any, &[AZURE_KEY]),
    ("kia", Case::Any, &[AWS_ACCESS_KEY_ID]),
    ("sia", Case::Any, &[AWS_ACCESS_KEY_ID]),
    ("bia", Case::Any, &[AWS_ACCESS_KEY_ID]),
    ("cca", Case::Any, &[AWS_ACCESS_KEY_ID]),
    ("a3t", Case::Any, &[AWS_ACCESS_KEY_ID]),
    ("fwogzxivyxdz", Case::Any, &[AWS_SESSION_TOKEN]),
    ("iqojb3jpz2lux2vj", Case::Any, &[AWS_SESSION_TOKEN]),
    ("absk", Case::Any, &[AWS_BEDROCK]),
    ("eyj", Case::Any, &[JWT]),
    ("bearer", Case::Any, &[BEARER]),
    ("rizat", Case::Any, &[AUTHORIZATION]),
    ("://", Case::Then(at_sign_follows), &[URL_CREDENTIALS]),
    ("-u ", Case::Any, &[COMMAND_LINE]),
    ("-u%20", Case::Any, &[COMMAND_LINE]),
    // `--user` (and `--proxy-user`), or `-us` and a Mailchimp key's data centre after its 32
    // hex: one literal, as a searcher reports one of two literals starting at one byte.
    (
        "-us",
        Case::Then(user_or_digit_follows),
        &[COMMAND_LINE, MAILCHIMP],
    ),
    ("mysql", Case::Any, &[COMMAND_LINE]),
    ("redis-cli", Case::Any, &[COMMAND_LINE]),
    ("sshpass", Case::Any, &[COMMAND_LINE]),
    // Key-name words.
    (
        "ecret",
        Case::Then(secret_word_ends),
        &[AWS_SECRET_ACCESS_KEY, COMMAND_LINE, COMPARISON, GENERIC],
    ),
    (
        "token",
        Case::Then(key_word_ends),
        &[
            AWS_SESSION_TOKEN,
            API_KEY_HEADER,
            COMMAND_LINE,
            COMPARISON,
            GENERIC,
        ],
    ),
    // The rules `key` admits depend on its neighbours: see [`Case::Key`].
    (
        "key",
        Case::Key,
        &[
            AZURE_KEY,
            AWS_BEDROCK,
            API_KEY_HEADER,
            COMMAND_LINE,
            COMPARISON,
            GENERIC,
        ],
    ),
    ("passw", Case::Any, &[COMMAND_LINE, COMPARISON, GENERIC]),
    ("_pass", Case::Any, &[COMPARISON, GENERIC]),
    ("pwd", Case::Any, &[COMPARISON, GENERIC]),
    // `db_pw`, `cloudant_pw`: `_pw` ending the word (`_pwd` is `pwd`'s).
    ("_pw", Case::Then(key_word_ends), &[COMPARISON, GENERIC]),
    ("dential", Case::Any, &[COMPARISON, GENERIC]),
];

/// Rules a literal tested by what follows it ([`Case::Then`]) admits whatever follows: a key
/// word ends the identifier `secret_comparison` reads after the operator anywhere (`"…" ===
/// token)`), where [`key_word_ends`] would not admit it; its [`CONTEXT`] test narrows it.
pub(crate) const WORD_END_FREE: &[&str] = &[COMPARISON];

/// [`LITERALS`] in the order the SIMD searcher takes them. It puts the literal it is given
/// `i`-th in bucket `15 - i % 16` and checks every place where the first three bytes could
/// start one of a bucket's literals, judged by each byte's two halves (nibbles) separately:
/// a bucket of literals whose bytes share halves is checked at few places, one of unrelated
/// literals at many (`-be`, `k_l`, `sig`, `mys` together let through hundreds of byte
/// triples). This order, found by a local search (swapping literals between buckets while
/// fewer places got checked) on a real Claude Code session
/// (`fixtures/transcripts/claude-code-fe5e1c67.jsonl`), checks a tenth of the places the
/// order of [`LITERALS`] does on other sessions and on ordinary agent output, and the search
/// costs a third as much. Test `search_order_checks_few_places`. One row per 16 literals,
/// so a column is a bucket.
///
/// Past 64 literals the searcher's own heuristic would refuse to build (too many literals
/// for 16 buckets, in general): the ten Discord literals (`mt` and a letter) share their
/// first two bytes, so the search found an order with them in which fewer places are
/// checked than with the 58 literals before them, and the limit is lifted.
#[rustfmt::skip]
pub(crate) const SEARCH_ORDER: &[&str] = &[
    "mtu",   "_v1_",             "mty",    "dential", "gldt-",     "whsec_", "mysql", "hvb.",        "sshpass", "twilio",       "pwd",     "k_test_", "xapp-", "sig=", "sk-",    "glrt-",
    "mtm",   "npm_",             "mta",    "bearer",  "ghp_",      "rizat",  "bia",   "hf_",         "sntry",   "-u%20",        "eyj",     "://",     "passw", "cca",  "token",  "ecret",
    "mtk",   "_pass",            "gloas-", "mte",     "glptt-",    "aiza",   "kia",   "lin_",        "mtq",     "-u ",          "mtg",     "a3t",     "shp",   "sia",  "-begin", "ghr_",
    "-us",   "iqojb3jpz2lux2vj", "gho_",   "dapi",    "redis-cli", "absk",   "ghs_",  "hooks.slack", "hvs.",    "fwogzxivyxdz", "k_live_", "b_pat_",  "sg.",   "xox",  "mti",    "ghu_",
    "mtc",   "pypi-ag",          "key",    "glpat-",    "artif",     "akc",    "azure", "jfrog",       "softlayer", "sq0",         ":_auth",    ":_password", "_pw",   ":aa",
];

/// Rules a literal admits only where its neighbours allow, by a test on the text before the
/// literal and the text after it. Each test holds wherever the literal sits in a match of the
/// rule that has no other literal to admit it, in the decoded string and in its JSON text
/// (which the ledger's pre-pass searches: the neighbours these tests read are bytes JSON does
/// not escape, or `\t`, taken as the tab it decodes to). The rule is still admitted by its
/// other literals: `--token` in `curl -u a:b --token t` needs no test, `-u ` admits it.
pub(crate) const CONTEXT: &[(&str, &str, Gate)] = &[
    // `aws_session_token`, `AWS-SECURITY-TOKEN`, `x-amz-security-token`, `SessionToken`.
    ("token", AWS_SESSION_TOKEN, session_or_security_before),
    // `--token`, `--auth-token`, `--access-token`.
    ("token", COMMAND_LINE, dash_before),
    // `--api-key`, `--apikey`.
    ("key", COMMAND_LINE, dashes_api_before),
    // `--secret`, `--client-secret`.
    ("ecret", COMMAND_LINE, dash_s_before),
    // `--password`, `--passwd`.
    ("passw", COMMAND_LINE, two_dashes_before),
    // `--user`; `-us1` after a Mailchimp key's hex.
    ("-us", COMMAND_LINE, er_after),
    ("-us", MAILCHIMP, digit_after),
    // `aws_secret…`, `secret_access_key`.
    ("ecret", AWS_SECRET_ACCESS_KEY, aws_or_access_key_around),
    // Every header name ends with the word: `X-Auth-Token:`, `private-token":`, `X-API-Key :`.
    ("token", API_KEY_HEADER, colon_follows),
    ("key", API_KEY_HEADER, colon_follows),
    // `password == "…"`, `"…" !== api_key`: an equality operator after or before the
    // identifier the key word is in.
    ("ecret", COMPARISON, compared),
    ("token", COMPARISON, compared),
    ("key", COMPARISON, compared),
    ("passw", COMPARISON, compared),
    ("_pass", COMPARISON, compared),
    ("pwd", COMPARISON, compared),
    ("_pw", COMPARISON, compared),
    ("dential", COMPARISON, compared),
];

/// A test on the text before a literal's hit and the text after it.
pub(crate) type Gate = fn(&[u8], &[u8]) -> bool;

/// Where a match of a rule starts, relative to the hit of a literal that admits it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Starts {
    /// At one of these distances before the hit: the rule is searched anchored there,
    /// which needs no reverse scan to find where a match starts, nor the regex's own
    /// prefilter.
    At(&'static [usize]),
    /// At most this far before the hit (too many places to try each): the rule is
    /// searched from the first admitting hit less this, and not past the last one.
    Within(usize),
}

/// The [`Starts`] of a rule at a hit of `literal`, read off its pattern: a start-of-token
/// escape (`B` in `rules.rs`: none, `\n`, `%20` or `\u0041`), then the fixed text before the
/// literal (`-----` before `-begin`, `api_` before `key`). The test
/// `every_match_starts_where_its_admitting_hits_say` checks each.
pub(crate) fn starts(rule: &str, literal: &str) -> Starts {
    use Starts::{At, Within};
    const ESCAPE: &[usize] = &[0, 2, 3, 6];
    match (rule, literal) {
        // `-----BEGIN`.
        (PRIVATE_KEY, _) => At(&[4]),
        // `github_pat_`.
        (GITHUB, "b_pat_") => At(&[5]),
        // `sk_live_`.
        (STRIPE, "k_live_" | "k_test_") => At(&[1]),
        // `doo_v1_`.
        (DIGITALOCEAN, _) => At(&[3]),
        // `AccountKey=`, `SharedAccessKey=`.
        (AZURE_KEY, "key") => At(&[7, 12]),
        // `bedrock-api-key-`.
        (AWS_BEDROCK, "key") => At(&[12]),
        // `//host:port/path/` before `:_auth`.
        (NPM, ":_auth" | ":_password") => Within(400),
        // `-us` after 32 hex.
        (MAILCHIMP, _) => At(&[32, 34, 35, 38]),
        // An escape, `bot` and the bot id's 8 to 10 digits before `:AA`.
        (TELEGRAM, _) => Within(6 + 3 + 10),
        (ARTIFACTORY, "akc") => At(ESCAPE),
        (OPENAI | NPM | HUGGINGFACE | VAULT | DATABRICKS | DISCORD | BEARER, _) => At(ESCAPE),
        // `A3T` and `AKIA` (or the like) after an escape.
        (AWS_ACCESS_KEY_ID, "a3t") => At(ESCAPE),
        (AWS_ACCESS_KEY_ID, _) => At(&[1, 3, 4, 7]),
        // `sessiontoken`, `awssessiontoken`, `aws_securitytoken`, `aws_security_token`,
        // `x-amz-security-token` (the STS prefixes start their match).
        (AWS_SESSION_TOKEN, "token") => At(&[7, 10, 11, 12, 13, 15]),
        // `secret_access_key`, `awssecret`, `aws_secret`.
        (AWS_SECRET_ACCESS_KEY, _) => At(&[1, 4, 5]),
        // `authorization` and `proxy-authorization`, after an escape.
        (AUTHORIZATION, _) => At(&[5, 7, 8, 11, 13, 14, 17]),
        // `ocp-apim-subscription-key` after an escape.
        (API_KEY_HEADER, _) => Within(6 + "ocp-apim-subscription-".len()),
        // `%20--client-secret`.
        (COMMAND_LINE, _) => Within("%20--client-s".len()),
        // A string literal, an operator and an identifier before the key word.
        (COMPARISON, _) => Within(COMPARISON_REACH),
        // `secret`, `credential`; `_key`, `apikey`, `api_key`.
        (GENERIC, "ecret") => At(&[1]),
        (GENERIC, "dential") => At(&[3]),
        (GENERIC, "key") => At(&[1, 3, 4]),
        _ => At(&[0]),
    }
}

/// Whether `text` ends with `suffix`, ASCII case-insensitively (`suffix` in lower case).
fn ends_with_folded(text: &[u8], suffix: &str) -> bool {
    text.len() >= suffix.len()
        && text[text.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
}

/// `text` without one trailing key-name separator (`_`, `.`, `-`), if it has one.
fn without_separator(text: &[u8]) -> &[u8] {
    match text.split_last() {
        Some((b'_' | b'.' | b'-', rest)) => rest,
        _ => text,
    }
}

fn session_or_security_before(before: &[u8], _: &[u8]) -> bool {
    let word = without_separator(before);
    ends_with_folded(word, "session") || ends_with_folded(word, "security")
}

fn dash_before(before: &[u8], _: &[u8]) -> bool {
    before.last() == Some(&b'-')
}

fn dashes_api_before(before: &[u8], _: &[u8]) -> bool {
    ends_with_folded(before, "--api-") || ends_with_folded(before, "--api")
}

fn dash_s_before(before: &[u8], _: &[u8]) -> bool {
    ends_with_folded(before, "-s")
}

fn two_dashes_before(before: &[u8], _: &[u8]) -> bool {
    before.ends_with(b"--")
}

fn aws_or_access_key_around(before: &[u8], after: &[u8]) -> bool {
    // `before` ends with the `s` of `secret`.
    let aws = before
        .split_last()
        .is_some_and(|(_, rest)| ends_with_folded(without_separator(rest), "aws"));
    let after = match after.first() {
        Some(b'_' | b'.' | b'-') => &after[1..],
        _ => after,
    };
    let access = after.len() >= 6 && after[..6].eq_ignore_ascii_case(b"access");
    aws || (access && {
        let rest = &after[6..];
        let rest = match rest.first() {
            Some(b'_' | b'.' | b'-') => &rest[1..],
            _ => rest,
        };
        rest.len() >= 3 && rest[..3].eq_ignore_ascii_case(b"key")
    })
}

/// Bytes [`compared`] reads on either side of a key word: more than the identifier's bytes
/// after the word (up to 53 in `secret_comparison`), a closing quote and bracket (7) and
/// blanks (24) ahead, or an identifier's prefix (40), the word's first bytes (4) and blanks
/// (24) behind.
const COMPARED_REACH: usize = 96;

/// Whether an equality operator (`==`, `!=`, `===`, `!==`, URL-encoded too) stands next to
/// the identifier a key word is in: after the identifier's bytes and blanks that follow the
/// word (and a closing quote, `"$TOKEN" ==`, or the end of a subscript, `["token"] ==`, URL
/// encoded too), or before those that precede it. Blanks may be `%20` or a JSON-escaped tab
/// (`\t`, whose `t` is also taken for an identifier's byte); a superset of what the rule
/// reads.
fn compared(before: &[u8], after: &[u8]) -> bool {
    if declared(after) {
        return true;
    }
    let identifier = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-' | b'$');
    let subscript_end = |c: u8| matches!(c, b'"' | b'\'' | b'\\' | b']');
    let op_byte_at = |t: &[u8]| -> usize {
        match t {
            [b'=' | b'!', ..] => 1,
            [b'%', b'2', b'1', ..] | [b'%', b'3', b'D' | b'd', ..] => 3,
            _ => 0,
        }
    };
    let eq_at = |t: &[u8]| -> bool { matches!(t, [b'=', ..] | [b'%', b'3', b'D' | b'd', ..]) };
    // Every operator the rule reads holds `=` or `%` within this many bytes of the word:
    // most key words have neither near (`tokenA` repeated, prose), which one search tells.
    let near = |t: &[u8]| memchr::memchr2(b'=', b'%', t).is_some();
    let ahead = near(&after[..after.len().min(COMPARED_REACH)]);
    if !ahead && !near(&before[before.len().saturating_sub(COMPARED_REACH)..]) {
        return false;
    }
    if !ahead {
        return backward(before, identifier);
    }
    // Forward: identifier bytes and blanks, then an operator's first two bytes.
    let mut i = 0;
    for _ in 0..COMPARED_REACH {
        let rest = &after[i.min(after.len())..];
        let first = op_byte_at(rest);
        if first > 0 && eq_at(&rest[first..]) {
            return true;
        }
        i += match rest {
            [b'%', b'2', b'0' | b'2' | b'7', ..] | [b'%', b'5', b'D' | b'd', ..] => 3,
            [b'\\', b't', ..] => 2,
            [c, ..] if *c == b' ' || *c == b'\t' || identifier(*c) || subscript_end(*c) => 1,
            _ => return backward(before, identifier),
        };
    }
    backward(before, identifier)
}

/// Whether what follows a key word can start one of the C-family shapes `secret_comparison`
/// reads besides comparisons: after the identifier's bytes, a call (`secret("…")`,
/// `secret.assign(…`), an array declarator and `=` (`password[32] = "…"`), `=` and `@`
/// (`password = @"…"`), or a quote whose line goes on to a `;` (`private_key "…";`). Blanks
/// may be `%20` or a JSON-escaped tab, `=` may be `%3D`; a superset of what the rule reads.
fn declared(after: &[u8]) -> bool {
    let name = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-');
    let blanks = |t: &[u8]| -> usize {
        let mut i = 0;
        while i < COMPARED_REACH {
            i += match &t[i.min(t.len())..] {
                [b' ' | b'\t', ..] => 1,
                [b'\\', b't', ..] => 2,
                [b'%', b'2', b'0', ..] => 3,
                _ => return i,
            };
        }
        i
    };
    let eq = |t: &[u8]| -> usize {
        match t {
            [b'=', ..] => 1,
            [b'%', b'3', b'D' | b'd', ..] => 3,
            _ => 0,
        }
    };
    let quote = |t: &[u8]| {
        matches!(t.first(), Some(b'"' | b'\'' | b'\\'))
            || t.starts_with(b"%22")
            || t.starts_with(b"%27")
    };
    let mut i = after
        .iter()
        .take(COMPARED_REACH)
        .take_while(|c| name(c))
        .count();
    let rest = &after[i..];
    match rest.first() {
        Some(b'(') => return quote(&rest[1..]),
        Some(b'[') => {
            let digits = rest[1..]
                .iter()
                .take(4)
                .take_while(|c| c.is_ascii_digit())
                .count();
            if rest.get(1 + digits) == Some(&b']') {
                let at = 2 + digits + blanks(&rest[2 + digits..]);
                return eq(&rest[at..]) > 0;
            }
            return false;
        }
        _ => {}
    }
    i += blanks(rest);
    let rest = &after[i..];
    let op = eq(rest);
    if op > 0 {
        let at = op + blanks(&rest[op..]);
        return rest.get(at) == Some(&b'@');
    }
    // The literal (at most 128 bytes), its quotes (escaped or encoded) and the `;`.
    quote(rest)
        && rest
            .iter()
            .take(4 + 128 + 4 + 1)
            .take_while(|&&c| c != b'\n' && c != b'\r')
            .any(|&c| c == b';')
}

/// [`compared`] before the key word: identifier bytes and blanks, preceded by an operator's
/// last two bytes (`=` or `%3D` after `=`, `!`, `%21` or `%3D`).
fn backward(before: &[u8], identifier: impl Fn(u8) -> bool) -> bool {
    let ends_eq = |t: &[u8]| -> Option<usize> {
        if t.ends_with(b"=") {
            Some(1)
        } else if ends_with_folded(t, "%3d") {
            Some(3)
        } else {
            None
        }
    };
    let mut end = before.len();
    for _ in 0..COMPARED_REACH {
        let t = &before[..end];
        if let Some(last) = ends_eq(t) {
            let t = &t[..t.len() - last];
            if t.ends_with(b"=") || t.ends_with(b"!") || t.ends_with(b"%21") || ends_eq(t).is_some()
            {
                return true;
            }
        }
        end -= if t.ends_with(b"%20") {
            3
        } else if t.ends_with(b"\\t") {
            2
        } else {
            match t.last() {
                Some(&c) if c == b' ' || c == b'\t' || identifier(c) => 1,
                _ => return false,
            }
        };
    }
    false
}

/// Whether a `:` follows past closing quotes, backslashes (JSON escapes) and blanks.
fn colon_follows(_: &[u8], after: &[u8]) -> bool {
    let mut i = 0;
    while let Some(&c) = after.get(i) {
        match c {
            b'\\' if after.get(i + 1) == Some(&b't') => i += 2,
            b'\\' | b'"' | b'\'' | b' ' | b'\t' => i += 1,
            b':' => return true,
            _ => return false,
        }
    }
    false
}

/// How a literal must appear in the text.
#[derive(Clone, Copy)]
pub(crate) enum Case {
    /// In any case.
    Any,
    /// Exactly so (the literal is this, lower-cased).
    Exact(&'static str),
    /// `key` in any case, admitting only the rules its neighbours allow ([`KEY_AFTER_DASH`]):
    /// alone it is everywhere (`PRIVATE KEY`, `{ key, label }`, `keyboard`), but every rule
    /// it stands for has it after `_`, `-`, `.` or `i`, or before `=`.
    Key,
    /// In any case, and what follows it passes this test (see [`key_word_ends`]).
    Then(fn(&[u8]) -> bool),
}

/// Whether `rest`, what follows `token` in the text, can continue a key name as the rules
/// `token` admits have it: a key-name suffix (`_ID`, `.x`, `-y`, `Secret`, in
/// `generic_secret`) or a separator (`"`, `'`, `\\`, `%`, space, tab, `:`, `=`; in
/// `generic_secret`, `api_key_header`, `aws_session_token`, `command_line_credential`). Not
/// `tokens`, `tokenizer`, `token,` or `token)`. In JSON text the byte after it is the one in
/// the decoded string or a backslash, which passes.
fn key_word_ends(rest: &[u8]) -> bool {
    rest.first().is_some_and(|&c| {
        c.is_ascii_uppercase()
            || matches!(
                c,
                b'_' | b'.' | b'-' | b'"' | b'\'' | b'\\' | b'%' | b' ' | b'\t' | b':' | b'='
            )
    })
}

/// [`key_word_ends`] after `secret`, which `aws_secret_access_key` also continues with
/// `access` or `key` (`AWSSecretKey`, `secretaccesskey`), and after `secrete`, the
/// misspelling the key-word rules also take. Not `secrets`, `secretly`, `secreted`.
fn secret_word_ends(rest: &[u8]) -> bool {
    key_word_ends(rest)
        || matches!(rest.first(), Some(b'a' | b'k'))
        || (rest.first().is_some_and(|c| c.eq_ignore_ascii_case(&b'e'))
            && key_word_ends(&rest[1..]))
}

/// Whether `er` (`--user`) or a digit (`-us1`, a Mailchimp key's data centre) follows `-us`.
fn user_or_digit_follows(rest: &[u8]) -> bool {
    er_after(&[], rest) || digit_after(&[], rest)
}

fn er_after(_: &[u8], after: &[u8]) -> bool {
    after.len() >= 2 && after[..2].eq_ignore_ascii_case(b"er")
}

fn digit_after(_: &[u8], after: &[u8]) -> bool {
    after.first().is_some_and(u8::is_ascii_digit)
}

/// How far after `artif` or `jfrog` an Artifactory token may start in a JSON text: the rule
/// reads 40 bytes of the string and a separator, which escapes make up to six times longer.
const ARTIFACTORY_REACH: usize = 6 * 41 + 2;

/// Whether an Artifactory token (`AP` and a capital hex digit, or `AKC`) starts within
/// [`ARTIFACTORY_REACH`] bytes after `artif` or `jfrog`.
fn artifactory_token_follows(rest: &[u8]) -> bool {
    let rest = &rest[..rest.len().min(ARTIFACTORY_REACH + 3)];
    rest.windows(3).any(|w| {
        (w[0] == b'A' && w[1] == b'P' && matches!(w[2], b'0'..=b'9' | b'A'..=b'F')) || w == b"AKC"
    })
}

/// Whether the rest of a Discord bot token's parts follows the first three bytes of its first
/// part: 20 to 23 more base64url bytes, `.`, 6, `.`, 27 or more. JSON text escapes none of
/// these bytes.
fn discord_parts_follow(rest: &[u8]) -> bool {
    let base64url = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-');
    let run = |from: usize| {
        rest.get(from..)
            .map_or(0, |r| r.iter().take_while(|b| base64url(b)).count())
    };
    let first = run(0);
    (20..=23).contains(&first)
        && rest.get(first) == Some(&b'.')
        && run(first + 1) == 6
        && rest.get(first + 7) == Some(&b'.')
        && run(first + 8) >= 27
}

/// Whether an `@` follows `://`, as it does in every URL holding a password. In JSON text an
/// `@` is one in the decoded string (the pre-pass does not take `\u` escapes).
fn at_sign_follows(rest: &[u8]) -> bool {
    memchr::memchr(b'@', rest).is_some()
}

/// The rules `key` admits by its neighbours: `AccountKey=`, `SharedAccessKey=`
/// (`azure_storage_key`) before `=`; after `-`: `bedrock-api-key-` (`aws_bedrock_api_key`),
/// `x-api-key`, `api-key`, `…-subscription-key` (`api_key_header`), `--api-key`
/// (`command_line_credential`), `-key` (`generic_secret`); after `i`: `apikey` in the last
/// three; after `_` or `.`: `api_key`, `_key`, `api.key` (`generic_secret`). In JSON text a
/// neighbour is the same byte as in the decoded string, or (next to an escape other than
/// `\u`, which the pre-pass does not take) neither is one of these.
pub(crate) const KEY_AFTER_DASH: &[&str] = &[
    AWS_BEDROCK,
    API_KEY_HEADER,
    COMMAND_LINE,
    COMPARISON,
    GENERIC,
];
/// See [`KEY_AFTER_DASH`].
pub(crate) const KEY_AFTER_I: &[&str] = &[API_KEY_HEADER, COMMAND_LINE, COMPARISON, GENERIC];
/// See [`KEY_AFTER_DASH`].
pub(crate) const KEY_AFTER_UNDERSCORE: &[&str] = &[COMPARISON, GENERIC];
/// See [`KEY_AFTER_DASH`].
pub(crate) const KEY_BEFORE_EQUALS: &[&str] = &[AZURE_KEY];
