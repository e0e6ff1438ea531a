//! The [`ArtifactStore`]: content-addressed files under `artifacts/`.

use std::fs::{self, DirBuilder, File};
use std::io::{self, Read, Write};
use std::os::unix::fs::DirBuilderExt;

use camino::{Utf8Path, Utf8PathBuf};
use serde::{Deserialize, Serialize};

use crate::error::Error;

/// Name of the store's folder inside the context folder.
const ARTIFACTS: &str = remaind_fs::layout::ARTIFACTS_DIR;

/// An artifact as written: where it is and what it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredArtifact {
    /// Path relative to the context folder: `artifacts/<first two hex>/<64 hex>`.
    pub rel_path: String,
    /// SHA-256 of the content, 64 lowercase hex digits.
    pub sha256: String,
    /// Length of the content in bytes.
    pub bytes: u64,
    /// Media type given by the caller (see [`sniff_media_type`](crate::sniff_media_type)).
    pub media_type: String,
}

/// Bytes with their SHA-256, computed once here so that the hash a caller puts in a record and
/// the name the store gives the file always agree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    bytes: Vec<u8>,
    sha256: String,
}

impl Content {
    /// Hashes `bytes`.
    pub fn new(bytes: Vec<u8>) -> Self {
        let sha256 = sha256_hex(&bytes);
        Self { bytes, sha256 }
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Their SHA-256, 64 lowercase hex digits.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }
}

/// An artifact written and synced under a temporary name in its fan-out folder, not yet
/// visible under its own name: [`ArtifactStore::publish`] renames it into place. Dropped
/// unpublished, its temp file is removed, so a failed batch leaves no artifact behind.
#[derive(Debug)]
pub struct Staged {
    stored: StoredArtifact,
    /// The fan-out folder.
    dir: Utf8PathBuf,
    /// Whether staging created the fan-out folder (its entry in `artifacts/` is not synced yet).
    created_dir: bool,
    /// The synced temp file, or `None` when identical content is already in place. Dropping
    /// it unpublished removes it.
    temp: Option<tempfile::NamedTempFile>,
}

impl Staged {
    /// The artifact as it will be once published.
    pub fn stored(&self) -> &StoredArtifact {
        &self.stored
    }
}

/// Content-addressed storage under `<context>/artifacts/`.
///
/// An artifact lives at `artifacts/<h[0..2]>/<h>`, `h` being the SHA-256 of its content in
/// lowercase hex: paths come from the hash only, and every hash a caller passes is validated
/// before it touches a path. Folders are 0700, files 0600, and nothing is ever reached through a
/// symbolic link: a link where the store's folder, a fan-out folder or an artifact belongs is an
/// error. Writes are atomic (temp file in the same folder, fsync, rename, fsync the folder), so a
/// reader sees an artifact whole or not at all.
#[derive(Debug, Clone)]
pub struct ArtifactStore {
    root: Utf8PathBuf,
    /// Whether the allocation hint was given to the store's folder (once per store).
    hinted: std::sync::Arc<std::sync::Once>,
}

fn io_error<'a>(action: &'static str, path: &'a Utf8Path) -> impl FnOnce(io::Error) -> Error + 'a {
    move |source| Error::Io {
        action,
        path: path.to_owned(),
        source,
    }
}

/// Checks that `path` is a real folder (not a link). `Ok(false)` when it does not exist.
fn check_dir(path: &Utf8Path) -> Result<bool, Error> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(Error::Symlink {
            path: path.to_owned(),
        }),
        Ok(meta) if meta.is_dir() => Ok(true),
        Ok(_) => Err(Error::WrongType {
            path: path.to_owned(),
            expected: "directory",
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_error("inspect", path)(e)),
    }
}

/// Makes sure `path` is a real folder, creating it 0700 (and syncing its parent) if missing.
fn ensure_dir(path: &Utf8Path) -> Result<(), Error> {
    if make_dir(path)?
        && let Some(parent) = path.parent()
    {
        remaind_fs::sync_dir(parent)?;
    }
    Ok(())
}

