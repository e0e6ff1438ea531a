//! Judging a candidate value: placeholders, code, and whether it looks random enough to be a
//! credential. Prefixed tokens only need the placeholder test; values found by their key name
//! alone (`API_KEY=…`, `password: …`) need the whole judgement.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, Span, packed};

use crate::prefilter::fold;

/// Values that stand for a secret without being one: documentation, templates, defaults.
/// (A run of `x` is [`has_masked_run`]'s: inside a random token four of them are chance.)
const PLACEHOLDER_PARTS: &[&[u8]] = &[
    b"****",
    b"...",
    "…".as_bytes(),
    b"example",
    b"changeme",
    b"change_me",
    b"change-me",
    b"placeholder",
    b"your_",
    b"your-",
    b"yourtoken",
    b"yourkey",
    b"yoursecret",
    b"yourpassword",
    b"redacted",
    b"dummy",
    b"replace_me",
    b"replaceme",
    b"insert_",
    // A value naming what goes there (`…-SlackAppConfigurationAccessTokenHere`,
    // `xoxe.xoxp-1-RANDOMSTRINGHERE`).
    b"tokenhere",
    b"keyhere",
    b"secrethere",
    b"passwordhere",
    b"stringhere",
    b"randomstring",
    b"base64encoded",
    b"####",
    // Published for all to use, lower-cased as the parts are compared: the storage emulator's
    // well-known account key (Azurite, `devstoreaccount1`).
    b"eby8vdm02xnocqflquwjpllmetlcdxj1ouzft50u",
];

/// [`PLACEHOLDER_PARTS`] found ASCII case-insensitively in one pass, built once: every
/// candidate value of every line asks (a finder per part per value cost a tenth of the
/// redaction of a line holding a secret).
struct PartsFinder {
    /// The SIMD searcher, on a lower-cased copy of the value (as the rule prefilter does);
    /// `None` where it cannot be built.
    folded: Option<packed::Searcher>,
    /// The case-insensitive automaton, for long values or without the SIMD searcher.
    any_case: AhoCorasick,
}

static PLACEHOLDER_PARTS_FINDER: LazyLock<PartsFinder> = LazyLock::new(|| {
    // The parts are constants of this crate; the test suite builds them.
    let any_case = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(PLACEHOLDER_PARTS)
        .expect("placeholder parts build");
    let folded = packed::Config::new()
        .builder()
        .extend(PLACEHOLDER_PARTS)
        .build();
    PartsFinder { folded, any_case }
});

/// Values this long with the SIMD searcher's padding are searched on a stack copy.
const PARTS_SMALL: usize = 512;

/// Whether `v` holds one of [`PLACEHOLDER_PARTS`] (ASCII case-insensitively). The value is
/// lower-cased into a buffer padded with NUL bytes (which no part holds) to the SIMD
/// searcher's minimum length; the automaton it replaces took a nanosecond a byte.
fn has_placeholder_part(v: &[u8]) -> bool {
    let finder = &*PLACEHOLDER_PARTS_FINDER;
    match &finder.folded {
        Some(folded) if v.len() + folded.minimum_len() <= PARTS_SMALL => {
            let mut buf = [0u8; PARTS_SMALL];
            fold(&mut buf[..v.len()], v);
            let hay = &buf[..v.len() + folded.minimum_len()];
            folded.find_in(hay, Span::from(0..hay.len())).is_some()
        }
        _ => finder.any_case.is_match(v),
    }
}

/// Whole values (compared ASCII case-insensitively) that are defaults or type names.
const PLACEHOLDER_WORDS: &[&[u8]] = &[
    b"password",
    b"passwd",
    b"pass",
    b"secret",
    b"token",
    b"none",
    b"null",
    b"nil",
    b"true",
    b"false",
    b"undefined",
    b"empty",
    b"admin",
    b"root",
    b"postgres",
    b"mysql",
    b"user",
    b"username",
    b"guest",
    b"default",
    b"changeit",
    b"string",
    b"str",
    b"required",
    b"optional",
    b"hidden",
    b"masked",
    b"unset",
    b"test",
    b"todo",
    b"tbd",
];

