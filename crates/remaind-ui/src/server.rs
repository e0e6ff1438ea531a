//! The router, the shared per-launch state, and the one write (rollback and its undo).

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Form, Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use remaind_fs::ContextDir;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::error::Error;
use crate::html::page;
use crate::security::{random_token, same};
use crate::{assets, live, views};

/// What every request shares: the folder, the address, the per-launch secrets.
#[derive(Debug)]
pub(crate) struct App {
    pub(crate) ctx: ContextDir,
    pub(crate) addr: SocketAddr,
    /// `http://ADDR:PORT`.
    pub(crate) origin: String,
    /// The token the printed URL carries: traded for the session cookie and the page key,
    /// never stored by the browser itself.
    pub(crate) token: String,
    /// The session cookie's value (the browser sends it to every port of this host).
    pub(crate) session: String,
    /// The page key: kept in this origin's storage by the page's script and sent as the
    /// `X-Remaind-Key` header (or, by the live tail's EventSource, in its URL).
    pub(crate) key: String,
    /// The token every write form carries (distinct from the others, never in a URL).
    pub(crate) csrf: String,
    /// Per port: two viewers on one machine keep their own cookies.
    pub(crate) cookie_name: String,
    pub(crate) allow_writes: bool,
}

impl App {
    pub(crate) fn new(ctx: ContextDir, addr: SocketAddr, allow_writes: bool) -> Result<App, Error> {
        Ok(App {
            ctx,
            addr,
            origin: format!("http://{addr}"),
            token: random_token().map_err(Error::Random)?,
            session: random_token().map_err(Error::Random)?,
            key: random_token().map_err(Error::Random)?,
            csrf: random_token().map_err(Error::Random)?,
            cookie_name: format!("remaind_ui_{}", addr.port()),
            allow_writes,
        })
    }

    /// True when `host` (a Host header) names this server: its address and port; `localhost`
    /// too when bound to loopback; any IP literal with the port when bound to every address
    /// (a rebinding attack needs a DNS name, never an IP literal).
    pub(crate) fn host_ok(&self, host: &str) -> bool {
        let port = self.addr.port();
        if host == self.addr.to_string() {
            return true;
        }
        let Some((name, p)) = host.rsplit_once(':') else {
            return false;
        };
        if p.parse::<u16>().ok() != Some(port) {
            return false;
        }
        let ip = self.addr.ip();
        if ip.is_loopback() {
            return name == "localhost";
        }
        if ip.is_unspecified() {
            let literal = name.trim_start_matches('[').trim_end_matches(']');
            return literal.parse::<std::net::IpAddr>().is_ok();
        }
        false
    }
}

/// Runs `f` (library calls: blocking file I/O) off the async workers; its error becomes an
/// error page with the whole cause chain (400 for a query the page cannot use, else 500), and
/// a panic a 500 page.
pub(crate) async fn blocking<F>(f: F) -> Response
where
    F: FnOnce() -> Result<Response, Error> + Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(Ok(res)) => res,
        Ok(Err(e)) => {
            let status = match e {
                Error::Query(_) => StatusCode::BAD_REQUEST,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            error_page(status, &chain(&e))
        }
        Err(e) => error_page(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

/// An error with its whole cause chain, `: `-joined, for an error page.
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        out.push_str(": ");
        out.push_str(&c.to_string());
        cause = c.source();
    }
    out
}

pub(crate) fn error_page(status: StatusCode, message: &str) -> Response {
    let body = maud::html! { p.error { (message) } };
    (status, Html(page("Error", "", &body))).into_response()
}

