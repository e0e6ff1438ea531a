//! A folder as the replica of a shared store: catching it up, and committing appends to the
//! store before the folder (docs/fleet.md).

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::Duration;

use remaind_events::line_digest;
use remaind_pg::{Append, Head, Store};

use super::{Ledger, Locked};
use crate::StoreSetting;
use crate::error::{Error, Result};
use crate::{lines, prepare};

/// An append in progress in the shared store, committed before the folder is written.
pub(crate) type Upload<'a> = Append<'a>;

/// The open connection of a replica.
pub(crate) struct Shared {
    pub(crate) store: Mutex<Store>,
    /// The store's URL, its password masked (named in messages).
    pub(crate) url: String,
    /// The setting it was opened with (to connect again after a lost connection).
    pub(crate) setting: StoreSetting,
}

impl Shared {
    pub(crate) fn connect(setting: &StoreSetting) -> Result<Shared> {
        let store = Store::connect(&setting.url, &setting.project)
            .map_err(|e| store_error("connect", &setting.project, e))?;
        Ok(Shared {
            store: Mutex::new(store),
            url: remaind_pg::mask_password(&setting.url),
            setting: setting.clone(),
        })
    }

    /// Replace a connection that was lost with a new one.
    pub(crate) fn reconnect(&self, store: &mut Store) -> Result<()> {
        *store = Store::connect(&self.setting.url, &self.setting.project)
            .map_err(|e| store_error("reconnect", self.project(), e))?;
        Ok(())
    }

    /// The store's project.
    pub(crate) fn project(&self) -> &str {
        &self.setting.project
    }
}

pub(crate) fn store_error(action: &'static str, project: &str, source: remaind_pg::Error) -> Error {
    Error::Store {
        action,
        project: project.to_owned(),
        source,
    }
}

/// Where a replica reads the lines and artifacts it lacks: the store, or an append in
/// progress (under the project's lock).
pub(crate) trait Upstream {
    fn head_and_stray(&mut self) -> remaind_pg::Result<(Head, Option<u64>)>;
    fn lines(
        &mut self,
        after: u64,
        upto: u64,
        limit: usize,
    ) -> remaind_pg::Result<Vec<(u64, Vec<u8>)>>;
    fn artifact(&mut self, sha256: &str) -> remaind_pg::Result<Option<Vec<u8>>>;
}

impl Upstream for Store {
    fn head_and_stray(&mut self) -> remaind_pg::Result<(Head, Option<u64>)> {
        Store::head_and_stray(self)
    }
    fn lines(
        &mut self,
        after: u64,
        upto: u64,
        limit: usize,
    ) -> remaind_pg::Result<Vec<(u64, Vec<u8>)>> {
        Store::lines(self, after, upto, limit)
    }
    fn artifact(&mut self, sha256: &str) -> remaind_pg::Result<Option<Vec<u8>>> {
        Store::artifact(self, sha256)
    }
}

impl Upstream for Append<'_> {
    fn head_and_stray(&mut self) -> remaind_pg::Result<(Head, Option<u64>)> {
        Append::head_and_stray(self)
    }
    fn lines(
        &mut self,
        after: u64,
        upto: u64,
        limit: usize,
    ) -> remaind_pg::Result<Vec<(u64, Vec<u8>)>> {
        Append::lines(self, after, upto, limit)
    }
    fn artifact(&mut self, sha256: &str) -> remaind_pg::Result<Option<Vec<u8>>> {
        Append::artifact(self, sha256)
    }
}

/// Lines copied from the store per round trip while catching up.
const PAGE: usize = 1000;

/// Bytes of lines a catch-up holds in memory between checking them and writing them; past
/// this it reads them again to write them, each compared with the hash noted when checked.
const HOLD_BYTES: usize = 64 << 20;

impl Ledger {
    /// The shared store's project this folder is a replica of, if any.
    pub fn store_project(&self) -> Option<&str> {
        self.shared.as_ref().map(|s| s.project())
    }

