//! The reinjection flag, `db/reinject`: Gemini CLI has no hook after it compresses its
//! history, so its PreCompress leaves the flag and the next prompt hook (BeforeAgent) takes
//! it and injects the packet again. A session start clears it: the packet is in already.

use camino::Utf8PathBuf;
use remaind_fs::ContextDir;

use super::HookOutcome;
use crate::error::chain_text;

fn path(ctx: &ContextDir) -> Utf8PathBuf {
    ctx.root().join(remaind_fs::layout::REINJECT_PATH)
}

/// Asks the next prompt hook to inject the packet again (a failure is said, never fatal).
pub(super) fn set(ctx: &ContextDir, out: &mut HookOutcome) {
    let path = path(ctx);
    let written = path.parent().map_or(Ok(false), |dir| {
        remaind_fs::ensure_dir(dir, true)?;
        remaind_fs::replace_file(dir, path.file_name().unwrap_or("reinject"), b"compacted\n")
            .map(|()| true)
    });
    if let Err(e) = written {
        out.eprint(&format!(
            "remaind: the packet will not be injected again after the compression: {}",
            chain_text(&e)
        ));
    }
}

/// Whether a compaction asked for the packet again; the request is used up.
pub(super) fn take(ctx: &ContextDir) -> bool {
    let path = path(ctx);
    match path.parent().zip(path.file_name()) {
        Some((dir, name)) => remaind_fs::remove_file(dir, name).unwrap_or(false),
        None => false,
    }
}

/// A session start injects the packet: no later prompt needs it again.
pub(super) fn clear(ctx: &ContextDir) {
    take(ctx);
}
