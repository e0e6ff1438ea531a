//! The rules every request passes before any view runs, and the headers every response gets.
//!
//! 1. `Host` must name the bound address (or `localhost` when bound to loopback) with its
//!    port: a page on another name that resolves here (DNS rebinding) gets 403.
//! 2. `Origin`, when sent, must be this server's origin (or `null` with `Sec-Fetch-Site:
//!    same-origin`, what a browser sends for its own form under `no-referrer`); a POST must
//!    send it; `Sec-Fetch-Site: cross-site` or `same-site` is refused outright.
//! 3. The session: two per-launch secrets, neither of which reads anything alone.
//!    - The session cookie (HttpOnly, SameSite=Strict). Cookies have no port scope: the
//!      browser also sends this one to every other server on the same host, which can then
//!      replay it. So the cookie only ever buys the boot page: no folder data, no secret.
//!    - The page key, sent as the `X-Remaind-Key` header. It lives in this origin's
//!      `localStorage`, which is scoped to scheme, host *and port*: no page of another server
//!      can read it, and a custom header from another origin needs a CORS preflight this
//!      server never grants. The live tail's `EventSource` cannot send headers, so `/live`
//!      alone takes the key in its URL (`&key=`), written into the timeline page, which only a
//!      request with the key gets.
//!
//!    The printed URL's `?token=` (a third secret, never stored by the browser) is traded, on
//!    any GET, for the cookie and a redirect to the same URL without it whose fragment holds
//!    the key (`#remaind-key=…`; a fragment is never sent to any server). The page's script
//!    (`assets/app.js`) moves the key into storage and clears the fragment. A navigation (a
//!    link, a reload, a typed URL, a GET form) sends the cookie but no header: it gets the
//!    boot page as a 401, whose script asks for the same URL again with the header and puts
//!    the answer's `<main>` in place. A replayed cookie value, from curl or another local
//!    server, gets that boot page and nothing else; replayed as `?token=` it is no token.
//!    Static assets and `/` (a redirect) need the cookie only: they hold no folder data.
//! 4. A POST passes with the cookie, and its handler (in `server`) refuses it unless writes
//!    were allowed at launch and its form carries the CSRF token of this launch, which is
//!    written only into pages that needed the key; nothing is read before that check.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::html::boot_page;
use crate::server::App;

/// The policy: scripts, styles and connections from this origin only, nothing inline, no
/// frames, forms post here only.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// 32 random bytes as hex.
pub(crate) fn random_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
    Ok(hex::encode(bytes))
}

/// Equal in time independent of where they differ.
pub(crate) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

fn refuse(status: StatusCode, why: &str) -> Response {
    let mut res = (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{why}\n"),
    )
        .into_response();
    harden(res.headers_mut());
    res
}

/// The headers every response carries.
fn harden(h: &mut HeaderMap) {
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    if !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
}

/// The value of the `name` cookie in `headers`.
fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// The `token` query parameter and the query without it.
fn split_token(query: &str) -> (Option<&str>, String) {
    let mut token = None;
    let mut rest = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair.strip_prefix("token=") {
            Some(t) => token = Some(t),
            None => rest.push(pair),
        }
    }
    (token, rest.join("&"))
}

/// The header that carries the page key.
pub(crate) const KEY_HEADER: &str = "x-remaind-key";

/// True when the request carries this launch's page key: in its header, or for the live tail
/// (an `EventSource`, which sends no header of its own) in the `key` query parameter.
fn has_key(app: &App, req: &Request) -> bool {
    let header = req
        .headers()
        .get(KEY_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|k| same(k, &app.key));
    header
        || (req.uri().path() == "/live"
            && req
                .uri()
                .query()
                .unwrap_or("")
                .split('&')
                .filter_map(|pair| pair.strip_prefix("key="))
                .any(|k| same(k, &app.key)))
}

/// Routes that hold no folder data: the cookie alone opens them.
fn keyless(path: &str) -> bool {
    path == "/" || path.starts_with("/assets/")
}