    /// On a replica: wait up to `wait` for the shared store's head to pass this folder's,
    /// then copy what the store has and the folder lacks (with the artifacts it cites).
    /// Returns the folder's head seq. On a plain folder: the head, at once (another process
    /// appends to the file itself).
    pub fn sync(&self, wait: Duration) -> Result<u64> {
        let Some(shared) = &self.shared else {
            return Ok(self.head()?.0);
        };
        let (local, _) = self.head()?;
        {
            let mut store = shared.store.lock().unwrap_or_else(|p| p.into_inner());
            if let Err(e) = store.wait(local, wait) {
                // A lost connection (the server restarted) is replaced once; the caller
                // retries when the new one fails too (Error::is_connection_lost).
                if !e.is_connection_lost() {
                    return Err(store_error("wait for events", shared.project(), e));
                }
                shared.reconnect(&mut store)?;
            }
        }
        let (locked, head, prev) = self.lock_for_append()?;
        let mut store = shared.store.lock().unwrap_or_else(|p| p.into_inner());
        Ok(self
            .catch_up_locked(&locked, head, prev, &mut *store, shared.project())?
            .0)
    }

    /// At open, under the lock: copy what the store has after the folder's head.
    pub(super) fn catch_up_from_store(
        &self,
        locked: &Locked<'_>,
        head: u64,
        prev: String,
    ) -> Result<()> {
        let Some(shared) = &self.shared else {
            return Ok(());
        };
        let mut store = shared.store.lock().unwrap_or_else(|p| p.into_inner());
        let remote = store
            .head()
            .map_err(|e| store_error("read the head", shared.project(), e))?;
        if remote.seq < head || (remote.seq == head && remote.digest != prev) {
            return Err(self.diverged(remote.seq.min(head).max(1)));
        }
        self.catch_up_locked(locked, head, prev, &mut *store, shared.project())?;
        Ok(())
    }

    /// The folder and the store it is a replica of disagree at or before `seq`.
    pub(super) fn diverged(&self, seq: u64) -> Error {
        let (project, url) = self
            .shared
            .as_ref()
            .map_or(("", ""), |s| (s.project(), s.url.as_str()));
        self.diverged_from(project, url, seq)
    }

    /// The store of project `project` refused at `seq` for `reason`.
    fn refused(&self, project: &str, seq: u64, reason: String) -> Error {
        Error::StoreRefused {
            path: self.log_path.clone(),
            project: project.to_owned(),
            seq,
            reason,
        }
    }

    /// Copy the lines `up` holds after `head` up to its recorded head into the folder, each
    /// checked as this folder's own would be (a valid event, the next seq, chained onto the
    /// one before, nothing the project's redactor would change), with the artifacts they
    /// cite placed first. A store that disagrees with itself — a row past its recorded head,
    /// a line missing below it, a line that fails a check, a last line that is not the
    /// recorded head — is refused ([`Error::StoreRefused`]) before anything is written.
    /// Returns the new head and its hash.
    pub(super) fn catch_up_locked(
        &self,
        locked: &Locked<'_>,
        head: u64,
        prev: String,
        up: &mut dyn Upstream,
        project: &str,
    ) -> Result<(u64, String)> {
        let (remote, stray) = up
            .head_and_stray()
            .map_err(|e| store_error("read the head", project, e))?;
        if let Some(seq) = stray {
            return Err(self.refused(
                project,
                seq,
                format!(
                    "the store holds a row past the project's recorded head (seq {}), written \
                     around remaind_append (an append writes its rows and moves the head in \
                     one transaction); as the schema's owner remove it: `DELETE FROM \
                     remaind_events WHERE project = (SELECT id FROM remaind_projects WHERE \
                     name = '{}') AND seq > {}`",
                    remote.seq,
                    project.replace('\'', "''"),
                    remote.seq
                ),
            ));
        }
        if remote.seq <= head {
            return Ok((head, prev));
        }
        // First every line is read and checked; only then is anything written.
        let mut held = Some((Vec::new(), Vec::new()));
        let mut digests = Vec::new();
        let mut cited: Vec<(String, String, u64)> = Vec::new();
        let (mut at, mut digest) = (head, prev.clone());
        while at < remote.seq {
            let page = up
                .lines(at, remote.seq, PAGE)
                .map_err(|e| store_error("read events", project, e))?;
            if page.is_empty() {
                return Err(self.missing_line(project, at + 1, remote.seq));
            }
            for (seq, line) in page {
                let ev = self.check_store_line(project, at, &digest, seq, &line, remote.seq)?;
                for a in ev.artifact {
                    if !cited.iter().any(|(sha, _, _)| *sha == a.sha256) {
                        cited.push((a.sha256, a.media_type, seq));
                    }
                }
                digest = line_digest(&line);
                at = seq;
                if let Some((out, ends)) = &mut held {
                    out.extend_from_slice(&line);
                    out.push(b'\n');
                    ends.push(out.len());
                    if out.len() > HOLD_BYTES {
                        held = None;
                    }
                }
                digests.push(short_hash(&digest));
            }
        }
        if digest != remote.digest {
            return Err(self.refused(
                project,
                remote.seq,
                format!(
                    "line {} hashes to {digest}, but the project's recorded head is {} (a \
                     line below the head was changed)",
                    remote.seq, remote.digest
                ),
            ));
        }
        self.fetch_artifacts(up, project, &cited)?;
        if let Some((out, ends)) = held {
            drop(digests);
            let len = self.write_synced(locked, &out, &ends)?;
            self.write_anchor(locked, remote.seq, len, digest.clone());
            return Ok((remote.seq, digest));
        }
        // Too much to hold: read again page by page, each line the one checked (its hash
        // was noted), and write as it comes.
        let mut checked = digests.into_iter();
        let (mut at, mut prev) = (head, prev);
        while at < remote.seq {
            let page = up
                .lines(at, remote.seq, PAGE)
                .map_err(|e| store_error("read events", project, e))?;
            if page.is_empty() {
                return Err(self.missing_line(project, at + 1, remote.seq));
            }
            let mut out = Vec::new();
            let mut ends = Vec::new();
            for (seq, line) in page {
                let hash = line_digest(&line);
                if seq != at + 1 || checked.next() != Some(short_hash(&hash)) {
                    let again = self.check_store_line(project, at, &prev, seq, &line, remote.seq);
                    return Err(again.err().unwrap_or_else(|| {
                        self.refused(
                            project,
                            seq,
                            "the line changed in the store while it was being copied".into(),
                        )
                    }));
                }
                out.extend_from_slice(&line);
                out.push(b'\n');
                ends.push(out.len());
                prev = hash;
                at = seq;
            }
            let len = self.write_synced(locked, &out, &ends)?;
            self.write_anchor(locked, at, len, prev.clone());
        }
        Ok((at, prev))
    }

