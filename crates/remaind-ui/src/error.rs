//! The viewer's one error type.

use std::net::SocketAddr;

/// What can stop the viewer from starting or serving, or one page from being made. Display names
/// what failed; the cause is [`std::error::Error::source`].
///
/// The page variants (from [`Error::Query`] on) never leave a running viewer: a page that fails
/// shows the error and its causes on an error page (400 for [`Error::Query`], 500 for the
/// rest). A library error is carried as it is (its Display and causes, not one more line), so
/// the page says what the library said.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The address could not be bound (in use, not local, no permission).
    #[error("cannot listen on {addr}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The async runtime could not start.
    #[error("cannot start the server's runtime")]
    Runtime(#[source] std::io::Error),
    /// The per-launch token could not be drawn.
    #[error("cannot draw a random token")]
    Random(#[source] std::io::Error),
    /// The server stopped on an I/O error.
    #[error("the server stopped")]
    Serve(#[source] std::io::Error),
    /// A page's query names something the page cannot use (an unknown kind, an importance
    /// out of range): the message the error page shows, with status 400.
    #[error("{0}")]
    Query(String),
    /// A stored state (a version of `state.json` in the history) is not valid JSON.
    #[error("the state at {at} does not parse")]
    StateParse {
        /// The time of the version asked for, as the URL gave it.
        at: String,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// Reading the ledger failed.
    #[error(transparent)]
    Ledger(#[from] remaind_ledger::Error),
    /// Reading the index failed.
    #[error(transparent)]
    Index(#[from] remaind_index::Error),
    /// Reading the derived files' history failed.
    #[error(transparent)]
    Store(#[from] remaind_atomic::Error),
    /// Opening the history store or reading the accepted state failed.
    #[error(transparent)]
    Compact(#[from] remaind_compact::Error),
    /// Building what a resumed agent sees, or a rollback, failed.
    #[error(transparent)]
    Resume(#[from] remaind_resume::Error),
    /// Reading memory failed.
    #[error(transparent)]
    Memory(#[from] remaind_memory::Error),
    /// A search or the integrity check failed.
    #[error(transparent)]
    Service(#[from] remaind_service::Error),
}

impl Error {
    /// True when the port is already taken by another program.
    pub fn is_addr_in_use(&self) -> bool {
        matches!(self, Error::Bind { source, .. } if source.kind() == std::io::ErrorKind::AddrInUse)
    }

    /// True when the cause is the user's input: an address that cannot be bound here, or a
    /// page's query naming what the page cannot use.
    pub fn is_invalid_input(&self) -> bool {
        matches!(self, Error::Bind { .. } | Error::Query(_))
    }
}
