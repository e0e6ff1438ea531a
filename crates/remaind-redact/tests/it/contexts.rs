//! Every built-in rule in every context: plain text, JSON (raw and parsed), URL query, env
//! file, multi-line tool output.

use serde_json::json;

use crate::support::{R, Sample, assert_names_rule, assert_no_window, contains, redactor, samples};

/// Redacts `text` as bytes and as a string, checks both agree, that the secret is gone, that
/// the placeholder names the rule, and that every `keep` fragment survives.
#[track_caller]
fn check(sample: &Sample, text: &str, keep: &[&str]) {
    let r = redactor();
    let (out, applied) = r.redact_bytes(text.as_bytes());
    assert_no_window(&out, &sample.pieces);
    assert_names_rule(&out, sample.rule);
    assert!(
        applied.iter().any(|a| a.rule == sample.rule),
        "{applied:?} lacks {}",
        sample.rule
    );
    for a in &applied {
        assert!(contains(&out, a.placeholder.as_bytes()));
    }
    let (s, applied_s) = r.redact_str(text);
    assert_eq!(s.as_bytes(), &out[..]);
    assert_eq!(applied_s, applied);
    for k in keep {
        assert!(
            contains(&out, k.as_bytes()),
            "{k:?} was lost from {:?}",
            String::from_utf8_lossy(&out)
        );
    }
    assert!(r.contains_secret(text.as_bytes()));
    assert!(
        !r.contains_secret(&out),
        "output still holds a secret: {:?}",
        String::from_utf8_lossy(&out)
    );
}

/// Every look-alike of `sample`'s family, placed by `wrap`, is left byte for byte.
#[track_caller]
fn check_negatives(sample: &Sample, wrap: impl Fn(&str) -> String) {
    let r = redactor();
    for negative in &sample.negatives {
        let text = wrap(negative);
        let (out, applied) = r.redact_str(&text);
        assert!(
            applied.is_empty(),
            "{}: {text:?} -> {applied:?}",
            sample.rule
        );
        assert_eq!(out, text);
    }
}

#[test]
fn every_family_has_negatives() {
    for sample in samples(R) {
        assert!(
            !sample.negatives.is_empty(),
            "{} has no negatives",
            sample.rule
        );
    }
}

#[test]
fn plain_text() {
    for sample in samples(R) {
        let text = format!("Here is the value: {} (do not share).", sample.text);
        check(&sample, &text, &["Here is the value: ", "(do not share)."]);
        check_negatives(&sample, |n| {
            format!("Here is the value: {n} (do not share).")
        });
    }
}

#[test]
fn json_string_scanned_raw() {
    for sample in samples(R) {
        let value = json!({
            "tool": "shell",
            "output": format!("line one\n\t{}\n\"quoted\" end", sample.text),
            "list": [format!("{}", sample.text)],
        });
        let raw = serde_json::to_string(&value).expect("serializes");
        check(
            &sample,
            &raw,
            &["\"tool\":\"shell\"", "line one", "\\\"quoted\\\" end"],
        );
        let (out, _) = redactor().redact_bytes(raw.as_bytes());
        let parsed: serde_json::Value =
            serde_json::from_slice(&out).expect("redacted JSON text stays valid JSON");
        assert_eq!(parsed["tool"], "shell");
        check_negatives(&sample, |n| {
            serde_json::to_string(&json!({
                "tool": "shell",
                "output": format!("line one\n\t{n}\n\"quoted\" end"),
            }))
            .expect("serializes")
        });
    }
}

#[test]
fn json_value_redacted_in_place() {
    for sample in samples(R) {
        let mut value = json!({
            "tool": "shell",
            "data": {
                "output": format!("line one\n\t{}\n\"quoted\" end", sample.text),
                "nested": [[{ "deep": sample.text.clone() }], 7, null, true],
            },
            sample.text.clone(): "secret as a key",
        });
        let applied = redactor().redact_json(&mut value);
        let out = serde_json::to_string(&value).expect("serializes");
        assert_no_window(out.as_bytes(), &sample.pieces);
        assert_names_rule(out.as_bytes(), sample.rule);
        assert!(applied.len() >= 3, "{applied:?}");
        assert_eq!(value["tool"], "shell");
        assert_eq!(value["data"]["nested"][1], 7);
        let key = value
            .as_object()
            .expect("object")
            .keys()
            .find(|k| k.contains("[REDACTED:"))
            .expect("the secret key was redacted");
        assert_eq!(value[key.as_str()], "secret as a key");
        // Again: nothing left to do.
        let before = value.clone();
        assert!(redactor().redact_json(&mut value).is_empty());
        assert_eq!(value, before);
        for negative in &sample.negatives {
            let mut value = json!({
                "data": { "output": format!("line one\n\t{negative}\n"), "nested": [[{ "deep": negative }]] },
                *negative: "as a key",
            });
            let before = value.clone();
            assert!(redactor().redact_json(&mut value).is_empty(), "{negative}");
            assert_eq!(value, before);
        }
    }
}

#[test]
fn url_query() {
    for sample in samples(R) {
        let text = format!(
            "GET https://api.example.com/v1/items?{}&x=1 HTTP/1.1",
            sample.url_param
        );
        check(
            &sample,
            &text,
            &["https://api.example.com/v1/items?", "&x=1 HTTP/1.1"],
        );
        check_negatives(&sample, |n| {
            format!("GET https://api.example.com/v1/items?q={n}&x=1 HTTP/1.1")
        });
    }
}

#[test]
fn env_file_line() {
    for sample in samples(R) {
        let text = format!(
            "# local settings\nDEBUG=1\n{}\nPORT=8080\n",
            sample.env_line
        );
        check(
            &sample,
            &text,
            &["# local settings\nDEBUG=1\n", "\nPORT=8080\n"],
        );
        check_negatives(&sample, |n| {
            format!("# local settings\nDEBUG=1\n{n}\nPORT=8080\n")
        });
    }
}

#[test]
fn multi_line_tool_output() {
    for sample in samples(R) {
        let text = format!(
            "$ ./deploy.sh --verbose\n   Compiling deploy v0.1.0\n    Finished dev\nconfig loaded:\n{}\nerror[E0433]: failed to resolve\n  --> src/main.rs:3:5\n",
            sample.text
        );
        check(
            &sample,
            &text,
            &[
                "$ ./deploy.sh --verbose\n",
                "error[E0433]: failed to resolve\n  --> src/main.rs:3:5\n",
            ],
        );
        check_negatives(&sample, |n| {
            format!(
                "$ ./deploy.sh --verbose\n   Compiling deploy v0.1.0\nconfig loaded:\n{n}\nerror[E0433]: failed to resolve\n"
            )
        });
    }
}

#[test]
fn secret_at_start_and_end_of_input() {
    for sample in samples(R) {
        check(&sample, &sample.text, &[]);
        check(&sample, &format!("{}\n", sample.text), &[]);
        check(&sample, &format!("x {}", sample.text), &["x "]);
    }
}
