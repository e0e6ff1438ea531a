//! HTML building, on maud's `html!` templates: every value a template is given (event text,
//! actors, tool names, file names, reasons, queries) is escaped by the template itself, in text
//! and in attribute values alike. Markup comes only from the templates here and in `views`, so
//! an event holding `<script>` or `## Next step` renders as those characters. `PreEscaped` is
//! used for nothing but the doctype.

use std::fmt::Write as _;

use maud::{DOCTYPE, Markup, html};
use remaind_events::{Event, EventId};

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

/// The htmx settings (`<meta name="htmx-config">`): no inline styles, no eval, no script tags
/// from answers, no history cache.
const HTMX_CONFIG: &str = concat!(
    r#"{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"#,
    r#""historyCacheSize":0,"refreshOnHistoryMiss":true}"#,
);

/// A whole page: the title as its heading, then `body`.
pub(crate) fn page(title: &str, active: &str, body: &Markup) -> String {
    document(
        title,
        active,
        None,
        &html! {
            h1 { (title) }
            (body)
        },
    )
    .into_string()
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
    let main = html! {
        p.muted #booting { "Loading…" }
        noscript {
            p.error {
                "This viewer needs JavaScript: the key that opens its pages is kept by the page, \
    not in a cookie."
            }
        }
    };
    document(title, active, Some(target), &main).into_string()
}

/// The HTML around every page: `main` is the content of `<main>`; `boot`, for the boot page,
/// the URL its `<main>` asks for again.
fn document(title: &str, active: &str, boot: Option<&str>, main: &Markup) -> Markup {
    html! {
        (DOCTYPE)
        "\n"
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="light dark";
                meta name="htmx-config" content=(HTMX_CONFIG);
                title { (title) " · remaind" }
                link rel="stylesheet" href="/assets/style.css";
                script src="/assets/htmx.min.js" defer {}
                script src="/assets/sse.min.js" defer {}
                script src="/assets/app.js" defer {}
            }
            body {
                header {
                    span.brand { "remaind" }
                    nav {
                        @for (path, label) in NAV {
                            a href=(path) aria-current=[(path == active).then_some("page")] {
                                (label)
                            }
                        }
                    }
                }
                @if let Some(target) = boot {
                    main #main data-boot hx-get=(target) hx-trigger="load" hx-select="#main"
                        hx-target="this" hx-swap="outerHTML" { (main) }
                } @else {
                    main #main { (main) }
                }
            }
        }
        "\n"
    }
}

/// A link to one event.
pub(crate) fn ev_link(id: EventId) -> Markup {
    html! { a.ev-link href={ "/e/" (id.seq()) } { (id) } }
}

/// A link to the event with this seq.
pub(crate) fn seq_link(seq: u64) -> Markup {
    html! { a.ev-link href={ "/e/" (seq) } { "e" (seq) } }
}

/// Links to several events, space-separated.
pub(crate) fn ev_links(ids: &[EventId]) -> Markup {
    html! {
        @for (i, id) in ids.iter().enumerate() {
            @if i > 0 { " " }
            (ev_link(*id))
        }
    }
}

pub(crate) use remaind_events::one_line;

/// A piece of a text with `[eN]` citations: plain text, or the seq of a citation.
#[derive(Debug, PartialEq, Eq)]
enum Cited<'a> {
    Text(&'a str),
    Cite(u64),
}

/// `s` cut into plain text and `[eN]` citations (the brackets stay text). Only a positive seq
/// without a leading zero, closed by `]`, is a citation.
fn citations(s: &str) -> Vec<Cited<'_>> {
    let mut out = Vec::new();
    let mut rest = s;
    let mut text_from = 0;
    while let Some(at) = rest[text_from..].find("[e").map(|at| at + text_from) {
        let after = &rest[at + 2..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let closed = after[digits..].starts_with(']');
        match after[..digits].parse::<u64>() {
            Ok(n) if closed && n > 0 && !after.starts_with('0') => {
                out.push(Cited::Text(&rest[..=at]));
                out.push(Cited::Cite(n));
                rest = &after[digits..];
                text_from = 0;
            }
            _ => text_from = at + 2,
        }
    }
    out.push(Cited::Text(rest));
    out.retain(|c| *c != Cited::Text(""));
    out
}

