//! The store: atomic writes and removals with history, point-in-time reads and restore.

use std::collections::BTreeSet;
use std::fs::{self, File};

use camino::{Utf8Path, Utf8PathBuf};
use jiff::Timestamp;

use crate::error::{Error, Result};
use crate::fsio;
use crate::journal;
use crate::point::{HistoryPoint, format_time};
use crate::rel::{HISTORY_DIR, RelPath};
use remaind_fs::Entry as Kind;

/// Name of the lock file inside the history folder.
const LOCK_FILE: &str = ".lock";

/// A root folder of files replaced atomically, with a history of every prior version in
/// `<root>/history/`.
///
/// Files are named by a path relative to the root (`state.json`, `notes/today.md`): not
/// absolute, no `.` or `..`, not inside `history/`. Writers in any process are serialized by
/// an exclusive lock on `<root>/history/.lock`; readers of history take it shared.
#[derive(Debug, Clone)]
pub struct HistoryStore {
    root: Utf8PathBuf,
    history: Utf8PathBuf,
}

/// What [`HistoryStore::restore_to`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RestoreSummary {
    /// The instant restored to.
    pub to: Timestamp,
    /// Files whose bytes (or existence) changed, in the order given.
    pub changed: Vec<Utf8PathBuf>,
    /// Files that already had their version as of `to`, in the order given.
    pub unchanged: Vec<Utf8PathBuf>,
    /// The history points the restore itself recorded, one per changed file, in order.
    pub points: Vec<HistoryPoint>,
}

impl RestoreSummary {
    /// The restore's own first history point, if it changed anything.
    pub fn first_point(&self) -> Option<&HistoryPoint> {
        self.points.first()
    }

    /// The instant just before the restore (its first point's time minus one microsecond):
    /// restoring the same files to it brings back their exact pre-restore bytes.
    /// `None` if the restore changed nothing.
    pub fn undo_to(&self) -> Option<Timestamp> {
        let first = self.first_point()?;
        Timestamp::from_microsecond(first.time().as_microsecond() - 1).ok()
    }
}

/// The condition of [`HistoryStore::change_all_if`]: what one file must hold for the change
/// to go ahead, and what history keeps of it.
#[derive(Debug, Clone, Copy)]
pub struct Guard<'a> {
    /// The file, relative to the root.
    pub rel: &'a Utf8Path,
    /// The bytes it must hold now (`None`: it must not exist).
    pub holds: Option<&'a [u8]>,
    /// What history records as its prior version, if not the bytes on disk.
    pub record_as: Option<&'a [u8]>,
}

/// One file of a change being made.
struct Staged {
    dir: Utf8PathBuf,
    name: String,
    /// The bytes before the change (`None`: the file did not exist).
    prior: Option<Vec<u8>>,
    point: HistoryPoint,
    /// The staged new version (`None`: a removal, or not staged yet).
    temp: Option<String>,
    new: Option<Vec<u8>>,
}

/// A held store lock; released when dropped (the file is closed). `None` on a store no one
/// can write, read without a lock.
struct Lock {
    _file: Option<File>,
}

impl HistoryStore {
    /// Opens the store rooted at `root`, creating the root (and missing parents) and its
    /// history folder with mode 0700 if they do not exist. Existing folders keep their mode.
    ///
    /// Fails if the root or history folder is a symlink or not a folder.
    pub fn open(root: impl AsRef<Utf8Path>) -> Result<Self> {
        let root = root.as_ref().to_owned();
        if root.as_str().is_empty() {
            return Err(Error::InvalidPath {
                path: root,
                reason: "empty root path",
            });
        }
        match remaind_fs::inspect(&root)? {
            Kind::Dir => {}
            Kind::File | Kind::Special => return Err(Error::NotADirectory { path: root }),
            Kind::Missing => {
                use std::os::unix::fs::DirBuilderExt;
                fs::DirBuilder::new()
                    .recursive(true)
                    .mode(fsio::DIR_MODE)
                    .create(&root)
                    .map_err(|e| Error::io("create folder", &root, e))?;
                remaind_fs::ensure_dir(&root, false)?;
                if let Some(parent) = root.parent().filter(|p| !p.as_str().is_empty()) {
                    remaind_fs::sync_dir(parent)?;
                }
            }
        }
        let history = root.join(HISTORY_DIR);
        remaind_fs::ensure_dir(&history, true)?;
        // The lock file exists before any writer needs it, so readers always lock (a store
        // that cannot be written gets none, and needs none).
        let lock = history.join(LOCK_FILE);
        if !matches!(remaind_fs::inspect(&lock), Ok(Kind::File)) {
            let _ = remaind_fs::open_lock_file(&lock);
        }
        Ok(HistoryStore { root, history })
    }

