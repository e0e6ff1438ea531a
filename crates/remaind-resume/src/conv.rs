//! Bridges from the lower layers' errors and handles to this layer's.

use remaind_atomic::HistoryStore;
use remaind_ledger::Ledger;

use crate::Error;
use crate::layout::ContextDir;

/// Maps a ledger error; the ledger's own error keeps the file and line it names, and
/// decides whether it was the caller's input (exit 2) or a runtime failure (exit 1).
pub(crate) fn ledger_err(_ctx: &ContextDir, e: remaind_ledger::Error) -> Error {
    Error::Ledger(e)
}

/// Maps a history-store error, keeping it whole.
pub(crate) fn atomic_err(e: remaind_atomic::Error) -> Error {
    Error::Atomic(e)
}

/// Opens the ledger of a context folder.
pub(crate) fn open_ledger(ctx: &ContextDir) -> Result<Ledger, Error> {
    Ledger::open(ctx.root()).map_err(|e| ledger_err(ctx, e))
}

/// Opens the history store over `active/`.
pub(crate) fn open_store(ctx: &ContextDir) -> Result<HistoryStore, Error> {
    HistoryStore::open(ctx.active_dir()).map_err(atomic_err)
}
