//! File primitives that never follow a symlink: checked folders, no-follow and rooted opens
//! that refuse special files without blocking, temp-file-fsync-rename replacement, folder
//! fsync.
#![expect(
    clippy::disallowed_methods,
    reason = "this module is the one owner of opens with custom flags (clippy.toml)"
)]

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};

use camino::{Utf8Component, Utf8Path, Utf8PathBuf};
use rustix::fs::{Mode, OFlags};
use tempfile::NamedTempFile;

use crate::error::{Error, Result};

/// Prefix of every temp file Remaind creates. Entries with this prefix are never trusted and
/// are removed by the next writer that holds the folder's lock ([`clean_temps`]).
pub const TEMP_PREFIX: &str = ".remaind-tmp-";

/// Mode of every file Remaind creates.
pub const FILE_MODE: u32 = 0o600;
/// Mode of every folder Remaind creates.
pub const DIR_MODE: u32 = 0o700;

/// An open of `path` with `O_NOFOLLOW` failed: ELOOP means a symlink was in its place.
fn no_follow_error(action: &'static str, path: &Utf8Path, e: io::Error) -> Error {
    if e.raw_os_error() == Some(libc::ELOOP) {
        Error::Symlink {
            path: path.to_owned(),
        }
    } else {
        Error::io(action, path, e)
    }
}

/// What sits at a path, looked at without following a symlink there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// Nothing.
    Missing,
    /// A real folder.
    Dir,
    /// A regular file.
    File,
    /// A device, FIFO or socket.
    Special,
}

/// Looks at `path` without following it; a symlink is [`Error::Symlink`].
pub fn inspect(path: &Utf8Path) -> Result<Entry> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(Error::Symlink {
            path: path.to_owned(),
        }),
        Ok(m) if m.is_dir() => Ok(Entry::Dir),
        Ok(m) if m.is_file() => Ok(Entry::File),
        Ok(_) => Ok(Entry::Special),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Entry::Missing),
        Err(e) => Err(Error::io("inspect", path, e)),
    }
}