pub(crate) async fn serve<F>(
    listener: std::net::TcpListener,
    app: Arc<App>,
    shutdown: F,
) -> Result<(), Error>
where
    F: Future<Output = ()> + Send + 'static,
{
    let listener = tokio::net::TcpListener::from_std(listener).map_err(Error::Serve)?;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let live_stop = stop_rx.clone();
    let router = Router::new()
        .route("/", get(|| async { Redirect::to("/timeline") }))
        .route("/timeline", get(views::timeline))
        .route("/e/{seq}", get(views::event))
        .route("/live", get(live::tail))
        .route("/search", get(views::search))
        .route("/now", get(views::now))
        .route("/compactions", get(views::compactions))
        .route("/compactions/diff", get(views::diff))
        .route("/memory", get(views::memory))
        .route("/integrity", get(views::integrity))
        .route("/rollback", get(views::rollback).post(rollback_post))
        .route("/rollback/confirm", post(rollback_confirm))
        .route("/assets/{name}", get(asset))
        .layer(axum::Extension(live::Stop(live_stop)))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&app),
            crate::security::guard,
        ))
        .with_state(app);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(crate::HEADER_TIMEOUT);
    let graceful = GracefulShutdown::new();
    let slots = Arc::new(tokio::sync::Semaphore::new(crate::MAX_CONNECTIONS));
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of descriptors, or a connection reset before it was taken: wait a
                // moment rather than spin, and keep serving the connections already open.
                Err(_) => {
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Past the cap the connection is closed at once: the ones already open (the owner's
        // among them) keep their descriptors and their answers.
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            drop(stream);
            continue;
        };
        let moved = Arc::new(Activity::default());
        let io = TokioIo::new(Watched {
            io: stream,
            moved: Arc::clone(&moved),
        });
        let conn =
            graceful.watch(http.serve_connection(io, TowerToHyperService::new(router.clone())));
        tokio::spawn(async move {
            let _slot = slot;
            tokio::select! {
                _ = conn => {}
                () = moved.idle_for(crate::IDLE_TIMEOUT) => {}
            }
        });
    }
    drop(listener);
    // Live tails end too, or the graceful shutdown would wait for them forever.
    let _ = stop_tx.send(true);
    graceful.shutdown().await;
    Ok(())
}

/// How long the accept loop waits after a failed accept (out of file descriptors, most
/// likely) before it tries again.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// When a byte last moved on one connection, in milliseconds since its `start`.
#[derive(Debug)]
struct Activity {
    start: Instant,
    last: AtomicU64,
}

impl Default for Activity {
    fn default() -> Activity {
        Activity {
            start: Instant::now(),
            last: AtomicU64::new(0),
        }
    }
}

impl Activity {
    fn touch(&self) {
        let now = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(now, Ordering::Relaxed);
    }

    /// Completes once no byte has moved for `limit`.
    async fn idle_for(&self, limit: Duration) {
        loop {
            let last = self.start + Duration::from_millis(self.last.load(Ordering::Relaxed));
            let quiet = last.elapsed();
            if quiet >= limit {
                return;
            }
            tokio::time::sleep(limit - quiet).await;
        }
    }
}

/// A connection's socket that notes every byte read or written in its [`Activity`].
struct Watched {
    io: tokio::net::TcpStream,
    moved: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.moved.touch();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.moved.touch();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.moved.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

async fn asset(Path(name): Path<String>) -> Response {
    match assets::get(&name) {
        Some((mime, bytes)) => (
            [
                (header::CONTENT_TYPE, mime),
                (header::CACHE_CONTROL, "private, max-age=3600"),
            ],
            bytes,
        )
            .into_response(),
        None => error_page(StatusCode::NOT_FOUND, "no such asset"),
    }
}

/// Refuses a write unless writes were allowed at launch and the form carries this launch's
/// CSRF token.
fn write_refused(app: &App, form: &HashMap<String, String>) -> Option<Response> {
    if !app.allow_writes {
        return Some(error_page(
            StatusCode::FORBIDDEN,
            "read-only: this viewer was started without --allow-writes, so it changes nothing",
        ));
    }
    if !form.get("csrf").is_some_and(|t| same(t, &app.csrf)) {
        return Some(error_page(
            StatusCode::FORBIDDEN,
            "refused: the form does not carry this viewer's CSRF token; reload the page",
        ));
    }
    None
}

/// Step 1 of a rollback: the confirmation page (what would change), itself a POST so a link
/// cannot lead to it.
async fn rollback_confirm(
    State(app): State<Arc<App>>,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    if let Some(refused) = write_refused(&app, &form) {
        return refused;
    }
    let to = form.get("to").cloned().unwrap_or_default();
    blocking(move || views::rollback_confirm_page(&app, &to)).await
}

/// Step 2: the rollback itself, only with `confirm=yes` from the confirmation page.
async fn rollback_post(
    State(app): State<Arc<App>>,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    if let Some(refused) = write_refused(&app, &form) {
        return refused;
    }
    if form.get("confirm").map(String::as_str) != Some("yes") {
        return error_page(
            StatusCode::BAD_REQUEST,
            "refused: a rollback needs its confirmation step",
        );
    }
    let to = form.get("to").cloned().unwrap_or_default();
    blocking(move || views::rollback_done_page(&app, &to)).await
}

/// Parsed query strings.
pub(crate) type Params = Query<HashMap<String, String>>;