/// Whether `v` is a stand-in rather than a secret: an environment or template reference
/// (`$API_KEY`, `${TOKEN}`, `%TOKEN%`, `{{ secrets.X }}`, `<your token>`), a masked or
/// example value (`xxxx…`, `****`, `AKIAIOSFODNN7EXAMPLE`, `changeme`), a default word
/// (`password`, `admin`), or one or two characters repeated.
pub(crate) fn is_placeholder(v: &[u8]) -> bool {
    let Some(&first) = v.first() else {
        return true;
    };
    if first == b'$' {
        // `$VAR`, `$(…)`, `${VAR}`, `${VAR:-x}`, `${{ secrets.X }}`; not `${` before what
        // names no variable (`${e]nob(ody[` is a password's text).
        return !v.starts_with(b"${") || is_braced_reference(&v[2..]);
    }
    if matches!(first, b'<' | b'[' | b'{' | b'*') {
        return true;
    }
    // The default of a parameter expansion (`${DB_PASSWORD:-postgres}` offers `-postgres}` to
    // the key inside it).
    if matches!(first, b'-' | b'=' | b'?' | b'+') && v.ends_with(b"}") {
        return true;
    }
    if first == b'%' && v.len() > 2 && v.ends_with(b"%") {
        return true;
    }
    // Cut short where the rest was left out (`ops_eyJzaWduSW5B..[Redacted]`), or padded out
    // to a length (`abcd1234…ABCD1234--__`).
    if has_placeholder_part(v) || has_masked_run(v) || v.ends_with(b"..") || has_filler_end(v) {
        return true;
    }
    if PLACEHOLDER_WORDS.iter().any(|w| w.eq_ignore_ascii_case(v)) {
        return true;
    }
    is_made_up(v)
        || (v.len() >= 6 && distinct(v) <= 2)
        || (v.len() >= 3 && distinct(v) == 1)
        || has_sequence(v)
        || has_long_run(v)
}

/// Whether `v` ends in four or more of `-` and `_` after other bytes: filler that pads a typed
/// example to a format's length (`…ABCD1234--__`). A random token of the URL-safe base64
/// alphabet ends so about once in a million (two of its 64 characters, four times over).
fn has_filler_end(v: &[u8]) -> bool {
    let filler = v
        .iter()
        .rev()
        .take_while(|b| matches!(b, b'-' | b'_'))
        .count();
    filler >= 4 && v.len() > filler
}

/// A value that is mostly one letter held down (`AIzaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa`): a run
/// of eight or more of one letter making a third of the value or more. Digits are left out:
/// zeros pad counters and ids in real tokens too (`sk-proj-000…3000` is still a key), and a
/// long token may hold a short run of one letter (base64 of a zero length field), never a
/// third of itself.
fn has_long_run(v: &[u8]) -> bool {
    let mut longest = 0;
    let mut run = 0;
    let mut prev = None;
    for &b in v {
        run = if b.is_ascii_alphabetic() && prev == Some(b) {
            run + 1
        } else {
            1
        };
        prev = Some(b);
        longest = longest.max(run);
    }
    longest >= 8 && longest * 3 >= v.len()
}

/// How many characters counting up, lower-case letters among them (`klmnopqrstuvwx`,
/// `abcdefghijklmnopqrstuvwxyz`), make a value an example typed by hand rather than a key: a
/// random key of 40 holds such a run about once in 10^16. Shorter runs are left alone: the
/// secret scanners' own suites count `abcdefghij…` and `ABCDEFGHIJK…` values as keys.
const SEQUENCE: usize = 11;

/// Whether `v` holds [`SEQUENCE`] letters or digits each one after the one before, a
/// lower-case letter among them (`sk-ant-api03-abc123xyz-…-klmnopqrstuvwx`).
fn has_sequence(v: &[u8]) -> bool {
    let (mut run, mut lower) = (1, v.first().is_some_and(u8::is_ascii_lowercase));
    for pair in v.windows(2) {
        let next = pair[0].is_ascii_alphanumeric()
            && pair[1].is_ascii_alphanumeric()
            && pair[1] == pair[0].wrapping_add(1);
        (run, lower) = if next {
            (run + 1, lower || pair[1].is_ascii_lowercase())
        } else {
            (1, pair[1].is_ascii_lowercase())
        };
        if run >= SEQUENCE && lower {
            return true;
        }
    }
    false
}

/// Whether `v` masks characters with a run of `x` (`xxxx`, `AKIAXXXXXXXXXXXXXXXX`,
/// `sk-xxxx1234`): one case throughout, and eight long or standing apart (the value's edge or
/// a byte that is not a letter on each side). A random token holds a mixed-case `XxXX` or a
/// run glued between letters by chance (the property test drew `…A0aXxXX0AAAa…`).
fn has_masked_run(v: &[u8]) -> bool {
    let apart = |at: Option<&u8>| at.is_none_or(|b| !b.is_ascii_alphabetic());
    let mut start = 0;
    while start < v.len() {
        let x = v[start];
        if !matches!(x, b'x' | b'X') {
            start += 1;
            continue;
        }
        let len = v[start..].iter().take_while(|&&b| b == x).count();
        let end = start + len;
        let before = start.checked_sub(1).map(|i| &v[i]);
        if len >= 8 || (len >= 4 && apart(before) && apart(v.get(end))) {
            return true;
        }
        start = end;
    }
    false
}

/// A value that says it is made up (`somefakekey`, `a-fake-tooshort-key`). The word counts
/// only in a value of lower-case letters and separators: inside a random token the same four
/// letters are chance (the property test drew `fAkeaA00…`).
fn is_made_up(v: &[u8]) -> bool {
    v.iter()
        .all(|b| b.is_ascii_lowercase() || matches!(b, b'-' | b'_'))
        && memchr::memmem::find(v, b"fake").is_some()
}

