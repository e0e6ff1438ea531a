//! Sample secrets per rule and the "no secret byte survives" check.

use remaind_redact::Redactor;

/// The key used by most tests.
pub(crate) const KEY: &[u8] = b"test key: not a secret, just 32b";

pub(crate) fn redactor() -> Redactor {
    Redactor::new(KEY, &[]).expect("redactor builds")
}

/// A planted secret: how it appears in running text, and the pieces that must not survive.
#[derive(Debug, Clone)]
pub(crate) struct Sample {
    /// The rule expected to name the placeholder.
    pub(crate) rule: &'static str,
    /// The text as it would appear in a log or transcript (may include a key name or header).
    pub(crate) text: String,
    /// How the value appears after `?name=` in a URL query.
    pub(crate) url_param: String,
    /// How it appears as an env-file line.
    pub(crate) env_line: String,
    /// Distinctive secret parts: no 8-byte window of any of them may remain.
    pub(crate) pieces: Vec<String>,
}

fn simple(rule: &'static str, secret: String) -> Sample {
    Sample {
        rule,
        url_param: format!("token={secret}"),
        env_line: format!("API_KEY={secret}"),
        pieces: vec![secret.clone()],
        text: secret,
    }
}

/// Base64 body lines of a PEM block made of `random` (64 columns).
fn pem_lines(random: &str) -> Vec<String> {
    random
        .as_bytes()
        .chunks(64)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect()
}

pub(crate) fn pem(kind: &str, random: &str) -> String {
    let label = if kind.is_empty() {
        "PRIVATE KEY".to_owned()
    } else {
        format!("{kind} PRIVATE KEY")
    };
    format!(
        "-----BEGIN {label}-----\n{}\n-----END {label}-----",
        pem_lines(random).join("\n")
    )
}

/// One sample per built-in rule, built around `r` (an alphanumeric random string of 100+
/// bytes with at least one digit) so that tests can vary the secret.
pub(crate) fn samples(r: &str) -> Vec<Sample> {
    assert!(r.len() >= 100 && r.bytes().all(|b| b.is_ascii_alphanumeric()));
    let pem_body = format!("MIIEpAIBAAKCAQEA{r}{r}");
    let pem_text = pem("RSA", &pem_body);
    let aws_secret = format!("{}/{}+{}", &r[..20], &r[20..30], &r[30..39]);
    let bearer = format!("{}-{}.{}", &r[..20], &r[20..30], &r[30..40]);
    let basic = format!("{}==", &r[..30]);
    vec![
        Sample {
            rule: "private_key",
            url_param: format!(
                "key={}",
                pem_text
                    .replace(' ', "%20")
                    .replace('\n', "%0A")
                    .replace('+', "%2B")
                    .replace('/', "%2F")
            ),
            env_line: format!("PRIVATE_KEY=\"{}\"", pem_text.replace('\n', "\\n")),
            pieces: pem_lines(&pem_body),
            text: pem_text,
        },
        simple(
            "anthropic_api_key",
            format!("sk-ant-api03-{}-{}AA", &r[..50], &r[50..93]),
        ),
        simple(
            "openai_api_key",
            format!("sk-proj-{}_{}9", &r[..60], &r[60..90]),
        ),
        simple("github_token", format!("ghp_{}", &r[..36])),
        simple(
            "slack_token",
            format!("xoxb-2718281828-3141592653589-{}", &r[..24]),
        ),
        simple(
            "aws_access_key_id",
            format!("AKIA{}", r[..16].to_ascii_uppercase()),
        ),
        simple(
            "jwt",
            format!(
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIx{}.{}_{}",
                &r[..30],
                &r[30..60],
                &r[60..73]
            ),
        ),
        Sample {
            rule: "aws_secret_access_key",
            text: format!("aws_secret_access_key = {aws_secret}"),
            url_param: format!(
                "aws_secret_access_key={}",
                aws_secret.replace('/', "%2F").replace('+', "%2B")
            ),
            env_line: format!("AWS_SECRET_ACCESS_KEY={aws_secret}"),
            pieces: vec![aws_secret],
        },
        Sample {
            rule: "bearer_token",
            text: format!("curl -H 'X: y' then Bearer {bearer}"),
            url_param: format!("auth=Bearer%20{bearer}"),
            env_line: format!("HTTP_AUTH=\"Bearer {bearer}\""),
            pieces: vec![bearer],
        },
        Sample {
            rule: "authorization_header",
            text: format!("Authorization: Basic {basic}"),
            url_param: format!("authorization={basic}"),
            env_line: format!("AUTHORIZATION=Basic {basic}"),
            pieces: vec![basic],
        },
    ]
}

/// A fixed random-looking string for the context tests.
pub(crate) const R: &str = "Q7vLm2Xk9PzR4tYwB8nJc3HfD6sGa1UeK5oVi0MqTlNxZrWyE2bCd7FgHj4Ku9Ls3Mp8No1Oq6Pr5St2Uv0Wx7Yz4Ab9Cd3Ef8Gh";

/// Panics if any 8-byte window of any piece appears in `out`.
#[track_caller]
pub(crate) fn assert_no_window(out: &[u8], pieces: &[String]) {
    for piece in pieces {
        for window in piece.as_bytes().windows(8) {
            assert!(
                !contains(out, window),
                "window {:?} of {piece:?} survived in {:?}",
                String::from_utf8_lossy(window),
                String::from_utf8_lossy(out)
            );
        }
    }
}

pub(crate) fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

/// Asserts that `out` holds a placeholder of `rule`.
#[track_caller]
pub(crate) fn assert_names_rule(out: &[u8], rule: &str) {
    let tag = format!("[REDACTED:{rule}:");
    assert!(
        contains(out, tag.as_bytes()),
        "no {tag}…] placeholder in {:?}",
        String::from_utf8_lossy(out)
    );
}
