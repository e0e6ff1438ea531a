//! Recalled events as the lines an agent reads: one cited line each, within a token budget.

use remaind_ledger::{Event, Kind};
use remaind_tokens::TokenizerName;
use serde_json::Value;

pub(crate) use remaind_events::one_line;

use crate::Recalled;

/// Most characters of one event's text on its line.
const LINE_CHARS: usize = 320;

/// `heading` and one line per item (`(event, note)`, the note said after the kind), as many
/// as fit in `budget` tokens in order; `None` when not even one fits.
pub(crate) fn fit(
    heading: &str,
    items: &[(Event, String)],
    budget: u64,
    tokenizer: TokenizerName,
) -> Option<Recalled> {
    let mut text = heading.to_owned();
    let mut events = Vec::new();
    let mut tokens = tokenizer.count(&text);
    for (ev, note) in items {
        let line = line(ev, note);
        let cost = tokenizer.count(&line);
        if tokens + cost > budget {
            continue;
        }
        tokens += cost;
        text.push_str(&line);
        events.push(ev.seq);
    }
    (!events.is_empty()).then_some(Recalled {
        text,
        events,
        tokens,
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