/// Whether `rest`, what follows `${`, makes a reference: `{` (`${{ … }}`), or a variable's
/// name (or a positional or special parameter) then its end, `}`, a parameter operator
/// (`:-`, `=`, `?`, `+`, `#`, `%`, `/`, `^`, `,`, `[`, `@`) or the end of the value.
fn is_braced_reference(rest: &[u8]) -> bool {
    if rest.first() == Some(&b'{') {
        return true;
    }
    let name = match rest.first() {
        // A dotted name is an interpolation of Terraform and its kin
        // (`${aws_db_instance.default.password}`).
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => rest
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'))
            .count(),
        Some(c) if c.is_ascii_digit() => rest.iter().take_while(|b| b.is_ascii_digit()).count(),
        Some(b'@' | b'*' | b'#' | b'?' | b'!' | b'$' | b'-') => 1,
        _ => return false,
    };
    matches!(
        rest.get(name),
        None | Some(
            b'}' | b':'
                | b'-'
                | b'='
                | b'?'
                | b'+'
                | b'#'
                | b'%'
                | b'/'
                | b'^'
                | b','
                | b'['
                | b'@'
        )
    )
}

/// Whether a prefixed token's body is a stand-in: [`is_placeholder`] on the body, or too few
/// distinct bytes for a random string of its length (`ghp_000…`, `ghp_aaaa…`).
pub(crate) fn is_placeholder_token(token: &[u8]) -> bool {
    is_placeholder(token) || (token.len() >= 16 && distinct(token) < 8)
}

fn distinct(v: &[u8]) -> usize {
    let mut seen = [false; 256];
    v.iter()
        .filter(|&&b| !std::mem::replace(&mut seen[b as usize], true))
        .count()
}

/// Shannon entropy of the bytes of `v`, in bits per byte.
pub(crate) fn entropy(v: &[u8]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in v {
        counts[b as usize] += 1;
    }
    let n = v.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// A byte that joins the words of a name: `get_token`, `api-key`, `args.password`, `env::var`.
fn separator(b: &u8) -> bool {
    matches!(b, b'_' | b'-' | b'.' | b':')
}

/// Letters and `_`, `-`, `.`, `:` only, no digit, and shaped like a name rather than random
/// letters: separated words (`get_token`, `args.password`, `env::var`, `MY_TOKEN`), or at most
/// three capitals (`accessToken`, `correcthorse`), or all capitals.
fn is_identifier_like(v: &[u8]) -> bool {
    if !v.iter().all(|b| b.is_ascii_alphabetic() || separator(b)) {
        return false;
    }
    let upper = v.iter().filter(|b| b.is_ascii_uppercase()).count();
    let lower = v.iter().filter(|b| b.is_ascii_lowercase()).count();
    v.iter().any(separator) || upper <= 3 || lower == 0
}

/// Words joined by separators, numbers and short tags among them (`user:profile:v2`,
/// `report-2024-q3`, `cache.v1.users`): a key or a name, not a machine-made token, whose
/// parts mix letters and digits throughout.
fn is_joined_words(v: &[u8]) -> bool {
    v.iter().any(separator)
        && v.split(separator).all(|part| {
            part.iter().all(u8::is_ascii_alphabetic)
                || part.iter().all(u8::is_ascii_digit)
                || (part.len() <= 3 && part.iter().all(u8::is_ascii_alphanumeric))
        })
}

/// Character classes present: lower case, upper case, digits, symbols other than `_-.`.
fn classes(v: &[u8]) -> usize {
    let has = |f: fn(&u8) -> bool| usize::from(v.iter().any(f));
    has(u8::is_ascii_lowercase)
        + has(u8::is_ascii_uppercase)
        + has(u8::is_ascii_digit)
        + has(|b| b.is_ascii_punctuation() && !matches!(b, b'_' | b'-' | b'.'))
}

/// Code rather than a value: a call, an index, a member chain ending in a name, or the rest
/// of an equality operator (`password == "…"` offers `= "…"` to a key's `=`; the comparison
/// is `secret_comparison`'s to judge).
fn is_code(v: &[u8]) -> bool {
    v.contains(&b'(')
        || v.contains(&b')')
        || v.starts_with(b"=")
        || v.get(..3).is_some_and(|p| p.eq_ignore_ascii_case(b"%3d"))
}

/// Where a credential is rather than the credential: a file path (`/srv/app`,
/// `~/.ssh/id_ed25519`, `./secrets/token.txt`, `C:/Users/me/key.pem`), a key file's name
/// (`gcp.json`, `id_ed25519.pub`, `id_rsa`), a URL without credentials
/// (`https://vault.example.com/v1`) or a shell expansion (`$(cat ~/.token)`, `` `cat x` ``;
/// `$VAR` and `${VAR}` are placeholders). `printenv` shows many of these under secret-naming
/// keys (`PWD`, `SSH_KEY`, `GOOGLE_APPLICATION_CREDENTIALS`).
pub(crate) fn is_reference(v: &[u8]) -> bool {
    is_path(v) || is_file_name(v) || is_plain_url(v) || is_command_substitution(v)
}

/// A relative path of two or more `/` (`some/dir/keys/prod`, `config/ssl/server.pass`): each
/// component a plausible name ([`is_path_component`]). A token holding `/` (base64) has
/// components that read as random.
pub(crate) fn is_relative_path(v: &[u8]) -> bool {
    v.iter().filter(|&&b| b == b'/').count() >= 2
        && v.split(|&b| b == b'/')
            .all(|c| !c.is_empty() && is_path_component(c))
}

/// A path: it starts as one (`/`, `~/`, `~user/`, `./`, `../`, a drive letter) and every
/// component is a plausible name ([`is_path_component`]). A random token that merely holds
/// a `/` (base64: `wJalrXUtnFEMI/K7MDENG/bPxRfiCY`) does not start as a path, and one that
/// starts with `/` (one base64 token in 64) has components that read as random.
fn is_path(v: &[u8]) -> bool {
    let rest = match v {
        [b'~', b'/', rest @ ..] => rest,
        [b'~', rest @ ..] => match rest.iter().position(|&b| b == b'/') {
            Some(user)
                if user > 0
                    && rest[..user]
                        .iter()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')) =>
            {
                &rest[user + 1..]
            }
            _ => return false,
        },
        [b'.', b'/', ..] | [b'.', b'.', b'/', ..] => v,
        [b'/' | b'\\', rest @ ..] => rest,
        [drive, b':', b'/' | b'\\', rest @ ..] if drive.is_ascii_alphabetic() => rest,
        _ => return false,
    };
    rest.iter().all(|&b| {
        b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'/' | b'\\' | b'.' | b'_' | b'-' | b'@' | b'~' | b',' | b' '
            )
    }) && rest
        .split(|&b| b == b'/' || b == b'\\')
        .all(is_path_component)
}

