//! gitleaks TOML rule files: the fields teams use, errors that name the rule, and the bound
//! that keeps a rule from making a long line slow.

use std::time::{Duration, Instant};

use remaind_redact::{Error, Redactor, gitleaks_files};

use crate::support::KEY;

fn team() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/redact/gitleaks-team.toml"
    );
    std::fs::read_to_string(path).expect("fixture")
}

fn redactor() -> Redactor {
    Redactor::from_sources(KEY, None, &[("gitleaks-team.toml", &team())]).expect("team rules load")
}

fn redact(r: &Redactor, text: &str) -> (String, Vec<String>) {
    let (out, applied) = r.redact_str(text);
    (
        out.into_owned(),
        applied.into_iter().map(|a| a.rule).collect(),
    )
}

#[test]
fn rules_apply_with_secret_groups_keywords_and_entropy() {
    let r = redactor();
    let key = "acme_Q7vLm2Xk9PzR4tYwB8nJc3HfD6sGa1Ue";
    let (out, rules) = redact(&r, &format!("export ACME={key}\n"));
    assert_eq!(rules, ["acme_api_key"]);
    assert!(!out.contains(&key[5..]), "{out}");
    // Entropy floor: a low-entropy body is not a key.
    let (_, rules) = redact(&r, "acme_abababababababababababababababab");
    assert!(rules.is_empty(), "{rules:?}");
    // secretGroup = 1 keeps the key name; `(?i)` works.
    let (out, rules) = redact(&r, "ACME_DB_CREDS = \"pr0d-Pa55w0rd!\"");
    assert_eq!(rules, ["acme_db_creds"]);
    assert!(
        out.starts_with("ACME_DB_CREDS = \"[REDACTED:acme_db_creds:"),
        "{out}"
    );
    // secretGroup = 2.
    let (out, rules) = redact(&r, "jwks kid=prod:0123456789abcdef01234567 ok");
    assert_eq!(rules, ["internal_jwt_kid"]);
    assert!(
        out.starts_with("jwks kid=prod:[REDACTED:internal_jwt_kid:"),
        "{out}"
    );
    // Built-in rules still apply alongside.
    let (_, rules) = redact(&r, "ghp_Q7vLm2Xk9PzR4tYwB8nJc3HfD6sGa1UeK5oV");
    assert_eq!(rules, ["github_token"]);
}

#[test]
fn allowlists_leave_what_they_name() {
    let r = redactor();
    for text in [
        // Rule allowlist on the line.
        "acme_db_creds=pr0d-Pa55w0rd! # localhost only",
        // Global allowlist regex on the secret, and a global stopword.
        "acme_db_creds=dummy-Pa55w0rd",
        "acme_db_creds=NOTASECRET-but-long",
        // AND allowlist: both its regex (on the match) and its stopword hold.
        "kid=test:000000aaaaaaaaaaaaaaaaaa",
    ] {
        let (out, rules) = redact(&r, text);
        assert!(rules.is_empty(), "{text} -> {rules:?}");
        assert_eq!(out, text);
    }
    // A user allowlist never silences a built-in rule.
    let (_, rules) = redact(&r, "acme_db_password=pr0d-Pa55w0rd! # localhost only");
    assert_eq!(rules, ["generic_secret"]);
    // AND: only one of the two holds, so the secret is redacted.
    let (_, rules) = redact(&r, "kid=test:0123456789abcdef01234567");
    assert_eq!(rules, ["internal_jwt_kid"]);
}

/// Go's RE2 reads a `{` that opens no repetition as a literal, as gitleaks' own default rule
/// file does (`^\$(?:\d+|{\d+})$` in its global allowlist); such files load and mean what they
/// mean to gitleaks.
#[test]
fn go_regex_syntax_of_real_rule_files_loads() {
    let toml = r#"
[allowlist]
regexes = [
    '''^\$(?:\d+|{\d+})$''',
    '''^\{\{[ \t]*[\w ().|]+[ \t]*}}$''',
    '''^\{\d{0,2}}$''',
]

[[rules]]
id = "templated-token"
regex = '''tpl\{([A-Za-z0-9]{3,}\d)}'''
keywords = ["tpl{"]

[[rules]]
id = "brace-literal"
regex = '''brc{x}(\p{L}{2}[0-9]{4,})'''
keywords = ["brc{"]
"#;
    let r = Redactor::from_sources(KEY, None, &[("go.toml", toml)]).expect("Go syntax loads");
    let (out, rules) = redact(&r, "id tpl{Q7vLm2Xk9} and brc{x}éz20240101");
    assert_eq!(rules, ["templated_token", "brace_literal"], "{out}");
    assert!(
        !out.contains("Q7vLm2Xk9") && !out.contains("20240101"),
        "{out}"
    );
    // The allowlists' braces are literals: `${3}` and `{12}` are values they name.
    let toml = format!("{toml}\n[[rules]]\nid = \"val\"\nregex = '''val=(\\S+)'''\n");
    let r = Redactor::from_sources(KEY, None, &[("go.toml", &toml)]).expect("loads");
    for allowed in ["val=${3}", "val={12}"] {
        assert!(redact(&r, allowed).1.is_empty(), "{allowed}");
    }
    assert_eq!(redact(&r, "val=Q7vLm2Xk9").1, ["val"]);
}