    /// On a replica, for `verify`: compare every line of the folder with the store's line
    /// of the same seq, byte for byte (a row edited in the database after it was copied is
    /// named by its seq), and note rows past the store's recorded head and a folder ahead of
    /// the store.
    pub(super) fn compare_with_store(&self, report: &mut crate::VerifyReport) -> Result<()> {
        let Some(shared) = &self.shared else {
            return Ok(());
        };
        let project = shared.project();
        let log = remaind_fs::layout::LOG_PATH;
        let mut store = shared.store.lock().unwrap_or_else(|p| p.into_inner());
        let (remote, stray) = store
            .head_and_stray()
            .map_err(|e| store_error("read the head", project, e))?;
        let (local, _) = self.head()?;
        let Some(mut mine) = self.raw_lines(0)? else {
            return Ok(());
        };
        let upto = local.min(remote.seq);
        let mut at = 0;
        while at < upto {
            let page = store
                .lines(at, upto, PAGE)
                .map_err(|e| store_error("read events", project, e))?;
            if page.is_empty() {
                report.push(
                    log,
                    Some(at + 1),
                    format!(
                        "the shared store of project {project:?} lacks line {}, below its \
                         recorded head (seq {})",
                        at + 1,
                        remote.seq
                    ),
                );
                break;
            }
            for (seq, theirs) in page {
                // Local line n is seq n (the folder's own check above names any that is not).
                while at + 1 < seq {
                    mine.next().transpose()?;
                    at += 1;
                }
                let same = mine.next().transpose()?.is_some_and(|line| line == theirs);
                if !same {
                    report.push(
                        log,
                        Some(seq),
                        format!(
                            "differs from line {seq} of the shared store of project {project:?} \
                             (the row was changed in the database after this folder copied it, \
                             or this line was changed here); the store's line hashes to {}",
                            line_digest(&theirs)
                        ),
                    );
                }
                at = seq;
            }
        }
        if let Some(seq) = stray {
            report.push(
                log,
                Some(seq),
                format!(
                    "the shared store of project {project:?} holds a row at seq {seq} past its \
                     recorded head (seq {}), written around remaind_append",
                    remote.seq
                ),
            );
        }
        if local > remote.seq {
            report.push(
                log,
                Some(remote.seq + 1),
                format!(
                    "the shared store of project {project:?} ends at seq {}; this folder holds \
                     lines it lacks",
                    remote.seq
                ),
            );
        }
        Ok(())
    }

