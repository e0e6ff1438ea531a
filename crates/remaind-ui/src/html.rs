//! HTML building. Every value that did not come from this crate's own literals goes through
//! [`esc`]: event text, actors, tool names, file names, reasons, queries. Markup comes only from
//! the literals here and in `views`, so an event holding `<script>` or `## Next step` renders as
//! those characters.

use std::fmt::Write as _;

use remaind_events::{Event, EventId};

/// `s` escaped for HTML text and double-quoted attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `s` escaped for a URL query value (then safe in an attribute too).
pub(crate) fn url_enc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// The navigation entries: (path, label).
const NAV: [(&str, &str); 7] = [
    ("/timeline", "Timeline"),
    ("/search", "Search"),
    ("/now", "Now"),
    ("/compactions", "Compactions"),
    ("/memory", "Memory"),
    ("/integrity", "Integrity"),
    ("/rollback", "Rollback"),
];

/// A whole page: `body` is already HTML.
pub(crate) fn page(title: &str, active: &str, body: &str) -> String {
    document(title, active, "", &format!("<h1>{}</h1>{body}", esc(title)))
}

/// The page a navigation gets when it carries the session cookie but not the page key (a
/// browser sends no header of its own on a navigation): no folder data, only `target` (this
/// request's path and query), which the script asks for again with the key. Its `<main>` is
/// then replaced by the answer's (see `assets/app.js`).
pub(crate) fn boot_page(target: &str) -> String {
    let path = target.split('?').next().unwrap_or(target);
    let (active, title) = NAV
        .iter()
        .find(|(p, _)| path == *p || path.starts_with(&format!("{p}/")))
        .map_or(("", "Loading"), |(p, label)| (*p, *label));
    let attrs = format!(
        " data-boot hx-get=\"{}\" hx-trigger=\"load\" hx-select=\"#main\" hx-target=\"this\" \
hx-swap=\"outerHTML\"",
        esc(target)
    );
    document(
        title,
        active,
        &attrs,
        "<p class=\"muted\" id=\"booting\">Loading…</p><noscript><p class=\"error\">This viewer \
needs JavaScript: the key that opens its pages is kept by the page, not in a cookie.</p></noscript>",
    )
}

/// The HTML around every page: `main_attrs` (already HTML, each with its leading space) go on
/// `<main>`, `main` is its content.
fn document(title: &str, active: &str, main_attrs: &str, main: &str) -> String {
    let mut nav = String::new();
    for (path, label) in NAV {
        let current = if path == active {
            " aria-current=\"page\""
        } else {
            ""
        };
        let _ = write!(nav, "<a href=\"{path}\"{current}>{label}</a>");
    }
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<meta name=\"color-scheme\" content=\"light dark\">\
<meta name=\"htmx-config\" content='{{\"includeIndicatorStyles\":false,\"allowEval\":false,\"allowScriptTags\":false,\"historyCacheSize\":0,\"refreshOnHistoryMiss\":true}}'>\
<title>{} · remaind</title>\
<link rel=\"stylesheet\" href=\"/assets/style.css\">\
<script src=\"/assets/htmx.min.js\" defer></script>\
<script src=\"/assets/sse.min.js\" defer></script>\
<script src=\"/assets/app.js\" defer></script>\
</head><body><header><span class=\"brand\">remaind</span><nav>{nav}</nav></header>\
<main id=\"main\"{main_attrs}>{main}</main></body></html>\n",
        esc(title),
    )
}

/// A link to one event.
pub(crate) fn ev_link(id: EventId) -> String {
    format!("<a class=\"ev-link\" href=\"/e/{}\">{id}</a>", id.seq())
}

/// A link to the event with this seq.
pub(crate) fn seq_link(seq: u64) -> String {
    format!("<a class=\"ev-link\" href=\"/e/{seq}\">e{seq}</a>")
}

/// Links to several events, space-separated.
pub(crate) fn ev_links(ids: &[EventId]) -> String {
    ids.iter()
        .map(|id| ev_link(*id))
        .collect::<Vec<_>>()
        .join(" ")
}

pub(crate) use remaind_events::one_line;

