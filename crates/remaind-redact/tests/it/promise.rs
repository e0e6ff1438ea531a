//! The promise that no secret byte survives, against text made to slip past it: a secret
//! dressed as a placeholder, a token glued to a word, a header split across a JSON key and
//! its value.

use remaind_redact::{Redactor, UserRule};
use serde_json::json;

use crate::support::{KEY, redactor};

/// Fake, but of the real shapes (random-looking bodies, no stand-in).
const GITHUB: &str = "ghp_Q7vLm2Xk9PzR4tYwB8nJc3HfD6sGa1UeK5oV";
const AWS_ID: &str = "AKIAQ7VLM2XK9PZR4TYW";
const OPENAI: &str = "sk-proj-Q7vLm2Xk9PzR4tYwB8nJc3HfD6sGa1UeK5oV";
const NPM: &str = "npm_Q7vLm2Xk9PzR4tYwB8nJc3HfD6sGa1UeK5oV";

fn assert_gone(r: &Redactor, text: &str, secret: &str) {
    let (out, applied) = r.redact_str(text);
    assert!(
        !out.contains(&secret[secret.len() - 12..]),
        "{text} kept its secret: {out}"
    );
    assert!(!applied.is_empty(), "{text}");
    // Redacting the result changes nothing.
    let (again, more) = r.redact_str(&out);
    assert_eq!(again, out, "{text}");
    assert!(more.is_empty(), "{text}: {more:?}");
}

#[test]
fn a_secret_dressed_as_a_placeholder_is_redacted() {
    let r = redactor();
    let aws = format!("token: {AWS_ID}");
    let (real, _) = r.redact_str(&aws);
    for text in [
        // The shape alone proves nothing: `[REDACTED:<not a rule>:<12 hex>]` is text.
        format!("[REDACTED:{GITHUB}:0123456789ab]"),
        format!("see [REDACTED:github_token_{GITHUB}:0123456789ab] now"),
        format!("[REDACTED:aws_{AWS_ID}:0123456789ab]"),
        format!("{real}[REDACTED:{GITHUB}:0123456789ab]{real}"),
        format!("[REDACTED:openai_api_key:0123456789ab]x[REDACTED:{OPENAI}:abcdef012345]"),
    ] {
        let secret = [GITHUB, AWS_ID, OPENAI]
            .into_iter()
            .find(|s| text.contains(s))
            .unwrap_or_default();
        assert_gone(&r, &text, secret);
    }
}

#[test]
fn only_a_placeholder_a_rule_could_have_written_passes() {
    let r = redactor();
    let text = format!("token: {GITHUB}");
    let (once, applied) = r.redact_str(&text);
    assert_eq!(applied.len(), 1);
    let (twice, more) = r.redact_str(&once);
    assert_eq!((twice.as_ref(), more.len()), (once.as_ref(), 0));
    // A user rule's placeholder passes too, for the redactor that has the rule.
    let user = Redactor::new(
        KEY,
        &[UserRule {
            name: "ticket".to_owned(),
            pattern: r"\bTCK-[0-9]{8}\b".to_owned(),
        }],
    )
    .expect("redactor");
    let (once, _) = user.redact_str("ticket TCK-12345678 open");
    assert!(once.contains("[REDACTED:ticket:"), "{once}");
    let (twice, more) = user.redact_str(&once);
    assert_eq!((twice.as_ref(), more.len()), (once.as_ref(), 0));
}

#[test]
fn a_token_glued_to_a_word_is_redacted() {
    let r = redactor();
    for (text, secret) in [
        (format!("export ID_{AWS_ID}"), AWS_ID),
        (format!("aws configure set xxxx{AWS_ID} --profile x"), AWS_ID),
        (
            format!("AWS_ACCESS_KEY_ID=ASIA{} aws s3 ls", &AWS_ID[4..]),
            &AWS_ID[4..],
        ),
        (format!("apikey_{OPENAI}"), OPENAI),
        (format!("curl -H x-key:abc{OPENAI}"), OPENAI),
        (format!("MY_{NPM}"), NPM),
        (format!("prefix{GITHUB}"), GITHUB),
        (
            "token_xoxb-2718281828-3141592653589-Q7vLm2Xk9PzR4tYw".to_owned(),
            "Q7vLm2Xk9PzR4tYw",
        ),
        (
            "pat=abcgithub_pat_11Q7vLm2Xk9PzR4tYwB8nJc3_HfD6sGa1UeK5oVQ7vLm2Xk9PzR4tYwB8nJc3HfD6sGa1UeK5"
                .to_owned(),
            "HfD6sGa1UeK5",
        ),
    ] {
        assert_gone(&r, &text, secret);
    }
}

