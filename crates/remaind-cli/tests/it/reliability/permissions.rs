//! An operating-system error reaches the user with its cause, once: the CLI prints the whole
//! error chain, and no layer repeats its source in its own message.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use super::{ok, remaind, tmp};

/// The uid the command runs as when the tests run as root (root reads any file).
const NOBODY: u32 = 65534;

fn chown_tree(path: &Path, uid: u32) {
    std::os::unix::fs::lchown(path, Some(uid), Some(uid)).expect("chown");
    if path.is_dir() && !path.is_symlink() {
        for entry in std::fs::read_dir(path).expect("list") {
            chown_tree(&entry.expect("entry").path(), uid);
        }
    }
}

#[test]
fn a_permission_error_shows_its_cause_and_the_path_once() {
    let t = tmp();
    let ctx = t.0.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    ok(&remaind(
        &ctx,
        &["log", "--kind", "note", "--text", "before the lockout"],
        None,
    ));
    let log = ctx.join("logs/events.jsonl");
    let root = rustix::process::geteuid().is_root();
    if root {
        chown_tree(&ctx, NOBODY);
    }
    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o000)).expect("chmod");

    let mut cmd = Command::new(env!("CARGO_BIN_EXE_remaind"));
    cmd.arg("--dir")
        .arg(&ctx)
        .args(["events", "--json"])
        .env_remove("REMAIND_DIR")
        .stdin(Stdio::null());
    if root {
        cmd.uid(NOBODY).gid(NOBODY);
    }
    let out = cmd.output().expect("run remaind");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "a runtime failure: {stderr}");
    assert_eq!(
        stderr.matches("Permission denied").count(),
        1,
        "the cause, exactly once: {stderr}"
    );
    assert!(
        stderr.contains(&log.display().to_string()),
        "the file is named: {stderr}"
    );
}
