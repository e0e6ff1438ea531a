//! A folder as the replica of a shared store: catching it up, and committing appends to the
//! store before the folder (docs/fleet.md).

use std::collections::BTreeSet;
use std::time::Duration;

use remaind_events::line_digest;
use remaind_pg::{Append, Store};

use super::{Ledger, Locked};
use crate::error::{Error, Result};
use crate::lines;
use crate::shared::{Upstream, store_error};

/// Lines copied from the store per round trip while catching up.
const PAGE: usize = 1000;

impl Ledger {
    /// The shared store's project this folder is a replica of, if any.
    pub fn store_project(&self) -> Option<&str> {
        self.shared.as_ref().map(|s| s.project.as_str())
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
            store
                .wait(local, wait)
                .map_err(|e| store_error("wait for events", &shared.project, e))?;
        }
        let (locked, head, prev) = self.lock_for_append()?;
        let mut store = shared.store.lock().unwrap_or_else(|p| p.into_inner());
        Ok(self.catch_up_locked(&locked, head, prev, &mut *store)?.0)
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
            .map_err(|e| store_error("read the head", &shared.project, e))?;
        if remote.seq < head || (remote.seq == head && remote.digest != prev) {
            return Err(self.diverged(remote.seq.min(head).max(1)));
        }
        self.catch_up_locked(locked, head, prev, &mut *store)?;
        Ok(())
    }

    /// The folder and the store disagree at or before `seq`.
    pub(super) fn diverged(&self, seq: u64) -> Error {
        Error::Diverged {
            path: self.log_path.clone(),
            project: self.store_project().unwrap_or_default().to_owned(),
            seq,
        }
    }

    /// Copy the lines `up` has after `head` into the folder, checking each (a valid event,
    /// the next seq, chained onto the one before) and placing the artifacts it cites first.
    /// Returns the new head and its hash.
    pub(super) fn catch_up_locked(
        &self,
        locked: &Locked<'_>,
        mut head: u64,
        mut prev: String,
        up: &mut dyn Upstream,
    ) -> Result<(u64, String)> {
        let project = self.store_project().unwrap_or_default().to_owned();
        loop {
            let page = up
                .lines(head, PAGE)
                .map_err(|e| store_error("read events", &project, e))?;
            if page.is_empty() {
                return Ok((head, prev));
            }
            let mut out = Vec::new();
            let mut ends = Vec::new();
            for (seq, line) in page {
                let ev = lines::parse_line(&line).map_err(|reason| {
                    Error::corrupt(
                        &self.log_path,
                        format!("the shared store's line {seq} is not a valid event: {reason}"),
                    )
                })?;
                if ev.seq != head + 1 || seq != ev.seq || ev.prev != prev {
                    return Err(self.diverged(head.max(1)));
                }
                for a in &ev.artifact {
                    self.fetch_artifact(up, &project, &a.sha256, &a.media_type)?;
                }
                out.extend_from_slice(&line);
                out.push(b'\n');
                ends.push(out.len());
                prev = line_digest(&line);
                head = seq;
            }
            let len = self.write_synced(locked, &out, &ends)?;
            self.write_anchor(locked, head, len, prev.clone());
        }
    }

    /// Place artifact `sha256` in the folder from the store, unless it is there.
    fn fetch_artifact(
        &self,
        up: &mut dyn Upstream,
        project: &str,
        sha256: &str,
        media_type: &str,
    ) -> Result<()> {
        let present = self
            .artifacts
            .path_of(sha256)
            .is_ok_and(|p| p.as_std_path().is_file());
        if present {
            return Ok(());
        }
        let bytes = up
            .artifact(sha256)
            .map_err(|e| store_error("read an artifact", project, e))?
            .ok_or_else(|| {
                Error::corrupt(
                    &self.log_path,
                    format!("the shared store has no artifact {sha256}, which a line cites"),
                )
            })?;
        self.artifacts
            .put(&bytes, media_type)
            .map_err(|e| Error::artifact("cannot store artifacts", e))?;
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
        let (now, _) = self.catch_up_locked(&locked, head, prev, store)?;
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
            let next = lines.next_line()?;
            if let Some((_, line)) = next {
                let ev =
                    lines::parse_line_fast(line).map_err(|r| Error::corrupt(&self.log_path, r))?;
                for a in &ev.artifact {
                    let content = self
                        .artifacts
                        .get(&a.sha256)
                        .map_err(|e| Error::artifact("cannot read an artifact to push", e))?;
                    up.put_artifact(&a.sha256, &content)
                        .map_err(failed("store an artifact"))?;
                }
                bytes += line.len();
                batch.push(line.to_vec());
            }
            if !batch.is_empty()
                && (next.is_none() || batch.len() >= PUSH_LINES || bytes >= PUSH_BYTES)
            {
                let refs: Vec<&[u8]> = batch.iter().map(Vec::as_slice).collect();
                up.append(&refs).map_err(failed("push"))?;
                pushed += batch.len() as u64;
                batch.clear();
                bytes = 0;
            }
            if next.is_none() {
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
        Ok(self.diverged_from(project, hi))
    }

    fn diverged_from(&self, project: &str, seq: u64) -> Error {
        Error::Diverged {
            path: self.log_path.clone(),
            project: project.to_owned(),
            seq,
        }
    }
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
