//! How the `.context/` folder is found; what lives inside it is `remaind_fs::layout`'s (docs/contract.md#the-folder).

use camino::Utf8Path;

use crate::Error;

pub use remaind_fs::ContextDir;
pub use remaind_fs::layout::{
    CONTEXT_DIR_NAME, DERIVED_FILES, DIR_ENV, FRAMING_FILE, HANDOVER_FILE, PACKET_FILE, STATE_FILE,
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
        if ctx.is_initialized() {
            return Ok(ctx);
        }
        here = dir.parent();
    }
    Err(Error::NotFound {
        start: cwd.to_owned(),
    })
}
