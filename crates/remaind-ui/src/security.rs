//! The rules every request passes before any view runs, and the headers every response gets.
//!
//! 1. `Host` must name the bound address (or `localhost` when bound to loopback) with its
//!    port: a page on another name that resolves here (DNS rebinding) gets 403.
//! 2. `Origin`, when sent, must be this server's origin (or `null` with `Sec-Fetch-Site:
//!    same-origin`, what a browser sends for its own form under `no-referrer`); a POST must
//!    send it; `Sec-Fetch-Site: cross-site` is refused outright.
//! 3. The per-launch token: in the cookie, or in `?token=` once (answered with the cookie
//!    and a redirect to the same URL without it). Anything else is 401.
//!
//! Writes are checked in `server` (allowed at launch, a POST, the CSRF token of this launch).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

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
    if cookie(headers, &app.cookie_name).is_some_and(|c| same(c, &app.token)) {
        let mut res = next.run(req).await;
        harden(res.headers_mut());
        return res;
    }
    let query = req.uri().query().unwrap_or("");
    let (token, rest) = split_token(query);
    if req.method() == Method::GET && token.is_some_and(|t| same(t, &app.token)) {
        let path = req.uri().path();
        let location = if rest.is_empty() {
            path.to_owned()
        } else {
            format!("{path}?{rest}")
        };
        let mut res = Response::builder()
            .status(StatusCode::SEE_OTHER)
            .header(header::LOCATION, location)
            .header(
                header::SET_COOKIE,
                format!(
                    "{}={}; HttpOnly; SameSite=Strict; Path=/",
                    app.cookie_name, app.token
                ),
            )
            .body(Body::empty())
            .unwrap_or_default();
        harden(res.headers_mut());
        return res;
    }
    refuse(
        StatusCode::UNAUTHORIZED,
        "unauthorized: open the URL `remaind ui` printed (it carries this launch's token)",
    )
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
