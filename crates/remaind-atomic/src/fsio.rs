//! The one file operation only history needs (a hard-link snapshot); every other primitive
//! is `remaind-fs`'s.

use std::fs;

use std::io::Write;

use camino::{Utf8Path, Utf8PathBuf};
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
    let Ok(file) = remaind_fs::open_file(src, remaind_fs::Access::Read) else {
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
    fail::fail_point!(crate::failpoints::AFTER_LINK, |a| injected(
        a,
        "fsync folder",
        dir
    ));
    remaind_fs::sync_dir(dir)?;
    Ok(true)
}

/// Writes the store's own bookkeeping file (the group journal) as `remaind_fs::replace_file`
/// does, without its failpoints, so injected faults count only the steps of the files.
pub(crate) fn write_journal_file(dir: &Utf8Path, name: &str, bytes: &[u8]) -> Result<()> {
    let target = dir.join(name);
    let mut tmp = remaind_fs::create_temp(dir)?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| Error::io("write", &target, e))?;
    tmp.persist(&target)
        .map_err(|e| Error::io("rename into place", &target, e.error))?;
    Ok(remaind_fs::sync_dir(dir)?)
}

/// Writes `bytes` to a new temp file in `dir` (0600, exclusive) and fsyncs it; returns its
/// name. The caller renames it into place (or removes it).
pub(crate) fn stage_file(dir: &Utf8Path, bytes: &[u8]) -> Result<String> {
    let mut tmp = remaind_fs::create_temp(dir)?;
    let tmp_path =
        Utf8PathBuf::from_path_buf(tmp.path().to_owned()).unwrap_or_else(|_| dir.join(TEMP_PREFIX));
    tmp.write_all(bytes)
        .map_err(|e| Error::io("write", &tmp_path, e))?;
    fail::fail_point!(remaind_fs::failpoints::AFTER_TEMP_WRITE, |a| injected(
        a, "write", &tmp_path
    ));
    tmp.as_file()
        .sync_all()
        .map_err(|e| Error::io("fsync", &tmp_path, e))?;
    fail::fail_point!(remaind_fs::failpoints::AFTER_FSYNC, |a| injected(
        a, "fsync", &tmp_path
    ));
    // On an error above the temp file is dropped, which removes it; here it is kept.
    let (_, path) = tmp
        .keep()
        .map_err(|e| Error::io("keep temp file", &tmp_path, e.error))?;
    Ok(path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_owned())
}

/// Opens the lock file read-only (a shared lock needs no write access), never through a
/// symlink or blocking; `None` when it does not exist.
pub(crate) fn open_read_only(path: &Utf8Path) -> Result<Option<std::fs::File>> {
    match remaind_fs::open_file(path, remaind_fs::Access::Read) {
        Ok(f) => Ok(Some(f)),
        Err(remaind_fs::Error::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}
