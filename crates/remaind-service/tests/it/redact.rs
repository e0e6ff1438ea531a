//! Text as the ledger would store it.

use remaind_fs::ContextDir;
use remaind_service::redact;

fn folder() -> (tempfile::TempDir, ContextDir) {
    crate::common::folder("service-redact")
}

/// A secret is replaced by its placeholder and counted by rule; text without one comes
/// back as it was. Nothing is written to the ledger.
#[test]
fn secrets_are_replaced_and_counted() {
    let (_tmp, ctx) = folder();
    let input = b"db: postgres://admin:hunter2hunter2@db.example.com/app\nplain line\n";
    let out = redact(&ctx, input).expect("redact");
    let text = String::from_utf8(out.bytes.clone()).expect("UTF-8");
    assert!(!text.contains("hunter2hunter2"), "{text}");
    assert!(text.contains("plain line"), "{text}");
    assert!(!out.applied.is_empty());
    for a in &out.applied {
        assert!(text.contains(&a.placeholder), "{text}");
    }
    let summary = out.summary();
    let noun = if out.applied.len() == 1 {
        "secret"
    } else {
        "secrets"
    };
    assert!(
        summary.starts_with(&format!("{} {noun} redacted: ", out.applied.len())),
        "{summary}"
    );
    assert!(summary.contains(&out.applied[0].rule), "{summary}");
    let clean = redact(&ctx, b"nothing here").expect("redact");
    assert_eq!(clean.bytes, b"nothing here");
    assert_eq!(clean.summary(), "nothing redacted");
    let ledger = remaind_ledger::Ledger::open(ctx.root()).expect("open");
    assert_eq!(ledger.head().expect("head").0, 0);
}
