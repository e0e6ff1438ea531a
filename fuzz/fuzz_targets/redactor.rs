//! The redactor: arbitrary bytes and text never panic; redaction is idempotent; valid UTF-8
//! stays valid UTF-8; nothing a rule still matches survives.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use remaind_redact::Redactor;

fn redactor() -> &'static Redactor {
    static R: OnceLock<Redactor> = OnceLock::new();
    R.get_or_init(|| Redactor::new(b"remaind-fuzz-fixed-redaction-key", &[]).expect("redactor"))
}

fuzz_target!(|data: &[u8]| {
    let r = redactor();
    let (once, _) = r.redact_bytes(data);
    let (twice, applied) = r.redact_bytes(&once);
    assert_eq!(once, twice, "redact_bytes is idempotent");
    assert!(applied.is_empty(), "nothing left to redact after one pass");
    if let Ok(text) = std::str::from_utf8(data) {
        let (once, _) = r.redact_str(text);
        assert!(std::str::from_utf8(once.as_bytes()).is_ok());
        let (twice, _) = r.redact_str(&once);
        assert_eq!(once, twice, "redact_str is idempotent");
        let mut value = serde_json::Value::String(text.to_owned());
        r.redact_json(&mut value);
        assert_eq!(value.as_str(), Some(once.as_ref()));
    }
    if let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(data) {
        r.redact_json(&mut value);
        let again = value.clone();
        r.redact_json(&mut value);
        assert_eq!(value, again, "redact_json is idempotent");
    }
});
