//! The viewer's one error type.

use std::net::SocketAddr;

/// What can stop the viewer from starting or serving. Display names what failed; the cause is
/// [`std::error::Error::source`].
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
}

impl Error {
    /// True when the port is already taken by another program.
    pub fn is_addr_in_use(&self) -> bool {
        matches!(self, Error::Bind { source, .. } if source.kind() == std::io::ErrorKind::AddrInUse)
    }

    /// True when the cause is the user's input (an address that cannot be bound here).
    pub fn is_invalid_input(&self) -> bool {
        matches!(self, Error::Bind { .. })
    }
}
