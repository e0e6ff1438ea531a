//! Bridges from the lower layers' errors and handles to this layer's.

use remaind_atomic::HistoryStore;
use remaind_ledger::Ledger;

use crate::Error;
use crate::layout::ContextDir;

/// Opens the ledger of a context folder.
pub(crate) fn open_ledger(ctx: &ContextDir) -> Result<Ledger, Error> {
    Ledger::open(ctx.root()).map_err(Error::Ledger)
}

/// Opens the history store over `active/`.
pub(crate) fn open_store(ctx: &ContextDir) -> Result<HistoryStore, Error> {
    HistoryStore::open(ctx.active_dir()).map_err(Error::Atomic)
}