/// A component of a path: empty (`//`), holding a separator (`.ssh`, `gcp.json`,
/// `ssh-kXb1U2ZJzwP7`, `id_ed25519`: standard base64, the alphabet of random tokens holding
/// `/`, has none), or shaped like a word: lower case and digits (`srv`, `1000`), capitals and
/// digits (`XXXX`), or capitals each followed by two lower-case letters (`Users`, `AppData`;
/// not `bPxRfiCY`).
fn is_path_component(c: &[u8]) -> bool {
    if c.is_empty() || c.iter().any(|&b| !b.is_ascii_alphanumeric()) {
        return true;
    }
    if !c.iter().any(u8::is_ascii_lowercase) {
        return true;
    }
    c.iter().enumerate().skip(1).all(|(i, b)| {
        !b.is_ascii_uppercase()
            || c.get(i + 1..i + 3)
                .is_some_and(|next| next.iter().all(u8::is_ascii_lowercase))
    })
}

/// File name extensions of keys, certificates, credential and configuration files.
const KEY_FILE_EXTENSIONS: &[&[u8]] = &[
    b"json",
    b"pem",
    b"key",
    b"pub",
    b"crt",
    b"cer",
    b"der",
    b"csr",
    b"p12",
    b"pfx",
    b"p8",
    b"jks",
    b"keystore",
    b"ppk",
    b"gpg",
    b"asc",
    b"age",
    b"kdbx",
    b"txt",
    b"env",
    b"yaml",
    b"yml",
    b"toml",
    b"ini",
    b"cfg",
    b"conf",
];

/// The name of a key, certificate or credential file: a name-shaped stem and a known
/// extension (`gcp.json`, `id_ed25519.pub`, `key.pem`), or an SSH key's default name
/// (`id_rsa`, `id_ed25519`).
fn is_file_name(v: &[u8]) -> bool {
    if let Some(kind) = v.strip_prefix(b"id_") {
        let kind = kind.strip_suffix(b"_sk").unwrap_or(kind);
        if [&b"rsa"[..], b"dsa", b"ecdsa", b"ed25519"].contains(&kind) {
            return true;
        }
    }
    let Some(dot) = v.iter().rposition(|&b| b == b'.') else {
        return false;
    };
    let (stem, extension) = (&v[..dot], &v[dot + 1..]);
    !stem.is_empty()
        && stem
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && is_path_component(stem)
        && KEY_FILE_EXTENSIONS
            .iter()
            .any(|e| e.eq_ignore_ascii_case(extension))
}

/// A URL with no user information (`user:password@`, which `url_credentials` takes) and no
/// credential-looking part in its path or query (`…/webhooks/123/Q7vLm2Xk9PzR4tYw…`).
fn is_plain_url(v: &[u8]) -> bool {
    let Some(colon) = v.windows(3).position(|w| w == b"://") else {
        return false;
    };
    let scheme = &v[..colon];
    if scheme.is_empty()
        || !scheme[0].is_ascii_alphabetic()
        || !scheme
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-'))
    {
        return false;
    }
    let rest = &v[colon + 3..];
    let authority_end = rest
        .iter()
        .position(|&b| matches!(b, b'/' | b'?' | b'#'))
        .unwrap_or(rest.len());
    !rest[..authority_end].contains(&b'@')
        && rest[authority_end..]
            .split(|&b| matches!(b, b'/' | b'?' | b'&' | b'=' | b'#' | b';'))
            .all(|part| !is_credential(part, ValueKind::Token))
}