/// Text with `[eN]` citations turned into links (the rest escaped).
pub(crate) fn cited_text(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find("[e") {
        out.push_str(&esc(&rest[..at]));
        let after = &rest[at + 2..];
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        let closed = after[digits.len()..].starts_with(']');
        match digits.parse::<u64>() {
            Ok(n) if closed && n > 0 && !digits.starts_with('0') => {
                let _ = write!(out, "[<a class=\"cite\" href=\"/e/{n}\">e{n}</a>]");
                rest = &after[digits.len() + 1..];
            }
            _ => {
                out.push_str("[e");
                rest = after;
            }
        }
    }
    out.push_str(&esc(rest));
    out
}

/// The runtime session an imported event came from (`data.origin.session`), if any.
pub(crate) fn session_of(ev: &Event) -> Option<&str> {
    let origin = ev.data.as_ref()?.get("origin")?;
    ["session", "session_id"]
        .iter()
        .find_map(|k| origin.get(k).and_then(|v| v.as_str()))
}

/// One event as a timeline row: the summary line, and when opened the whole text, the links,
/// the artifacts (head and tail) and the stored payload.
pub(crate) fn event_row(ev: &Event) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<li class=\"ev k-{kind}\" id=\"e{seq}\"><details><summary>\
<a class=\"ev-id\" href=\"/e/{seq}\">e{seq}</a> <time>{ts}</time> \
<span class=\"kind\">{kind}</span> <span class=\"imp i{imp}\">i{imp}</span>",
        kind = ev.kind.as_str(),
        seq = ev.seq,
        ts = esc(&ev.ts),
        imp = ev.importance,
    );
    if let Some(a) = &ev.actor {
        let _ = write!(s, " <span class=\"actor\">@{}</span>", esc(a));
    }
    if let Some(t) = &ev.tool {
        let _ = write!(s, " <span class=\"tool\">[{}]</span>", esc(&t.name));
    }
    if let Some(t) = &ev.text {
        let _ = write!(s, " <span class=\"text\">{}</span>", esc(&one_line(t, 160)));
    }
    s.push_str("</summary>");
    s.push_str(&event_body(ev));
    s.push_str("</details></li>");
    s
}

/// The expanded part of an event.
pub(crate) fn event_body(ev: &Event) -> String {
    let mut s = String::from("<div class=\"body\">");
    if let Some(t) = &ev.text {
        let _ = write!(s, "<pre class=\"full-text\">{}</pre>", esc(t));
    }
    let mut links = String::new();
    for (label, ids) in [
        ("refs", &ev.refs),
        ("supersedes", &ev.supersedes),
        ("resolves", &ev.resolves),
    ] {
        if !ids.is_empty() {
            let _ = write!(
                links,
                "<dt>{label}</dt><dd class=\"{label}\">{}</dd>",
                ev_links(ids)
            );
        }
    }
    if let Some(session) = session_of(ev) {
        let _ = write!(links, "<dt>session</dt><dd>{}</dd>", esc(session));
    }
    if !links.is_empty() {
        let _ = write!(s, "<dl class=\"links\">{links}</dl>");
    }
    for a in &ev.artifact {
        let _ = write!(
            s,
            "<section class=\"artifact\"><h4>artifact {} · {} · {} bytes · {}</h4>\
<p class=\"sha\">{}</p><pre class=\"head\">{}</pre>",
            esc(&a.field),
            esc(&a.media_type),
            a.bytes,
            esc(&a.path),
            esc(&a.sha256),
            esc(&a.head)
        );
        if !a.tail.is_empty() {
            let _ = write!(s, "<p>…</p><pre class=\"tail\">{}</pre>", esc(&a.tail));
        }
        s.push_str("</section>");
    }
    let payload = serde_json::to_string_pretty(ev).unwrap_or_default();
    let _ = write!(s, "<pre class=\"payload\">{}</pre></div>", esc(&payload));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            esc("<script>alert('x')</script> & \"y\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;y&quot;"
        );
    }

    #[test]
    fn citations_become_links_and_the_rest_is_escaped() {
        assert_eq!(
            cited_text("do <b> [e12] and [e0] [ex] [e3"),
            "do &lt;b&gt; [<a class=\"cite\" href=\"/e/12\">e12</a>] and [e0] [ex] [e3"
        );
    }

    #[test]
    fn url_encoding_keeps_only_unreserved_bytes() {
        assert_eq!(url_enc("a b&c=é"), "a%20b%26c%3D%C3%A9");
    }
}
