//! The `.context/` folder a server session works on, and its open ledger.
//!
//! Nothing here caches what another process can change: the ledger reads its head and lines
//! afresh on every call (positional reads take a new snapshot each time), the search index
//! stays open between calls but catches up with the ledger on each (and is reopened when
//! another process renamed a rebuilt index over it), and the open ledger itself is reopened
//! when any of its redaction rule files (`redaction.json`, `redaction.toml`, every gitleaks
//! file listed), its key or its thresholds change on disk, or when the folder was re-created.

use std::os::unix::fs::MetadataExt;
use std::sync::{Arc, Mutex};

use camino::{Utf8Path, Utf8PathBuf};
use remaind_fs::ContextDir;
use remaind_index::{Index, IndexHandle};
use remaind_ledger::Ledger;

use crate::error::ToolError;

/// Where the context folder is looked for: like every other command (`--dir`,
/// `REMAIND_DIR`, else the nearest `.context/` from `cwd` up).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locator {
    /// An explicit folder (`--dir` or `REMAIND_DIR`), relative to `cwd` when not absolute.
    pub explicit: Option<Utf8PathBuf>,
    /// Where the search for the nearest `.context/` starts.
    pub cwd: Utf8PathBuf,
}

/// The files whose change means the open ledger must be reopened, and what identifies a
/// version of each: (inode, size, modification time) or `None` when absent.
type Fingerprint = Vec<Option<(u64, u64, i64, i64)>>;

/// The rule files are the ledger's to watch (`Ledger::rules_changed`): it knows which
/// gitleaks files it read.
const WATCHED: [&str; 3] = [
    remaind_fs::layout::LOG_PATH,
    remaind_fs::layout::KEY_PATH,
    remaind_fs::layout::THRESHOLDS_PATH,
];

fn fingerprint(root: &Utf8Path) -> Fingerprint {
    WATCHED
        .iter()
        .enumerate()
        .map(|(i, rel)| {
            std::fs::symlink_metadata(root.join(rel)).ok().map(|m| {
                if i == 0 {
                    // The log grows with every append: only its identity matters.
                    (m.ino(), 0, 0, 0)
                } else {
                    (m.ino(), m.len(), m.mtime(), m.mtime_nsec())
                }
            })
        })
        .collect()
}

/// One server session's view of its context folder.
#[derive(Debug)]
pub(crate) struct Session {
    locator: Locator,
    open: Mutex<Option<Open>>,
    /// The search index between calls: opening and checking a large index file costs more
    /// than many searches.
    index: Mutex<Option<IndexHandle>>,
}

#[derive(Debug)]
struct Open {
    ctx: ContextDir,
    print: Fingerprint,
    ledger: Arc<Ledger>,
}

impl Session {
    pub(crate) fn new(locator: Locator) -> Self {
        Session {
            locator,
            open: Mutex::new(None),
            index: Mutex::new(None),
        }
    }

    /// The context folder, found now (a folder initialized after the server started is
    /// found by the next call).
    pub(crate) fn context(&self) -> Result<ContextDir, ToolError> {
        remaind_fs::ContextDir::discover(self.locator.explicit.as_deref(), &self.locator.cwd)
            .map_err(ToolError::from)
    }

    /// The context folder and its open ledger, reopened when a watched file changed.
    pub(crate) fn ledger(&self) -> Result<(ContextDir, Arc<Ledger>), ToolError> {
        let ctx = self.context()?;
        let print = fingerprint(ctx.root());
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(o) = open.as_ref()
            && o.ctx == ctx
            && o.print == print
            && !o.ledger.rules_changed()
        {
            return Ok((ctx, Arc::clone(&o.ledger)));
        }
        let ledger = Arc::new(Ledger::open(ctx.root())?);
        *open = Some(Open {
            ctx: ctx.clone(),
            print,
            ledger: Arc::clone(&ledger),
        });
        Ok((ctx, ledger))
    }

    /// Run `f` on the search index of `ctx`, bound to `ledger`: the index kept from the last
    /// call when it still reads the same file, else opened afresh. Concurrent calls each get
    /// an index of their own; the last one done is kept.
    pub(crate) fn with_index<T>(
        &self,
        ctx: &ContextDir,
        ledger: &Ledger,
        f: impl FnOnce(&mut Index<'_>) -> Result<T, ToolError>,
    ) -> Result<T, ToolError> {
        let kept = self.index.lock().unwrap_or_else(|p| p.into_inner()).take();
        let mut index = match kept {
            Some(handle) => handle.attach(ctx.root(), ledger)?,
            None => Index::open(ctx.root(), ledger)?,
        };
        let out = f(&mut index);
        *self.index.lock().unwrap_or_else(|p| p.into_inner()) = Some(index.detach());
        out
    }
}
