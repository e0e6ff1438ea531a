//! Rendering `handover.md` from a state, and the binding line that ties it to that state.
//!
//! Layout (docs/handover-format.md is the contract the validator parses):
//!
//! ```text
//! <!-- remaind:handover state_sha256=<hex> through_seq=<N> -->
//! # Handover
//!
//! ## Latest user instruction
//! [e12]
//! <the instruction, verbatim>
//!
//! ## Next step
//! - <text> [e14]
//! ...
//! ## Superseded
//! - <old text> [e3] (superseded by [e9])
//! ```

use remaind_events::{Event, EventId};
use remaind_validate::{Asked, Binding, Item, SECTION_TITLES, State, render_instruction};

use crate::builtin::one_line;

/// Prefix of the binding line.
const BINDING_PREFIX: &str = "<!-- remaind:handover ";

const TITLES: [&str; 12] = SECTION_TITLES;

/// At most this many of the newest items are shown in the long sections (completed work,
/// files changed, decisions, open loops); state.json lists all of them. Importance-3 events
/// of those kinds are also in "Must remember", which is shown whole; older open loops (steps,
/// importance 3 by default) are cited on one line.
const LONG_SECTION_CAP: usize = 20;
/// At most this many of the newest history links are shown in "Superseded".
const HISTORY_CAP: usize = 20;

/// The binding line for a state: its canonical bytes' SHA-256 and its `through_seq`.
pub fn binding_line(state: &State) -> String {
    Binding::for_state(state).to_string()
}

/// `body` without a leading binding line, if it has one.
pub fn strip_binding(body: &str) -> &str {
    if body.starts_with(BINDING_PREFIX) {
        match body.find('\n') {
            Some(i) => &body[i + 1..],
            None => "",
        }
    } else {
        body
    }
}

/// The handover to store with `state`: the correct binding line, then `body` with any
/// binding line it had removed.
pub fn bind(state: &State, body: &str) -> String {
    bind_to(&Binding::for_state(state), body)
}

/// [`bind`] with the state's binding already computed (from its canonical bytes).
pub(crate) fn bind_to(binding: &Binding, body: &str) -> String {
    format!("{binding}\n{}", body_after_binding(body))
}