/// Makes sure `path` is a real folder, creating it 0700 if missing; returns whether it was
/// created (its entry in the parent is then not synced yet).
fn make_dir(path: &Utf8Path) -> Result<bool, Error> {
    if check_dir(path)? {
        return Ok(false);
    }
    match DirBuilder::new().mode(0o700).create(path) {
        Ok(()) => Ok(true),
        // Another writer made it first: it must still be a real folder.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            check_dir(path)?;
            Ok(false)
        }
        Err(e) => Err(io_error("create", path)(e)),
    }
}

/// Marks the store's folder as the top of unrelated subfolders (`FS_TOPDIR_FL`, `chattr +T`):
/// on ext3/ext4 the Orlov allocator then spreads the fan-out folders, and the artifacts in
/// them, over the disk's block groups instead of packing them into the group of the context
/// folder, where every new inode would be searched for past the inodes freed recently there.
/// A hint only: file systems without the flag, and every error, are ignored.
fn hint_unrelated_subfolders(path: &Utf8Path) {
    use rustix::fs::{IFlags, ioctl_getflags, ioctl_setflags};
    let Ok(dir) = remaind_fs::open_dir(path) else {
        return;
    };
    if let Ok(flags) = ioctl_getflags(&dir)
        && !flags.contains(IFlags::TOPDIR)
    {
        let _ = ioctl_setflags(&dir, flags | IFlags::TOPDIR);
    }
}

/// Folders synced at once by [`sync_all_dirs`]: each sync mostly waits for the disk.
const SYNC_THREADS: usize = 16;

/// Syncs every folder of `dirs`, several at once.
fn sync_all_dirs(dirs: &[Utf8PathBuf]) -> Result<(), Error> {
    if dirs.len() < 2 {
        return dirs
            .iter()
            .try_for_each(|d| remaind_fs::sync_dir(d).map_err(Error::from));
    }
    let threads = dirs.len().min(SYNC_THREADS);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    dirs.iter()
                        .skip(t)
                        .step_by(threads)
                        .try_for_each(|d| remaind_fs::sync_dir(d).map_err(Error::from))
                })
            })
            .collect();
        let mut result = Ok(());
        for (t, worker) in workers.into_iter().enumerate() {
            let done = worker.join().unwrap_or_else(|_| {
                Err(Error::Io {
                    action: "sync",
                    path: dirs[t].clone(),
                    source: io::Error::other("the syncing thread panicked"),
                })
            });
            if result.is_ok() {
                result = done;
            }
        }
        result
    })
}

/// Opens an existing file for reading without following a link; `Ok(None)` if it is missing.
fn open_no_follow(path: &Utf8Path) -> Result<Option<File>, Error> {
    match remaind_fs::open_file(path, remaind_fs::Access::Read) {
        Ok(file) => Ok(Some(file)),
        Err(e)
            if e.io_error()
                .is_some_and(|io| io.kind() == io::ErrorKind::NotFound) =>
        {
            Ok(None)
        }
        Err(remaind_fs::Error::Symlink { path }) => Err(Error::Symlink { path }),
        Err(remaind_fs::Error::NotAFile { path }) => Err(Error::WrongType {
            path,
            expected: "regular file",
        }),
        Err(e) => Err(e.into()),
    }
}

use remaind_hash::is_sha256_hex;
use remaind_hash::sha256_hex;

fn validate(sha256: &str) -> Result<(), Error> {
    if is_sha256_hex(sha256) {
        Ok(())
    } else {
        Err(Error::InvalidHash {
            given: sha256.chars().take(80).collect(),
        })
    }
}