    /// The root folder.
    pub fn root(&self) -> &Utf8Path {
        &self.root
    }

    /// The history folder (`<root>/history`).
    pub fn history_dir(&self) -> &Utf8Path {
        &self.history
    }

    /// The current bytes of `rel`, or `None` if it does not exist. Never shows part of a
    /// group written by [`HistoryStore::write_all`] (see [`HistoryStore::read_all`]).
    pub fn read(&self, rel: impl AsRef<Utf8Path>) -> Result<Option<Vec<u8>>> {
        let mut all = self.read_all(&[rel])?;
        Ok(all.pop().flatten())
    }

    /// The current bytes of each of `files` (`None` for one that does not exist), read as one
    /// unit: under the shared store lock, so a concurrent [`HistoryStore::write_all`] or
    /// [`HistoryStore::restore_to`] is seen whole or not at all, and through a group a crash
    /// interrupted, so the files of a group are all old or all new. Works without write access
    /// to the store.
    pub fn read_all<P: AsRef<Utf8Path>>(&self, files: &[P]) -> Result<Vec<Option<Vec<u8>>>> {
        self.read_all_then(files, |bytes| bytes)
    }

    /// [`HistoryStore::read_all`], then `then` with the bytes while the shared lock is still
    /// held, so no writer changes these files before `then` is done with them.
    pub fn read_all_then<P: AsRef<Utf8Path>, T>(
        &self,
        files: &[P],
        then: impl FnOnce(Vec<Option<Vec<u8>>>) -> T,
    ) -> Result<T> {
        let rels = files
            .iter()
            .map(|rel| RelPath::new(rel.as_ref()))
            .collect::<Result<Vec<_>>>()?;
        let _lock = self.lock(false)?;
        let pending = self.pending()?;
        let bytes = rels
            .iter()
            .map(|rel| self.read_view(rel, pending.as_deref()))
            .collect::<Result<Vec<_>>>()?;
        Ok(then(bytes))
    }

    /// Atomically replaces `rel` with `bytes`, first recording its current version (or that it
    /// did not exist) as a history point, which is returned. Missing parent folders under the
    /// root are created with mode 0700; the file gets mode 0600.
    pub fn write(&self, rel: impl AsRef<Utf8Path>, bytes: &[u8]) -> Result<HistoryPoint> {
        let mut points = self.write_all(&[(rel, bytes)])?;
        // A write always records a point, even when the file did not exist.
        points.pop().ok_or_else(|| Error::CorruptHistory {
            path: self.history.clone(),
            reason: "write recorded no history point".to_owned(),
        })
    }

    /// Replaces several files as one unit: a reader ([`HistoryStore::read_all`]) sees all of
    /// them old or all new, whatever the crash, and their history points share one time, so
    /// [`HistoryStore::version_at`] and [`HistoryStore::restore_to`] never split them either.
    /// All or nothing on an error too: the store is left as it was.
    ///
    /// How: every prior version is recorded in history and every new version is written to an
    /// fsynced temp file beside its target; then a journal naming the temps is made durable
    /// (the commit point) and the temps are renamed into place; the journal is removed last.
    /// A crash after the commit point is rolled forward by the next writer, and readers read
    /// through the journal meanwhile.
    pub fn write_all<P: AsRef<Utf8Path>>(&self, files: &[(P, &[u8])]) -> Result<Vec<HistoryPoint>> {
        let changes = files
            .iter()
            .map(|(rel, bytes)| Ok((RelPath::new(rel.as_ref())?, Some(*bytes))))
            .collect::<Result<Vec<_>>>()?;
        let lock = self.lock(true)?;
        self.commit(&lock, &changes)
    }