/// The middleware: checks, then the view, then the headers.
pub(crate) async fn guard(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    if !host.is_some_and(|h| app.host_ok(h)) {
        return refuse(
            StatusCode::FORBIDDEN,
            "forbidden: the Host header does not name this viewer's address",
        );
    }
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    // Under `Referrer-Policy: no-referrer` a browser sends `Origin: null` with a form's POST;
    // then `Sec-Fetch-Site` (which no page script can set) says whether it came from here.
    let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    let null_from_here = origin == Some("null") && fetch_site == Some("same-origin");
    if matches!(fetch_site, Some("cross-site" | "same-site")) {
        return refuse(
            StatusCode::FORBIDDEN,
            "forbidden: the request comes from another site",
        );
    }
    match origin {
        Some(_) if null_from_here => {}
        Some(o) if host.is_none_or(|h| o != format!("http://{h}")) => {
            return refuse(
                StatusCode::FORBIDDEN,
                "forbidden: the request comes from another origin",
            );
        }
        None if req.method() != Method::GET && req.method() != Method::HEAD => {
            return refuse(
                StatusCode::FORBIDDEN,
                "forbidden: a write must come from this viewer's page (no Origin header)",
            );
        }
        _ => {}
    }
    let query = req.uri().query().unwrap_or("");
    let (token, rest) = split_token(query);
    if req.method() == Method::GET && token.is_some_and(|t| same(t, &app.token)) {
        return trade(&app, req.uri().path(), &rest);
    }
    if !cookie(headers, &app.cookie_name).is_some_and(|c| same(c, &app.session)) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "unauthorized: open the URL `remaind ui` printed (it carries this launch's token)",
        );
    }
    let writes = req.method() != Method::GET && req.method() != Method::HEAD;
    if writes || keyless(req.uri().path()) || has_key(&app, &req) {
        let mut res = next.run(req).await;
        harden(res.headers_mut());
        return res;
    }
    // The cookie without the key: the owner's browser on a navigation, or a replayed cookie.
    // Either way only the boot page, which holds nothing but this URL.
    let target = match req.uri().query() {
        Some(q) => format!("{}?{q}", req.uri().path()),
        None => req.uri().path().to_owned(),
    };
    let mut res = (
        StatusCode::UNAUTHORIZED,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        boot_page(&target),
    )
        .into_response();
    harden(res.headers_mut());
    res
}

/// The answer to the printed URL: the session cookie, and a redirect to the same URL without
/// the token whose fragment carries the page key (`/` goes straight to the timeline).
fn trade(app: &App, path: &str, rest: &str) -> Response {
    let path = if path == "/" { "/timeline" } else { path };
    let location = if rest.is_empty() {
        format!("{path}#remaind-key={}", app.key)
    } else {
        format!("{path}?{rest}#remaind-key={}", app.key)
    };
    let mut res = Response::builder()
        .status(StatusCode::SEE_OTHER)
        .header(header::LOCATION, location)
        .header(
            header::SET_COOKIE,
            format!(
                "{}={}; HttpOnly; SameSite=Strict; Path=/",
                app.cookie_name, app.session
            ),
        )
        .body(Body::empty())
        .unwrap_or_else(|_| {
            // A header value this crate built from hex and a path the request itself parsed;
            // should it ever fail, refuse rather than answer half a trade.
            refuse(
                StatusCode::BAD_REQUEST,
                "bad request: the URL cannot be redirected",
            )
        });
    harden(res.headers_mut());
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_taken_out_of_the_query() {
        assert_eq!(
            split_token("a=1&token=xyz&b=2"),
            (Some("xyz"), "a=1&b=2".to_owned())
        );
        assert_eq!(split_token(""), (None, String::new()));
    }

    #[test]
    fn comparison_needs_equal_strings() {
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd"));
        assert!(!same("abc", "abcd"));
    }
}