/// A command substitution whole: `$(…)` or `` `…` ``.
fn is_command_substitution(v: &[u8]) -> bool {
    (v.starts_with(b"$(") && v.ends_with(b")"))
        || (v.len() >= 2 && v.starts_with(b"`") && v.ends_with(b"`"))
}

/// What a key name says its value is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum ValueKind {
    /// A password: may be short and human-chosen (`hunter2`, `S3cr3t!`).
    Password,
    /// A token, key or secret: machine-made, so it must look random.
    Token,
}

/// Whether a value found by its key name alone is a credential.
///
/// - Never: placeholders ([`is_placeholder`]), code (`getenv("X")`), names
///   (`args.password`, `MY_TOKEN`, `accessToken`), references to where a credential is
///   ([`is_reference`]: paths, key file names, URLs without credentials).
/// - A password: six bytes or more.
/// - A token: eight bytes or more, not words joined by separators (`user:profile:v2`),
///   entropy within a bit of log2(its length) (at most 3 bits asked), and two character
///   classes (or 20+ bytes).
pub(crate) fn is_credential(v: &[u8], kind: ValueKind) -> bool {
    if is_placeholder(v) || is_code(v) || is_identifier_like(v) || is_reference(v) {
        return false;
    }
    match kind {
        ValueKind::Password => v.len() >= 6,
        ValueKind::Token => {
            if v.len() < 8 || is_joined_words(v) || too_short_for_its_prefix(v) {
                return false;
            }
            // Short random tokens often repeat a character or two: a 14-byte base62 draw
            // can fall to 2.8 bits, so the bar is a bit below log2(len) (names and words
            // are already out by the identifier test above).
            let threshold = ((v.len() as f64).log2() - 1.0).min(3.0);
            entropy(v) >= threshold && (classes(v) >= 2 || v.len() >= 20)
        }
    }
}

/// Vendor prefixes and the shortest body their tokens carry, as the vendor rules read them
/// (a test in `rules.rs` holds the two together).
pub(crate) const PREFIX_BODIES: &[(&[u8], usize)] =
    &[(b"sk-ant-", 20), (b"npm_", 36), (b"hf_", 30)];

/// Whether `v` starts with a vendor's prefix and is too short for that vendor's tokens
/// (`sk-ant-oat01-tooShort`): a stand-in written to that vendor's format, not a token of
/// another kind for the key-name rules to take.
fn too_short_for_its_prefix(v: &[u8]) -> bool {
    PREFIX_BODIES
        .iter()
        .any(|(prefix, min)| v.starts_with(prefix) && v.len() - prefix.len() < *min)
}

/// The value of a password argument (`mysql -pVALUE`, `sshpass -p VALUE`, `redis-cli -a
/// VALUE`): the option says it is a password, so a value shaped like a name
/// (`PgjexLasnveXxc`) is one too; only a placeholder, a variable or code is not.
pub(crate) fn is_password_argument(v: &[u8]) -> bool {
    !(is_placeholder(v) || is_code(v) || is_reference(v)) && v.len() >= 6
}

/// Words of messages, labels and prompts shown about a password (`"must be at least 8
/// characters"`, `"Enter your password"`, `"Passwords do not match"`), not of one.
const MESSAGE_WORDS: &[&[u8]] = &[
    b"a",
    b"an",
    b"the",
    b"is",
    b"are",
    b"be",
    b"not",
    b"no",
    b"to",
    b"for",
    b"of",
    b"your",
    b"you",
    b"please",
    b"must",
    b"should",
    b"least",
    b"most",
    b"characters",
    b"character",
    b"chars",
    b"required",
    b"invalid",
    b"incorrect",
    b"wrong",
    b"enter",
    b"match",
    b"matches",
    b"minimum",
    b"min",
    b"maximum",
    b"max",
    b"length",
    b"long",
    b"short",
    b"contain",
    b"contains",
    b"cannot",
    b"empty",
    b"missing",
    b"too",
    b"field",
    b"reset",
    b"forgot",
    b"confirm",
    b"new",
    b"current",
    b"old",
    b"repeat",
    b"type",
    b"show",
    b"hide",
    b"letter",
    b"letters",
    b"digit",
    b"digits",
    b"number",
    b"numbers",
    b"symbol",
    b"symbols",
    b"uppercase",
    b"lowercase",
    b"special",
    b"expired",
    b"changed",
    b"updated",
    b"saved",
    b"weak",
    b"strong",
    b"strength",
    b"hint",
    b"label",
    b"placeholder",
    b"secret",
    b"token",
    b"key",
    b"login",
    b"user",
    b"username",
    b"account",
    b"email",
    // "Password" in labels of other languages (`Passwort` starts with `passw`).
    b"passe",
    b"contrase",
    b"senha",
    b"wachtwoord",
    b"kennwort",
];

