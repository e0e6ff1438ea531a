//! Bridges from the lower layers' errors and handles to this layer's.

use remaind_atomic::HistoryStore;
use remaind_ledger::Ledger;

use crate::Error;
use crate::layout::ContextDir;

/// Maps a ledger error: rejected input stays input (exit 2), anything else is a runtime
/// failure on `logs/events.jsonl` with the ledger's error kept as the source.
pub(crate) fn ledger_err(ctx: &ContextDir, e: remaind_ledger::Error) -> Error {
    if e.is_invalid_input() {
        Error::InvalidInput {
            field: "event".to_owned(),
            message: e.to_string(),
        }
    } else {
        Error::io(ctx.events_path(), std::io::Error::other(e))
    }
}

/// Maps a history-store error, keeping it as the source.
pub(crate) fn atomic_err(e: remaind_atomic::Error) -> Error {
    if e.is_invalid_input() {
        Error::InvalidInput {
            field: e.path().to_string(),
            message: e.to_string(),
        }
    } else {
        let path = e.path().to_owned();
        Error::io(path, std::io::Error::other(e))
    }
}

/// Opens the ledger of a context folder.
pub(crate) fn open_ledger(ctx: &ContextDir) -> Result<Ledger, Error> {
    Ledger::open(ctx.root()).map_err(|e| ledger_err(ctx, e))
}

/// Opens the history store over `active/`.
pub(crate) fn open_store(ctx: &ContextDir) -> Result<HistoryStore, Error> {
    HistoryStore::open(ctx.active_dir()).map_err(atomic_err)
}
