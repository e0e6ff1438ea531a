//! The store: atomic writes and removals with history, point-in-time reads and restore.

use std::collections::BTreeSet;
use std::fs::{self, File};

use camino::{Utf8Path, Utf8PathBuf};
use jiff::Timestamp;

use crate::error::{Error, Result};
use remaind_fs::Entry as Kind;

use crate::fsio;
use crate::point::{HistoryPoint, format_time};
use crate::rel::{HISTORY_DIR, RelPath};

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

/// A held store lock; released when dropped (the file is closed).
/// A change made, with what it takes to undo it.
struct Done {
    dir: Utf8PathBuf,
    name: String,
    /// The bytes before the change (`None`: the file did not exist).
    prior: Option<Vec<u8>>,
    point: HistoryPoint,
}

struct Lock {
    _file: File,
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

    /// The current bytes of `rel`, or `None` if it does not exist.
    pub fn read(&self, rel: impl AsRef<Utf8Path>) -> Result<Option<Vec<u8>>> {
        let rel = RelPath::new(rel.as_ref())?;
        self.check_dirs()?;
        self.read_current(&rel)
    }

    /// Atomically replaces `rel` with `bytes`, first recording its current version (or that it
    /// did not exist) as a history point, which is returned. Missing parent folders under the
    /// root are created with mode 0700; the file gets mode 0600.
    pub fn write(&self, rel: impl AsRef<Utf8Path>, bytes: &[u8]) -> Result<HistoryPoint> {
        let rel = RelPath::new(rel.as_ref())?;
        let lock = self.lock(true)?;
        let point = self.change(&lock, &rel, Some(bytes))?;
        // A write always records a point, even when the file did not exist.
        point.ok_or_else(|| Error::CorruptHistory {
            path: self.history.clone(),
            reason: "write recorded no history point".to_owned(),
        })
    }

    /// Writes several files as [`HistoryStore::write`] does, in order, under one lock, and all
    /// or nothing on an error: if writing one fails, the ones already written get their prior
    /// bytes back and their history points are dropped, so the store is as it was. (A crash
    /// part-way still leaves each file old or new; callers that bind files together detect a
    /// mixed pair, as `verify` does for state.json and handover.md.)
    pub fn write_all<P: AsRef<Utf8Path>>(&self, files: &[(P, &[u8])]) -> Result<Vec<HistoryPoint>> {
        let rels = files
            .iter()
            .map(|(rel, _)| RelPath::new(rel.as_ref()))
            .collect::<Result<Vec<_>>>()?;
        let lock = self.lock(true)?;
        let mut done: Vec<Done> = Vec::with_capacity(files.len());
        for (rel, (_, bytes)) in rels.iter().zip(files) {
            match self.change_undoable(&lock, rel, Some(bytes)) {
                Ok(Some(step)) => done.push(step),
                Ok(None) => {}
                Err(e) => {
                    for step in done.iter().rev() {
                        self.undo(&step.dir, &step.name, step.prior.as_deref(), &step.point);
                    }
                    return Err(e);
                }
            }
        }
        Ok(done.into_iter().map(|step| step.point).collect())
    }

    /// Removes `rel`, first recording its current version as a history point, which is
    /// returned. `Ok(None)` (and nothing recorded) if the file does not exist.
    pub fn remove(&self, rel: impl AsRef<Utf8Path>) -> Result<Option<HistoryPoint>> {
        let rel = RelPath::new(rel.as_ref())?;
        let lock = self.lock(true)?;
        self.change(&lock, &rel, None)
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
        self.version_at_locked(&points, &rel, ts)
    }