/// Words a quoted string under a password key holds when it says what the field is, not
/// what the password is (`password: "required"`, `"password": "string"`, `pwd == "none"`).
const FIELD_WORDS: &[&[u8]] = &[
    b"true",
    b"false",
    b"null",
    b"nil",
    b"none",
    b"undefined",
    b"empty",
    b"unset",
    b"yes",
    b"no",
    b"on",
    b"off",
    b"str",
    b"string",
    b"text",
    b"int",
    b"number",
    b"bool",
    b"boolean",
    b"required",
    b"optional",
    b"invalid",
    b"hidden",
    b"masked",
    b"redacted",
    b"default",
    b"secret",
    b"password",
    b"passwd",
    b"pwd",
];

/// Whether a string literal under a password key (quoted whole: `password = "bar"`,
/// `char pwd[] = "root1"`, `password == 'abc'`) is a password. A literal in code or
/// configuration is the password, however short or plain: what [`is_credential`] asks of a
/// password, or three bytes or more with no white space that are no placeholder
/// (`"changeme"`, `"${DB_PASSWORD}"`, `"<password>"`), no reference (`"/run/secrets/db"`)
/// and not a word saying what the field is ([`FIELD_WORDS`]: `"required"`, `"string"`).
/// Unquoted, a short or all-letters value is far more often a name (`password = pwd`,
/// `password: str`), and [`is_credential`] alone judges it.
pub(crate) fn is_quoted_password(v: &[u8]) -> bool {
    if is_credential(v, ValueKind::Password) {
        return true;
    }
    v.len() >= 3
        && !v.iter().any(u8::is_ascii_whitespace)
        && !is_placeholder(v)
        && !is_reference(v)
        && !FIELD_WORDS.iter().any(|w| w.eq_ignore_ascii_case(v))
}

/// Whether a string literal under a token's key name, quoted whole (`api_key = "…"`,
/// `secret: '…'`, `apikey == "…"`), is a token. A literal is data, not code, so brackets and
/// `$` in it are a token's symbols (`m{{h}o)p${e]nob(…`), not a call or a reference. No
/// white space (a message, a passphrase), then what [`is_credential`] asks of a token, or 16
/// to 256 bytes in two character classes or more, as varied as a random draw's (3.5 bits a byte or more), that
/// are no placeholder, reference or member chain.
pub(crate) fn is_quoted_token(v: &[u8]) -> bool {
    if v.iter().any(u8::is_ascii_whitespace) {
        return false;
    }
    if is_credential(v, ValueKind::Token) {
        return true;
    }
    (16..=256).contains(&v.len())
        && !is_placeholder(v)
        && !is_reference(v)
        && !is_member_chain(v)
        && classes(v) >= 2
        && entropy(v) >= 3.5
}

