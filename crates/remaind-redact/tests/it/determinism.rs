//! Placeholders are deterministic per key and hold no part of the secret.

use remaind_redact::{Redactor, generate_key, try_generate_key};

use crate::support::{KEY, R, samples};

#[test]
fn same_key_same_placeholder_other_key_other_placeholder() {
    let a = Redactor::new(KEY, &[]).expect("builds");
    let a2 = Redactor::new(KEY, &[]).expect("builds");
    let b = Redactor::new(b"another project's key", &[]).expect("builds");
    for sample in samples(R) {
        let (_, pa) = a.redact_str(&sample.text);
        let (_, pa2) = a2.redact_str(&sample.text);
        let (_, pb) = b.redact_str(&sample.text);
        assert_eq!(pa, pa2, "{}", sample.rule);
        assert_eq!(pa.len(), 1, "{}: {pa:?}", sample.rule);
        assert_ne!(pa[0].placeholder, pb[0].placeholder, "{}", sample.rule);
        assert_eq!(pa[0].rule, pb[0].rule);
    }
}

#[test]
fn equal_secrets_in_different_contexts_share_a_placeholder() {
    let r = Redactor::new(KEY, &[]).expect("builds");
    let key = format!("ghp_{}", &R[..36]);
    let (_, first) = r.redact_str(&format!("token: {key}"));
    let (_, second) = r.redact_bytes(format!("{{\"k\":\"{key}\"}}").as_bytes());
    assert_eq!(first, second);
    let other = format!("ghp_{}", &R[1..37]);
    let (_, third) = r.redact_str(&other);
    assert_ne!(first, third);
}

#[test]
fn placeholder_format() {
    let r = Redactor::new(KEY, &[]).expect("builds");
    for sample in samples(R) {
        let (_, applied) = r.redact_str(&sample.text);
        let p = &applied[0].placeholder;
        let prefix = format!("[REDACTED:{}:", sample.rule);
        assert!(p.starts_with(&prefix) && p.ends_with(']'), "{p}");
        let hash = &p[prefix.len()..p.len() - 1];
        assert_eq!(hash.len(), 12);
        assert!(
            hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
            "{p}"
        );
        for piece in &sample.pieces {
            for window in piece.as_bytes().windows(6) {
                assert!(!p.as_bytes().windows(6).any(|w| w == window), "{p}");
            }
        }
    }
}

#[test]
fn keys_are_random_and_empty_keys_rejected() {
    let a = generate_key();
    let b = try_generate_key().expect("OS randomness");
    assert_ne!(a, b);
    assert_ne!(a, [0; 32]);
    let err = Redactor::new(b"", &[]).expect_err("empty key");
    assert!(err.to_string().contains("empty"), "{err}");
}

#[test]
fn redactor_is_send_sync_and_cheap_to_clone() {
    fn assert_send_sync<T: Send + Sync + Clone>() {}
    assert_send_sync::<Redactor>();
    let r = Redactor::new(KEY, &[]).expect("builds");
    let clone = r.clone();
    let text = format!("xoxb-{}", &R[..30]);
    let handle = std::thread::spawn(move || clone.redact_str(&text).1);
    let from_thread = handle.join().expect("thread runs");
    assert_eq!(from_thread, r.redact_str(&format!("xoxb-{}", &R[..30])).1);
    assert!(!format!("{r:?}").contains("test key"));
}

/// Inputs the fuzzer found where a second pass used to redact more than the first: a key glued
/// to the end of another, and `bearer` tokens exposed by an earlier replacement.
#[test]
fn redaction_is_idempotent_on_fuzzer_finds() {
    let redactor = remaind_redact::Redactor::new(b"fuzz-key", &[]).expect("redactor");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/crashes");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("fuzz/crashes exists") {
        let path = entry.expect("entry").path();
        if !path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("redactor-"))
        {
            continue;
        }
        let input = std::fs::read(&path).expect("read");
        let (once, _) = redactor.redact_bytes(&input);
        let (twice, applied) = redactor.redact_bytes(&once);
        assert_eq!(
            once,
            twice,
            "{} is not idempotent: {applied:?}",
            path.display()
        );
        if let Ok(text) = std::str::from_utf8(&input) {
            let (once, _) = redactor.redact_str(text);
            let (twice, _) = redactor.redact_str(&once);
            assert_eq!(once, twice, "{}", path.display());
        }
        seen += 1;
    }
    assert!(seen >= 3, "the fuzzer's finds are checked");
}

#[test]
fn glued_access_key_ids_are_both_redacted() {
    let redactor = remaind_redact::Redactor::new(b"k", &[]).expect("redactor");
    let text = "x AKIAABCDEFGHIJKLMNOPAKIAQRSTUVWXYZ234567 y";
    let (out, _) = redactor.redact_str(text);
    assert!(!out.contains("AKIA"), "{out}");
}