    /// The store lacks line `seq`, below its recorded head `head`.
    fn missing_line(&self, project: &str, seq: u64, head: u64) -> Error {
        self.refused(
            project,
            seq,
            format!("the store lacks line {seq}, below the project's recorded head (seq {head})"),
        )
    }

    /// Check line `seq` of the store (`line`) as this folder would check its own: a valid
    /// event, the seq after `at`, chained onto `prev` (the hash of line `at`), nothing the
    /// project's redactor would change.
    fn check_store_line(
        &self,
        project: &str,
        at: u64,
        prev: &str,
        seq: u64,
        line: &[u8],
        head: u64,
    ) -> Result<remaind_events::Event> {
        if seq != at + 1 {
            return Err(self.missing_line(project, at + 1, head));
        }
        let ev = lines::parse_line(line).map_err(|reason| {
            self.refused(
                project,
                seq,
                format!("the line is not a valid event: {reason}"),
            )
        })?;
        if ev.seq != seq {
            return Err(self.refused(
                project,
                seq,
                format!("the row at seq {seq} holds a line whose seq is {}", ev.seq),
            ));
        }
        if ev.prev != prev {
            return Err(self.refused(
                project,
                seq,
                format!(
                    "its prev is {}, but line {at} hashes to {prev} (the chain is broken)",
                    ev.prev
                ),
            ));
        }
        if let Some((field, rule)) = prepare::unredacted_field(&self.redactor, line, &ev) {
            return Err(self.refused(
                project,
                seq,
                format!(
                    "its field `{field}` holds text the project's redaction rule `{rule}` \
                     replaces, which no replica's append writes (a line written around \
                     redaction); no byte of it was written here"
                ),
            ));
        }
        Ok(ev)
    }

    /// Place artifact `sha256` in the folder from the store, unless it is there.
    /// Place the artifacts `cited` (sha256, media type, the seq of a line citing it) that the
    /// folder lacks, after checking every one as the folder's own (its bytes hash to its name,
    /// nothing the project's redactor would change): one that fails refuses the catch-up with
    /// none placed. The bytes are held up to [`HOLD_BYTES`], past that read again to place.
    fn fetch_artifacts(
        &self,
        up: &mut dyn Upstream,
        project: &str,
        cited: &[(String, String, u64)],
    ) -> Result<()> {
        let mut held = Vec::new();
        let mut held_bytes = 0;
        for (sha256, media_type, seq) in cited {
            let present = self
                .artifacts
                .path_of(sha256)
                .is_ok_and(|p| p.as_std_path().is_file());
            if present {
                continue;
            }
            let bytes = self.fetch_checked(up, project, sha256, *seq)?;
            held_bytes += bytes.len();
            held.push((
                media_type,
                (held_bytes <= HOLD_BYTES).then_some(bytes),
                sha256,
                *seq,
            ));
        }
        for (media_type, bytes, sha256, seq) in held {
            let bytes = match bytes {
                Some(bytes) => bytes,
                None => self.fetch_checked(up, project, sha256, seq)?,
            };
            self.artifacts
                .put(&bytes, media_type)
                .map_err(|e| Error::artifact("cannot store artifacts", e))?;
        }
        Ok(())
    }

    /// Artifact `sha256` from the store, checked as the folder's own.
    fn fetch_checked(
        &self,
        up: &mut dyn Upstream,
        project: &str,
        sha256: &str,
        seq: u64,
    ) -> Result<Vec<u8>> {
        let bytes = up
            .artifact(sha256)
            .map_err(|e| store_error("read an artifact", project, e))?
            .ok_or_else(|| {
                Error::corrupt(
                    &self.log_path,
                    format!("the shared store has no artifact {sha256}, which a line cites"),
                )
            })?;
        if remaind_hash::sha256_hex(&bytes) != sha256 {
            return Err(self.refused(
                project,
                seq,
                format!("artifact {sha256}, which line {seq} cites, holds bytes of another hash"),
            ));
        }
        if let Some(rule) = prepare::unredacted_artifact(&self.redactor, &bytes) {
            return Err(self.refused(
                project,
                seq,
                format!(
                    "artifact {sha256}, which line {seq} cites, holds text the project's \
                     redaction rule `{rule}` replaces (it was written around Remaind's \
                     redaction)"
                ),
            ));
        }
        Ok(bytes)
    }