impl ArtifactStore {
    /// Opens the store of the context folder `context_dir` (the `.context/` folder), creating
    /// `artifacts/` (0700) if it is missing.
    ///
    /// # Errors
    ///
    /// When `context_dir` is not a folder, when `artifacts/` is a link or not a folder, or on
    /// I/O failure.
    pub fn open(context_dir: &Utf8Path) -> Result<Self, Error> {
        let meta = fs::metadata(context_dir).map_err(io_error("open", context_dir))?;
        if !meta.is_dir() {
            return Err(Error::WrongType {
                path: context_dir.to_owned(),
                expected: "directory",
            });
        }
        let root = context_dir.join(ARTIFACTS);
        ensure_dir(&root)?;
        Ok(Self {
            root,
            hinted: std::sync::Arc::new(std::sync::Once::new()),
        })
    }

    /// The store's folder, `<context>/artifacts`.
    pub fn root(&self) -> &Utf8Path {
        &self.root
    }

    /// Where the artifact with this hash lives (whether or not it exists).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidHash`] unless `sha256` is 64 lowercase hex digits.
    pub fn path_of(&self, sha256: &str) -> Result<Utf8PathBuf, Error> {
        validate(sha256)?;
        Ok(self.root.join(&sha256[..2]).join(sha256))
    }

    /// Stores `bytes` and describes the artifact. Storing content that is already there writes
    /// nothing; a stored file that no longer matches its hash is replaced.
    ///
    /// # Errors
    ///
    /// On a link or wrongly typed entry in the store, or on I/O failure; then no artifact file
    /// was created or changed (a temp file may remain only if removing it failed too).
    pub fn put(&self, bytes: &[u8], media_type: &str) -> Result<StoredArtifact, Error> {
        let staged = self.stage_hashed(bytes, sha256_hex(bytes), media_type)?;
        let stored = staged.stored.clone();
        self.publish(vec![staged])?;
        Ok(stored)
    }

    /// Writes `content` to a synced temp file next to where it belongs, without making it
    /// visible: [`publish`](Self::publish) does. Many can be staged at once, from several
    /// threads; only publishing needs to wait for them all.
    ///
    /// # Errors
    ///
    /// As [`put`](Self::put); then nothing was created but possibly the (empty) fan-out folder.
    pub fn stage(&self, content: &Content, media_type: &str) -> Result<Staged, Error> {
        self.stage_hashed(content.bytes(), content.sha256().to_owned(), media_type)
    }

    fn stage_hashed(
        &self,
        bytes: &[u8],
        sha256: String,
        media_type: &str,
    ) -> Result<Staged, Error> {
        validate(&sha256)?;
        let stored = StoredArtifact {
            rel_path: remaind_fs::layout::artifact_path(&sha256),
            sha256,
            bytes: bytes.len() as u64,
            media_type: media_type.to_owned(),
        };
        if !check_dir(&self.root)? {
            return Err(Error::Io {
                action: "open",
                path: self.root.clone(),
                source: io::ErrorKind::NotFound.into(),
            });
        }
        self.hinted
            .call_once(|| hint_unrelated_subfolders(&self.root));
        let dir = self.root.join(&stored.sha256[..2]);
        let created_dir = make_dir(&dir)?;
        let mut staged = Staged {
            stored,
            dir,
            created_dir,
            temp: None,
        };
        let path = staged.dir.join(&staged.stored.sha256);
        if !created_dir && let Some(mut file) = open_no_follow(&path)? {
            let mut existing = Vec::with_capacity(bytes.len());
            file.read_to_end(&mut existing)
                .map_err(io_error("read", &path))?;
            if existing == bytes {
                return Ok(staged);
            }
        }
        let mut temp = remaind_fs::create_temp(&staged.dir)?;
        temp.write_all(bytes)
            .and_then(|()| temp.as_file().sync_all())
            .map_err(io_error("write", &staged.dir.join(remaind_fs::TEMP_PREFIX)))?;
        staged.temp = Some(temp);
        Ok(staged)
    }

