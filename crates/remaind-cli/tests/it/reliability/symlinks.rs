//! Filesystem safety: a symlink anywhere inside `.context/` pointing outside is refused,
//! never followed (nothing written outside, a clear error); permissions stay 0600/0700;
//! a `.context/` open to group or others is reported by `verify`.

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;

use super::{Tmp, ok, project, remaind, store, text, tmp};

/// An outside folder holding one file, and a snapshot check that nothing changed there.
struct Outside {
    _tmp: Tmp,
    dir: std::path::PathBuf,
}

impl Outside {
    fn new() -> Self {
        let t = tmp();
        let dir = t.0.join("outside");
        std::fs::create_dir(&dir).expect("mkdir outside");
        std::fs::write(dir.join("victim"), b"do not touch").expect("write victim");
        Outside { _tmp: t, dir }
    }
    fn victim(&self) -> std::path::PathBuf {
        self.dir.join("victim")
    }
    fn assert_untouched(&self, what: &str) {
        let mut names: Vec<_> = std::fs::read_dir(&self.dir)
            .expect("list outside")
            .map(|e| e.expect("entry").file_name())
            .collect();
        names.sort();
        assert_eq!(
            names,
            vec![std::ffi::OsString::from("victim")],
            "{what}: something was written outside"
        );
        assert_eq!(
            std::fs::read(self.victim()).expect("victim"),
            b"do not touch",
            "{what}: the outside file changed"
        );
    }
}

/// Replaces `path` (file or folder) with a symlink to `target`.
fn plant(path: &Path, target: &Path) {
    if path.is_dir() && !path.is_symlink() {
        std::fs::remove_dir_all(path).expect("remove folder");
    } else {
        let _ = std::fs::remove_file(path);
    }
    symlink(target, path).expect("symlink");
}

fn assert_refused(out: &std::process::Output, what: &str) {
    let msg = text(out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{what}: expected exit 1, got {:?}: {msg}",
        out.status
    );
    assert!(!msg.contains("panicked"), "{what}: panicked: {msg}");
    assert!(
        msg.contains("remaind: error:"),
        "{what}: no clear error: {msg}"
    );
}

#[test]
fn symlinked_derived_file_is_refused() {
    let (_t, ctx) = project();
    let out = Outside::new();
    plant(&ctx.join("active/state.json"), &out.victim());
    ok(&remaind(
        &ctx,
        &["log", "--kind", "note", "--text", "more"],
        None,
    ));
    let r = remaind(&ctx, &["compact"], None);
    assert_refused(&r, "active/state.json");
    out.assert_untouched("active/state.json");
    assert!(
        ctx.join("active/state.json").is_symlink(),
        "the link was replaced silently"
    );
}

#[test]
fn symlinked_framing_is_refused() {
    let (_t, ctx) = project();
    let out = Outside::new();
    plant(&ctx.join("active/framing.json"), &out.victim());
    let r = remaind(&ctx, &["frame", "--model", "m2"], None);
    assert_refused(&r, "active/framing.json");
    out.assert_untouched("active/framing.json");
}

#[test]
fn symlinked_history_folder_is_refused() {
    let (_t, ctx) = project();
    let out = Outside::new();
    plant(&ctx.join("active/history"), &out.dir);
    let r = remaind(&ctx, &["frame", "--model", "m2"], None);
    assert_refused(&r, "active/history");
    out.assert_untouched("active/history");
}

#[test]
fn symlinked_active_folder_is_refused() {
    let (_t, ctx) = project();
    let out = Outside::new();
    plant(&ctx.join("active"), &out.dir);
    let r = remaind(&ctx, &["frame", "--model", "m2"], None);
    assert_refused(&r, "active/");
    out.assert_untouched("active/");
}

#[test]
fn symlinked_artifact_fan_out_folder_is_refused() {
    let (_t, ctx) = project();
    let out = Outside::new();
    let payload = "routed to artifacts ".repeat(5000);
    let sha = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(payload.as_bytes()))
    };
    std::fs::create_dir_all(ctx.join("artifacts")).expect("artifacts");
    plant(&ctx.join("artifacts").join(&sha[..2]), &out.dir);
    let log_before = std::fs::read(ctx.join("logs/events.jsonl")).expect("log");
    let r = remaind(&ctx, &["log", "--kind", "note", "--text", &payload], None);
    assert_refused(&r, "artifacts/<fan-out>");
    out.assert_untouched("artifacts/<fan-out>");
    assert_eq!(
        std::fs::read(ctx.join("logs/events.jsonl")).expect("log"),
        log_before,
        "an event citing an unwritten artifact was appended"
    );
}

#[test]
fn symlinked_log_is_refused() {
    let (_t, ctx) = project();
    let out = Outside::new();
    plant(&ctx.join("logs/events.jsonl"), &out.victim());
    let r = remaind(&ctx, &["log", "--kind", "note", "--text", "x"], None);
    assert_refused(&r, "logs/events.jsonl");
    out.assert_untouched("logs/events.jsonl");
}