#[test]
fn keyword_gated_rules_keep_the_json_fast_path() {
    let r = redactor();
    assert!(r.json_text_is_clean(br#"{"kind":"note","text":"build passes"}"#));
    assert!(!r.json_text_is_clean(br#"{"kind":"note","text":"ACME_ key"}"#));
    // A JSON user rule without keywords turns the fast path off; with keywords it stays on.
    let plain = r#"{"rules":[{"name":"intk","pattern":"intk_[a-z0-9]{16}"}]}"#;
    let r = Redactor::from_config_json(KEY, plain).expect("builds");
    assert!(!r.json_text_is_clean(br#"{"text":"build passes"}"#));
    let gated = r#"{"rules":[{"name":"intk","pattern":"intk_[a-z0-9]{16}","keywords":["intk_"]}]}"#;
    let r = Redactor::from_config_json(KEY, gated).expect("builds");
    assert!(r.json_text_is_clean(br#"{"text":"build passes"}"#));
    assert!(!r.json_text_is_clean(br#"{"text":"INTK_0123456789abcdef"}"#));
    assert_eq!(
        redact(&r, "t intk_0123456789abcdef").1,
        ["intk"],
        "keywords match in any case"
    );
}

#[test]
fn json_config_lists_rule_files() {
    let json = r#"{"rules": [], "gitleaks": ["../.gitleaks.toml", "/etc/team.toml"]}"#;
    assert_eq!(
        gitleaks_files(json).expect("parses"),
        ["../.gitleaks.toml", "/etc/team.toml"]
    );
    assert_eq!(
        gitleaks_files(r#"{"rules": [], "gitleaks": ".gitleaks.toml"}"#).expect("parses"),
        [".gitleaks.toml"]
    );
    assert!(
        gitleaks_files(r#"{"rules": []}"#)
            .expect("parses")
            .is_empty()
    );
    let err = gitleaks_files(r#"{"rules": [], "gitleaks": [3]}"#).expect_err("bad");
    assert_eq!(
        err.to_string(),
        "redaction config: `gitleaks[0]`: expected a path (a string)"
    );
}

#[test]
fn bad_rule_files_name_the_file_and_the_rule() {
    let cases = [
        (
            "[[rules]\nid = 'x'",
            "rule file f.toml: rule `-`: not valid TOML",
        ),
        (
            "[[rules]]\nregex = 'x'",
            "rule file f.toml: rule `rules[0]`: has no `id`",
        ),
        (
            "[[rules]]\nid = 'broken'\nregex = '(unclosed'",
            "rule file f.toml: rule `broken`: `regex`: regex parse error",
        ),
        (
            "[[rules]]\nid = 'grp'\nregex = 'a(b)'\nsecretGroup = 2",
            "rule file f.toml: rule `grp`: `secretGroup` is 2 but the regex has 1 capture group(s)",
        ),
        (
            "[[rules]]\nid = 'ent'\nregex = 'a'\nentropy = 'high'",
            "rule file f.toml: rule `ent`: `entropy` must be a non-negative number",
        ),
        (
            "[[rules]]\nid = 'kw'\nregex = 'a'\nkeywords = 'a'",
            "rule file f.toml: rule `kw`: `keywords` must be an array of strings",
        ),
        (
            "[[rules]]\nid = 'nothing'",
            "rule file f.toml: rule `nothing`: has neither `regex` nor `path`",
        ),
        (
            "[[rules]]\nid = 'al'\nregex = 'a'\n[rules.allowlist]\nregexTarget = 'file'",
            "rule file f.toml: rule `al`: `allowlist.regexTarget` is `file`",
        ),
        (
            "[extend]\npath = 'other.toml'",
            "rule file f.toml: rule `-`: `extend.path` is not supported",
        ),
        (
            "[[rules]]\nid = 'slow-rule'\nregex = '(?s).{0,3000}zzz.{0,3000}'",
            "rule file f.toml: rule `slow-rule`: `regex`: compiles to more than 256 KiB",
        ),
    ];
    for (text, want) in cases {
        let err = Redactor::from_sources(KEY, None, &[("f.toml", text)]).expect_err(text);
        assert!(matches!(err, Error::RuleFile { .. }), "{err:?}");
        let got = err.to_string();
        assert!(got.starts_with(want), "{text}\n got: {got}\nwant: {want}…");
    }
}

/// Issue 14 item 10: `(?s).{0,3000}zzz.{0,3000}` as a user rule made logging 1 MB take 56 s.
/// It is now refused with an error that names it, and the largest rule of that shape the
/// bound admits scans 1 MiB of text full of near-matches in bounded time.
#[test]
fn a_rule_can_never_make_a_line_slow() {
    let json = r#"{"rules":[{"name":"slow","pattern":"(?s).{0,3000}zzz.{0,3000}"}]}"#;
    let err = Redactor::from_config_json(KEY, json).expect_err("refused");
    assert!(
        err.to_string().starts_with(
            "redaction rule `slow` has an invalid pattern: compiles to more than 256 KiB"
        ),
        "{err}"
    );
    let json = r#"{"rules":[{"name":"wide","pattern":"(?s).{0,300}zzz.{0,300}"}]}"#;
    let r = Redactor::from_config_json(KEY, json).expect("within the bound");
    let mut text = String::with_capacity(1 << 20);
    let mut i = 0u32;
    while text.len() < 1 << 20 {
        text.push_str(["zz ", "zzz", "key=", "z\n", "the ledger "][(i % 5) as usize]);
        i = i.wrapping_mul(1_103_515_245).wrapping_add(12_345) >> 3;
    }
    let start = Instant::now();
    let (out, applied) = r.redact_str(&text);
    let took = start.elapsed();
    assert!(!applied.is_empty() && !out.contains("zzz"));
    // Measured at about 0.3 s; the margin is for a loaded CI machine.
    assert!(took < Duration::from_secs(10), "1 MiB took {took:?}");
}
