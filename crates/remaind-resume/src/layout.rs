//! How the `.context/` folder is found; what lives inside it is `remaind_fs::layout`'s (docs/contract.md#the-folder).

use camino::Utf8Path;

use crate::Error;
use remaind_fs::layout::LOG_PATH;

pub(crate) use remaind_fs::ContextDir;
pub(crate) use remaind_fs::layout::{
    CONTEXT_DIR_NAME, DERIVED_FILES, FRAMING_FILE, HANDOVER_FILE, PACKET_FILE, STATE_FILE,
};

/// Finds the `.context/` folder the way git finds `.git`: an explicit path (from `--dir` or
/// `REMAIND_DIR`, resolved by the caller) wins; else the nearest `.context/` in `cwd` or its
/// parents.
pub fn discover(explicit: Option<&Utf8Path>, cwd: &Utf8Path) -> Result<ContextDir, Error> {
    if let Some(dir) = explicit {
        let dir = if dir.is_absolute() {
            dir.to_owned()
        } else {
            cwd.join(dir)
        };
        let ctx = ContextDir::new(dir);
        if !ctx.is_initialized() {
            return Err(Error::NotInitialized {
                path: ctx.root().to_owned(),
            });
        }
        return Ok(ctx);
    }
    let mut here = Some(cwd);
    while let Some(dir) = here {
        let ctx = ContextDir::new(dir.join(CONTEXT_DIR_NAME));
        // The nearest `.context` entry of any kind decides: a damaged one is reported, never
        // skipped for a parent project's ledger.
        if std::fs::symlink_metadata(ctx.root()).is_ok() {
            return match damage(&ctx) {
                None => Ok(ctx),
                Some(reason) => Err(Error::Damaged {
                    path: ctx.root().to_owned(),
                    reason,
                }),
            };
        }
        here = dir.parent();
    }
    Err(Error::NotFound {
        start: cwd.to_owned(),
    })
}

/// Why `ctx` is not a usable context (symlinks are not followed), or `None` when it is one.
fn damage(ctx: &ContextDir) -> Option<String> {
    let kind = |p: &Utf8Path| std::fs::symlink_metadata(p).map(|m| m.file_type());
    match kind(ctx.root()) {
        Err(_) => return Some("does not exist".to_owned()),
        Ok(t) if t.is_symlink() => {
            return Some("is a symlink; Remaind never follows a symlink to a context".to_owned());
        }
        Ok(t) if !t.is_dir() => return Some("is not a folder".to_owned()),
        Ok(_) => {}
    }
    match kind(&ctx.events_path()) {
        Err(_) => Some(format!(
            "has no {LOG_PATH} (a damaged or partly deleted context)"
        )),
        Ok(t) if t.is_file() => None,
        Ok(t) if t.is_symlink() => Some(format!("{LOG_PATH} is a symlink")),
        Ok(_) => Some(format!(
            "{LOG_PATH} is not a regular file (a folder, FIFO or device)"
        )),
    }
}