    /// Replaces (`Some(bytes)`) and removes (`None`) several files as one unit, like
    /// [`HistoryStore::write_all`]: all changed or none, their points sharing one time. A
    /// removal of a file that does not exist records nothing.
    pub fn change_all<P: AsRef<Utf8Path>>(
        &self,
        changes: &[(P, Option<&[u8]>)],
    ) -> Result<Vec<HistoryPoint>> {
        let changes = changes
            .iter()
            .map(|(rel, bytes)| Ok((RelPath::new(rel.as_ref())?, *bytes)))
            .collect::<Result<Vec<_>>>()?;
        let lock = self.lock(true)?;
        self.commit(&lock, &changes)
    }

    /// [`HistoryStore::change_all`] on one condition, checked under the store's lock just
    /// before anything is written: `guard.rel` still holds exactly `guard.holds` (`None`: it
    /// does not exist). Otherwise nothing is written and the error is [`Error::Changed`]: a
    /// person saved the file since it was read, and the caller reads it again.
    ///
    /// When `guard.rel` is among the changes, history records `guard.record_as` as its prior
    /// version instead of the bytes on disk (a redacted copy of what a person wrote, so no
    /// secret they typed is kept in history).
    pub fn change_all_if<P: AsRef<Utf8Path>>(
        &self,
        changes: &[(P, Option<&[u8]>)],
        guard: Guard<'_>,
    ) -> Result<Vec<HistoryPoint>> {
        let changes = changes
            .iter()
            .map(|(rel, bytes)| Ok((RelPath::new(rel.as_ref())?, *bytes)))
            .collect::<Result<Vec<_>>>()?;
        let guarded = (RelPath::new(guard.rel)?, guard);
        let lock = self.lock(true)?;
        match self.commit_then(&lock, &changes, Some(&guarded), || {
            Ok::<(), std::convert::Infallible>(())
        })? {
            Ok((points, ())) => Ok(points),
            Err(never) => match never {},
        }
    }

    /// Records that `rel` was changed outside the store (a person edited it): a history
    /// point whose version before the change is `prior` (`None`: it did not exist), leaving
    /// the file as it is. Reading the past before this point gives `prior`.
    pub fn adopt(&self, rel: impl AsRef<Utf8Path>, prior: Option<&[u8]>) -> Result<HistoryPoint> {
        let rel = RelPath::new(rel.as_ref())?;
        let _lock = self.lock(true)?;
        remaind_fs::clean_temps(&self.history)?;
        let last = self.points()?.pop();
        let point = self.next_point(last.as_ref(), None, rel, prior.is_some())?;
        let entry = point.entry_name();
        if let Err(e) = remaind_fs::replace_file(&self.history, &entry, prior.unwrap_or(b"")) {
            let _ = remaind_fs::remove_file(&self.history, &entry);
            return Err(e.into());
        }
        Ok(point)
    }

    /// Removes `rel`, first recording its current version as a history point, which is
    /// returned. `Ok(None)` (and nothing recorded) if the file does not exist.
    pub fn remove(&self, rel: impl AsRef<Utf8Path>) -> Result<Option<HistoryPoint>> {
        let rel = RelPath::new(rel.as_ref())?;
        let lock = self.lock(true)?;
        Ok(self.commit(&lock, &[(rel, None)])?.pop())
    }

    /// Every history point, in order (by `seq`, equivalently by time). Temp files left by a
    /// crash are ignored.
    pub fn list(&self) -> Result<Vec<HistoryPoint>> {
        let _lock = self.lock(false)?;
        self.points()
    }

    /// The distinct files that appear in history, sorted.
    pub fn tracked(&self) -> Result<Vec<Utf8PathBuf>> {
        let files: BTreeSet<Utf8PathBuf> = self
            .list()?
            .into_iter()
            .map(|p| p.file().to_owned())
            .collect();
        Ok(files.into_iter().collect())
    }

