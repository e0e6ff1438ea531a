//! Writing a batch's artifacts while its lines are still being checked.
//!
//! An artifact is staged (written and synced under a temp name) by a few threads as soon as its
//! line is prepared, so its write and sync overlap the preparation of later lines. Only when
//! every line has passed are the staged artifacts published (renamed into place, folders
//! synced), and only then is any line that cites them written: a crash never leaves a line
//! whose artifact is missing, and a failed batch leaves no artifact (unpublished temp files are
//! removed).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::{Scope, ScopedJoinHandle};

use remaind_artifacts::{ArtifactStore, Staged};

use crate::error::{Error, Result};
use crate::prepare::PendingArtifact;

/// Threads that stage a batch's artifacts at once; each mostly waits for its sync.
const STAGE_THREADS: usize = 16;

type Worker<'scope> = ScopedJoinHandle<'scope, Result<Vec<Staged>>>;

/// Stages artifacts on worker threads of `scope`, started as the first artifacts arrive.
pub(crate) struct Stager<'scope, 'env> {
    scope: &'scope Scope<'scope, 'env>,
    store: &'env ArtifactStore,
    tx: Option<mpsc::Sender<PendingArtifact>>,
    rx: Arc<Mutex<mpsc::Receiver<PendingArtifact>>>,
    workers: Vec<Worker<'scope>>,
    sent: usize,
    seen: HashSet<String>,
    /// Set when the batch failed or a worker did: the workers stop taking work.
    stop: Arc<AtomicBool>,
}

impl<'scope, 'env> Stager<'scope, 'env> {
    pub(crate) fn new(scope: &'scope Scope<'scope, 'env>, store: &'env ArtifactStore) -> Self {
        let (tx, rx) = mpsc::channel();
        Stager {
            scope,
            store,
            tx: Some(tx),
            rx: Arc::new(Mutex::new(rx)),
            workers: Vec::new(),
            sent: 0,
            seen: HashSet::new(),
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Hands an artifact to the workers (once per distinct content).
    pub(crate) fn stage(&mut self, artifact: PendingArtifact) {
        if !self.seen.insert(artifact.content.sha256().to_owned()) {
            return;
        }
        let Some(tx) = &self.tx else { return };
        // A closed channel means every worker has stopped; `finish` reports why.
        if tx.send(artifact).is_err() {
            return;
        }
        self.sent += 1;
        if self.workers.len() < STAGE_THREADS && self.workers.len() < self.sent {
            let (rx, stop, store) = (Arc::clone(&self.rx), Arc::clone(&self.stop), self.store);
            self.workers
                .push(self.scope.spawn(move || work(store, &rx, &stop)));
        }
    }

    /// Waits for every artifact to be staged; the first failure fails the batch.
    pub(crate) fn finish(mut self) -> Result<Vec<Staged>> {
        drop(self.tx.take());
        let mut staged = Vec::with_capacity(self.sent);
        let mut first_err = None;
        for worker in std::mem::take(&mut self.workers) {
            match worker.join() {
                Ok(Ok(done)) => staged.extend(done),
                Ok(Err(e)) => {
                    first_err.get_or_insert(e);
                }
                Err(_) => {
                    first_err.get_or_insert(Error::invalid(
                        "artifact",
                        "an artifact writer stopped before storing its artifacts",
                    ));
                }
            }
        }
        match first_err {
            // Dropping what was staged removes the temp files.
            Some(e) => Err(e),
            None => Ok(staged),
        }
    }
}

impl Drop for Stager<'_, '_> {
    fn drop(&mut self) {
        // Not finished: the batch failed. Workers stop; what they staged is dropped (removed)
        // when the scope joins them.
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn work(
    store: &ArtifactStore,
    rx: &Mutex<mpsc::Receiver<PendingArtifact>>,
    stop: &AtomicBool,
) -> Result<Vec<Staged>> {
    let mut done = Vec::new();
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(done);
        }
        let next = rx
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .recv();
        let Ok(a) = next else { return Ok(done) };
        match store.stage(&a.content, &a.media_type) {
            Ok(s) => done.push(s),
            Err(e) => {
                stop.store(true, Ordering::Relaxed);
                return Err(Error::artifact(
                    format!("cannot store artifact {}", a.content.sha256()),
                    e,
                ));
            }
        }
    }
}
