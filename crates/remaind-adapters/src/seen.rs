//! What the hooks recorded live, by content. A hook payload names no transcript line (the
//! runtime writes the line after the hook runs, or never says which), so a session the hooks
//! recorded and then imported would be recorded twice. Import matches each record against
//! the hooks' own events of the same session: a prompt, a turn's last message, a tool use
//! with the same input; each hook event stands for one record at most.

use std::collections::HashMap;

use remaind_events::{Event, Kind};
use serde_json::Value;

use crate::signal::{Record, Runtime, Signal};

/// Characters of a text compared: a long text may be stored cut or routed to an artifact.
const TEXT_CHARS: usize = 200;

/// The facts the hooks recorded, counted by content key.
#[derive(Debug, Default)]
pub(crate) struct HookFacts(HashMap<String, usize>);

impl HookFacts {
    /// Counts `ev` when the hooks of `runtime` recorded it.
    pub(crate) fn observe(&mut self, ev: &Event, runtime: Runtime) {
        if let Some(key) = event_key(ev, runtime) {
            *self.0.entry(key).or_default() += 1;
        }
    }

    /// Whether the hooks already recorded what `rec` says (and, if so, that fact now stands
    /// for `rec`: a second identical record is imported).
    pub(crate) fn take(&mut self, rec: &Record) -> bool {
        // Most imports are of sessions no hook saw: no key is built for them.
        if self.0.is_empty() {
            return false;
        }
        let Some(key) = record_key(rec) else {
            return false;
        };
        match self.0.get_mut(&key) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }
}

fn key(class: &str, session: &str, content: &str) -> String {
    format!("{class}\u{1f}{session}\u{1f}{content}")
}

fn text_key(text: &str) -> String {
    text.trim().chars().take(TEXT_CHARS).collect()
}

/// `v` as JSON text with every object's keys sorted: the same input, whichever order the
/// hook payload and the transcript wrote its keys in.
fn canonical(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), canonical(&m[k])))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

fn record_key(rec: &Record) -> Option<String> {
    let session = rec.source.session.as_deref()?;
    match &rec.signal {
        Signal::Prompt { text } => Some(key("prompt", session, &text_key(text))),
        Signal::TurnEnd { text } => Some(key("turn_end", session, &text_key(text))),
        Signal::ToolUse { name, input, .. } => Some(key(
            "tool",
            session,
            &format!("{name}\u{1f}{}", canonical(input)),
        )),
        _ => None,
    }
}

fn event_key(ev: &Event, runtime: Runtime) -> Option<String> {
    let origin = ev.data.as_ref()?.get("origin")?;
    if origin.get("runtime")?.as_str()? != runtime.as_str() {
        return None;
    }
    let hook = origin.get("hook")?.as_str()?;
    let session = origin.get("session")?.as_str()?;
    let turn_end = ev
        .data
        .as_ref()
        .and_then(|d| d.get("turn_end"))
        .and_then(Value::as_str);
    match (hook, ev.kind) {
        ("UserPromptSubmit", Kind::UserMessage) => {
            Some(key("prompt", session, &text_key(ev.text.as_deref()?)))
        }
        ("Stop", Kind::AssistantMessage) if turn_end == Some("stop") => {
            Some(key("turn_end", session, &text_key(ev.text.as_deref()?)))
        }
        ("PostToolUse" | "PostToolUseFailure", _) => {
            let tool = ev.tool.as_ref()?;
            Some(key(
                "tool",
                session,
                &format!("{}\u{1f}{}", tool.name, canonical(&tool.input)),
            ))
        }
        _ => None,
    }
}