    /// The bytes `rel` had as of instant `ts`: what the last change at or before `ts` left
    /// (`None` if the file did not exist then). If no change was recorded after `ts`, this is
    /// the current version.
    pub fn version_at(&self, rel: impl AsRef<Utf8Path>, ts: Timestamp) -> Result<Option<Vec<u8>>> {
        let rel = RelPath::new(rel.as_ref())?;
        let _lock = self.lock(false)?;
        let points = self.points()?;
        match points.iter().find(|p| p.rel() == &rel && p.time() > ts) {
            Some(p) => self.snapshot(p),
            None => self.read_view(&rel, self.pending()?.as_deref()),
        }
    }

    /// Restores each of `files` to its version as of `ts` (removing it if it did not exist
    /// then), through the same write/remove path, so every current version is recorded first.
    /// Restoring the same files to [`RestoreSummary::undo_to`] brings back their exact
    /// pre-restore bytes.
    ///
    /// All names are checked before anything is written. The whole restore holds the store
    /// lock. The files changed are replaced as one unit, as [`HistoryStore::write_all`] does:
    /// all restored or none, and their points share one time.
    pub fn restore_to<I>(&self, files: I, ts: Timestamp) -> Result<RestoreSummary>
    where
        I: IntoIterator,
        I::Item: AsRef<Utf8Path>,
    {
        let mut rels = Vec::new();
        let mut seen = BTreeSet::new();
        for f in files {
            let rel = RelPath::new(f.as_ref())?;
            if seen.insert(rel.clone()) {
                rels.push(rel);
            }
        }
        let lock = self.lock(true)?;
        let points = self.points()?;
        let mut summary = RestoreSummary {
            to: ts,
            changed: Vec::new(),
            unchanged: Vec::new(),
            points: Vec::new(),
        };
        let mut changes = Vec::new();
        for rel in &rels {
            let wanted = self.version_at_locked(&points, rel, ts)?;
            let current = self.read_current(rel)?;
            if wanted == current {
                summary.unchanged.push(rel.as_path().to_owned());
            } else {
                summary.changed.push(rel.as_path().to_owned());
                changes.push((rel.clone(), wanted));
            }
        }
        let changes: Vec<(RelPath, Option<&[u8]>)> = changes
            .iter()
            .map(|(rel, wanted)| (rel.clone(), wanted.as_deref()))
            .collect();
        // One unit, like the write that made the versions restored.
        summary.points = self.commit(&lock, &changes)?;
        Ok(summary)
    }

    fn lock(&self, exclusive: bool) -> Result<Lock> {
        self.check_dirs()?;
        let path = self.history.join(LOCK_FILE);
        // A reader locks through a read-only handle: it needs no write access and creates
        // nothing. No lock file means no writer ever ran here (open makes it when it can).
        let file = if exclusive {
            Some(remaind_fs::open_lock_file(&path)?)
        } else {
            fsio::open_read_only(&path)?
        };
        if let Some(file) = &file {
            let res = if exclusive {
                file.lock()
            } else {
                file.lock_shared()
            };
            res.map_err(|e| Error::io("lock", &path, e))?;
        }
        let lock = Lock { _file: file };
        if exclusive {
            self.roll_forward(&lock)?;
        }
        Ok(lock)
    }

    /// The group a crash interrupted after its commit point, if there is one.
    fn pending(&self) -> Result<Option<Vec<journal::Entry>>> {
        let path = self.history.join(journal::JOURNAL);
        match remaind_fs::read_file(&path)? {
            None => Ok(None),
            Some(bytes) => journal::decode(&bytes)
                .map(Some)
                .ok_or_else(|| Error::CorruptHistory {
                    path,
                    reason: "not a group journal this store wrote".to_owned(),
                }),
        }
    }

    /// The current version of `rel` as the group in `pending` (if any) leaves it.
    fn read_view(
        &self,
        rel: &RelPath,
        pending: Option<&[journal::Entry]>,
    ) -> Result<Option<Vec<u8>>> {
        match pending.and_then(|p| p.iter().find(|e| &e.rel == rel)) {
            None => self.read_current(rel),
            Some(journal::Entry { temp: None, .. }) => Ok(None),
            Some(journal::Entry {
                temp: Some(temp), ..
            }) => {
                let staged = match self.parent_dir(rel, false)? {
                    Some(dir) => remaind_fs::read_file(&dir.join(temp))?,
                    None => None,
                };
                // Already renamed into place when the temp is gone.
                match staged {
                    Some(bytes) => Ok(Some(bytes)),
                    None => self.read_current(rel),
                }
            }
        }
    }

