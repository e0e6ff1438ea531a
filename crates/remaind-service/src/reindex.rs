//! Rebuilding the folder's search index from the ledger, from scratch (`remaind reindex`).
//! The index is derived and never an authority: every reader brings it up to date by
//! itself; a rebuild is for after a restored backup, or to compact the file.

use camino::Utf8PathBuf;
use remaind_fs::ContextDir;
use remaind_index::Index;
use remaind_ledger::Ledger;

use crate::Result;

/// What [`reindex`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reindexed {
    /// How many events the new index holds.
    pub events: u64,
    /// The index file.
    pub path: Utf8PathBuf,
}

/// Rebuilds the folder's index from its ledger, calling `progress(done, total)` as the
/// events are indexed.
pub fn reindex(ctx: &ContextDir, progress: &mut dyn FnMut(u64, u64)) -> Result<Reindexed> {
    let ledger = Ledger::open(ctx.root())?;
    let mut index = Index::open(ctx.root(), &ledger)?;
    let events = index.rebuild(progress)?;
    Ok(Reindexed {
        events,
        path: index.path().to_owned(),
    })
}
