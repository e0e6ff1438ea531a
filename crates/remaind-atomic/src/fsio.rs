//! Low-level file operations that never follow a symlink: checked folders, no-follow opens,
//! temp-file-fsync-rename replacement and folder fsync.

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::sync::atomic::{AtomicU64, Ordering};

use camino::Utf8Path;

use crate::error::{Error, Result};

/// Prefix of every temp file this crate creates. Entries with this prefix are never trusted and
/// are removed by the next writer (which holds the store lock, so none of them is live).
pub(crate) const TEMP_PREFIX: &str = ".remaind-tmp-";

/// Mode of every file this crate creates.
pub(crate) const FILE_MODE: u32 = 0o600;
/// Mode of every folder this crate creates.
pub(crate) const DIR_MODE: u32 = 0o700;

/// How many unique temp names to try before giving up.
const TEMP_ATTEMPTS: u32 = 64;

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

fn is_eloop(e: &io::Error) -> bool {
    e.raw_os_error() == Some(libc::ELOOP)
}

/// What sits at a path, without following a symlink there.
pub(crate) enum Kind {
    Missing,
    Dir,
    File,
    /// A device, FIFO or socket.
    Other,
}

/// Looks at `path` without following it; a symlink is an error.
pub(crate) fn kind(path: &Utf8Path) -> Result<Kind> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(Error::Symlink {
            path: path.to_owned(),
        }),
        Ok(m) if m.is_dir() => Ok(Kind::Dir),
        Ok(m) if m.is_file() => Ok(Kind::File),
        Ok(_) => Ok(Kind::Other),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Kind::Missing),
        Err(e) => Err(Error::io("inspect", path, e)),
    }
}

/// Checks that `path` is a real folder (not a symlink). With `create`, a missing folder is
/// created with mode 0700 and its parent fsynced; without, `Ok(false)` reports it missing.
pub(crate) fn ensure_dir(path: &Utf8Path, create: bool) -> Result<bool> {
    match kind(path)? {
        Kind::Dir => Ok(true),
        Kind::File | Kind::Other => Err(Error::NotADirectory {
            path: path.to_owned(),
        }),
        Kind::Missing if !create => Ok(false),
        Kind::Missing => {
            match DirBuilder::new().mode(DIR_MODE).create(path) {
                Ok(()) => {}
                // Someone else made it in between: fall through to the check below.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(Error::io("create folder", path, e)),
            }
            if !matches!(kind(path)?, Kind::Dir) {
                return Err(Error::NotADirectory {
                    path: path.to_owned(),
                });
            }
            if let Some(parent) = path.parent().filter(|p| !p.as_str().is_empty()) {
                sync_dir(parent)?;
            }
            Ok(true)
        }
    }
}

/// Fsyncs a folder so that renames and unlinks inside it are durable.
pub(crate) fn sync_dir(dir: &Utf8Path) -> Result<()> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
        .open(dir)
        .map_err(|e| {
            if is_eloop(&e) {
                Error::Symlink {
                    path: dir.to_owned(),
                }
            } else {
                Error::io("open folder", dir, e)
            }
        })?;
    f.sync_all().map_err(|e| Error::io("fsync folder", dir, e))
}

/// Reads a regular file without following a symlink at its last component.
/// `Ok(None)` if it does not exist. Never blocks on a FIFO.
pub(crate) fn read_file(path: &Utf8Path) -> Result<Option<Vec<u8>>> {
    let mut f = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if is_eloop(&e) => {
            return Err(Error::Symlink {
                path: path.to_owned(),
            });
        }
        Err(e) => return Err(Error::io("open", path, e)),
    };
    let meta = f.metadata().map_err(|e| Error::io("inspect", path, e))?;
    if !meta.is_file() {
        return Err(Error::NotAFile {
            path: path.to_owned(),
        });
    }
    let mut buf = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    f.read_to_end(&mut buf)
        .map_err(|e| Error::io("read", path, e))?;
    Ok(Some(buf))
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

/// Replaces `dir/name` with `bytes`: temp file in `dir` (0600, exclusive, no-follow), write,
/// fsync, rename over the target, fsync `dir`. The target is either its old or its new
/// version at every instant.
pub(crate) fn replace_file(dir: &Utf8Path, name: &str, bytes: &[u8]) -> Result<()> {
    replace_file_with(dir, name, bytes, true)
}

/// [`replace_file`] for the store's own bookkeeping (the group journal): the same steps
/// without the failpoints, so injected faults count only the steps of the files themselves.
pub(crate) fn replace_file_quiet(dir: &Utf8Path, name: &str, bytes: &[u8]) -> Result<()> {
    replace_file_with(dir, name, bytes, false)
}

fn replace_file_with(dir: &Utf8Path, name: &str, bytes: &[u8], faults: bool) -> Result<()> {
    let target = dir.join(name);
    let temp = stage_with(dir, bytes, faults)?;
    let tmp_path = dir.join(&temp);
    if let Err(e) = fs::rename(&tmp_path, &target) {
        // Best effort: the next writer removes leftovers anyway.
        let _ = fs::remove_file(&tmp_path);
        return Err(Error::io("rename into place", &target, e));
    }
    if faults {
        fail::fail_point!("atomic.after-rename", |a| injected(a, "fsync folder", dir));
    }
    sync_dir(dir)
}

