//! Artifacts read back by their hash, a prefix or their marker.

use remaind_fs::ContextDir;
use remaind_service::{Error, LogFlags, LogRequest, artifact, artifacts, log};

fn folder() -> (tempfile::TempDir, ContextDir) {
    crate::common::folder("service-artifact")
}

/// Binary tool output goes to the store; it comes back by its full hash, by a prefix of
/// eight digits and by its marker, and a prefix no artifact has is refused.
#[test]
fn an_artifact_comes_back_by_hash_prefix_or_marker() {
    let (_tmp, ctx) = folder();
    assert!(artifacts(&ctx).expect("list").is_empty());
    let output: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    let flags = LogFlags {
        kind: Some("tool_result".to_owned()),
        tool: Some("dump".to_owned()),
        ..LogFlags::default()
    };
    log(
        &ctx,
        LogRequest::from_flags(&flags, Some(output.clone())).expect("flags"),
    )
    .expect("log");
    let list = artifacts(&ctx).expect("list");
    assert_eq!(list.len(), 1, "{list:?}");
    let hash = &list[0];
    assert_eq!(artifact(&ctx, hash).expect("by hash"), output);
    assert_eq!(artifact(&ctx, &hash[..8]).expect("by prefix"), output);
    let marker = format!("[artifact:{}]", hash[..12].to_ascii_uppercase());
    assert_eq!(artifact(&ctx, &marker).expect("by marker"), output);
    let other = if hash.starts_with('0') {
        "11111111"
    } else {
        "00000000"
    };
    let err = artifact(&ctx, other).expect_err("no such artifact");
    assert!(matches!(err, Error::NoSuchArtifact { .. }), "{err}");
    let err = artifact(&ctx, "abc").expect_err("too short");
    assert!(matches!(err, Error::NotAnArtifactId { .. }), "{err}");
    assert!(err.is_invalid_input());
}
