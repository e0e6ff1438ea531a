//! Text that looks random or technical but holds no secret is left byte for byte.

use crate::support::redactor;

const CORPUS: &[&str] = &[
    // Git SHAs, UUIDs, digests.
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nMerge: 1a2b3c4 5d6e7f8",
    "HEAD is now at 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 Fix the parser",
    "request id 550e8400-e29b-41d4-a716-446655440000, trace 6ba7b810-9dad-11d1-80b4-00c04fd430c8",
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "integrity sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==",
    "checksum = \"320119579fcad9c21884f5c4861d16174d0e06250625266f50fe6898340abefa\"",
    // Image data.
    "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\">",
    "background: url(data:image/jpeg;base64,/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAACf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AKp//2Q==)",
    // Prose.
    "The secret to a good handover is to write down the next step before you stop. Risk-free refactors come first; the bearer of bad news is the test suite.",
    "Authorization is checked in middleware; see docs/auth.md for the token lifecycle.",
    "We decided to keep the AWS region in config and rotate keys monthly (task-1234, task-98765).",
    // Code.
    "fn main() {\n    let secret_access_key = env::var(\"AWS_SECRET_ACCESS_KEY\")?;\n    let token: &str = &args[1];\n    println!(\"{}\", token.len());\n}",
    "from sklearn.linear_model import LogisticRegression\nsk_learn_model = LogisticRegression()\nsk_learn_model.fit(X_train, y_train)\ndef get_bearer(headers):\n    return headers.get('Authorization', '').removeprefix('Bearer ')\n",
    "const disk_usage_sk = ask_user('risk-assessment-quarterly-report-final');",
    "let key = format!(\"sk-{}\", suffix); // sk-… keys come from the environment",
    "xoxo hugs, the team; eyJ is base64 for '{\"' — ghp_ is GitHub's prefix",
    // Paths and identifiers.
    "/home/user/.config/remaind/context/artifacts/ab/abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789",
    "C:\\Users\\dev\\AppData\\Local\\Temp\\build-7f3a9c\\target\\debug\\deps\\libserde-1a2b3c4d5e6f7a8b.rlib",
    "crates/remaind-redact/src/rules.rs:42:7 and src/ASIA_PACIFIC_REGION_CONFIG.toml",
    "AKIA is the prefix of long-term AWS access key ids; ASIA of temporary ones.",
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUexample\n-----END CERTIFICATE-----",
    "[REDACTED:github_token:0123456789ab] and [REDACTED:aws_secret_access_key:abcdefabcdef]",
];

#[test]
fn negative_corpus_is_untouched() {
    let r = redactor();
    for text in CORPUS {
        let (out, applied) = r.redact_str(text);
        assert!(applied.is_empty(), "{text:?} -> {applied:?}");
        assert_eq!(out, *text);
        assert!(!r.contains_secret(text.as_bytes()), "{text:?}");
        let mut json = serde_json::json!({ "text": text, *text: [text] });
        assert!(r.redact_json(&mut json).is_empty(), "{text:?}");
    }
}

#[test]
fn large_clean_input_is_untouched() {
    let text: String = CORPUS
        .iter()
        .cycle()
        .take(2000)
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    let (out, applied) = redactor().redact_bytes(text.as_bytes());
    assert!(applied.is_empty());
    assert_eq!(out, text.as_bytes());
}