/// The boundaries that keep the words above are no way around the rules: a key at the end
/// of a word, a Google key ending in `-`, a Slack token with letters in its secret part.
#[test]
fn keys_at_their_edges_are_still_redacted() {
    let r = redactor();
    for (text, secret) in [
        ("ID_AKIAQ7VLM2XK9PZR4TYW,", "AKIAQ7VLM2XK9PZR4TYW"),
        (
            "key=AIzaSyQ7vLm2Xk9PzR4tYwB8nJc3HfD6zqT8vK- next",
            "AIzaSyQ7vLm2Xk9PzR4tYwB8nJc3HfD6zqT8vK-",
        ),
        (
            "Authorization: Bearer hf_QvLmXkPzRtYwBnJcHfDzqTvKmLpXrWnBcDf",
            "hf_QvLmXkPzRtYwBnJcHfDzqTvKmLpXrWnBcDf",
        ),
        (
            "SLACK=xoxb-572370529330-573807301142-Q7vLm2Xk9PzR4tYwB8nJc3Hf",
            "Q7vLm2Xk9PzR4tYwB8nJc3Hf",
        ),
        // A Google key glued to a name, a key ending in `-` and `_` only thrice, a prefixed
        // key long enough for its vendor under a key name, a key whose id is a key too (`private_key_id` is not a licence to keep a
        // random value under `private_key`), a PEM body with a few `X`.
        (
            "MYKEYAIzaSyQ7vLm2Xk9PzR4tYwB8nJc3HfD6zqT8vK0",
            "AIzaSyQ7vLm2Xk9PzR4tYwB8nJc3HfD6zqT8vK0",
        ),
        (
            "anthropic_token = \"sk-ant-oat01-Q7vLm2Xk9PzR4tYwB8nJc3HfD6zq\"",
            "sk-ant-oat01-Q7vLm2Xk9PzR4tYwB8nJc3HfD6zq",
        ),
        (
            "ibm_api_key: Q7vLm2Xk9PzR4tYwB8nJc3HfD6zqT8vKmLpXrWnBc-_-",
            "Q7vLm2Xk9PzR4tYwB8nJc3HfD6zqT8vKmLpXrWnBc",
        ),
        (
            r#""private_key": "Q7vLm2Xk9PzR4tYwB8nJc3HfD6zqT8vK""#,
            "Q7vLm2Xk9PzR4tYwB8nJc3HfD6zqT8vK",
        ),
    ] {
        assert_gone(&r, text, secret);
    }
}

/// What a person types in place of a key, or what names a key without being one, stays
/// (each a clean negative of a secret scanner's suite): an example padded to a format's
/// length with `-` and `_`, a Slack token whose team, user and install are one number, a
/// vendor's prefix with a body too short for its tokens, a key's id beside its key, and a PEM
/// block masked with `X`.
#[test]
fn stand_ins_and_key_ids_stay() {
    let r = redactor();
    let masked_pem = format!(
        "-----BEGIN PRIVATE KEY-----{}-----END PRIVATE KEY-----",
        "X".repeat(1600)
    );
    for text in [
        "ibm-cloud_api_key: abcd1234abcd1234abcd1234ABCD1234ABCD1234--__",
        r#""token3": "xoxp-1234-1234-1234-4ddbc191d40ee098cbaae6f3523ada2d""#,
        r#"anthropic_token = "sk-ant-oat01-tooShort""#,
        r#""private_key_id": "64ac1a5389db3abe4ea73f41efbbd95dbe58bdfb","#,
        "AWS_ACCESS_KEY_ID=QK7VLM2XK9PZR4TYWB8N",
        &masked_pem,
    ] {
        let (out, applied) = r.redact_str(text);
        assert!(applied.is_empty(), "{text} -> {out}");
    }
    // The same under a key named in JSON event data.
    let mut v = json!({"private_key_id": "64ac1a5389db3abe4ea73f41efbbd95dbe58bdfb"});
    assert!(r.redact_json(&mut v).is_empty(), "{v}");
}