/// Whether a quoted value under a password key, whole, is a passphrase
/// (`"value with quotes and spaces"`, `"p@ss,w0rd!"`) rather than a message about one: 8 to
/// 64 bytes, at most 8 words, no placeholder, template or format (`{{`, `{name}`, `{}`,
/// `${VAR}`, `%s`), no
/// word of [`MESSAGE_WORDS`] or a password word (`password`, `passwords`), and not ending as a
/// sentence or prompt does (`.`, `?`, `:`).
pub(crate) fn is_passphrase(v: &[u8]) -> bool {
    if !(8..=64).contains(&v.len())
        || is_placeholder(v)
        || matches!(v.last(), Some(b'.' | b'?' | b':'))
        || v.split(|&b| b == b' ').filter(|w| !w.is_empty()).count() > 8
    {
        return false;
    }
    let field = |i: usize| {
        let name = v[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        v.get(i + 1 + name) == Some(&b'}')
    };
    let template = v.windows(2).any(|w| w == b"{{" || w == b"%s" || w == b"%d")
        || v.iter().enumerate().any(|(i, &b)| b == b'{' && field(i))
        || v.windows(2)
            .enumerate()
            .any(|(i, w)| w == b"${" && is_braced_reference(&v[i + 2..]));
    !template
        && !v
            .split(|b| !b.is_ascii_alphabetic())
            .filter(|w| !w.is_empty())
            .any(|word| {
                let word = word.to_ascii_lowercase();
                word.starts_with(b"passw") || MESSAGE_WORDS.contains(&word.as_slice())
            })
}

/// A dotted chain of names (`process.env.NEXT_PUBLIC_API_KEY`, `settings.auth.token`): code
/// reading a credential, not one. Each link is a name on its own (letters and `_`, not a
/// random mix of cases), so a dotted token (`AaAACAaDEBbncdaB-abbccD.ddeeeE`) is not one.
fn is_member_chain(v: &[u8]) -> bool {
    v.contains(&b'.')
        && v.split(|b| *b == b'.').all(|link| {
            !link.is_empty()
                && link.iter().all(|b| b.is_ascii_alphabetic() || *b == b'_')
                && is_identifier_like(link)
        })
}

/// A token after a bare `Bearer ` or an unknown authorization scheme is taken as a credential
/// when it is at least 16 bytes long (8 with a digit) and holds a digit, a symbol, or both
/// upper- and lower-case letters after its first byte: random tokens almost always do, while
/// the English words that follow "bearer" in prose do not, nor does code naming one
/// (`process.env.API_KEY`).
pub(crate) fn looks_random(token: &[u8]) -> bool {
    if token.len() < 16 || is_placeholder(token) || is_member_chain(token) {
        return false;
    }
    let rest = &token[1..];
    let digit_or_symbol = token.iter().any(|b| !b.is_ascii_alphabetic());
    let upper = rest.iter().any(u8::is_ascii_uppercase);
    let lower = rest.iter().any(u8::is_ascii_lowercase);
    digit_or_symbol || (upper && lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_and_names_are_not_credentials() {
        for v in [
            "xxxxxxxxxxxx",
            "${API_KEY}",
            "$API_KEY",
            "<your token>",
            "%TOKEN%",
            "{{secrets.TOKEN}}",
            "changeme",
            "your_api_key_here",
            "AKIAIOSFODNN7EXAMPLE",
            "********",
            "password",
            "os.getenv(\"X\")",
            "args.password",
            "MY_SECRET_TOKEN",
            "accessToken",
            "abababababab",
            "sk-xxxx1234",
            "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
            "xxxx-xxxx-xxxx",
            "sk-ant-api03-abc123xyz-456de-klMnopqrstuvwx-3456yza789bcde-1234fghijklmnopAA",
            "AIzaSyabcdefghijklmnopqrstuvwxyz1234567",
            "xoxe.xoxp-1-RANDOMSTRINGHERE",
            "xoxp-572370529330-573807301142-572331691188-####################",
            "yyy",
            "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
            "AIzaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "ops_eyJzaWduSW5B..",
        ] {
            assert!(
                !is_credential(v.as_bytes(), ValueKind::Token),
                "{v} is not a token"
            );
            assert!(
                !is_credential(v.as_bytes(), ValueKind::Password),
                "{v} is not a password"
            );
        }
    }

    /// Four `x` inside a random token are chance, not a mask: mixed case, or glued between
    /// letters.
    #[test]
    fn an_x_run_in_a_random_token_is_no_mask() {
        for v in [
            "AaA0aaaaaAa0aaA0A0aXxXX0AAAa0aaAA0aa7",
            "Zq8vT2mKxxxxLx4Rw7Bn3Jc6Hf",
            "Zq8vT2mK9XXXXRw7Bn3Jc6Hf",
            // Counting up for ten, or in capitals, is what the scanners' suites call a key.
            "Zq8vT2mKabcdefghijLx4Rw7Bn3Jc6Hf",
            "sq0csp-ABCDEFGHIJK_LMNOPQRSTUVWXYZ-0123456789",
            // A run of one byte in a long token (base64 of a zero length field) is no mask.
            "FQoGZXIvYXdzEPT//////////wEaDOnd0AAAAAAAAHr6SQz4m7Wt2bXqKb1GpLmR8nT3vZ5xQ9cE6uYw",
        ] {
            assert!(!is_placeholder(v.as_bytes()), "{v}");
            assert!(looks_random(v.as_bytes()), "{v}");
        }
    }

    /// What `printenv` shows under secret-naming keys: paths, key file names, URLs without
    /// credentials and shell expansions are where a credential is, not one.
    #[test]
    fn references_are_not_credentials() {
        for v in [
            "/srv/app",
            "/home/me/old",
            "~/.ssh/id_ed25519",
            "/home/me/gcp.json",
            "/tmp/ssh-XXXX/agent.123",
            "/tmp/ssh-kXb1U2ZJzwP7/agent.2913",
            "/private/tmp/com.apple.launchd.q9LoB7OrGa/Listeners",
            "/run/secrets/db_password",
            "/var/run/secrets/kubernetes.io/serviceaccount/token",
            "~deploy/.config/gcloud/application_default_credentials.json",
            "./secrets/token.txt",
            "../../keys/dev",
            "C:/Users/Me/AppData/Roaming/gcloud/credentials.db",
            "C:\\Users\\me\\key.pem",
            "gcp.json",
            "service-account.json",
            "id_ed25519.pub",
            "key.pem",
            "id_rsa",
            "id_ed25519_sk",
            "https://vault.example.com/v1",
            "https://login.microsoftonline.com/common/oauth2/v2.0/token",
            "redis://cache:6379/0",
            "$(cat ~/.token)",
            "`cat x`",
            "${VAR}",
            "$VAR",
        ] {
            for kind in [ValueKind::Token, ValueKind::Password] {
                assert!(!is_credential(v.as_bytes(), kind), "{v} ({kind:?})");
            }
        }
    }

    /// A path needs the shape of one: a random token holding `/` is still a credential,
    /// also when it starts with one, and so is a URL carrying a password or a token.
    #[test]
    fn tokens_with_slashes_are_not_paths() {
        for v in [
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCY",
            "/K7MDENG/bPxRfiCYzq8vT2mK9pAbCdEfGh",
            "/bPxRfiCYzq8vT2mK9pAbCdEfGh",
            "Zq8vT2mK9pLx4Rw7/a",
            "https://user:S3cr3tPass@host",
            "https://discord.com/api/webhooks/123456789012345678/Zq8vT2mK9pLx4Rw7Bn3Jc6Hf",
            "x9Kq2pL7.json.Zq8vT2mK9pLx4Rw7",
        ] {
            assert!(is_credential(v.as_bytes(), ValueKind::Token), "{v}");
            assert!(is_credential(v.as_bytes(), ValueKind::Password), "{v}");
        }
    }

    /// `${` stands for a variable only before a name (or `{`, a positional or special
    /// parameter); before anything else it is a password's text.
    #[test]
    fn braced_references_need_a_variable_name() {
        for v in [
            "${VAR}",
            "${DB_PASSWORD:-changeme}",
            "${TOKEN",
            "${{ secrets.TOKEN }}",
            "${1}",
            "${@}",
            "${ARR[0]}",
            "${aws_db_instance.default.password}",
            "$VAR",
            "$(cat ~/.token)",
            "-postgres}",
        ] {
            assert!(is_placeholder(v.as_bytes()), "{v}");
        }
        for v in ["${e]nob(ody[", "${ }x9", "${-x!7Qz"] {
            assert!(!is_placeholder(v.as_bytes()), "{v}");
        }
    }

    #[test]
    fn passphrases_are_not_messages() {
        for v in [
            "value with quotes and spaces",
            "correct horse battery staple",
            "p@ss,w0rd!",
            "S3cret! and more",
        ] {
            assert!(is_passphrase(v.as_bytes()), "{v}");
        }
        for v in [
            "must be at least 8 characters",
            "Enter your password",
            "Forgot password?",
            "Passwords do not match",
            "New password",
            "Mot de passe",
            "Password:",
            "Hello {name}",
            "Use %s or more",
            "{{ secrets.DB }}",
            "${DB_PASSWORD}",
            "too short",
            "one two three four five six seven eight nine",
        ] {
            assert!(!is_passphrase(v.as_bytes()), "{v}");
        }
    }

    #[test]
    fn random_values_are_credentials() {
        for v in [
            "Zq8vT2mK9pLx4Rw7",
            "4f9c2a7e1b8d3f6a0c5e9b2d7a4f1c8e",
            "aB3$dE6&gH9",
            "kZ8mQ2vX7pL4",
        ] {
            assert!(is_credential(v.as_bytes(), ValueKind::Token), "{v}");
        }
        for v in ["hunter2", "S3cr3t", "p@ssw0rd!"] {
            assert!(is_credential(v.as_bytes(), ValueKind::Password), "{v}");
            assert!(!is_credential(v.as_bytes(), ValueKind::Token) || v.len() >= 8);
        }
    }

    /// The folded SIMD search finds a part exactly where the case-insensitive automaton
    /// does, in any case, at any place, in values of every length.
    #[test]
    fn placeholder_parts_found_as_the_automaton_finds_them() {
        let finder = &*PLACEHOLDER_PARTS_FINDER;
        assert!(finder.folded.is_some(), "the folded searcher builds");
        let mut next = crate::test_rng(0x2545_f491_4f6c_dd1du64);
        let alphabet = b"abcXYZ019_-.*x\xe2\x80\xa6EeMmPpLl";
        let mut hits = 0;
        for _ in 0..20_000 {
            let len = next() as usize % 600;
            let mut v: Vec<u8> = (0..len)
                .map(|_| alphabet[next() as usize % alphabet.len()])
                .collect();
            if next().is_multiple_of(2) {
                let part = PLACEHOLDER_PARTS[next() as usize % PLACEHOLDER_PARTS.len()];
                let at = next() as usize % (v.len() + 1);
                let cased: Vec<u8> = part
                    .iter()
                    .map(|b| {
                        if next().is_multiple_of(2) {
                            b.to_ascii_uppercase()
                        } else {
                            *b
                        }
                    })
                    .collect();
                v.splice(at..at, cased);
            }
            let want = finder.any_case.is_match(&v);
            assert_eq!(has_placeholder_part(&v), want, "{v:?}");
            hits += usize::from(want);
        }
        assert!(hits > 5_000, "{hits}");
    }

    #[test]
    fn entropy_of_known_strings() {
        assert!((entropy(b"aaaa") - 0.0).abs() < 1e-9);
        assert!((entropy(b"abcd") - 2.0).abs() < 1e-9);
    }
}
