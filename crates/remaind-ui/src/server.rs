//! The router, the shared per-launch state, and the one write (rollback and its undo).

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Form, Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use remaind_resume::ContextDir;

use crate::error::Error;
use crate::html::{esc, page};
use crate::security::{random_token, same};
use crate::{assets, live, views};

/// What every request shares: the folder, the address, the per-launch secrets.
#[derive(Debug)]
pub(crate) struct App {
    pub(crate) ctx: ContextDir,
    pub(crate) addr: SocketAddr,
    /// `http://ADDR:PORT`.
    pub(crate) origin: String,
    /// The token the printed URL carries, and the cookie's value.
    pub(crate) token: String,
    /// The token every write form carries (distinct from the cookie's, never in a URL).
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

/// Runs `f` (library calls: blocking file I/O) off the async workers; its error, or a panic,
/// becomes a 500 page.
pub(crate) async fn blocking<F>(f: F) -> Response
where
    F: FnOnce() -> Result<Response, String> + Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(Ok(res)) => res,
        Ok(Err(message)) => error_page(StatusCode::INTERNAL_SERVER_ERROR, &message),
        Err(e) => error_page(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

pub(crate) fn error_page(status: StatusCode, message: &str) -> Response {
    let body = format!("<p class=\"error\">{}</p>", esc(message));
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
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown.await;
            // Live tails end too, or the graceful shutdown would wait for them forever.
            let _ = stop_tx.send(true);
        })
        .await
        .map_err(Error::Serve)
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
