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
