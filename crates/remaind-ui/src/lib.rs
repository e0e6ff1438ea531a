//! The Remaind viewer behind `remaind ui`: a local web page over one `.context/` folder (the
//! timeline with a live tail, search, what a resumed agent will see, the compactions with
//! their verdicts and a side-by-side diff, memory, integrity and rollback).
//!
//! This layer owns the HTTP surface: the routes and their stable URLs (`/timeline`, `/e/123`,
//! `/search`, `/now`, `/compactions`, `/memory`, `/integrity`, `/rollback`), the HTML (maud
//! templates, checked at compile time, that escape every value they are given: event text renders
//! as text), the static assets embedded in the binary (htmx and its SSE extension, vendored; no
//! CDN), and the safety rules of a local server: bound to loopback unless told otherwise, a random
//! per-launch token exchanged for an HttpOnly SameSite=Strict cookie and a page key kept in this
//! origin's storage (a cookie alone, which the browser also sends to every other port of the host,
//! reads nothing), Host and Origin checked against the bound address (DNS rebinding), a strict
//! Content-Security-Policy, read-only unless writes were allowed (then every write is a POST
//! carrying a per-launch CSRF token, after a confirmation page), and bounded connections
//! ([`HEADER_TIMEOUT`], [`IDLE_TIMEOUT`], [`MAX_CONNECTIONS`]).
//!
//! It reads everything through the libraries below it (the ledger's positional reads, the
//! index, resume, compact's history store, memory) and never opens a file under `.context/`
//! itself. It must not know about argument parsing or terminals: the CLI prints the URL.
//!
//! ```no_run
//! use remaind_ui::{Options, Viewer};
//!
//! let ctx = remaind_fs::ContextDir::new(camino::Utf8PathBuf::from(".context"));
//! let options = Options::local(ctx);
//! let viewer = Viewer::bind(options)?;
//! // The URL carries the per-launch token: the first visit trades it for a cookie and a key.
//! let url = viewer.url();
//! assert!(url.starts_with("http://127.0.0.1:"));
//! viewer.serve_until_ctrl_c()?;
//! # Ok::<(), remaind_ui::Error>(())
//! ```

mod assets;
mod diff;
mod error;
mod html;
mod live;
mod security;
mod server;
mod views;

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

pub use error::Error;
use remaind_fs::ContextDir;

/// How long a request's head (its request line and headers) may take to arrive, counted from
/// the moment the connection is ready for one: when it is accepted, and again after each answer
/// on a kept-alive connection (so a connection idle between requests is closed after this long
/// too). A client that sends part of a header and stops is dropped then, without an answer.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// A connection on which no byte moves either way for this long is closed, whatever it is
/// doing: a request body that stopped arriving, a client that stopped reading its answer. The
/// live tail writes a keep-alive comment every 15 seconds, so an open tail is never idle.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// Connections served at once. One more is closed as soon as it is accepted, so a flood of
/// connections cannot take the file descriptors the owner's open connections need (each one
/// that never sends a whole header is gone after [`HEADER_TIMEOUT`]).
pub const MAX_CONNECTIONS: usize = 64;

/// How a viewer is started.
#[derive(Debug, Clone)]
pub struct Options {
    /// The `.context/` folder it shows.
    pub context: ContextDir,
    /// The address to bind (loopback unless the user asked otherwise).
    pub bind: IpAddr,
    /// The port; 0 picks a free one.
    pub port: u16,
    /// Whether rollback and undo may be run from the page.
    pub allow_writes: bool,
}

impl Options {
    /// Read-only, on 127.0.0.1 and a free port.
    pub fn local(context: ContextDir) -> Options {
        Options {
            context,
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            allow_writes: false,
        }
    }
}

/// A viewer bound to its address, not yet serving.
#[derive(Debug)]
pub struct Viewer {
    listener: TcpListener,
    app: Arc<server::App>,
}

impl Viewer {
    /// Bind the address and draw the per-launch token. A port already in use is
    /// [`Error::Bind`] (see [`Error::is_addr_in_use`]).
    pub fn bind(options: Options) -> Result<Viewer, Error> {
        let wanted = SocketAddr::new(options.bind, options.port);
        let listener = TcpListener::bind(wanted).map_err(|source| Error::Bind {
            addr: wanted,
            source,
        })?;
        let addr = listener.local_addr().map_err(|source| Error::Bind {
            addr: wanted,
            source,
        })?;
        listener
            .set_nonblocking(true)
            .map_err(|source| Error::Bind { addr, source })?;
        let app = server::App::new(options.context, addr, options.allow_writes)?;
        Ok(Viewer {
            listener,
            app: Arc::new(app),
        })
    }

    /// The bound address.
    pub fn address(&self) -> SocketAddr {
        self.app.addr
    }

    /// The URL to open, with the per-launch token.
    pub fn url(&self) -> String {
        format!("{}/?token={}", self.app.origin, self.app.token)
    }

    /// Serve until Ctrl-C (SIGINT) or SIGTERM, then finish the requests in flight and return.
    pub fn serve_until_ctrl_c(self) -> Result<(), Error> {
        self.serve_until(async {
            let mut term =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
            let term = async {
                match term.as_mut() {
                    Some(t) => {
                        t.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                () = term => {}
            }
        })
    }

    /// Serve until `shutdown` completes (it is polled on the server's runtime).
    pub fn serve_until<F>(self, shutdown: F) -> Result<(), Error>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(Error::Runtime)?;
        runtime.block_on(server::serve(self.listener, self.app, shutdown))
    }
}