    /// Restores each of `files` to its version as of `ts` (removing it if it did not exist
    /// then), through the same write/remove path, so every current version is recorded first.
    /// Restoring the same files to [`RestoreSummary::undo_to`] brings back their exact
    /// pre-restore bytes.
    ///
    /// All names are checked before anything is written. The whole restore holds the store
    /// lock. If an I/O error stops it part-way, the files already restored stay restored, each
    /// with its history point, and can be restored back like any other change.
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
        for rel in &rels {
            let wanted = self.version_at_locked(&points, rel, ts)?;
            let current = self.read_current(rel)?;
            if wanted == current {
                summary.unchanged.push(rel.as_path().to_owned());
                continue;
            }
            if let Some(point) = self.change(&lock, rel, wanted.as_deref())? {
                summary.points.push(point);
            }
            summary.changed.push(rel.as_path().to_owned());
        }
        Ok(summary)
    }

    fn lock(&self, exclusive: bool) -> Result<Lock> {
        self.check_dirs()?;
        let path = self.history.join(LOCK_FILE);
        let file = remaind_fs::open_lock_file(&path)?;
        let res = if exclusive {
            file.lock()
        } else {
            file.lock_shared()
        };
        res.map_err(|e| Error::io("lock", &path, e))?;
        Ok(Lock { _file: file })
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

    /// Every valid point, sorted by seq, after checking that times strictly increase.
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
            if a.time() >= b.time() {
                return Err(Error::CorruptHistory {
                    path: self.history.join(b.entry_name()),
                    reason: format!(
                        "time {} is not after the previous point's {}",
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

    /// The one mutation path: record the current version of `rel` as a new point, then
    /// replace (`Some`) or remove (`None`) the file. Returns `None` only when removing a file
    /// that does not exist.
    fn change(
        &self,
        lock: &Lock,
        rel: &RelPath,
        new: Option<&[u8]>,
    ) -> Result<Option<HistoryPoint>> {
        Ok(self.change_undoable(lock, rel, new)?.map(|step| step.point))
    }

    /// [`Self::change`], returning what [`Self::undo`] needs to take it back.
    fn change_undoable(
        &self,
        _lock: &Lock,
        rel: &RelPath,
        new: Option<&[u8]>,
    ) -> Result<Option<Done>> {
        let dir = match self.parent_dir(rel, new.is_some())? {
            Some(dir) => dir,
            None => return Ok(None),
        };
        let name = rel.file_name();
        let current = remaind_fs::read_file(&dir.join(name))?;
        if new.is_none() && current.is_none() {
            return Ok(None);
        }

        remaind_fs::clean_temps(&self.history)?;
        let points = self.points()?;
        let point = self.next_point(points.last(), rel.clone(), current.is_some())?;
        let snapshot = current.as_deref().unwrap_or_default();
        let entry = point.entry_name();
        let recorded = match &current {
            // Cheapest first: a link to the current version, which the change then leaves.
            Some(bytes) => {
                fsio::link_snapshot(&dir.join(name), &self.history, &entry, bytes.len() as u64)
                    .and_then(|linked| {
                        if linked {
                            Ok(())
                        } else {
                            remaind_fs::replace_file(&self.history, &entry, snapshot)
                                .map_err(Error::from)
                        }
                    })
            }
            None => remaind_fs::replace_file(&self.history, &entry, snapshot).map_err(Error::from),
        };
        if let Err(e) = recorded {
            // The entry may be in place if only the folder fsync failed: drop it.
            let _ = remaind_fs::remove_file(&self.history, &point.entry_name());
            return Err(e);
        }

        let changed = (|| {
            fail::fail_point!("atomic.after-snapshot", |a| fsio::injected(
                a,
                "write",
                &dir.join(name)
            ));
            match new {
                Some(bytes) => {
                    remaind_fs::clean_temps(&dir)?;
                    remaind_fs::replace_file(&dir, name, bytes)?;
                }
                None => {
                    remaind_fs::remove_file(&dir, name)?;
                }
            }
            Ok(())
        })();
        if let Err(e) = changed {
            self.undo(&dir, name, current.as_deref(), &point);
            return Err(e);
        }
        Ok(Some(Done {
            name: name.to_owned(),
            dir,
            prior: current,
            point,
        }))
    }

    /// After a failed change: best effort, put the prior version back if the target already
    /// holds the new one (the failure came after the rename, at the folder fsync), then drop
    /// the point just recorded, so a failed operation leaves the store as it was. Errors here
    /// are ignored: the caller reports the original one, and the point (if it stays) records
    /// the unchanged version, which is harmless.
    fn undo(&self, dir: &Utf8Path, name: &str, prior: Option<&[u8]>, point: &HistoryPoint) {
        let now = remaind_fs::read_file(&dir.join(name)).ok();
        if now.as_ref().map(Option::as_deref) != Some(prior) {
            let _ = match prior {
                Some(bytes) => remaind_fs::replace_file(dir, name, bytes),
                None => remaind_fs::remove_file(dir, name).map(drop),
            };
        }
        let _ = remaind_fs::remove_file(&self.history, &point.entry_name());
    }

    fn next_point(
        &self,
        last: Option<&HistoryPoint>,
        rel: RelPath,
        prior_existed: bool,
    ) -> Result<HistoryPoint> {
        let exhausted = |what: &str| Error::CorruptHistory {
            path: self.history.clone(),
            reason: format!("{what} cannot advance past the last point"),
        };
        let now = Timestamp::now().as_microsecond();
        let (seq, micros) = match last {
            None => (1, now),
            Some(last) => {
                let seq = last
                    .seq()
                    .checked_add(1)
                    .ok_or_else(|| exhausted("sequence number"))?;
                let floor = last.time().as_microsecond() + 1;
                (seq, now.max(floor))
            }
        };
        let time = Timestamp::from_microsecond(micros).map_err(|_| exhausted("time"))?;
        Ok(HistoryPoint::new(seq, time, rel, prior_existed))
    }
}
