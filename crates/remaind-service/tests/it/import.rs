//! Transcripts brought into the ledger as `remaind import` does it.

use camino::Utf8PathBuf;
use remaind_adapters::Runtime;
use remaind_fs::ContextDir;
use remaind_service::{Error, ImportOptions, import};

fn folder() -> (tempfile::TempDir, ContextDir) {
    crate::common::folder("service-import")
}

fn transcripts() -> Utf8PathBuf {
    Utf8PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/transcripts")
}

/// A transcript is imported once: the second run appends nothing. A relative path is taken
/// under the given current directory.
#[test]
fn a_transcript_is_imported_once() {
    let (_tmp, ctx) = folder();
    let opts = ImportOptions {
        runtime: Runtime::ClaudeCode,
        paths: vec!["claude-code-5c0375b4.jsonl".into()],
        cwd: transcripts(),
    };
    let mut calls = 0;
    let first = import(&ctx, &opts, |_| calls += 1).expect("import");
    assert!(first.report.appended > 0, "{:?}", first.report);
    assert_eq!(first.report.files.len(), 1);
    assert!(calls > 0);
    let again = import(&ctx, &opts, |_| {}).expect("import again");
    assert_eq!(again.report.appended, 0);
    assert_eq!(again.report.head, first.report.head);
}

/// A path that does not exist, and a transcript of the other runtime, are refused and
/// nothing is imported.
#[test]
fn the_wrong_input_is_refused() {
    let (_tmp, ctx) = folder();
    let missing = ImportOptions {
        runtime: Runtime::ClaudeCode,
        paths: vec!["no-such-file.jsonl".into()],
        cwd: transcripts(),
    };
    let err = import(&ctx, &missing, |_| {}).expect_err("no such path");
    assert!(matches!(err, Error::NoSuchPath { .. }), "{err}");
    let codex = ImportOptions {
        runtime: Runtime::ClaudeCode,
        paths: vec![transcripts().join("codex-homelab.jsonl")],
        cwd: Utf8PathBuf::from("/"),
    };
    let err = import(&ctx, &codex, |_| {}).expect_err("another runtime's transcript");
    assert!(err.is_invalid_input(), "{err}");
    assert!(err.to_string().contains("remaind import codex"), "{err}");
    let ledger = remaind_ledger::Ledger::open(ctx.root()).expect("open");
    assert_eq!(ledger.head().expect("head").0, 0);
}