    /// The bytes of file `path` (under `.context/`) in the shared store this folder is a
    /// replica of: `None` on a plain folder or when the store has no such file.
    pub fn shared_file(&self, path: &str) -> Result<Option<Vec<u8>>> {
        let Some(shared) = &self.shared else {
            return Ok(None);
        };
        let mut store = shared.store.lock().unwrap_or_else(|p| p.into_inner());
        store
            .file(path)
            .map_err(|e| store_error("read a derived file", shared.project(), e))
    }

    /// `Ledger::under_lock` on a replica: the store's project locked, the folder caught up
    /// to the store's head, and the store's append in progress handed to `append`.
    pub(super) fn under_store_lock<T>(
        &self,
        shared: &Shared,
        locked: &Locked<'_>,
        head: u64,
        prev: String,
        append: impl FnOnce(&Locked<'_>, u64, String, Option<Upload<'_>>) -> Result<T>,
    ) -> Result<T> {
        let mut store = shared.store.lock().unwrap_or_else(|p| p.into_inner());
        let mut up = store
            .begin()
            .map_err(|e| store_error("append", shared.project(), e))?;
        let remote = up.head().clone();
        if remote.seq < head || (remote.seq == head && remote.digest != prev) {
            return Err(self.diverged(remote.seq.min(head) + u64::from(remote.seq == head)));
        }
        let (head, prev) = self.catch_up_locked(locked, head, prev, &mut up, shared.project())?;
        append(locked, head, prev, Some(up))
    }

    /// Put derived files (paths under `.context/`) in the append in progress, to commit with
    /// its event.
    pub(super) fn put_files(&self, up: &mut Upload<'_>, files: &[(&str, &[u8])]) -> Result<()> {
        let project = self.store_project().unwrap_or_default();
        for (path, bytes) in files {
            up.put_file(path, bytes)
                .map_err(|e| store_error("store a derived file", project, e))?;
        }
        Ok(())
    }

    /// Commit an append's artifacts and lines (`out`, lines ending at `ends`) to the store.
    pub(super) fn publish_to_store(
        &self,
        mut up: Append<'_>,
        out: &[u8],
        ends: &[usize],
        artifacts: &[String],
    ) -> Result<()> {
        let project = self.store_project().unwrap_or_default();
        let failed = |action| move |e| store_error(action, project, e);
        for sha in artifacts.iter().collect::<BTreeSet<_>>() {
            let bytes = self
                .artifacts
                .get(sha)
                .map_err(|e| Error::artifact("cannot read an artifact to share", e))?;
            up.put_artifact(sha, &bytes)
                .map_err(failed("store an artifact"))?;
        }
        let mut start = 0;
        let mut lines = Vec::with_capacity(ends.len());
        for &end in ends {
            lines.push(&out[start..end - 1]);
            start = end;
        }
        up.append(&lines).map_err(failed("append"))?;
        up.commit().map_err(failed("commit an append"))?;
        Ok(())
    }
}

/// Lines sent to the store per round trip when pushing (fewer when they are large).
const PUSH_LINES: usize = 1000;
/// Bytes of lines sent per round trip when pushing.
const PUSH_BYTES: usize = 8 << 20;

impl Ledger {
    /// Copy the events `store` has after this folder's head into the folder, byte for byte,
    /// with the artifacts they cite; re-running copies only what is new. Refused with
    /// [`Error::Diverged`] (naming the first differing seq) when the two chains differ.
    /// Returns how many events were copied.
    pub fn pull_from(&self, store: &mut Store) -> Result<u64> {
        let project = store.project().to_owned();
        let (locked, head, prev) = self.lock_for_append()?;
        let remote = store
            .head()
            .map_err(|e| store_error("read the head", &project, e))?;
        if remote.seq < head || store_digest(store, &project, head)? != Some(prev.clone()) {
            return Err(self.first_difference(store, &project)?);
        }
        let (now, _) = self.catch_up_locked(&locked, head, prev, store, &project)?;
        Ok(now - head)
    }

