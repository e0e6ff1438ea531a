//! The reliability suite (issue 7): filesystem safety, tamper evidence and, with the
//! `failpoints` feature, fault injection. Crash consistency is `cargo xtask chaos`.

#[cfg(feature = "failpoints")]
mod faults;
mod symlinks;
mod tamper;

use std::collections::BTreeMap;
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
    let dir = base.join(format!(
        "remaind-reliability-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    Tmp(dir)
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
        .args(args)
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

/// A project with an initialized `.context/`, a few events, an accepted compaction and a
/// framing: every derived file and the history exist.
pub(crate) fn project() -> (Tmp, PathBuf) {
    let t = tmp();
    let ctx = t.0.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    let batch = b"{\"kind\":\"user_message\",\"text\":\"Ship the reliability suite\"}\n\
{\"kind\":\"decision\",\"text\":\"Use the fail crate\"}\n\
{\"kind\":\"next_step\",\"text\":\"Write the tests\"}\n";
    ok(&remaind(&ctx, &["log", "--stdin"], Some(batch)));
    ok(&remaind(&ctx, &["compact"], None));
    ok(&remaind(&ctx, &["frame", "--model", "m1"], None));
    (t, ctx)
}

/// Every file under `dir` (not following symlinks) with its bytes, except the derived
/// index (`db/`), lock files and temp files: what "the store" means for before/after checks.
pub(crate) fn store(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            let rel = path.strip_prefix(root).expect("under root").to_owned();
            let name = e.file_name().to_string_lossy().into_owned();
            if rel.starts_with("db") || name.ends_with(".lock") || name.starts_with(".") {
                continue;
            }
            let ty = e.file_type().expect("file type");
            if ty.is_dir() {
                walk(root, &path, out);
            } else if ty.is_file() {
                out.insert(rel, std::fs::read(&path).expect("read"));
            } else if ty.is_symlink() {
                out.insert(rel, b"<symlink>".to_vec());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}