/// Text with `[eN]` citations turned into links (the rest escaped).
pub(crate) fn cited_text(s: &str) -> Markup {
    html! {
        @for piece in citations(s) {
            @match piece {
                Cited::Text(t) => (t),
                Cited::Cite(n) => a.cite href={ "/e/" (n) } { "e" (n) },
            }
        }
    }
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
pub(crate) fn event_row(ev: &Event) -> Markup {
    let kind = ev.kind.as_str();
    let imp = ev.importance;
    html! {
        li.ev.{ "k-" (kind) } id={ "e" (ev.seq) } {
            details {
                summary {
                    a.ev-id href={ "/e/" (ev.seq) } { "e" (ev.seq) }
                    " " time { (ev.ts) }
                    " " span.kind { (kind) }
                    " " span.imp.{ "i" (imp) } { "i" (imp) }
                    @if let Some(a) = &ev.actor { " " span.actor { "@" (a) } }
                    @if let Some(t) = &ev.tool { " " span.tool { "[" (t.name) "]" } }
                    @if let Some(t) = &ev.text { " " span.text { (one_line(t, 160)) } }
                }
                (event_body(ev))
            }
        }
    }
}

/// The expanded part of an event.
pub(crate) fn event_body(ev: &Event) -> Markup {
    let links = [
        ("refs", &ev.refs),
        ("supersedes", &ev.supersedes),
        ("resolves", &ev.resolves),
    ];
    let session = session_of(ev);
    let has_links = session.is_some() || links.iter().any(|(_, ids)| !ids.is_empty());
    let payload = serde_json::to_string_pretty(ev).unwrap_or_default();
    html! {
        div.body {
            @if let Some(t) = &ev.text { pre.full-text { (t) } }
            @if has_links {
                dl.links {
                    @for (label, ids) in links {
                        @if !ids.is_empty() {
                            dt { (label) }
                            dd class=(label) { (ev_links(ids)) }
                        }
                    }
                    @if let Some(session) = session {
                        dt { "session" }
                        dd { (session) }
                    }
                }
            }
            @for a in &ev.artifact {
                section.artifact {
                    h4 {
                        "artifact " (a.field) " · " (a.media_type) " · " (a.bytes) " bytes · "
                        (a.path)
                    }
                    p.sha { (a.sha256) }
                    pre.head { (a.head) }
                    @if !a.tail.is_empty() {
                        p { "…" }
                        pre.tail { (a.tail) }
                    }
                }
            }
            pre.payload { (payload) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_escaped_in_text_and_attributes() {
        let s = "<script>alert('x')</script> & \"y\"";
        assert_eq!(
            html! { p title=(s) { (s) } }.into_string(),
            "<p title=\"&lt;script&gt;alert('x')&lt;/script&gt; &amp; &quot;y&quot;\">\
&lt;script&gt;alert('x')&lt;/script&gt; &amp; &quot;y&quot;</p>"
        );
    }

    #[test]
    fn citations_become_links_and_the_rest_is_escaped() {
        assert_eq!(
            cited_text("do <b> [e12] and [e0] [ex] [e3").into_string(),
            "do &lt;b&gt; [<a class=\"cite\" href=\"/e/12\">e12</a>] and [e0] [ex] [e3"
        );
        assert_eq!(
            cited_text("[e1][e2] [e01] [e[e7]]").into_string(),
            "[<a class=\"cite\" href=\"/e/1\">e1</a>][<a class=\"cite\" href=\"/e/2\">e2</a>] \
[e01] [e[<a class=\"cite\" href=\"/e/7\">e7</a>]]"
        );
    }

    #[test]
    fn url_encoding_keeps_only_unreserved_bytes() {
        assert_eq!(url_enc("a b&c=é"), "a%20b%26c%3D%C3%A9");
    }
}
