//! `remaind redact`: the project's rules (built-ins and a gitleaks file) applied to text, with
//! nothing written under `.context/`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{Tmp, remaind, text, tmp};

fn init() -> (Tmp, PathBuf) {
    let t = tmp();
    let ctx = t.0.join(".context");
    let out = remaind(&ctx, &["init"], None);
    assert!(out.status.success(), "init: {}", text(&out));
    (t, ctx)
}

/// Fails naming every file under `ctx` that was added, removed or changed since `before`.
fn assert_nothing_written(before: &BTreeMap<PathBuf, Vec<u8>>, ctx: &Path) {
    let after = files(ctx);
    let paths: BTreeSet<&PathBuf> = before.keys().chain(after.keys()).collect();
    let changed: Vec<&PathBuf> = paths
        .into_iter()
        .filter(|p| before.get(*p) != after.get(*p))
        .collect();
    assert!(changed.is_empty(), "redact wrote {changed:?}");
}

/// Every file under `dir` with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).expect("read"));
            }
        }
    }
    out
}

const RULE_FILE: &str = r#"
[[rules]]
id = "acme-api-key"
regex = '''\b(acme_[A-Za-z0-9]{32})\b'''
keywords = ["acme_"]
[[rules.allowlists]]
stopwords = ["notasecret"]
"#;

/// A Bash response an agent reads: the issue's own example lines, a user rule's token, and
/// placeholders that must stay readable.
const OUTPUT: &str = "$ printenv | grep -E 'URL|KEY'\n\
DATABASE_URL=postgres://admin:S3cr3tPassw0rd@db.internal:5432/app\n\
REDIS_URL=redis://:hunter2x@cache.internal:6379/0\n\
staging account: acme_Q7vLm2Xk9PzR4tYwB8nJc3HfD6sGa1Ue\n\
the docs' example: acme_notasecretnotasecretnotasecret12\n\
$ curl -H 'Authorization: Api-Token Zk3pQ9vR2mX7tL4wB8nJc6Hd' https://api.example.com\n\
GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n";

const SECRETS: [&str; 4] = [
    "S3cr3tPassw0rd",
    "hunter2x",
    "acme_Q7vLm2Xk9PzR4tYwB8nJc3HfD6sGa1Ue",
    "Zk3pQ9vR2mX7tL4wB8nJc6Hd",
];

#[test]
fn redact_applies_built_in_and_gitleaks_rules_and_writes_nothing() {
    let (_t, ctx) = init();
    std::fs::write(ctx.join("schemas/redaction.toml"), RULE_FILE).expect("rule file");
    let before = files(&ctx);

    let out = remaind(&ctx, &["redact"], Some(OUTPUT.as_bytes()));
    assert!(out.status.success(), "redact: {}", text(&out));
    let stdout = String::from_utf8(out.stdout.clone()).expect("utf-8");
    for secret in SECRETS {
        assert!(!stdout.contains(secret), "{secret} survived:\n{stdout}");
    }
    for kept in [
        "DATABASE_URL=postgres://admin:[REDACTED:url_credentials:",
        "[REDACTED:acme_api_key:",
        "acme_notasecretnotasecretnotasecret12",
        "Authorization: Api-Token [REDACTED:authorization_header:",
        "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "https://api.example.com",
    ] {
        assert!(stdout.contains(kept), "expected {kept:?} in:\n{stdout}");
    }
    assert_eq!(stdout.lines().count(), OUTPUT.lines().count());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("4 secrets redacted") && stderr.contains("acme_api_key"),
        "{stderr}"
    );

    let file = ctx.parent().expect("project").join("out.txt");
    std::fs::write(&file, OUTPUT).expect("write input");
    let out = remaind(
        &ctx,
        &["redact", "--json", file.to_str().expect("utf-8")],
        None,
    );
    assert!(out.status.success(), "redact --json: {}", text(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(doc["text"].as_str(), Some(stdout.as_str()));
    let mut rules: Vec<&str> = doc["redactions"]
        .as_array()
        .expect("redactions")
        .iter()
        .map(|r| r["rule"].as_str().expect("rule"))
        .collect();
    rules.sort_unstable();
    assert_eq!(
        rules,
        [
            "acme_api_key",
            "authorization_header",
            "url_credentials",
            "url_credentials"
        ]
    );

    assert_nothing_written(&before, &ctx);
}

#[test]
fn redact_with_a_bad_rule_file_names_the_rule_and_prints_nothing() {
    let (_t, ctx) = init();
    std::fs::write(
        ctx.join("schemas/redaction.toml"),
        "[[rules]]\nid = \"broken\"\nregex = '''(unclosed'''\n",
    )
    .expect("rule file");
    let before = files(&ctx);
    let out = remaind(&ctx, &["redact"], Some(OUTPUT.as_bytes()));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(out.stdout.is_empty(), "printed text past a bad rule file");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("redaction.toml") && stderr.contains("`broken`"),
        "{stderr}"
    );
    assert_nothing_written(&before, &ctx);
}

#[test]
fn redact_of_a_missing_file_is_invalid_input() {
    let (_t, ctx) = init();
    let out = remaind(&ctx, &["redact", "/nonexistent/remaind-input"], None);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("/nonexistent/remaind-input: cannot read"));
}
