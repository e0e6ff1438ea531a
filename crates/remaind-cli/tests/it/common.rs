//! Helpers shared by the CLI test modules: temporary folders and running the binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

/// A fresh temporary folder (removed on drop).
pub(crate) struct Tmp(pub(crate) PathBuf);

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(crate) fn tmp() -> Tmp {
    static N: AtomicU32 = AtomicU32::new(0);
    let base = if Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = base.join(format!(
        "remaind-cli-test-{}-{}-{nanos}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    Tmp(dir)
}

/// Whether this run puts every folder on a shared store (`REMAIND_TEST_ON_STORE`).
pub(crate) use remaind_testkit::on_store;

/// `args`, with `--store URL --project NAME` (a new project) added to an `init` when the suite
/// runs on a shared store: the folder becomes a replica, and its `store.json` puts every
/// later command, hook and server on the store.
pub(crate) fn store_args(args: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    if on_store() && args.first() == Some(&"init") && !args.contains(&"--store") {
        out.push("--store".into());
        out.push(remaind_testkit::postgres_url());
        out.push("--project".into());
        out.push(remaind_testkit::unique_project("cli"));
    }
    out
}

/// Runs `remaind --dir CTX ARGS` with `env` set (FAILPOINTS unset unless given).
pub(crate) fn remaind_env(
    ctx: &Path,
    args: &[&str],
    stdin: Option<&[u8]>,
    env: &[(&str, &str)],
) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_remaind"));
    cmd.arg("--dir")
        .arg(ctx)
        .args(store_args(args))
        .env_remove("REMAIND_DIR")
        .env_remove("FAILPOINTS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn remaind");
    if let Some(bytes) = stdin {
        let mut si = child.stdin.take().expect("stdin");
        si.write_all(bytes).expect("write stdin");
    }
    child.wait_with_output().expect("wait remaind")
}

pub(crate) fn remaind(ctx: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    remaind_env(ctx, args, stdin, &[])
}

/// `remaind log --kind KIND --text TEXT`, which must succeed; its stdout.
pub(crate) fn log(ctx: &Path, kind: &str, text: &str) -> String {
    ok(&remaind(
        ctx,
        &["log", "--kind", kind, "--text", text],
        None,
    ))
}

pub(crate) fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "remaind failed: {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub(crate) fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `remaind mcp` on `ctx`, its stdin and stdout piped, stderr dropped.
pub(crate) fn spawn_mcp(ctx: &Path) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_remaind"))
        .arg("--dir")
        .arg(ctx)
        .arg("mcp")
        .env_remove("REMAIND_DIR")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn remaind mcp")
}

/// A read-only bind mount of `src` at `at` (created if missing): what even root cannot write
/// through. `false` when this test cannot mount (not root, no mount rights).
pub(crate) fn mount_read_only(src: &Path, at: &Path) -> bool {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "mkdir -p {at} && mount --bind {src} {at} && mount -o remount,bind,ro {at}",
            at = at.display(),
            src = src.display()
        ))
        .status()
        .is_ok_and(|s| s.success())
}

/// Undoes [`mount_read_only`].
pub(crate) fn unmount(at: &Path) {
    let _ = std::process::Command::new("umount").arg(at).status();
}
