//! The file primitives this crate uses: the shared ones from `remaind-fs` (with this crate's
//! error type), and the hard-link snapshot only history needs.

use std::fs::{self, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;

use camino::Utf8Path;
pub(crate) use remaind_fs::{DIR_MODE, Entry as Kind, TEMP_PREFIX};

use crate::error::{Error, Result};

/// Looks at `path` without following it; a symlink is an error.
pub(crate) fn kind(path: &Utf8Path) -> Result<Kind> {
    Ok(remaind_fs::inspect(path)?)
}

/// Checks that `path` is a real folder, creating it (0700) with `create`.
pub(crate) fn ensure_dir(path: &Utf8Path, create: bool) -> Result<bool> {
    Ok(remaind_fs::ensure_dir(path, create)?)
}

/// Fsyncs a folder, never through a symlink.
pub(crate) fn sync_dir(dir: &Utf8Path) -> Result<()> {
    Ok(remaind_fs::sync_dir(dir)?)
}

/// Reads a regular file without following a symlink or blocking on a FIFO.
pub(crate) fn read_file(path: &Utf8Path) -> Result<Option<Vec<u8>>> {
    Ok(remaind_fs::read_file(path)?)
}

/// Atomically replaces `dir/name` with `bytes`.
pub(crate) fn replace_file(dir: &Utf8Path, name: &str, bytes: &[u8]) -> Result<()> {
    Ok(remaind_fs::replace_file(dir, name, bytes)?)
}

/// Removes leftover temp files from `dir`; only with the store lock held.
pub(crate) fn clean_temps(dir: &Utf8Path) -> Result<()> {
    Ok(remaind_fs::clean_temps(dir)?)
}

/// Removes `dir/name` and fsyncs `dir`; `Ok(false)` if it was already gone.
pub(crate) fn remove_file(dir: &Utf8Path, name: &str) -> Result<bool> {
    Ok(remaind_fs::remove_file(dir, name)?)
}

/// Opens (creating if needed) the lock file, never through a symlink.
pub(crate) fn open_lock_file(path: &Utf8Path) -> Result<std::fs::File> {
    Ok(remaind_fs::open_lock_file(path)?)
}

/// An injected failure (feature `failpoints` only), as [`remaind_fs::injected`].
#[cfg(feature = "failpoints")]
pub(crate) fn injected<T>(arg: Option<String>, action: &'static str, path: &Utf8Path) -> Result<T> {
    Ok(remaind_fs::injected(arg, action, path)?)
}

/// Records the current file `src` (whose contents the caller read as `len` bytes) as
/// `dir/name` by a hard link rather than a copy: no bytes are written, and the next
/// replacement of `src` (a rename of a new file over it) leaves the old inode to history
/// alone. Only done when that is safe: `src` is a regular file of exactly `len` bytes,
/// private (no group/other bits) and linked nowhere else, so nothing but history ever points
/// at it after the replacement. Its contents are fsynced first (free when already durable)
/// and `dir` after. `Ok(false)` when linking is not possible here (the caller copies).
pub(crate) fn link_snapshot(src: &Utf8Path, dir: &Utf8Path, name: &str, len: u64) -> Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let Ok(file) = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(src)
    else {
        return Ok(false);
    };
    let meta = file.metadata().map_err(|e| Error::io("inspect", src, e))?;
    if !meta.is_file() || meta.len() != len || meta.mode() & 0o077 != 0 || meta.nlink() != 1 {
        return Ok(false);
    }
    file.sync_all().map_err(|e| Error::io("fsync", src, e))?;
    let entry = dir.join(name);
    if fs::hard_link(src, &entry).is_err() {
        return Ok(false);
    }
    // The name may have been swapped between the open and the link: keep the entry only if it
    // is the inode that was checked.
    let same = fs::symlink_metadata(&entry)
        .is_ok_and(|m| m.is_file() && m.ino() == meta.ino() && m.dev() == meta.dev());
    if !same {
        let _ = fs::remove_file(&entry);
        return Ok(false);
    }
    fail::fail_point!("atomic.after-link", |a| injected(a, "fsync folder", dir));
    sync_dir(dir)?;
    Ok(true)
}