/// Checks that `path` is a real folder (not a symlink). With `create`, a missing folder is
/// created with mode 0700 and its parent fsynced; without, `Ok(false)` reports it missing.
pub fn ensure_dir(path: &Utf8Path, create: bool) -> Result<bool> {
    match inspect(path)? {
        Entry::Dir => Ok(true),
        Entry::File | Entry::Special => Err(Error::NotADirectory {
            path: path.to_owned(),
        }),
        Entry::Missing if !create => Ok(false),
        Entry::Missing => {
            match DirBuilder::new().mode(DIR_MODE).create(path) {
                Ok(()) => {}
                // Someone else made it in between: the check below decides.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(Error::io("create folder", path, e)),
            }
            if inspect(path)? != Entry::Dir {
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

/// Fsyncs a folder so that creations, renames and unlinks inside it are durable. The folder
/// is opened with `O_NOFOLLOW`: a symlink in its place is [`Error::Symlink`].
pub fn sync_dir(dir: &Utf8Path) -> Result<()> {
    open_dir(dir)?
        .sync_all()
        .map_err(|e| Error::io("fsync folder", dir, e))
}

/// Opens a folder for reading (to sync it, list it or set its flags) with `O_NOFOLLOW`: a
/// symlink in its place is [`Error::Symlink`].
pub fn open_dir(dir: &Utf8Path) -> Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(dir)
        .map_err(|e| no_follow_error("open folder", dir, e))
}

/// How [`open_file`] and [`open_beneath`] open a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read only; the file must exist.
    Read,
    /// Read and write; the file must exist.
    ReadWrite,
    /// Read and append, creating the file (0600) if it is missing.
    AppendCreate,
    /// Read and append; the file must exist.
    Append,
    /// Read and write at any offset, creating the file (0600) if it is missing (never
    /// truncated).
    ReadWriteCreate,
}

impl Access {
    fn flags(self) -> OFlags {
        match self {
            Access::Read => OFlags::RDONLY,
            Access::ReadWrite => OFlags::RDWR,
            Access::AppendCreate => OFlags::RDWR | OFlags::APPEND | OFlags::CREATE,
            Access::Append => OFlags::RDWR | OFlags::APPEND,
            Access::ReadWriteCreate => OFlags::RDWR | OFlags::CREATE,
        }
    }
}

const NO_FOLLOW: OFlags = OFlags::NOFOLLOW
    .union(OFlags::NONBLOCK)
    .union(OFlags::CLOEXEC);

/// Opens a regular file without following a symlink at its last component and without
/// blocking on a FIFO or device: a symlink is [`Error::Symlink`], anything but a regular file
/// [`Error::NotAFile`]. A missing file is an [`Error::Io`] whose source is `NotFound`.
pub fn open_file(path: &Utf8Path, access: Access) -> Result<File> {
    let fd = rustix::fs::open(
        path.as_std_path(),
        access.flags() | NO_FOLLOW,
        Mode::from_raw_mode(FILE_MODE),
    )
    .map_err(|e| open_error(path, e))?;
    regular(File::from(fd), path)
}

/// Opens a file a caller names outside `.context/` (a transcript to import) for reading. A
/// symlink is followed (the path is the caller's own), but the open never blocks on a FIFO or
/// device: anything but a regular file is [`Error::NotAFile`].
pub fn open_input(path: &Utf8Path) -> Result<File> {
    let fd = rustix::fs::open(
        path.as_std_path(),
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| Error::io("open", path, io::Error::from(e)))?;
    regular(File::from(fd), path)
}

/// Opens `rel` under the folder `root`, refusing a symlink at every component on the way
/// (each folder is opened relative to the one before with `O_NOFOLLOW`), so nothing can lead
/// the open outside `root`; the file itself is opened as by [`open_file`]. `rel` must be a
/// plain relative path (no `..`, no root).
pub fn open_beneath(root: &Utf8Path, rel: &Utf8Path, access: Access) -> Result<File> {
    let parts: Vec<&str> = rel
        .components()
        .map(|c| match c {
            Utf8Component::Normal(s) => Ok(s),
            _ => Err(Error::io(
                "open",
                &root.join(rel),
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "not a plain relative path inside the folder",
                ),
            )),
        })
        .collect::<Result<_>>()?;
    let Some((name, folders)) = parts.split_last() else {
        return Err(Error::NotAFile {
            path: root.to_owned(),
        });
    };
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut here: Utf8PathBuf = root.to_owned();
    let mut dir = rustix::fs::open(root.as_std_path(), dir_flags, Mode::empty())
        .map_err(|e| open_error(&here, e))?;
    for folder in folders {
        here.push(folder);
        dir = rustix::fs::openat(&dir, *folder, dir_flags, Mode::empty())
            .map_err(|e| open_error(&here, e))?;
    }
    here.push(name);
    let fd = rustix::fs::openat(
        &dir,
        *name,
        access.flags() | NO_FOLLOW,
        Mode::from_raw_mode(FILE_MODE),
    )
    .map_err(|e| open_error(&here, e))?;
    regular(File::from(fd), &here)
}

fn open_error(path: &Utf8Path, e: rustix::io::Errno) -> Error {
    let e = io::Error::from(e);
    match e.raw_os_error() {
        Some(libc::ELOOP) => Error::Symlink {
            path: path.to_owned(),
        },
        // O_NOFOLLOW|O_DIRECTORY on a symlink to a folder reports ENOTDIR on some systems.
        Some(libc::ENOTDIR) if fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink()) => {
            Error::Symlink {
                path: path.to_owned(),
            }
        }
        Some(libc::ENOTDIR) => Error::NotADirectory {
            path: path.to_owned(),
        },
        _ => Error::io("open", path, e),
    }
}

fn regular(file: File, path: &Utf8Path) -> Result<File> {
    let meta = file.metadata().map_err(|e| Error::io("inspect", path, e))?;
    if meta.is_file() {
        Ok(file)
    } else {
        Err(Error::NotAFile {
            path: path.to_owned(),
        })
    }
}

/// Appends one line to `rel` under `root` (created 0600 when missing), as by
/// [`open_beneath`]: a newline inside `line` becomes a space and one ends it, so the file
/// stays one record a line; the record goes in one `write`, so concurrent appenders never
/// interleave inside it. With `sync`, the data is on disk when this returns.
pub fn append_line(root: &Utf8Path, rel: &Utf8Path, line: &[u8], sync: bool) -> Result<()> {
    let mut file = open_beneath(root, rel, Access::AppendCreate)?;
    let mut bytes: Vec<u8> = line
        .iter()
        .map(|&b| if b == b'\n' { b' ' } else { b })
        .collect();
    bytes.push(b'\n');
    let path = root.join(rel);
    file.write_all(&bytes)
        .map_err(|e| Error::io("append to", &path, e))?;
    if sync {
        file.sync_data().map_err(|e| Error::io("sync", &path, e))?;
    }
    Ok(())
}