    /// Copy the events this folder has after `store`'s head into the store, byte for byte,
    /// with the artifacts they cite, in batches under the project's lock, all or nothing;
    /// re-running copies only what is new, and a folder the store is ahead of has nothing to
    /// copy. Refused with [`Error::Diverged`] when the chains differ. Returns how many events
    /// were copied.
    pub fn push_to(&self, store: &mut Store) -> Result<u64> {
        let project = store.project().to_owned();
        let failed = |action| {
            let project = project.clone();
            move |e| store_error(action, &project, e)
        };
        let (local, local_digest) = self.head()?;
        let remote = store.head().map_err(failed("read the head"))?;
        if remote.seq > local {
            // The store is ahead: nothing to push when this folder is a prefix of it.
            if store_digest(store, &project, local)? == Some(local_digest) {
                return Ok(0);
            }
            return Err(self.first_difference(store, &project)?);
        }
        if self.digest_at(remote.seq)? != Some(remote.digest.clone()) {
            return Err(self.first_difference(store, &project)?);
        }
        let snap = self.snapshot()?;
        let start = match snap
            .find_seq(remote.seq + 1)
            .map_err(|e| self.read_err(e))?
        {
            Some(start) => start,
            None => return Ok(0),
        };
        let mut lines = self
            .raw_lines(start)?
            .ok_or_else(|| Error::corrupt(&self.log_path, "a line start moved while pushing"))?;
        let mut up = store.begin().map_err(failed("push"))?;
        if up.head() != &remote {
            return Err(Error::Store {
                action: "push",
                project: project.clone(),
                source: remaind_pg::Error::HeadMoved {
                    head: up.head().seq,
                    expected: remote.seq,
                },
            });
        }
        let mut batch: Vec<Vec<u8>> = Vec::new();
        let mut bytes = 0;
        let mut pushed = 0;
        loop {
            let next = lines.next().transpose()?;
            let at_end = next.is_none();
            if let Some(line) = next {
                let ev =
                    lines::parse_line_fast(&line).map_err(|r| Error::corrupt(&self.log_path, r))?;
                for a in &ev.artifact {
                    let content = self
                        .artifacts
                        .get(&a.sha256)
                        .map_err(|e| Error::artifact("cannot read an artifact to push", e))?;
                    up.put_artifact(&a.sha256, &content)
                        .map_err(failed("store an artifact"))?;
                }
                bytes += line.len();
                batch.push(line);
            }
            if !batch.is_empty() && (at_end || batch.len() >= PUSH_LINES || bytes >= PUSH_BYTES) {
                let refs: Vec<&[u8]> = batch.iter().map(Vec::as_slice).collect();
                up.append(&refs).map_err(failed("push"))?;
                pushed += batch.len() as u64;
                batch.clear();
                bytes = 0;
            }
            if at_end {
                break;
            }
        }
        up.commit().map_err(failed("push"))?;
        Ok(pushed)
    }

    /// The first seq at which this folder's chain and `store`'s differ (one side lacking a
    /// line counts), found by bisection: a line's hash covers every line before it.
    fn first_difference(&self, store: &mut Store, project: &str) -> Result<Error> {
        let (local, _) = self.head()?;
        let remote = store
            .head()
            .map_err(|e| store_error("read the head", project, e))?;
        // Invariant: lines up to `lo` agree; line `hi` differs (or one side lacks it).
        let (mut lo, mut hi) = (0u64, local.min(remote.seq) + 1);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.digest_at(mid)? == store_digest(store, project, mid)? {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok(self.diverged_from(project, store.url(), hi))
    }

    fn diverged_from(&self, project: &str, url: &str, seq: u64) -> Error {
        Error::Diverged {
            path: self.log_path.clone(),
            project: project.to_owned(),
            url: url.to_owned(),
            seq,
        }
    }
}

/// The first 128 bits of a hex SHA-256, noted per line to recognise it when read again.
fn short_hash(hex: &str) -> u128 {
    hex.get(..32)
        .and_then(|h| u128::from_str_radix(h, 16).ok())
        .unwrap_or(0)
}

/// The store's hash of line `seq` (the genesis value for 0).
fn store_digest(store: &mut Store, project: &str, seq: u64) -> Result<Option<String>> {
    if seq == 0 {
        return Ok(Some(remaind_events::GENESIS_PREV.to_owned()));
    }
    store
        .digest_at(seq)
        .map_err(|e| store_error("read a digest", project, e))
}
