//! The reliability suite (issue 7): filesystem safety, tamper evidence and, with the
//! `failpoints` feature, fault injection. Crash consistency is `cargo xtask chaos`.

mod attack;
#[cfg(feature = "failpoints")]
mod faults;
mod hardening2;
mod memory_attack;
mod permissions;
mod symlinks;
mod tamper;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(crate) use crate::common::{Tmp, ok, remaind, text, tmp};

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

/// No file under `.context/` holds `needle`.
pub(crate) fn assert_nowhere(ctx: &Path, needle: &str, what: &str) {
    for (path, bytes) in store(ctx) {
        assert!(
            !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
            "{what}: {} holds {needle:?} verbatim",
            path.display()
        );
    }
}