/// Entries under `root` (itself included, symlinks not followed) that another user could
/// change, each named with its fix: a symlink (Remaind refuses to follow one), an entry
/// writable by group or others, one owned by someone other than the user running Remaind.
/// docs/contract.md#the-folder: files 0600, folders 0700. Sorted; unreadable entries are
/// skipped.
pub fn exposed(root: &Utf8Path) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let me = fs::metadata("/proc/self").map(|m| m.uid()).ok();
    let mut out = Vec::new();
    let mut stack = vec![root.as_std_path().to_path_buf()];
    while let Some(path) = stack.pop() {
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        let mode = meta.mode() & 0o7777;
        if meta.file_type().is_symlink() {
            // A symlink's own mode is always 0777 and says nothing; that it is there does.
            let target = fs::read_link(&path)
                .map(|t| t.display().to_string())
                .unwrap_or_else(|_| "?".to_owned());
            out.push(format!(
                "{} is a symlink (to {target}), which Remaind refuses to follow; replace it \
with the file itself",
                path.display()
            ));
        } else if mode & 0o022 != 0 {
            out.push(format!(
                "{} is writable by group or others (mode {mode:04o}); run `chmod go-w` on it",
                path.display()
            ));
        }
        if me.is_some_and(|uid| uid != meta.uid()) {
            out.push(format!(
                "{} is owned by user {}, not by the user running verify",
                path.display(),
                meta.uid()
            ));
        }
        if meta.is_dir()
            && let Ok(entries) = fs::read_dir(&path)
        {
            stack.extend(entries.flatten().map(|e| e.path()));
        }
    }
    out.sort();
    out
}

