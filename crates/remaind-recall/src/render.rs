//! Recalled events as the lines an agent reads: one cited line each, within a token budget.

use remaind_events::{Event, Kind};
use serde_json::Value;

pub(crate) use remaind_events::one_line;

use crate::Recalled;

/// Most characters of one event's text on its line.
const LINE_CHARS: usize = 240;

/// `heading` and one line per item (`(event, note)`, the note said after the kind), as many
/// as fit in `budget` tokens in order; `None` when not even one fits.
///
/// A token is at least one byte in every vocabulary Remaind counts with, so text of at most
/// `budget` bytes is within `budget` tokens: the budget holds without loading a vocabulary
/// (about 70 MB and 100 ms, more than the rest of a hook).
pub(crate) fn fit(heading: &str, items: &[(Event, String)], budget: u64) -> Option<Recalled> {
    let budget = usize::try_from(budget).unwrap_or(usize::MAX);
    let mut text = heading.to_owned();
    let mut events = Vec::new();
    for (ev, note) in items {
        let line = line(ev, note);
        if text.len() + line.len() > budget {
            continue;
        }
        text.push_str(&line);
        events.push(ev.seq);
    }
    let bytes = text.len() as u64;
    (!events.is_empty()).then_some(Recalled {
        text,
        events,
        bytes,
    })
}

/// `- [eN] what, when: text`, on one line.
fn line(ev: &Event, note: &str) -> String {
    // When it happened: the runtime's own time for an imported event, else when logged.
    let ts = ev
        .data
        .as_ref()
        .and_then(|d| d.get("origin"))
        .and_then(|o| o.get("ts"))
        .and_then(Value::as_str)
        .unwrap_or(&ev.ts);
    let when = ts.get(..16).unwrap_or(ts).replace('T', " ");
    let mut out = format!("\n- [e{}] {}", ev.seq, what(ev));
    if !note.is_empty() {
        out.push_str(", ");
        out.push_str(note);
    }
    out.push_str(&format!(", {when} UTC: "));
    // A file change's text is its path, which the heading already names: say the change.
    let change = (ev.kind == Kind::FileChange)
        .then(|| ev.data.as_ref()?.get("change")?.as_str())
        .flatten();
    let text = change.or(ev.text.as_deref()).unwrap_or("");
    out.push_str(&one_line(text, LINE_CHARS));
    if let Some(error) = failure(ev) {
        out.push_str(" → ");
        out.push_str(&one_line(error, LINE_CHARS / 2));
    }
    out
}

/// How the event is named on its line.
fn what(ev: &Event) -> String {
    let by_user = ev.actor.as_deref() == Some("user");
    match ev.kind {
        Kind::UserMessage => "earlier instruction from the user".to_owned(),
        Kind::Decision if by_user => "decision (the user's)".to_owned(),
        Kind::ToolResult if failure(ev).is_some() => "failed tool call".to_owned(),
        Kind::FileChange => "edited".to_owned(),
        kind => kind.as_str().replace('_', " "),
    }
}

/// The error of a failed tool call.
pub(crate) fn failure(ev: &Event) -> Option<&str> {
    let data = ev.data.as_ref()?;
    if data.get("failed").and_then(Value::as_bool) != Some(true) {
        return None;
    }
    Some(
        data.get("error")
            .and_then(Value::as_str)
            .unwrap_or("(no error message)"),
    )
}
