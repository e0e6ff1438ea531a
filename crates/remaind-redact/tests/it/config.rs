//! Building redactors from user rules and from `redaction.json`.

use remaind_redact::{Error, Redactor, UserRule};

use crate::support::KEY;

#[test]
fn shipped_redaction_json_loads_and_applies() {
    let text = include_str!("../../../../schemas/redaction.json");
    let r = Redactor::from_config_json(KEY, text).expect("the shipped file is valid");
    let token = "intk_0123456789abcdef0123456789ABCDEF";
    let text = format!("ticket token {token}.");
    let (out, applied) = r.redact_str(&text);
    assert_eq!(applied.len(), 1);
    assert_eq!(applied[0].rule, "example_internal_token");
    assert_eq!(out, format!("ticket token {}.", applied[0].placeholder));
}

#[test]
fn config_errors_name_the_field() {
    let cases = [
        ("not json", "$"),
        ("[]", "$"),
        ("{}", "rules"),
        ("{\"rules\": {}}", "rules"),
        ("{\"rules\": [1]}", "rules[0]"),
        ("{\"rules\": [{\"pattern\": \"x\"}]}", "rules[0].name"),
        (
            "{\"rules\": [{\"name\": \"a\", \"pattern\": \"x\"}, {\"name\": \"b\", \"pattern\": 3}]}",
            "rules[1].pattern",
        ),
    ];
    for (text, field) in cases {
        match Redactor::from_config_json(KEY, text) {
            Err(err @ Error::Config { .. }) => {
                let Error::Config { field: got, .. } = &err else {
                    unreachable!()
                };
                assert_eq!(got, field, "{text}");
                assert!(err.to_string().contains(field), "{err}");
            }
            other => panic!("{text}: expected a config error, got {other:?}"),
        }
    }
    let ok = Redactor::from_config_json(KEY, "{\"description\": \"x\", \"rules\": [], \"v\": 1}");
    assert!(ok.is_ok());
}

#[test]
fn bad_user_rules_name_the_rule_and_the_regex_error() {
    let bad = [UserRule {
        name: "broken".into(),
        pattern: "a(b".into(),
    }];
    let err = Redactor::new(KEY, &bad).expect_err("bad regex");
    let text = err.to_string();
    assert!(matches!(err, Error::InvalidPattern { ref name, .. } if name == "broken"));
    assert!(
        text.contains("`broken`") && text.contains("unclosed group"),
        "{text}"
    );

    let json = "{\"rules\": [{\"name\": \"broken\", \"pattern\": \"[z-a]\"}]}";
    let err = Redactor::from_config_json(KEY, json).expect_err("bad regex");
    assert!(err.to_string().contains("`broken`"), "{err}");

    for name in ["", "has space", "colon:", "bracket]", "jwt"] {
        let rules = [UserRule {
            name: name.into(),
            pattern: "x".into(),
        }];
        let err = Redactor::new(KEY, &rules).expect_err(name);
        assert!(
            matches!(
                err,
                Error::InvalidRuleName { .. } | Error::DuplicateRuleName { .. }
            ),
            "{name}: {err}"
        );
    }
    let twice = [
        UserRule {
            name: "a".into(),
            pattern: "x".into(),
        },
        UserRule {
            name: "a".into(),
            pattern: "y".into(),
        },
    ];
    assert!(matches!(
        Redactor::new(KEY, &twice),
        Err(Error::DuplicateRuleName { .. })
    ));
}

#[test]
fn user_rules_that_match_empty_never_loop_or_panic() {
    let rules = [UserRule {
        name: "empty".into(),
        pattern: "x*".into(),
    }];
    let r = Redactor::new(KEY, &rules).expect("builds");
    let (out, applied) = r.redact_str("abc xx def");
    assert_eq!(applied.len(), 1);
    assert_eq!(out, format!("abc {} def", applied[0].placeholder));
}