/// What follows the binding line in the stored handover: `body` without a binding line of its
/// own, ending with a newline unless empty. The checks read exactly this (they ignore the
/// binding line), so it can be validated while the state is still being serialized.
pub(crate) fn body_after_binding(body: &str) -> String {
    let mut out = strip_binding(body).to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

fn cite(ids: &[EventId]) -> String {
    ids.iter()
        .map(|e| format!("[{e}]"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One line of text safe to place before citations: one line, and `[eN]` written `eN` so
/// a text never cites an event by accident.
fn claim(text: &str) -> String {
    let line = one_line(text);
    let mut out = String::with_capacity(line.len());
    let mut rest = line.as_str();
    while let Some(i) = rest.find("[e") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after.as_bytes().get(digits) == Some(&b']') {
            out.push('e');
            out.push_str(&after[..digits]);
            rest = &after[digits + 1..];
        } else {
            out.push_str("[e");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn section(out: &mut String, title: &str) {
    out.push_str("\n## ");
    out.push_str(title);
    out.push('\n');
}

/// How a section shows its items.
#[derive(Clone, Copy)]
enum Show {
    /// Every item.
    All,
    /// The newest items, then a line counting the rest (they are in state.json).
    Newest(usize),
    /// The newest items, then one line citing the rest: they may be importance-3 events
    /// (steps default to 3), which the handover must cite (check 5).
    NewestCitingRest(usize),
}

fn items(out: &mut String, list: &[Item], show: Show) {
    if list.is_empty() {
        out.push_str("- (none)\n");
        return;
    }
    let cap = match show {
        Show::All => list.len(),
        Show::Newest(n) | Show::NewestCitingRest(n) => n,
    };
    let skip = list.len().saturating_sub(cap);
    if skip > 0 {
        match show {
            Show::NewestCitingRest(_) => {
                let rest: Vec<EventId> = list[..skip]
                    .iter()
                    .flat_map(|i| i.events.iter().copied())
                    .collect();
                out.push_str(&format!(
                    "- {skip} earlier items, listed in state.json: {}\n",
                    cite(&rest)
                ));
            }
            _ => out.push_str(&format!(
                "- ({skip} earlier items are listed in state.json)\n"
            )),
        }
    }
    for item in &list[skip..] {
        out.push_str(&format!("- {} {}\n", claim(&item.text), cite(&item.events)));
    }
}

/// What the user asked that is in force: the standing rules first, then the rest newest
/// first (a later message wins where two conflict), at most [`ASKED_CAP`] of them.
fn user_asked(out: &mut String, asked: &[Asked]) {
    if asked.is_empty() {
        out.push_str("- (none)\n");
        return;
    }
    let rules = asked.iter().filter(|a| a.rule);
    let rest = asked.iter().rev().filter(|a| !a.rule);
    let shown: Vec<&Asked> = rules.chain(rest.take(ASKED_CAP)).collect();
    for a in &shown {
        let kind = if a.rule { "Rule: " } else { "" };
        out.push_str(&format!("- {kind}{} {}\n", claim(&a.text), cite(&a.events)));
    }
    let left = asked.len() - shown.len();
    if left > 0 {
        out.push_str(&format!(
            "- ({left} earlier messages are listed in state.json; later ones win where they \
             conflict)\n"
        ));
    }
}

/// At most this many of the newest plain user messages are shown in the handover.
const ASKED_CAP: usize = 40;

/// Render the handover body (everything after the binding line) for `state`. `lookup` gives
/// the text of the events shown in "Superseded" (at most [`HISTORY_CAP`] calls).
pub(crate) fn render<L>(state: &State, lookup: &mut L) -> String
where
    L: FnMut(EventId) -> Option<Event>,
{
    let mut out = String::from("# Handover\n");
    section(&mut out, TITLES[0]);
    match &state.latest_user_instruction {
        Some(ins) => out.push_str(&render_instruction(ins.event, &ins.text)),
        None => out.push_str("(no user message yet)\n"),
    }
    section(&mut out, TITLES[1]);
    user_asked(&mut out, &state.user_asked);
    section(&mut out, TITLES[2]);
    match &state.next_step {
        Some(step) => {
            let tool = step
                .tool
                .as_ref()
                .map(|t| format!(" (tool: {})", claim(t)))
                .unwrap_or_default();
            out.push_str(&format!(
                "- {}{tool} {}\n",
                claim(&step.text),
                cite(&step.events)
            ));
        }
        // Check 3 accepts no step only when the user's last turn ended (remaind_validate::Turn).
        None if state.latest_user_instruction.is_some() => out.push_str(
            "- (none: the last turn ended and the agent handed control back; wait for the user's \
             next instruction. Open loops were pending before the turn ended and may already be \
             done.)\n",
        ),
        None => out.push_str("- (none)\n"),
    }
    section(&mut out, TITLES[3]);
    items(&mut out, &state.remember, Show::All);
    section(&mut out, TITLES[4]);
    items(&mut out, &state.decisions, Show::Newest(LONG_SECTION_CAP));
    section(&mut out, TITLES[5]);
    items(
        &mut out,
        &state.completed_work,
        Show::Newest(LONG_SECTION_CAP),
    );
    section(&mut out, TITLES[6]);
    items(&mut out, &state.constraints, Show::All);
    section(&mut out, TITLES[7]);
    items(&mut out, &state.blockers, Show::All);
    section(&mut out, TITLES[8]);
    items(
        &mut out,
        &state.open_loops,
        Show::NewestCitingRest(LONG_SECTION_CAP),
    );
    section(&mut out, TITLES[9]);
    items(
        &mut out,
        &state.files_changed,
        Show::Newest(LONG_SECTION_CAP),
    );
    section(&mut out, TITLES[10]);
    items(&mut out, &state.goal, Show::All);
    section(&mut out, TITLES[11]);
    let mut links: Vec<(EventId, EventId, &str)> = state
        .superseded
        .iter()
        .map(|l| (l.by, l.event, "superseded"))
        .chain(state.resolved.iter().map(|l| (l.by, l.event, "resolved")))
        .collect();
    if links.is_empty() {
        out.push_str("- (none)\n");
        return out;
    }
    links.sort_unstable();
    let skip = links.len().saturating_sub(HISTORY_CAP);
    if skip > 0 {
        out.push_str(&format!(
            "- ({skip} earlier superseded or resolved events are listed in state.json)\n"
        ));
    }
    for (by, event, how) in &links[skip..] {
        let text = lookup(*event)
            .map(|e| claim(&crate::builtin::item_text(&e)))
            .unwrap_or_default();
        let sep = if text.is_empty() { "" } else { " " };
        out.push_str(&format!("- {text}{sep}[{event}] ({how} by [{by}])\n"));
    }
    out
}
