//! No secret reaches disk: for any generated text with a planted key of any built-in rule (every
//! family, several shapes for some), in
//! any field (text, data, tool input, a tool output routed to an artifact, a binary output),
//! no 8-byte window of the key's random part appears in any file under `.context/`.

use proptest::prelude::*;
use remaind_events::{Kind, NewEvent, Tool};
use remaind_ledger::AppendRequest;
use serde_json::Value;

use crate::common;

/// A key of a built-in rule around a random part; returns (the planted text, the random part).
fn planted(rule: usize, random: &str) -> (String, String) {
    // A digit keeps rules that insist on one (OpenAI keys, bearer tokens) matching.
    let r = format!("{random}7");
    let hex: String = r
        .bytes()
        .cycle()
        .map(|b| char::from(b"0123456789abcdef"[usize::from(b) % 16]))
        .take(64)
        .collect();
    let fixed = |prefix: &str, n: usize| -> (String, String) {
        let body: String = r.chars().cycle().take(n).collect();
        (format!("{prefix}{body}"), body)
    };
    let key = match rule {
        0 => format!("sk-proj-{r}"),
        1 => format!("sk-ant-api03-{r}"),
        2 => format!("ghp_{r}"),
        3 => format!("github_pat_11{r}_{r}"),
        4 => format!("xoxb-1234-{r}"),
        5 => {
            let upper: String = r.to_ascii_uppercase().chars().take(16).collect();
            let upper = format!("{upper:0<16}");
            return (format!("AKIA{upper}"), upper);
        }
        6 => format!("eyJhbGciOiJIUzI1NiJ9.eyJ{r}.{r}"),
        7 => format!("aws_secret_access_key = {r}{r}"),
        8 => format!("token: Bearer {r}"),
        9 => format!("Authorization: Basic {r}"),
        10 => format!(
            "-----BEGIN OPENSSH PRIVATE KEY-----\n{r}\n{r}\n-----END OPENSSH PRIVATE KEY-----"
        ),
        // The families added for issue 18.
        11 => format!("sk-or-v1-{hex}"),
        12 => format!("glpat-{r}"),
        13 => format!("https://hooks.slack.com/services/T024BE7LD/B01A2BC3DEF/{r}"),
        14 => format!("sk_live_{r}"),
        15 => return fixed("AIza", 35),
        16 => return fixed("npm_", 36),
        17 => format!("pypi-AgEIcHlwaS5vcmc{r}{r}"),
        18 => format!("hf_{r}"),
        19 => {
            let (id, _) = fixed("", 22);
            let (body, _) = fixed("", 43);
            return (format!("SG.{id}.{body}"), id);
        }
        20 => {
            return (
                format!("TWILIO_AUTH_TOKEN={}", &hex[..32]),
                hex[..32].to_owned(),
            );
        }
        21 => format!("hvs.{r}"),
        22 => return (format!("dop_v1_{hex}"), hex),
        23 => return (format!("dapi{}", &hex[..32]), hex[..32].to_owned()),
        24 => format!("sntrys_{r}"),
        25 => return (format!("shpat_{}", &hex[..32]), hex[..32].to_owned()),
        26 => return fixed("lin_api_", 40),
        27 => format!("DefaultEndpointsProtocol=https;AccountName=a;AccountKey={r}=="),
        28 => format!("https://a.blob.core.windows.net/c/f?sv=2022-11-02&sig={r}%3D"),
        29 => format!("FwoGZXIvYXdzE{r}{r}{r}"),
        30 => format!("ABSK{r}{r}{r}"),
        31 => format!("eyJhbGciOiJub25lIn0.eyJ{r}"),
        32 => format!("Authorization: Api-Token {r}"),
        33 => format!("X-API-Key: {r}"),
        34 => format!("PRIVATE-TOKEN: {r}"),
        35 => format!("DATABASE_URL=postgres://admin:{r}@db.internal:5432/app"),
        36 => format!("REDIS_URL=redis://:{r}@cache:6379/0"),
        37 => format!("curl -u deploy:{r} https://api.test"),
        38 => format!("mysql -h db -uroot -p{r} app"),
        39 => format!("deploy --password={r}"),
        40 => format!("export OPENAI_API_KEY={r}"),
        41 => format!("{{\"client_secret\": \"{r}\"}}"),
        42 => format!("DB_PASSWORD={r}"),
        _ => format!("aws_session_token = {r}{r}{r}"),
    };
    (key, r)
}

/// How many shapes [`planted`] knows.
const SHAPES: usize = 44;

fn assert_no_window(dir: &camino::Utf8Path, secret: &str) {
    let secret = secret.as_bytes();
    for (path, bytes) in common::files(dir) {
        if path.as_str().ends_with("redaction.key") {
            continue;
        }
        for w in secret.windows(8) {
            assert!(
                !bytes.windows(8).any(|b| b == w),
                "{path} holds {:?} of the secret",
                String::from_utf8_lossy(w)
            );
        }
    }
}