    /// Finishes a group a crash interrupted after its commit point (writers only).
    fn roll_forward(&self, _lock: &Lock) -> Result<()> {
        let Some(entries) = self.pending()? else {
            return Ok(());
        };
        self.apply(&entries)?;
        remaind_fs::remove_file(&self.history, journal::JOURNAL)?;
        Ok(())
    }

    /// Puts every staged version of a committed group in place (idempotent), then fsyncs the
    /// folders.
    fn apply(&self, entries: &[journal::Entry]) -> Result<()> {
        let mut dirs: Vec<Utf8PathBuf> = Vec::new();
        for e in entries {
            let Some(dir) = self.parent_dir(&e.rel, false)? else {
                continue;
            };
            let target = dir.join(e.rel.file_name());
            match &e.temp {
                Some(temp) => {
                    let staged = dir.join(temp);
                    if matches!(remaind_fs::inspect(&staged)?, Kind::File) {
                        remaind_fs::rename_into_place(&staged, &target)?;
                        fail::fail_point!(
                            remaind_fs::failpoints::AFTER_RENAME,
                            |a| fsio::injected(a, "fsync folder", &dir)
                        );
                    }
                }
                None => match fs::remove_file(&target) {
                    Ok(()) => {}
                    Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                    Err(err) => return Err(Error::io("remove", &target, err)),
                },
            }
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
        for dir in &dirs {
            remaind_fs::sync_dir(dir)?;
        }
        Ok(())
    }

    fn check_dirs(&self) -> Result<()> {
        for dir in [&self.root, &self.history] {
            if !remaind_fs::ensure_dir(dir, false)? {
                return Err(Error::io(
                    "open folder",
                    dir,
                    std::io::Error::from(std::io::ErrorKind::NotFound),
                ));
            }
        }
        Ok(())
    }

    /// The folder holding `rel`, after checking that no component on the way is a symlink.
    /// With `create`, missing folders are made (0700); without, `None` means one is missing
    /// (so the file does not exist).
    fn parent_dir(&self, rel: &RelPath, create: bool) -> Result<Option<Utf8PathBuf>> {
        let mut dir = self.root.clone();
        for part in rel.parents() {
            dir.push(part);
            if !remaind_fs::ensure_dir(&dir, create)? {
                return Ok(None);
            }
        }
        Ok(Some(dir))
    }

    fn read_current(&self, rel: &RelPath) -> Result<Option<Vec<u8>>> {
        match self.parent_dir(rel, false)? {
            Some(dir) => Ok(remaind_fs::read_file(&dir.join(rel.file_name()))?),
            None => Ok(None),
        }
    }

    /// Every valid point, sorted by seq, after checking that times never go back (points of one
    /// unit share a time).
    fn points(&self) -> Result<Vec<HistoryPoint>> {
        let entries =
            fs::read_dir(&self.history).map_err(|e| Error::io("list", &self.history, e))?;
        let mut points = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("list", &self.history, e))?;
            let name = entry.file_name();
            // Dotfiles: the lock file and temp files (possibly half-written snapshots).
            if name.as_encoded_bytes().starts_with(b".") {
                continue;
            }
            let Some(name) = name.to_str() else {
                return Err(Error::CorruptHistory {
                    path: self.history.clone(),
                    reason: format!("entry with a non-UTF-8 name {name:?}"),
                });
            };
            let point =
                HistoryPoint::parse_entry_name(name).ok_or_else(|| Error::CorruptHistory {
                    path: self.history.join(name),
                    reason: "not a history entry name".to_owned(),
                })?;
            points.push(point);
        }
        points.sort_by_key(HistoryPoint::seq);
        for pair in points.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            if a.seq() == b.seq() {
                return Err(Error::CorruptHistory {
                    path: self.history.join(b.entry_name()),
                    reason: format!("sequence number {} used twice", b.seq()),
                });
            }
            if a.time() > b.time() {
                return Err(Error::CorruptHistory {
                    path: self.history.join(b.entry_name()),
                    reason: format!(
                        "time {} is before the previous point's {}",
                        format_time(b.time()),
                        format_time(a.time())
                    ),
                });
            }
        }
        Ok(points)
    }

    fn version_at_locked(
        &self,
        points: &[HistoryPoint],
        rel: &RelPath,
        ts: Timestamp,
    ) -> Result<Option<Vec<u8>>> {
        // Each point holds the version from before its change, so the version as of `ts` is
        // the snapshot of the first later change to this file, or the current file.
        match points.iter().find(|p| p.rel() == rel && p.time() > ts) {
            Some(p) => self.snapshot(p),
            None => self.read_current(rel),
        }
    }

    fn snapshot(&self, point: &HistoryPoint) -> Result<Option<Vec<u8>>> {
        let path = self.history.join(point.entry_name());
        let bytes = remaind_fs::read_file(&path)?.ok_or_else(|| Error::CorruptHistory {
            path: path.clone(),
            reason: "history entry vanished".to_owned(),
        })?;
        if point.prior_existed() {
            Ok(Some(bytes))
        } else if bytes.is_empty() {
            Ok(None)
        } else {
            Err(Error::CorruptHistory {
                path,
                reason: "entry marked absent is not empty".to_owned(),
            })
        }
    }

    /// [`Error::Changed`] unless the guarded file holds what the guard says.
    fn check_guard(&self, guard: Option<&(RelPath, Guard<'_>)>) -> Result<()> {
        let Some((rel, g)) = guard else {
            return Ok(());
        };
        let current = match self.parent_dir(rel, false)? {
            Some(dir) => remaind_fs::read_file(&dir.join(rel.file_name()))?,
            None => None,
        };
        if current.as_deref() == g.holds {
            Ok(())
        } else {
            Err(Error::Changed {
                path: self.root.join(rel.as_path()),
            })
        }
    }

    /// The one mutation path: record the current version of each file as a point (all at one
    /// time), stage the new versions, then put them in place as one unit (through the journal
    /// when more than one file changes). Removing a file that does not exist records nothing.
    /// On an error the store is left as it was.
    fn commit(
        &self,
        lock: &Lock,
        changes: &[(RelPath, Option<&[u8]>)],
    ) -> Result<Vec<HistoryPoint>> {
        match self.commit_then(lock, changes, None, || {
            Ok::<(), std::convert::Infallible>(())
        })? {
            Ok((points, ())) => Ok(points),
            Err(never) => match never {},
        }
    }

    /// [`Self::commit`] (on the condition `guard`, if any), then `then` under the same lock;
    /// its failure undoes the change.
    fn commit_then<T, E>(
        &self,
        lock: &Lock,
        changes: &[(RelPath, Option<&[u8]>)],
        guard: Option<&(RelPath, Guard<'_>)>,
        then: impl FnOnce() -> std::result::Result<T, E>,
    ) -> Result<std::result::Result<(Vec<HistoryPoint>, T), E>> {
        remaind_fs::clean_temps(&self.history)?;
        self.check_guard(guard)?;
        let mut last = self.points()?.pop();
        let mut time = None;
        let mut staged: Vec<Staged> = Vec::with_capacity(changes.len());
        let recorded = (|| {
            for (rel, new) in changes {
                let Some(dir) = self.parent_dir(rel, new.is_some())? else {
                    continue;
                };
                let name = rel.file_name();
                let current = remaind_fs::read_file(&dir.join(name))?;
                if new.is_none() && current.is_none() {
                    continue;
                }
                let point = self.next_point(last.as_ref(), time, rel.clone(), current.is_some())?;
                time = Some(point.time());
                let record_as = guard
                    .filter(|(g, _)| g == rel)
                    .and_then(|(_, g)| g.record_as)
                    .filter(|r| Some(*r) != current.as_deref());
                match record_as {
                    // Written, never linked: the file on disk is not what history keeps.
                    Some(bytes) => self.record_bytes(bytes, &point)?,
                    None => self.record(&dir, name, current.as_deref(), &point)?,
                }
                last = Some(point.clone());
                staged.push(Staged {
                    dir,
                    name: name.to_owned(),
                    prior: current,
                    point,
                    temp: None,
                    new: new.map(<[u8]>::to_vec),
                });
                fail::fail_point!(crate::failpoints::AFTER_SNAPSHOT, |a| fsio::injected(
                    a,
                    "write",
                    &self.root.join(rel.as_path())
                ));
            }
            let mut cleaned: Vec<&Utf8Path> = Vec::new();
            for s in &mut staged {
                if let Some(bytes) = &s.new {
                    if !cleaned.contains(&s.dir.as_path()) {
                        remaind_fs::clean_temps(&s.dir)?;
                        cleaned.push(&s.dir);
                    }
                    s.temp = Some(fsio::stage_file(&s.dir, bytes)?);
                }
            }
            Ok(())
        })();
        if let Err(e) = recorded {
            self.discard(&staged);
            return Err(e);
        }
        let entries: Vec<journal::Entry> = staged
            .iter()
            .map(|s| journal::Entry {
                rel: s.point.rel().clone(),
                temp: s.temp.clone(),
            })
            .collect();
        let grouped = entries.len() > 1;
        let committed = (|| {
            if grouped {
                fsio::write_journal_file(
                    &self.history,
                    journal::JOURNAL,
                    &journal::encode(&entries),
                )?;
                fail::fail_point!(crate::failpoints::AFTER_JOURNAL, |a| fsio::injected(
                    a,
                    "write",
                    &self.history.join(journal::JOURNAL)
                ));
            }
            Ok(())
        })();
        // Again at the last moment, just before the renames: a person who saved while the
        // snapshots, the new versions and the journal were written (fsyncs: milliseconds) is
        // not overwritten. Nothing is in place yet, so nothing is put back (which would
        // overwrite what they saved).
        let committed = committed
            .and_then(|()| self.check_guard(guard))
            .and_then(|()| {
                fail::fail_point!(crate::failpoints::BEFORE_PLACE);
                self.place_guarded(&staged, guard)
            });
        if let Err(e) = committed {
            if grouped && remaind_fs::remove_file(&self.history, journal::JOURNAL).is_err() {
                // A journal left behind would be rolled forward: undo writes one that
                // names only what is already there.
                self.undo(lock, &staged);
            } else {
                self.discard(&staged);
            }
            return Err(e);
        }
        let committed = (|| {
            self.apply(&entries)?;
            if grouped {
                remaind_fs::remove_file(&self.history, journal::JOURNAL)?;
            }
            Ok(())
        })();
        if let Err(e) = committed {
            self.undo(lock, &staged);
            return Err(e);
        }
        match then() {
            Ok(t) => Ok(Ok((staged.into_iter().map(|s| s.point).collect(), t))),
            Err(e) => {
                self.undo(lock, &staged);
                Ok(Err(e))
            }
        }
    }

    /// The guarded file's new version put in place first, by an exchange that sees what it
    /// replaces: a save that landed after the last check (a write into the file, an editor's
    /// rename over it) is put back and the change refused as [`Error::Changed`], exactly as
    /// if the check had seen it. Nothing else is in place yet; a journal's roll-forward finds
    /// the guarded file's temp gone and leaves it.
    fn place_guarded(&self, staged: &[Staged], guard: Option<&(RelPath, Guard<'_>)>) -> Result<()> {
        let Some((rel, g)) = guard else {
            return Ok(());
        };
        let Some(s) = staged.iter().find(|s| s.point.rel() == rel) else {
            return Ok(());
        };
        let Some(temp) = &s.temp else {
            return Ok(());
        };
        let target = s.dir.join(&s.name);
        if remaind_fs::place_if_unchanged(&s.dir.join(temp), &target, g.holds)? {
            Ok(())
        } else {
            Err(Error::Changed {
                path: self.root.join(rel.as_path()),
            })
        }
    }

    /// Records `current` (the bytes of `dir/name`, `None`: absent) as `point`'s entry: a hard
    /// link when possible, else a copy. On an error nothing is left behind.
    /// Records `bytes` as the prior version at `point` (a copy, never a link).
    fn record_bytes(&self, bytes: &[u8], point: &HistoryPoint) -> Result<()> {
        let entry = point.entry_name();
        remaind_fs::replace_file(&self.history, &entry, bytes).map_err(|e| {
            let _ = remaind_fs::remove_file(&self.history, &entry);
            Error::from(e)
        })
    }

    fn record(
        &self,
        dir: &Utf8Path,
        name: &str,
        current: Option<&[u8]>,
        point: &HistoryPoint,
    ) -> Result<()> {
        let entry = point.entry_name();
        let recorded = match current {
            // Cheapest first: a link to the current version, which the change then leaves.
            Some(bytes) => {
                fsio::link_snapshot(&dir.join(name), &self.history, &entry, bytes.len() as u64)
                    .and_then(|linked| {
                        if linked {
                            Ok(())
                        } else {
                            remaind_fs::replace_file(&self.history, &entry, bytes)
                                .map_err(Error::from)
                        }
                    })
            }
            None => remaind_fs::replace_file(&self.history, &entry, b"").map_err(Error::from),
        };
        if let Err(e) = recorded {
            // The entry may be in place if only the folder fsync failed: drop it.
            let _ = remaind_fs::remove_file(&self.history, &entry);
            return Err(e);
        }
        Ok(())
    }

    /// Before the commit point: drop the staged temps and the points recorded. Best effort
    /// (the caller reports the original error; a point left behind records an unchanged
    /// version, which is harmless, and temps are removed by the next writer).
    fn discard(&self, staged: &[Staged]) {
        for s in staged {
            if let Some(temp) = &s.temp {
                let _ = fs::remove_file(s.dir.join(temp));
            }
            let _ = remaind_fs::remove_file(&self.history, &s.point.entry_name());
        }
    }

    /// After the commit point failed part-way: put every prior version back, itself as one
    /// journaled group (so a crash during the undo is rolled forward to the prior versions),
    /// then drop the points. Best effort; errors are ignored (the caller reports the original).
    fn undo(&self, lock: &Lock, staged: &[Staged]) {
        let mut back = Vec::new();
        for s in staged {
            if let Some(temp) = &s.temp {
                let _ = fs::remove_file(s.dir.join(temp));
            }
            let now = remaind_fs::read_file(&s.dir.join(&s.name)).ok();
            if now.as_ref().map(Option::as_deref) == Some(s.prior.as_deref()) {
                continue;
            }
            let temp = match &s.prior {
                Some(bytes) => match fsio::stage_file(&s.dir, bytes) {
                    Ok(temp) => Some(temp),
                    Err(_) => continue,
                },
                None => None,
            };
            back.push(journal::Entry {
                rel: s.point.rel().clone(),
                temp,
            });
        }
        let undone =
            fsio::write_journal_file(&self.history, journal::JOURNAL, &journal::encode(&back))
                .and_then(|()| self.roll_forward(lock));
        if undone.is_ok() {
            self.discard(staged);
        }
    }

    /// The point after `last`; at `time` when given (the points of one unit share a time),
    /// else now (or just after `last`, so times never go back).
    fn next_point(
        &self,
        last: Option<&HistoryPoint>,
        time: Option<Timestamp>,
        rel: RelPath,
        prior_existed: bool,
    ) -> Result<HistoryPoint> {
        let exhausted = |what: &str| Error::CorruptHistory {
            path: self.history.clone(),
            reason: format!("{what} cannot advance past the last point"),
        };
        let now = time.map_or_else(
            || Timestamp::now().as_microsecond(),
            Timestamp::as_microsecond,
        );
        let (seq, micros) = match last {
            None => (1, now),
            Some(last) => {
                let seq = last
                    .seq()
                    .checked_add(1)
                    .ok_or_else(|| exhausted("sequence number"))?;
                let floor = match time {
                    Some(_) => last.time().as_microsecond(),
                    None => last.time().as_microsecond() + 1,
                };
                (seq, now.max(floor))
            }
        };
        let time = Timestamp::from_microsecond(micros).map_err(|_| exhausted("time"))?;
        Ok(HistoryPoint::new(seq, time, rel, prior_existed))
    }
}