#[test]
fn glued_prefixes_in_ordinary_words_stay() {
    let r = redactor();
    for text in [
        "risk-assessment-2024-quarterly-report-v2",
        "the task-management-service-v2-2024 deploy",
        "ACCAPTANCE_TESTS_PASSED_ON_ALL_HOSTS",
        "BASIAN_FUNCTION_CALLS_2024_RELEASE",
        "desk-proj-notes",
        "fn npm_install_hook() {}",
        "xxxxAKIAIOSFODNN7EXAMPLE",
        "MY_npm_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        // A key's prefix inside a longer run of its characters: capitals running on past
        // an access key's twenty, letters past a Google key's 39.
        "TODAYINASIAASACKOFRICEFELLOVER",
        "AIzaTesb6Tscfcni8vIpWZqNCXFDFslJtVSvFDqabcd123",
        // Templates and masks: the pair in angle brackets, a Slack token whose secret
        // part is masked (only ids are left), a value cut short.
        "curl -u <user:password> https://test.com/endpoint",
        r#""token4": "xoxp-572370529330-573807301142-572331691188-####################""#,
        "fn::secret: ops_eyJzaWduSW5B..[Redacted]",
        r#"apiKey: "AIzaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa""#,
    ] {
        let (out, applied) = r.redact_str(text);
        assert!(applied.is_empty(), "{text} -> {out}");
    }
}

#[test]
fn a_header_split_across_a_json_key_and_value_is_read_together() {
    let r = redactor();
    let basic = "dXNlcjpTM2NyM3QtUTd2TG0yWGs5UHo=";
    let mut v = json!({
        "headers": {
            "Authorization": format!("Basic {basic}"),
            "proxy_authorization": "Q7vLm2Xk9PzR4tYwB8nJc3HfD6",
            "X-Api-Key": "Q7vLm2Xk9PzR4tYw-B8nJc3HfD6",
            "Cookie": "theme=dark; sessionid=Q7vLm2Xk9PzR4tYwB8nJc3; lang=en",
            "set-cookie": "sid=Zq8vT2mK9pLx4Rw7nB3c; Path=/; HttpOnly",
            "Accept": "application/json",
        },
        "request": [{"authorization": "Bearer Q7vLm2Xk9PzR4tYwB8nJc3HfD6sGa1Ue"}],
    });
    let applied = r.redact_json(&mut v);
    let text = v.to_string();
    for secret in [
        basic,
        "Q7vLm2Xk9PzR4tYwB8nJc3HfD6",
        "B8nJc3HfD6",
        "Zq8vT2mK9pLx4Rw7nB3c",
    ] {
        assert!(!text.contains(secret), "{secret} kept: {text}");
    }
    assert_eq!(applied.len(), 6, "{applied:?}");
    let headers = &v["headers"];
    assert!(
        headers["Authorization"]
            .as_str()
            .is_some_and(|s| s.starts_with("Basic [REDACTED:authorization_header:")),
        "{headers}"
    );
    assert!(
        headers["Cookie"].as_str().is_some_and(|s| s
            .starts_with("theme=dark; sessionid=[REDACTED:")
            && s.ends_with("; lang=en")),
        "{headers}"
    );
    assert!(
        headers["set-cookie"]
            .as_str()
            .is_some_and(|s| s.ends_with("; Path=/; HttpOnly")),
        "{headers}"
    );
    assert_eq!(headers["Accept"], "application/json");
    // Redacting again changes nothing.
    let before = v.clone();
    assert!(r.redact_json(&mut v).is_empty());
    assert_eq!(v, before);
    // Placeholders and prose under those keys stay.
    let mut v = json!({
        "Authorization": "Bearer ${TOKEN}",
        "Cookie": "theme=dark",
        "x-api-key": "<your key>",
    });
    let before = v.clone();
    assert!(r.redact_json(&mut v).is_empty(), "{v}");
    assert_eq!(v, before);
}

#[test]
fn json_text_naming_a_cookie_is_not_clean() {
    let r = redactor();
    assert!(!r.json_text_is_clean(br#"{"headers":{"Cookie":"sid=Zq8vT2mK9pLx4Rw7nB3c"}}"#));
    assert!(!r.serialized_json_is_clean(br#"{"COOKIE":"sid=Zq8vT2mK9pLx4Rw7nB3c"}"#));
    assert!(r.json_text_is_clean(br#"{"headers":{"Accept":"text/html"}}"#));
}