proptest! {
    #[test]
    fn prop_no_secret_reaches_disk(
        rule in 0usize..SHAPES,
        random in "[A-Za-z0-9]{36,48}",
        // Control characters, which serialized JSON escapes as `\u00XX`.
        before in "[a-z .,:\n\t\x01\x1b]{0,60}",
        after in "[a-z .,:\n\t\x01\x1b]{0,60}",
        place in 0usize..7,
    ) {
        let (_tmp, dir, ledger) = common::ledger();
        let (key, secret) = planted(rule, &random);
        let text = format!("{before} {key} \n{after}");
        let mut ev = NewEvent { kind: Some(Kind::ToolResult), ..NewEvent::default() };
        let mut output_bytes = None;
        match place {
            0 => ev.text = Some(text),
            1 => {
                let mut inner = serde_json::Map::new();
                inner.insert("env".into(), Value::from(text));
                let mut data = serde_json::Map::new();
                data.insert("nested".into(), Value::Object(inner));
                ev.data = Some(data);
            }
            2 => ev.tool = Some(Tool { name: "bash".into(), input: Value::from(text), output: Value::Null }),
            // Objects: serialized, and scanned string by string unless that text is clean.
            5 => ev.tool = Some(Tool { name: "bash".into(), input: serde_json::json!({"command": text}), output: Value::Null }),
            6 => ev.tool = Some(Tool { name: "bash".into(), input: Value::Null, output: serde_json::json!({"stdout": [text], "code": 0}) }),
            3 => {
                // Large enough to be routed to an artifact, secret in the middle.
                let pad = "ordinary build output line\n".repeat(700);
                ev.tool = Some(Tool { name: "bash".into(), input: Value::Null, output: Value::from(format!("{pad}{text}{pad}")) });
            }
            4 => {
                let mut bytes = vec![0u8, 0xff, 0xfe, 3];
                bytes.extend_from_slice(text.as_bytes());
                bytes.extend_from_slice(&[0, 1, 2]);
                ev.tool = Some(Tool { name: "cat".into(), input: Value::Null, output: Value::Null });
                output_bytes = Some(bytes);
            }
            _ => unreachable!("place is below 7"),
        }
        let id = ledger.append(AppendRequest::with_output(ev, output_bytes)).expect("append")[0];
        let stored = ledger.get(id.seq()).expect("read").expect("event");
        prop_assert!(!stored.redactions.is_empty(), "rule {rule} place {place}: nothing redacted");
        if (3..5).contains(&place) {
            prop_assert_eq!(stored.artifact.len(), 1);
        }
        assert_no_window(&dir, &secret);
    }
}

/// Rule files a team already keeps: `schemas/redaction.toml` and gitleaks files listed in
/// `redaction.json` are applied to every event; a bad one stops the ledger from opening with an
/// error that names the file and the rule, before anything is written.
#[test]
fn gitleaks_rule_files_apply_and_bad_ones_are_named() {
    let (tmp, dir) = common::context();
    std::fs::create_dir_all(dir.join("schemas")).expect("mkdir schemas");
    let rule = |id: &str, prefix: &str| {
        format!(
            "[[rules]]\nid = \"{id}\"\nregex = '''{prefix}_[a-z0-9]{{20}}'''\nkeywords = [\"{prefix}_\"]\n"
        )
    };
    std::fs::write(dir.join("schemas/redaction.toml"), rule("acme-key", "acme")).expect("write");
    std::fs::write(tmp.path().join("team.toml"), rule("corp-key", "corp")).expect("write");
    std::fs::write(
        dir.join("schemas/redaction.json"),
        r#"{"rules": [], "gitleaks": ["team.toml"]}"#,
    )
    .expect("write");
    let ledger = remaind_ledger::Ledger::open(&dir).expect("open");
    let id = ledger
        .append(common::event(
            Kind::Note,
            "keys acme_0123456789abcdefghij and corp_abcdefghij0123456789",
        ))
        .expect("append")[0];
    let stored = ledger.get(id.seq()).expect("read").expect("event");
    let rules: Vec<&str> = stored.redactions.iter().map(|r| r.rule.as_str()).collect();
    assert_eq!(rules, ["acme_key", "corp_key"]);
    assert_no_window(&dir, "0123456789abcdefghij");
    assert_no_window(&dir, "abcdefghij0123456789");
    drop(ledger);

    std::fs::write(
        dir.join("schemas/redaction.toml"),
        "[[rules]]\nid = \"slow\"\nregex = '''(?s).{0,3000}zzz.{0,3000}'''\n",
    )
    .expect("write");
    let before = common::files(&dir);
    let err = remaind_ledger::Ledger::open(&dir).expect_err("refused");
    // The message with its causes, as the CLI prints it.
    let mut chain = err.to_string();
    let mut cause = std::error::Error::source(&err);
    while let Some(c) = cause {
        chain.push_str(&format!(": {c}"));
        cause = c.source();
    }
    let err = chain;
    assert_eq!(err.matches("schemas/redaction.toml").count(), 1, "{err}");
    assert!(err.contains("rule `slow`"), "{err}");
    assert_eq!(common::files(&dir), before, "nothing written");
}
