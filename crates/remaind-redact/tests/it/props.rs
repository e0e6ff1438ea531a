//! Laws: a planted key of any rule at any position never survives; redaction is idempotent;
//! string and byte redaction agree.

use proptest::prelude::*;

use crate::support::{Sample, assert_no_window, redactor, samples};

/// Filler text: prose, code punctuation, JSON-ish bits, non-ASCII, newlines.
fn filler() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            "[a-zA-Z]{1,10}",
            "[0-9a-f]{1,40}",
            Just(" ".to_owned()),
            Just("\n".to_owned()),
            Just("\\n".to_owned()),
            "[ -~]{1,3}",
            Just("é ☃ 雪".to_owned()),
            Just("{\"k\": \"v\"}".to_owned()),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

/// The random part of a key: alphanumeric with at least one digit, and as varied as random
/// text is (a body of two or three repeated characters is a placeholder, `ghp_aaaa…`): the
/// shortest planted piece (its first 14 bytes) has 10 distinct characters, no character
/// fills more than a tenth of the first 43 (the pieces most families plant), and no stand-in
/// word is spelled by chance (`…QYJxXxxK…` holds `xxxx`, which marks a placeholder).
fn random_part() -> impl Strategy<Value = String> {
    ("[A-Za-z0-9]{99,140}", 0..10u8)
        .prop_map(|(r, d)| format!("{r}{d}"))
        .prop_filter("random-looking", |r| {
            let b = r.as_bytes();
            let distinct = b[..14]
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len();
            let most = b[..43]
                .iter()
                .map(|c| b[..43].iter().filter(|x| *x == c).count())
                .max()
                .unwrap_or(0);
            let lower = r.to_ascii_lowercase();
            let stand_in = [
                "xxxx",
                "example",
                "changeme",
                "placeholder",
                "redacted",
                "dummy",
                "replaceme",
                "yourtoken",
                "yourkey",
                "yoursecret",
                "yourpassword",
            ]
            .iter()
            .any(|word| lower.contains(word));
            distinct >= 10 && most <= 4 && !stand_in
        })
}

const SEPARATORS: &[&str] = &[
    " ", "\n", "\t", "=", "\"", "'", ": ", "(", ",", "/", "\\n", "\r\n",
];

/// `filler` with `sample` planted (in one of its forms) at char position `at`.
fn plant(filler: &str, sample: &Sample, form: usize, at: usize, sep: (usize, usize)) -> String {
    let key = match form % 3 {
        0 => sample.text.clone(),
        1 => format!("https://x.test/a?{}&x=1", sample.url_param),
        _ => sample.env_line.clone(),
    };
    let chars = filler.chars().count();
    let cut = filler
        .char_indices()
        .nth(at % (chars + 1))
        .map_or(filler.len(), |(i, _)| i);
    format!(
        "{}{}{key}{}{}",
        &filler[..cut],
        SEPARATORS[sep.0 % SEPARATORS.len()],
        SEPARATORS[sep.1 % SEPARATORS.len()],
        &filler[cut..]
    )
}

proptest! {
    #[test]
    fn prop_redaction_removes_planted_keys(
        filler in filler(),
        random in random_part(),
        rule in 0..remaind_redact::BUILTIN_RULES.len(),
        form in 0..3usize,
        at in any::<usize>(),
        sep in (any::<usize>(), any::<usize>()),
    ) {
        let sample = samples(&random).swap_remove(rule);
        let text = plant(&filler, &sample, form, at, sep);
        let r = redactor();
        // As bytes, as a string, serialized inside JSON text, and as a parsed JSON value.
        let (out, _) = r.redact_bytes(text.as_bytes());
        assert_no_window(&out, &sample.pieces);
        let (out, _) = r.redact_str(&text);
        assert_no_window(out.as_bytes(), &sample.pieces);
        let raw = serde_json::to_string(&serde_json::json!({ "output": text })).expect("serializes");
        let (out, _) = r.redact_bytes(raw.as_bytes());
        assert_no_window(&out, &sample.pieces);
        let mut value = serde_json::json!({ "output": [text.clone()], text.clone(): 1 });
        r.redact_json(&mut value);
        let out = serde_json::to_string(&value).expect("serializes");
        assert_no_window(out.as_bytes(), &sample.pieces);
    }

    #[test]
    fn prop_redact_is_idempotent(
        filler in filler(),
        random in random_part(),
        rule in 0..remaind_redact::BUILTIN_RULES.len(),
        form in 0..3usize,
        at in any::<usize>(),
        sep in (any::<usize>(), any::<usize>()),
    ) {
        let sample = samples(&random).swap_remove(rule);
        let r = redactor();
        for text in [plant(&filler, &sample, form, at, sep), filler.clone()] {
            let (once, _) = r.redact_str(&text);
            let (twice, applied) = r.redact_str(&once);
            prop_assert_eq!(&once, &twice);
            prop_assert!(applied.is_empty(), "{:?}", applied);
            prop_assert!(!r.contains_secret(once.as_bytes()));
        }
    }

    #[test]
    fn prop_redact_bytes_is_idempotent_on_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let r = redactor();
        let (once, _) = r.redact_bytes(&bytes);
        let (twice, applied) = r.redact_bytes(&once);
        prop_assert_eq!(once, twice);
        prop_assert!(applied.is_empty());
    }

    /// String redaction carries the prefilter's hits from one pass to the next; byte
    /// redaction scans each pass afresh: both find the same.
    #[test]
    fn prop_str_and_bytes_agree(
        filler in filler(),
        random in random_part(),
        rule in 0..remaind_redact::BUILTIN_RULES.len(),
        at in any::<usize>(),
    ) {
        let sample = samples(&random).swap_remove(rule);
        let text = plant(&filler, &sample, 0, at, (0, 0));
        let r = redactor();
        let (s, applied_s) = r.redact_str(&text);
        let (b, applied_b) = r.redact_bytes(text.as_bytes());
        prop_assert_eq!(s.as_bytes(), &b[..]);
        prop_assert_eq!(applied_s, applied_b);
    }

    /// A JSON text the one-pass check calls clean holds no string (key or value) that
    /// redaction would change, and one holding a planted key is never called clean.
    #[test]
    fn prop_clean_json_text_needs_no_redaction(
        filler in filler(),
        random in random_part(),
        rule in 0..remaind_redact::BUILTIN_RULES.len(),
        form in 0..3usize,
        at in any::<usize>(),
        sep in (any::<usize>(), any::<usize>()),
        plant_it in any::<bool>(),
        escape_all in any::<bool>(),
    ) {
        let sample = samples(&random).swap_remove(rule);
        let text = if plant_it { plant(&filler, &sample, form, at, sep) } else { filler.clone() };
        let value = serde_json::json!({ "text": text, "data": { text.clone(): [text.clone(), 1] } });
        let mut raw = serde_json::to_string(&value).expect("serializes");
        if escape_all {
            // Letters and digits escaped as \uXXXX: never clean (an escape may spell a literal).
            raw = raw
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { format!("\\u{:04x}", c as u32) } else { c.to_string() })
                .collect();
        }
        let r = redactor();
        if r.json_text_is_clean(raw.as_bytes()) {
            let mut parsed: serde_json::Value = match serde_json::from_str(&raw) {
                Ok(v) => v,
                Err(_) => return Ok(()),
            };
            let before = parsed.clone();
            prop_assert!(r.redact_json(&mut parsed).is_empty(), "{}", raw);
            prop_assert_eq!(before, parsed);
            prop_assert!(!plant_it || escape_all, "a planted key passed as clean: {}", raw);
        }
    }
}