    /// Makes staged artifacts visible and durable: renames each into place, then syncs each
    /// fan-out folder once (and the store's folder once if a fan-out folder is new). When this
    /// returns, every one of them survives a crash.
    ///
    /// # Errors
    ///
    /// On I/O failure; artifacts renamed before it stay (they are complete), the others' temp
    /// files are removed.
    pub fn publish(&self, mut staged: Vec<Staged>) -> Result<(), Error> {
        let mut dirs: Vec<Utf8PathBuf> = Vec::new();
        let mut new_dir = false;
        for s in &mut staged {
            new_dir |= s.created_dir;
            if let Some(temp) = s.temp.take() {
                let path = s.dir.join(&s.stored.sha256);
                if let Err(e) = temp.persist(&path) {
                    s.temp = Some(e.file);
                    return Err(io_error("rename into place", &path)(e.error));
                }
                dirs.push(s.dir.clone());
            }
        }
        dirs.sort_unstable();
        dirs.dedup();
        if new_dir {
            dirs.push(self.root.clone());
        }
        sync_all_dirs(&dirs)
    }

    /// The content of the artifact with this hash. Use [`verify`](Self::verify) to check it
    /// still matches its hash.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidHash`] for anything but 64 lowercase hex digits (checked before any path
    /// is formed), [`Error::NotFound`], [`Error::Symlink`] on a link, or I/O failure.
    pub fn get(&self, sha256: &str) -> Result<Vec<u8>, Error> {
        let path = self.path_of(sha256)?;
        let dir = self.root.join(&sha256[..2]);
        if !check_dir(&self.root)? || !check_dir(&dir)? {
            return Err(Error::NotFound {
                sha256: sha256.to_owned(),
            });
        }
        let Some(mut file) = open_no_follow(&path)? else {
            return Err(Error::NotFound {
                sha256: sha256.to_owned(),
            });
        };
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(io_error("read", &path))?;
        Ok(bytes)
    }

    /// Re-hashes the stored artifact.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming the file when its content no longer hashes to its name, and
    /// everything [`get`](Self::get) reports.
    pub fn verify(&self, sha256: &str) -> Result<(), Error> {
        let bytes = self.get(sha256)?;
        let actual = sha256_hex(&bytes);
        if actual == sha256 {
            Ok(())
        } else {
            Err(Error::Corrupt {
                path: self.path_of(sha256)?,
                actual,
            })
        }
    }

    /// The hashes of every stored artifact, sorted. Temp files and names that are not
    /// hashes under their right fan-out folder are skipped.
    ///
    /// # Errors
    ///
    /// [`Error::Symlink`] when the store or a fan-out folder or artifact is a link, or I/O
    /// failure.
    pub fn list(&self) -> Result<Vec<String>, Error> {
        if !check_dir(&self.root)? {
            return Ok(Vec::new());
        }
        let mut hashes = Vec::new();
        for entry in fs::read_dir(&self.root).map_err(io_error("list", &self.root))? {
            let entry = entry.map_err(io_error("list", &self.root))?;
            let Some(prefix) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            if prefix.len() != 2
                || !prefix
                    .bytes()
                    .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            {
                continue;
            }
            let dir = self.root.join(&prefix);
            if !check_dir(&dir)? {
                continue;
            }
            for entry in fs::read_dir(&dir).map_err(io_error("list", &dir))? {
                let entry = entry.map_err(io_error("list", &dir))?;
                let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                    continue;
                };
                if !is_sha256_hex(&name) || !name.starts_with(&prefix) {
                    continue;
                }
                let file_type = entry.file_type().map_err(io_error("inspect", &dir))?;
                if file_type.is_symlink() {
                    return Err(Error::Symlink {
                        path: dir.join(&name),
                    });
                }
                if file_type.is_file() {
                    hashes.push(name);
                }
            }
        }
        hashes.sort();
        Ok(hashes)
    }
}
