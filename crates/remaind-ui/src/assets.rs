//! The static files, embedded in the binary: no CDN, no build step.

const HTMX: &[u8] = include_bytes!("../assets/htmx.min.js");
const SSE: &[u8] = include_bytes!("../assets/sse.min.js");
const APP: &[u8] = include_bytes!("../assets/app.js");
const STYLE: &[u8] = include_bytes!("../assets/style.css");

/// The media type and bytes of the asset `name`.
pub(crate) fn get(name: &str) -> Option<(&'static str, &'static [u8])> {
    const JS: &str = "text/javascript; charset=utf-8";
    Some(match name {
        "htmx.min.js" => (JS, HTMX),
        "sse.min.js" => (JS, SSE),
        "app.js" => (JS, APP),
        "style.css" => ("text/css; charset=utf-8", STYLE),
        _ => return None,
    })
}