/// Writes `bytes` to a new temp file in `dir` (0600, exclusive, no-follow) and fsyncs it;
/// returns its name. The caller renames it into place (or removes it).
pub(crate) fn stage_file(dir: &Utf8Path, bytes: &[u8]) -> Result<String> {
    stage_with(dir, bytes, true)
}

fn stage_with(dir: &Utf8Path, bytes: &[u8], faults: bool) -> Result<String> {
    let (tmp_path, mut tmp) = create_temp(dir)?;
    let result = (|| {
        tmp.write_all(bytes)
            .map_err(|e| Error::io("write", &tmp_path, e))?;
        if faults {
            fail::fail_point!("atomic.after-temp-write", |a| injected(
                a, "write", &tmp_path
            ));
        }
        tmp.sync_all()
            .map_err(|e| Error::io("fsync", &tmp_path, e))?;
        if faults {
            fail::fail_point!("atomic.after-fsync", |a| injected(a, "fsync", &tmp_path));
        }
        Ok(())
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp_path);
        return Err(e);
    }
    Ok(tmp_path.file_name().unwrap_or_default().to_owned())
}

/// What a failpoint configured with `return(ARG)` does (feature `failpoints` only): `abort`
/// kills the process on the spot (a crash exactly there); `enospc` or anything else injects
/// an I/O error (ENOSPC or EIO) from the step, as the real call would have returned it.
#[cfg(feature = "failpoints")]
pub(crate) fn injected<T>(arg: Option<String>, action: &'static str, path: &Utf8Path) -> Result<T> {
    let errno = match arg.as_deref() {
        Some("abort") => std::process::abort(),
        Some("enospc") => libc::ENOSPC,
        _ => libc::EIO,
    };
    Err(Error::io(action, path, io::Error::from_raw_os_error(errno)))
}

fn create_temp(dir: &Utf8Path) -> Result<(camino::Utf8PathBuf, File)> {
    let pid = std::process::id();
    let mut last_err = None;
    for _ in 0..TEMP_ATTEMPTS {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path = dir.join(format!("{TEMP_PREFIX}{pid}-{n}-{nanos}"));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(FILE_MODE)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
        {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last_err = Some(e),
            Err(e) => return Err(Error::io("create temp file", &path, e)),
        }
    }
    Err(Error::io(
        "create temp file in",
        dir,
        last_err.unwrap_or_else(|| io::Error::other("no unique temp name")),
    ))
}

/// Removes leftover temp files from `dir` (crash debris). Only call with the store lock held.
pub(crate) fn clean_temps(dir: &Utf8Path) -> Result<()> {
    let entries = fs::read_dir(dir).map_err(|e| Error::io("list", dir, e))?;
    let mut removed = false;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("list", dir, e))?;
        let name = entry.file_name();
        if name.as_encoded_bytes().starts_with(TEMP_PREFIX.as_bytes()) {
            let Some(name) = name.to_str() else { continue };
            let path = dir.join(name);
            match fs::remove_file(&path) {
                Ok(()) => removed = true,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io("remove stale temp file", &path, e)),
            }
        }
    }
    if removed {
        sync_dir(dir)?;
    }
    Ok(())
}

/// Removes `dir/name` and fsyncs `dir`. `Ok(false)` if it was already gone.
pub(crate) fn remove_file(dir: &Utf8Path, name: &str) -> Result<bool> {
    let path = dir.join(name);
    match fs::remove_file(&path) {
        Ok(()) => {
            sync_dir(dir)?;
            Ok(true)
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io("remove", &path, e)),
    }
}

/// True when `e` is a refusal to write: no permission, or a read-only file system.
pub(crate) fn is_permission(e: &Error) -> bool {
    use std::error::Error as _;
    e.source()
        .and_then(|s| s.downcast_ref::<io::Error>())
        .and_then(io::Error::raw_os_error)
        .is_some_and(|n| n == libc::EACCES || n == libc::EROFS || n == libc::EPERM)
}

/// Opens the lock file read-only (a shared lock needs no write access), without following a
/// symlink or blocking on a FIFO; `None` when it does not exist.
pub(crate) fn open_read_only(path: &Utf8Path) -> Result<Option<File>> {
    match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) if is_eloop(&e) => Err(Error::Symlink {
            path: path.to_owned(),
        }),
        Err(e) => Err(Error::io("open lock file", path, e)),
    }
}

/// Opens (creating with 0600 if needed) the lock file, without following a symlink.
pub(crate) fn open_lock_file(path: &Utf8Path) -> Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(FILE_MODE)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| {
            if is_eloop(&e) {
                Error::Symlink {
                    path: path.to_owned(),
                }
            } else {
                Error::io("open lock file", path, e)
            }
        })
}
