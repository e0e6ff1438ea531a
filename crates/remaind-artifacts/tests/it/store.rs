//! Put, get, dedup, verify, permissions, hash validation, symlink refusal.

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};

use camino::{Utf8Path, Utf8PathBuf};
use remaind_artifacts::{ArtifactStore, Content, Error};
use sha2::{Digest, Sha256};

fn context() -> (tempfile::TempDir, Utf8PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = Utf8Path::from_path(dir.path())
        .expect("UTF-8 temp path")
        .join(".context");
    fs::create_dir(&path).expect("context dir");
    (dir, path)
}

fn mode(path: &Utf8Path) -> u32 {
    fs::symlink_metadata(path)
        .expect("exists")
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn put_then_get_round_trips_with_content_derived_paths() {
    let (_tmp, ctx) = context();
    let store = ArtifactStore::open(&ctx).expect("opens");
    assert_eq!(mode(&ctx.join("artifacts")), 0o700);
    let bytes = b"hello artifacts\n".repeat(1000);
    let stored = store.put(&bytes, "text/plain").expect("put");
    let sha = hex::encode(Sha256::digest(&bytes));
    assert_eq!(stored.sha256, sha);
    assert_eq!(stored.bytes, bytes.len() as u64);
    assert_eq!(stored.media_type, "text/plain");
    assert_eq!(stored.rel_path, format!("artifacts/{}/{sha}", &sha[..2]));
    assert_eq!(store.get(&sha).expect("get"), bytes);
    store.verify(&sha).expect("verifies");
    let file = ctx.join(&stored.rel_path);
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(file.parent().expect("fan-out")), 0o700);
    // No temp files left behind.
    let names: Vec<_> = fs::read_dir(file.parent().expect("fan-out"))
        .expect("lists")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn empty_and_binary_content() {
    let (_tmp, ctx) = context();
    let store = ArtifactStore::open(&ctx).expect("opens");
    let empty = store.put(b"", "application/octet-stream").expect("put");
    assert_eq!(
        empty.sha256,
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(store.get(&empty.sha256).expect("get"), b"");
    let binary: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    let stored = store.put(&binary, "application/octet-stream").expect("put");
    assert_eq!(store.get(&stored.sha256).expect("get"), binary);
}

#[test]
fn put_deduplicates_and_lists() {
    let (_tmp, ctx) = context();
    let store = ArtifactStore::open(&ctx).expect("opens");
    let a = store.put(b"same", "text/plain").expect("put");
    let file = ctx.join(&a.rel_path);
    let before = fs::metadata(&file)
        .expect("exists")
        .modified()
        .expect("mtime");
    let again = store.put(b"same", "text/plain").expect("put again");
    assert_eq!(a, again);
    assert_eq!(
        fs::metadata(&file)
            .expect("exists")
            .modified()
            .expect("mtime"),
        before
    );
    let b = store.put(b"other", "text/plain").expect("put");
    let mut expected = vec![a.sha256.clone(), b.sha256.clone()];
    expected.sort();
    assert_eq!(store.list().expect("lists"), expected);
    // Reopening sees the same store.
    let reopened = ArtifactStore::open(&ctx).expect("reopens");
    assert_eq!(reopened.list().expect("lists"), expected);
}

#[test]
fn verify_detects_a_flipped_byte_and_put_repairs_it() {
    let (_tmp, ctx) = context();
    let store = ArtifactStore::open(&ctx).expect("opens");
    let stored = store.put(b"precious content", "text/plain").expect("put");
    let file = ctx.join(&stored.rel_path);
    let mut bytes = fs::read(&file).expect("reads");
    bytes[3] ^= 0x01;
    fs::write(&file, &bytes).expect("tampers");
    match store.verify(&stored.sha256) {
        Err(err @ Error::Corrupt { .. }) => {
            assert!(err.to_string().contains(stored.sha256.as_str()), "{err}");
            assert!(err.to_string().contains("artifacts/"), "{err}");
        }
        other => panic!("expected corruption, got {other:?}"),
    }
    store
        .put(b"precious content", "text/plain")
        .expect("put repairs");
    store.verify(&stored.sha256).expect("verifies after repair");
}

#[test]
fn bad_hash_strings_are_rejected_before_any_path() {
    let (_tmp, ctx) = context();
    let store = ArtifactStore::open(&ctx).expect("opens");
    let valid = "a".repeat(64);
    for bad in [
        String::new(),
        "abc".to_owned(),
        "A".repeat(64),
        "g".repeat(64),
        "a".repeat(63),
        "a".repeat(65),
        format!("../{}", "a".repeat(61)),
        format!("{}/../../etc/passwd", &valid[..2]),
        "aa/".to_owned() + &"a".repeat(61),
        "é".repeat(32),
    ] {
        assert!(
            matches!(store.get(&bad), Err(Error::InvalidHash { .. })),
            "{bad:?}"
        );
        assert!(matches!(store.verify(&bad), Err(Error::InvalidHash { .. })));
    }
    assert!(matches!(store.get(&valid), Err(Error::NotFound { .. })));
}

#[test]
fn symlinked_artifacts_dir_is_refused() {
    let (tmp, ctx) = context();
    let elsewhere = Utf8Path::from_path(tmp.path())
        .expect("UTF-8")
        .join("elsewhere");
    fs::create_dir(&elsewhere).expect("dir");
    symlink(&elsewhere, ctx.join("artifacts")).expect("link");
    assert!(matches!(
        ArtifactStore::open(&ctx),
        Err(Error::Symlink { .. })
    ));
}

#[test]
fn symlinks_inside_the_store_are_refused() {
    let (tmp, ctx) = context();
    let store = ArtifactStore::open(&ctx).expect("opens");
    let outside = Utf8Path::from_path(tmp.path())
        .expect("UTF-8")
        .join("outside");
    fs::write(&outside, b"not yours").expect("write");
    let sha = hex::encode(Sha256::digest(b"not yours"));

    // A symlinked artifact file.
    let fan_out = ctx.join("artifacts").join(&sha[..2]);
    fs::create_dir(&fan_out).expect("fan-out");
    symlink(&outside, fan_out.join(&sha)).expect("link");
    assert!(matches!(store.get(&sha), Err(Error::Symlink { .. })));
    assert!(matches!(
        store.put(b"not yours", "text/plain"),
        Err(Error::Symlink { .. })
    ));
    assert!(matches!(store.list(), Err(Error::Symlink { .. })));
    assert_eq!(fs::read(&outside).expect("reads"), b"not yours");

    // A symlinked fan-out folder.
    fs::remove_file(fan_out.join(&sha)).expect("unlink");
    fs::remove_dir(&fan_out).expect("rmdir");
    let outside_dir = Utf8Path::from_path(tmp.path())
        .expect("UTF-8")
        .join("outside_dir");
    fs::create_dir(&outside_dir).expect("dir");
    symlink(&outside_dir, &fan_out).expect("link");
    assert!(matches!(
        store.put(b"not yours", "text/plain"),
        Err(Error::Symlink { .. })
    ));
    assert!(matches!(store.get(&sha), Err(Error::Symlink { .. })));
    assert!(matches!(store.list(), Err(Error::Symlink { .. })));
    assert_eq!(fs::read_dir(&outside_dir).expect("lists").count(), 0);

    // The store folder swapped for a link after opening.
    fs::remove_file(&fan_out).expect("unlink");
    let artifacts = ctx.join("artifacts");
    fs::rename(&artifacts, ctx.join("moved")).expect("move");
    symlink(&outside_dir, &artifacts).expect("link");
    assert!(matches!(
        store.put(b"x", "text/plain"),
        Err(Error::Symlink { .. })
    ));
    assert!(matches!(store.list(), Err(Error::Symlink { .. })));
}

#[test]
fn wrong_types_and_missing_context_are_errors() {
    let (tmp, ctx) = context();
    let missing = Utf8Path::from_path(tmp.path()).expect("UTF-8").join("nope");
    assert!(matches!(
        ArtifactStore::open(&missing),
        Err(Error::Io { .. })
    ));
    fs::write(ctx.join("artifacts"), b"a file").expect("write");
    assert!(matches!(
        ArtifactStore::open(&ctx),
        Err(Error::WrongType { .. })
    ));
}

#[test]
fn list_skips_foreign_names() {
    let (_tmp, ctx) = context();
    let store = ArtifactStore::open(&ctx).expect("opens");
    let stored = store.put(b"kept", "text/plain").expect("put");
    let fan_out = ctx.join("artifacts").join(&stored.sha256[..2]);
    fs::write(fan_out.join(".tmp-1-2-x"), b"partial").expect("write");
    fs::write(fan_out.join("README"), b"x").expect("write");
    fs::create_dir(ctx.join("artifacts").join("zz")).expect("dir");
    fs::write(ctx.join("artifacts").join("notes.txt"), b"x").expect("write");
    assert_eq!(store.list().expect("lists"), vec![stored.sha256]);
}

/// Every file under the store's folder, relative to it, sorted.
fn files(root: &Utf8Path) -> Vec<String> {
    let mut out = Vec::new();
    for dir in fs::read_dir(root).expect("lists") {
        let dir = dir.expect("entry").path();
        for f in fs::read_dir(&dir).expect("lists") {
            let f = f.expect("entry").path();
            out.push(
                f.strip_prefix(root)
                    .expect("inside")
                    .to_string_lossy()
                    .into_owned(),
            );
        }
    }
    out.sort();
    out
}

#[test]
fn staged_artifacts_appear_only_when_published() {
    let (_tmp, ctx) = context();
    let store = ArtifactStore::open(&ctx).expect("opens");
    let a = Content::new(b"first artifact".to_vec());
    let b = Content::new(b"second artifact".to_vec());
    assert_eq!(a.sha256(), hex::encode(Sha256::digest(b"first artifact")));
    let staged = vec![
        store.stage(&a, "text/plain").expect("stages"),
        store.stage(&b, "text/plain").expect("stages"),
    ];
    assert_eq!(staged[0].stored().sha256, a.sha256());
    // Staged but not published: only temp files, which listing skips.
    assert!(store.list().expect("lists").is_empty());
    store.publish(staged).expect("publishes");
    let mut expected = vec![a.sha256().to_owned(), b.sha256().to_owned()];
    expected.sort();
    assert_eq!(store.list().expect("lists"), expected);
    assert_eq!(store.get(a.sha256()).expect("get"), b"first artifact");
    // No temp file is left behind.
    let all = files(&ctx.join("artifacts"));
    assert!(all.iter().all(|f| !f.contains(".tmp-")), "{all:?}");
    // Staging what is already stored writes nothing and publishes nothing new.
    let again = store.stage(&a, "text/plain").expect("stages");
    store.publish(vec![again]).expect("publishes");
    assert_eq!(files(&ctx.join("artifacts")), all);
}

#[test]
fn staged_artifacts_dropped_unpublished_leave_no_file() {
    let (_tmp, ctx) = context();
    let store = ArtifactStore::open(&ctx).expect("opens");
    let staged = store
        .stage(&Content::new(b"never published".to_vec()), "text/plain")
        .expect("stages");
    assert_eq!(files(&ctx.join("artifacts")).len(), 1, "the temp file");
    drop(staged);
    assert!(files(&ctx.join("artifacts")).is_empty());
    assert!(store.list().expect("lists").is_empty());
}