/// Reads a regular file as by [`open_file`]. `Ok(None)` if it does not exist.
pub fn read_file(path: &Utf8Path) -> Result<Option<Vec<u8>>> {
    let mut f = match open_file(path, Access::Read) {
        Ok(f) => f,
        Err(Error::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    let len = f.metadata().map_or(0, |m| m.len());
    let mut buf = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    f.read_to_end(&mut buf)
        .map_err(|e| Error::io("read", path, e))?;
    Ok(Some(buf))
}

/// A new temp file in `dir` (0600, created exclusively, named with [`TEMP_PREFIX`]), removed
/// when dropped unless persisted. Write it, [`File::sync_all`] it, then
/// [`NamedTempFile::persist`] it over its target and [`sync_dir`] the folder: that is
/// [`replace_file`], for callers that stream their bytes.
pub fn create_temp(dir: &Utf8Path) -> Result<NamedTempFile> {
    tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)
        .map_err(|e| Error::io("create temp file in", dir, e))
}

/// Replaces `dir/name` with `bytes`: temp file in `dir` (0600, exclusive), write, fsync,
/// rename over the target, fsync `dir`. The target is either its old or its new version at
/// every instant, and durable once this returns.
pub fn replace_file(dir: &Utf8Path, name: &str, bytes: &[u8]) -> Result<()> {
    let target = dir.join(name);
    let mut tmp = create_temp(dir)?;
    let tmp_path =
        Utf8PathBuf::from_path_buf(tmp.path().to_owned()).unwrap_or_else(|_| dir.join(TEMP_PREFIX));
    tmp.write_all(bytes)
        .map_err(|e| Error::io("write", &tmp_path, e))?;
    #[cfg(feature = "failpoints")]
    fail::fail_point!(crate::failpoints::AFTER_TEMP_WRITE, |a| injected(
        a, "write", &tmp_path
    ));
    tmp.as_file()
        .sync_all()
        .map_err(|e| Error::io("fsync", &tmp_path, e))?;
    #[cfg(feature = "failpoints")]
    fail::fail_point!(crate::failpoints::AFTER_FSYNC, |a| injected(
        a, "fsync", &tmp_path
    ));
    // On failure the temp file is dropped, which removes it.
    tmp.persist(&target)
        .map_err(|e| Error::io("rename into place", &target, e.error))?;
    #[cfg(feature = "failpoints")]
    fail::fail_point!(crate::failpoints::AFTER_RENAME, |a| injected(
        a,
        "fsync folder",
        dir
    ));
    sync_dir(dir)
}

/// Renames the staged file `from` over `to` in the same folder (the caller fsyncs the folder):
/// the commit step of a replacement staged ahead of time, e.g. one file of a group.
pub fn rename_into_place(from: &Utf8Path, to: &Utf8Path) -> Result<()> {
    std::fs::rename(from, to).map_err(|e| Error::io("rename into place", to, e))
}

/// Puts the staged file `staged` in place over `target` (same folder; the caller fsyncs it)
/// only if `target` holds exactly `holds` at that instant (`None`: it does not exist), and
/// returns whether it did. A person who saves `target` by any means (a write into it, an
/// editor's rename over it) between the caller's last look and the rename is never
/// overwritten: the rename is an exchange, the version it took out is compared, and a
/// different one is exchanged back (the staged file stays for the caller to discard).
///
/// On success `staged` is gone. A crash at any instant leaves `target` either as it was or
/// holding the staged bytes, and `staged` still naming them until the very end, so a
/// journal that renames `staged` into place again only puts the same file there.
pub fn place_if_unchanged(
    staged: &Utf8Path,
    target: &Utf8Path,
    holds: Option<&[u8]>,
) -> Result<bool> {
    use rustix::fs::{CWD, RenameFlags};
    let dir = target.parent().unwrap_or(Utf8Path::new("."));
    // A second name for the staged file: it is what moves, so `staged` keeps naming the new
    // version (for a journal's roll-forward) until the exchange is known to be right.
    let swap = dir.join(format!(
        "{TEMP_PREFIX}swap-{}-{}",
        std::process::id(),
        SWAP_COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    rustix::fs::linkat(
        CWD,
        staged.as_std_path(),
        CWD,
        swap.as_std_path(),
        rustix::fs::AtFlags::empty(),
    )
    .map_err(|e| Error::io("link", &swap, e.into()))?;
    let flags = if holds.is_some() {
        RenameFlags::EXCHANGE
    } else {
        RenameFlags::NOREPLACE
    };
    match rustix::fs::renameat_with(CWD, swap.as_std_path(), CWD, target.as_std_path(), flags) {
        Ok(()) => {}
        // The file to exchange with is gone, or one exists where none should: a person's.
        Err(rustix::io::Errno::NOENT | rustix::io::Errno::EXIST) => {
            let _ = fs::remove_file(&swap);
            return Ok(false);
        }
        Err(e) => {
            let _ = fs::remove_file(&swap);
            return Err(Error::io("rename into place", target, e.into()));
        }
    }
    if let Some(expected) = holds {
        // `swap` now names the version that was in place an instant ago.
        let taken_out = read_file(&swap).ok().flatten();
        if taken_out.as_deref() != Some(expected) {
            rustix::fs::renameat_with(
                CWD,
                swap.as_std_path(),
                CWD,
                target.as_std_path(),
                RenameFlags::EXCHANGE,
            )
            .map_err(|e| Error::io("put back", target, e.into()))?;
            let _ = fs::remove_file(&swap);
            return Ok(false);
        }
    }
    // `swap` holds the old version (or, after NOREPLACE, nothing: it was renamed away).
    let _ = fs::remove_file(&swap);
    fs::remove_file(staged).map_err(|e| Error::io("remove", staged, e))?;
    Ok(true)
}

/// Makes the second names [`place_if_unchanged`] links distinct within a process.
static SWAP_COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Creates `path` with `bytes` (0600, fsynced, folder fsynced) unless something is already
/// there. Returns whether it was created; an existing symlink is [`Error::Symlink`].
pub fn create_new(path: &Utf8Path, bytes: &[u8]) -> Result<bool> {
    let mut f = match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            return match inspect(path)? {
                Entry::File => Ok(false),
                _ => Err(Error::NotAFile {
                    path: path.to_owned(),
                }),
            };
        }
        Err(e) => return Err(Error::io("create", path, e)),
    };
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(|e| Error::io("write", path, e))?;
    if let Some(parent) = path.parent().filter(|p| !p.as_str().is_empty()) {
        sync_dir(parent)?;
    }
    Ok(true)
}

/// What a failpoint configured with `return(ARG)` does (feature `failpoints` only): `abort`
/// kills the process on the spot (a crash exactly there); `enospc` or anything else injects
/// an I/O error (ENOSPC or EIO) from the step, as the real call would have returned it.
#[cfg(feature = "failpoints")]
pub fn injected<T>(arg: Option<String>, action: &'static str, path: &Utf8Path) -> Result<T> {
    let errno = match arg.as_deref() {
        Some("abort") => std::process::abort(),
        Some("enospc") => libc::ENOSPC,
        _ => libc::EIO,
    };
    Err(Error::io(action, path, io::Error::from_raw_os_error(errno)))
}

/// Removes leftover temp files ([`TEMP_PREFIX`]) from `dir`: crash debris. Only call while
/// holding the lock that every writer of `dir` takes, so none of them is live.
pub fn clean_temps(dir: &Utf8Path) -> Result<()> {
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
pub fn remove_file(dir: &Utf8Path, name: &str) -> Result<bool> {
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

/// Opens (creating with 0600 if needed) a lock file, without following a symlink and
/// refusing anything but a regular file.
pub fn open_lock_file(path: &Utf8Path) -> Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(FILE_MODE)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| no_follow_error("open lock file", path, e))?;
    regular(file, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch() -> (tempfile::TempDir, Utf8PathBuf) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = Utf8PathBuf::from_path_buf(tmp.path().to_owned()).expect("utf-8 temp path");
        (tmp, root)
    }

    fn staged(root: &Utf8Path, bytes: &[u8]) -> Utf8PathBuf {
        let path = root.join(format!("{TEMP_PREFIX}staged"));
        fs::write(&path, bytes).expect("stage");
        path
    }

    /// The new version goes in only over the version the caller read; anything else a person
    /// put there (written into the file or renamed over it) stays, and the staged file with it.
    #[test]
    fn place_if_unchanged_never_replaces_a_version_it_was_not_told_of() {
        let (_tmp, root) = scratch();
        let target = root.join("MEMORY.md");
        fs::write(&target, b"read").expect("write");
        let new = staged(&root, b"rendered");
        assert!(place_if_unchanged(&new, &target, Some(b"read")).expect("place"));
        assert_eq!(fs::read(&target).expect("read"), b"rendered");
        assert!(!new.exists(), "the staged name is gone once it is in place");

        // A person's save since the read: kept, and the staged file left to discard.
        fs::write(&target, b"saved by a person").expect("save");
        let new = staged(&root, b"rendered again");
        assert!(!place_if_unchanged(&new, &target, Some(b"rendered")).expect("place"));
        assert_eq!(fs::read(&target).expect("read"), b"saved by a person");
        assert_eq!(fs::read(&new).expect("staged"), b"rendered again");

        // Gone since the read, or there when it should not be: refused too.
        fs::remove_file(&target).expect("remove");
        assert!(!place_if_unchanged(&new, &target, Some(b"saved by a person")).expect("place"));
        assert!(!target.exists());
        fs::write(&target, b"created by a person").expect("create");
        assert!(!place_if_unchanged(&new, &target, None).expect("place"));
        assert_eq!(fs::read(&target).expect("read"), b"created by a person");
        fs::remove_file(&target).expect("remove");
        assert!(place_if_unchanged(&new, &target, None).expect("place"));
        assert_eq!(fs::read(&target).expect("read"), b"rendered again");
        let left: Vec<_> = fs::read_dir(&root).expect("list").collect();
        assert_eq!(left.len(), 1, "no second name is left behind: {left:?}");
    }

    /// Each call is one line, whatever the record holds, and the file is the owner's alone.
    #[test]
    fn append_line_keeps_one_record_a_line() {
        let (_tmp, root) = scratch();
        let rel = Utf8Path::new("notes.jsonl");
        append_line(&root, rel, b"{\"a\":1}", false).expect("first");
        append_line(&root, rel, b"two\nlines", true).expect("second");
        let bytes = fs::read(root.join(rel)).expect("read");
        assert_eq!(bytes, b"{\"a\":1}\ntwo lines\n");
        let mode = fs::metadata(root.join(rel)).expect("meta").permissions();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
            FILE_MODE
        );
    }

    /// A symlink at the file or on the way is refused and nothing is written through it.
    #[test]
    fn append_line_never_follows_a_symlink() {
        let (_tmp, root) = scratch();
        let outside = root.join("outside.txt");
        fs::write(&outside, b"").expect("outside");
        std::os::unix::fs::symlink(&outside, root.join("link.jsonl")).expect("link");
        std::os::unix::fs::symlink(&root, root.join("dirlink")).expect("dirlink");
        for rel in ["link.jsonl", "dirlink/x.jsonl"] {
            let err = append_line(&root, Utf8Path::new(rel), b"x", false).expect_err(rel);
            assert!(matches!(err, Error::Symlink { .. }), "{rel}: {err:?}");
        }
        assert_eq!(fs::read(&outside).expect("read"), b"");
    }
}
