//! Per-prompt recall: the events that bear on what the user just asked.

use remaind_events::Filter;
use remaind_events::{Event, Kind, Status};
use remaind_index::Index;
use remaind_ledger::Ledger;
use serde_json::Value;

use crate::session::{self, Held};
use crate::{Recalled, Result, Settings, render};

/// What a prompt may bring back: what people decided, ruled or asked, and what failed.
const KINDS: [Kind; 7] = [
    Kind::UserMessage,
    Kind::Decision,
    Kind::Constraint,
    Kind::Remember,
    Kind::Blocker,
    Kind::Correction,
    Kind::ToolResult,
];

/// Most events one prompt brings back.
const MOST: usize = 5;

/// Candidates read for a prompt (the best by share first).
const CANDIDATES: usize = 40;

const HEADING: &str = "REMAIND recall, past events bearing on this prompt (`remaind events \
--from eN --limit 1` shows one in full):";

/// The few events that bear on `prompt` and that `session` does not hold yet, within the
/// prompt budget; `None` when recall is off, or nothing bears on it enough
/// ([`Settings::min_share`]). What it returns counts as held by the session from then on.
pub fn for_prompt(ledger: &Ledger, session: &str, prompt: &str) -> Result<Option<Recalled>> {
    let dir = ledger.context_dir();
    let settings = Settings::load(dir)?;
    if !settings.prompt || prompt.trim().is_empty() {
        return Ok(None);
    }
    let held = session::held(dir, session)?;
    let settled = settled_user_words(dir);
    let mut index = Index::open(dir, ledger)?;
    let found = index.related(prompt, &KINDS, CANDIDATES)?;
    let mut items = Vec::new();
    for related in found {
        if related.share < settings.min_share || items.len() == MOST {
            break;
        }
        let hit = &related.hit;
        if held.seqs.contains(&hit.seq)
            || !matches!(hit.status, Status::Current)
            || settled.contains(&hit.seq)
        {
            continue;
        }
        let Some(ev) = index.range(hit.seq, 1, &Filter::default())?.pop() else {
            continue;
        };
        let failed_or_said = ev.kind != Kind::ToolResult || render::failure(&ev).is_some();
        if is_own(&ev, session, &held) || !failed_or_said {
            continue;
        }
        items.push((ev, String::new()));
    }
    let Some(recalled) = render::fit(HEADING, &items, settings.prompt_budget_tokens) else {
        return Ok(None);
    };
    session::add(dir, session, &recalled.events)?;
    Ok(Some(recalled))
}

/// Whether the session saw `ev` happen: one of its own events since it (last) started, or,
/// with no start seen, any event of it. An event with no session, appended after the start,
/// is the agent's own `remaind log` too.
pub(crate) fn is_own(ev: &Event, session: &str, held: &Held) -> bool {
    let of = ev
        .data
        .as_ref()
        .and_then(|d| d.get("origin"))
        .and_then(|o| o.get("session"))
        .and_then(Value::as_str);
    match held.start {
        Some(start) => ev.seq > start && of.is_none_or(|s| s == session),
        None => of == Some(session),
    }
}

/// The user messages the accepted state says are no longer in force (`user_settled`: a later
/// message superseded or fulfilled them): recalled, they would read as current. Empty when
/// there is no state or it cannot be read (the gate reports a damaged state; recall only
/// reads).
fn settled_user_words(context_dir: &camino::Utf8Path) -> std::collections::HashSet<u64> {
    let path = remaind_fs::ContextDir::new(context_dir).state_path();
    let Ok(Some(bytes)) = remaind_fs::read_file(&path) else {
        return Default::default();
    };
    let Ok(state) = serde_json::from_slice::<Value>(&bytes) else {
        return Default::default();
    };
    state
        .get("user_settled")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s.get("event")?.as_str()?.strip_prefix('e')?.parse().ok())
        .collect()
}
