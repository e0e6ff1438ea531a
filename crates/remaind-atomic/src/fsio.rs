//! The one file operation only history needs (a hard-link snapshot); every other primitive
//! is `remaind-fs`'s.

use std::fs::{self, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;

use camino::Utf8Path;
pub(crate) use remaind_fs::{DIR_MODE, TEMP_PREFIX};

use crate::error::{Error, Result};

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
    remaind_fs::sync_dir(dir)?;
    Ok(true)
}