#[test]
fn symlinked_quarantine_is_refused() {
    let (_t, ctx) = project();
    let out = Outside::new();
    plant(&ctx.join("logs/quarantine"), &out.dir);
    // A torn tail: recovery would write it to quarantine.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(ctx.join("logs/events.jsonl"))
        .expect("open log");
    std::io::Write::write_all(&mut f, b"{\"v\":1,\"seq\":9").expect("tear");
    let r = remaind(&ctx, &["verify"], None);
    assert_refused(&r, "logs/quarantine");
    out.assert_untouched("logs/quarantine");
}

#[test]
fn symlinked_db_folder_is_refused() {
    let (_t, ctx) = project();
    let out = Outside::new();
    plant(&ctx.join("db"), &out.dir);
    let r = remaind(&ctx, &["reindex"], None);
    assert_refused(&r, "db/");
    out.assert_untouched("db/");
}

#[test]
fn artifact_paths_cannot_escape() {
    let (_t, ctx) = project();
    for path in [
        "../../etc/passwd",
        "/etc/passwd",
        "artifacts/../redaction.key",
        "artifacts/ab/../../redaction.key",
    ] {
        let r = remaind(&ctx, &["artifact", path], None);
        let msg = text(&r);
        assert!(!r.status.success(), "artifact {path} was served: {msg}");
        assert!(!msg.contains("root:"), "artifact {path} leaked /etc/passwd");
        assert!(!msg.contains("panicked"), "{msg}");
    }
}

fn modes(dir: &Path, out: &mut Vec<(std::path::PathBuf, u32, bool)>) {
    for e in std::fs::read_dir(dir).expect("list").flatten() {
        let meta = std::fs::symlink_metadata(e.path()).expect("meta");
        let mode = meta.permissions().mode() & 0o777;
        out.push((e.path(), mode, meta.is_dir()));
        if meta.is_dir() {
            modes(&e.path(), out);
        }
    }
}

#[test]
fn permissions_stay_private_after_every_operation() {
    let (_t, ctx) = project();
    let payload = "a large payload ".repeat(5000);
    let steps: Vec<Vec<&str>> = vec![
        vec!["log", "--kind", "result", "--text", "done"],
        vec!["log", "--kind", "note", "--text", &payload],
        vec!["compact"],
        vec!["frame", "--model", "m3"],
        vec!["resume"],
        vec!["reindex"],
        vec!["search", "payload"],
        vec!["verify"],
    ];
    for step in &steps {
        let _ = remaind(&ctx, step, None);
        let mut all = Vec::new();
        modes(&ctx, &mut all);
        for (path, mode, is_dir) in all {
            let want = if is_dir { 0o700 } else { 0o600 };
            assert_eq!(
                mode,
                want,
                "after `remaind {}`: {} has mode {mode:o}",
                step[0],
                path.display()
            );
        }
    }
    let mut list: Vec<_> = std::fs::read_dir(&ctx)
        .expect("ls")
        .map(|e| e.expect("e").file_name())
        .collect();
    list.sort();
    let _ = store(&ctx);
    assert!(!list.is_empty());
}

#[test]
fn verify_reports_a_context_open_to_others() {
    let (_t, ctx) = project();
    ok(&remaind(&ctx, &["verify"], None));
    for (path, mode) in [
        (ctx.clone(), 0o770),
        (ctx.clone(), 0o707),
        (ctx.join("logs"), 0o777),
    ] {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod");
        let r = remaind(&ctx, &["verify"], None);
        assert_eq!(
            r.status.code(),
            Some(1),
            "verify passed with {} at {mode:o}: {}",
            path.display(),
            text(&r)
        );
        assert!(
            text(&r).contains("writable")
                || text(&r).contains("permission")
                || text(&r).contains("mode"),
            "{}",
            text(&r)
        );
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700))
            .expect("chmod back");
    }
    ok(&remaind(&ctx, &["verify"], None));
}

/// Owned by another user: only testable as root (chown needs it).
#[test]
fn verify_reports_a_context_owned_by_another_user() {
    use std::os::unix::fs::MetadataExt;
    let me = std::fs::metadata("/proc/self")
        .map(|m| m.uid())
        .unwrap_or(1);
    if me != 0 {
        return; // not root: cannot chown; covered by the mode test above
    }
    let (_t, ctx) = project();
    let state = ctx.join("active/state.json");
    let status = std::process::Command::new("chown")
        .arg("nobody")
        .arg(&state)
        .status()
        .expect("chown");
    assert!(status.success());
    assert_ne!(std::fs::metadata(&state).expect("meta").uid(), 0);
    let r = remaind(&ctx, &["verify"], None);
    assert_eq!(r.status.code(), Some(1), "{}", text(&r));
    assert!(text(&r).contains("owned by user"), "{}", text(&r));
}
