//! The resume packet (`active/resume_packet.md`, docs/contract.md#resume-and-the-gate) and the
//! inputs of its gate.
//!
//! # What a packet holds, in this order
//!
//! 1. the latest user instruction, verbatim from the ledger: the last `user_message` after
//!    the state's `through_seq` if there is one, else the event the state names (read from
//!    the ledger by position, not from the state's copy); then what else the user asked that
//!    is in force (the state's `user_asked` with the tail folded in): the standing rules, never
//!    dropped, then the rest newest first;
//! 2. the runtime framing (`framing.json`);
//! 3. the next step: the latest active `next_step` event after the state, else the state's;
//! 4. importance-3 items: the state's `remember` items still current, and every current
//!    importance-3 event after the state;
//! 5. the state, rendered as Markdown;
//! 6. the handover, verbatim;
//! 7. the raw events after `through_seq`.
//!
//! # Budget
//!
//! The packet is counted with the configured tokenizer. While it is over the budget, parts
//! are dropped lowest authority first (docs/contract.md#authority-order): the handover, the state,
//! raw events (lowest importance first, oldest first), then what the user asked (oldest
//! first; never a standing rule), then importance-3 items (the state's
//! first), then the next step, then the framing. The latest user instruction is never dropped;
//! if it alone is over the budget, the packet holds it anyway and says so (`over_budget`).
//!
//! # Cost
//!
//! Only the events after `through_seq` are read (a positional read starting there), plus the
//! single event the state names as the latest instruction and the chain hash at
//! `through_seq`. The cost grows with the uncompacted tail, never with the whole ledger.

use std::fmt::Write as _;

use remaind_compact::UserWords;
use remaind_events::{Event, EventId, Kind, Status, Statuses};
use remaind_ledger::Ledger;
use remaind_validate::{Asked, State, Turn, TurnEnd};
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::conv::{open_ledger, open_store};
use crate::counts::Counts;
use crate::gate::{Confidence, ConfidenceInputs, Gate, NextTool, Reason, ReasonCode};
use crate::inert;
use crate::inputs::{Inputs, conflicts, join_ids, read_inputs};
use crate::layout::{ContextDir, PACKET_FILE};
use crate::thresholds::Thresholds;
use crate::tools::ToolPolicy;

/// How many tokens the packet may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// `resume_budget_tokens` from `thresholds.json`.
    Configured,
    /// This many tokens.
    Tokens(u64),
    /// No limit: everything the packet could hold.
    Unlimited,
}

/// Where a packet item came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InstructionSource {
    /// An event after the state's `through_seq`.
    Ledger,
    /// The accepted state (the text still read from the ledger for the instruction).
    State,
}

/// The latest user instruction as the packet carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatestInstruction {
    /// The `user_message` event.
    pub event: EventId,
    /// Its text, byte for byte from the ledger.
    pub text: String,
    /// Found after the state (`ledger`) or through the state's reference (`state`).
    pub source: InstructionSource,
}

/// The next planned step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedStep {
    /// What to do next.
    pub text: String,
    /// The events it rests on.
    pub events: Vec<EventId>,
    /// The tool it plans to use, if named.
    pub tool: Option<String>,
    /// From a `next_step` event after the state, or from the state.
    pub source: InstructionSource,
}

/// How the user's last turn ended, when it did: the agent handed control back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndedTurn {
    /// The event that ended it (`data.turn_end`), if the ledger still holds one.
    pub event: Option<EventId>,
    /// `stop` (the agent finished) or `interrupted` (the user stopped it).
    pub how: String,
    /// The agent's last message of the turn (its outcome), for a Stop.
    pub outcome: Option<String>,
}

/// What the budget left out (`dropped` in a packet's JSON).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Dropped {
    /// The handover was left out.
    pub handover: bool,
    /// The state was left out.
    pub state: bool,
    /// Raw events left out.
    pub events: Vec<EventId>,
    /// Importance-3 items left out.
    pub remember_items: u64,
    /// The next step was left out.
    pub next_step: bool,
    /// The framing was left out.
    pub framing: bool,
    /// The long-term memory (`MEMORY.md`) was left out.
    pub memory: bool,
    /// Things the user asked that are in force, left out (never a standing rule).
    #[serde(default)]
    pub user_words: u64,
}

impl Dropped {
    fn any(&self) -> bool {
        self.handover
            || self.state
            || !self.events.is_empty()
            || self.remember_items > 0
            || self.next_step
            || self.framing
            || self.memory
            || self.user_words > 0
    }
}

/// A built resume packet and its gate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resume {
    /// The packet, Markdown.
    pub packet: String,
    /// Its tokens, counted with `tokenizer`.
    pub tokens: u64,
    /// The budget it was built for (`None`: unlimited).
    pub budget: Option<u64>,
    /// True when even the minimal packet (the latest instruction) is over the budget.
    pub over_budget: bool,
    /// The tokenizer.
    pub tokenizer: String,
    /// The context window.
    pub window: u64,
    /// The ledger head.
    pub head_seq: u64,
    /// The accepted state's `through_seq`, if there is a readable state.
    pub through_seq: Option<u64>,
    /// Events after the state.
    pub tail_events: u64,
    /// The latest user instruction.
    pub latest_instruction: Option<LatestInstruction>,
    /// The next step.
    pub next_step: Option<PlannedStep>,
    /// Set when the user's last turn ended and no instruction followed: nothing is current;
    /// the agent waits for the user.
    pub turn_ended: Option<EndedTurn>,
    /// What the budget left out: serialized as `dropped`, for people and scripts; the
    /// packet's text says the same.
    pub(crate) dropped: Dropped,
    /// The gate's verdict.
    pub gate: Gate,
}

/// Bytes of an instruction routed to an artifact shown inline from its start, and from its
/// end: the instruction around a pasted payload sits at one of the two.
const ROUTED_INSTRUCTION_HEAD: usize = 3000;
const ROUTED_INSTRUCTION_TAIL: usize = 800;

/// An instruction's text as the packet shows it. A prompt too long for the ledger line was
/// routed to an artifact and the event holds a placeholder; the packet shows the prompt
/// itself (its head and tail, with how to read the rest), never the placeholder.
fn instruction_text(ledger: &Ledger, ev: &Event) -> String {
    let text = ev.text.clone().unwrap_or_default();
    let Some(routed) = ev.artifact.iter().find(|a| a.field == "text") else {
        return text;
    };
    let short = routed.sha256.get(..12).unwrap_or(&routed.sha256);
    let pointer = |left: usize| {
        format!("[… {left} bytes more; the whole instruction: `remaind artifact show {short}`]")
    };
    let body = ledger
        .artifacts()
        .get(&routed.sha256)
        .ok()
        .and_then(|b| String::from_utf8(b).ok());
    match body {
        Some(body) if body.len() <= ROUTED_INSTRUCTION_HEAD + ROUTED_INSTRUCTION_TAIL => body,
        Some(body) => {
            // Char boundaries at most 3 bytes away (str::floor_char_boundary is newer than
            // the MSRV).
            let head_end = (0..=ROUTED_INSTRUCTION_HEAD)
                .rev()
                .find(|&i| body.is_char_boundary(i))
                .unwrap_or(0);
            let tail_start = (body.len() - ROUTED_INSTRUCTION_TAIL..=body.len())
                .find(|&i| body.is_char_boundary(i))
                .unwrap_or(body.len());
            let (head, tail) = (&body[..head_end], &body[tail_start..]);
            let left = body.len() - head.len() - tail.len();
            format!("{head}\n{}\n{tail}", pointer(left))
        }
        // The store is unreadable: the excerpts the event keeps still beat a placeholder.
        None => {
            let left = usize::try_from(routed.bytes)
                .unwrap_or(usize::MAX)
                .saturating_sub(routed.head.len() + routed.tail.len());
            format!("{}\n{}\n{}", routed.head, pointer(left), routed.tail)
        }
    }
}

fn latest_instruction(ledger: &Ledger, inp: &Inputs) -> Result<Option<LatestInstruction>, Error> {
    if let Some(ev) = inp.tail.iter().rev().find(|e| e.kind == Kind::UserMessage) {
        return Ok(Some(LatestInstruction {
            event: ev.id,
            text: instruction_text(ledger, ev),
            source: InstructionSource::Ledger,
        }));
    }
    let Some(named) = inp
        .state
        .as_ref()
        .and_then(|s| s.latest_user_instruction.as_ref())
    else {
        return Ok(None);
    };
    if named.event.seq() > inp.head {
        return Ok(None);
    }
    let ev = ledger.get(named.event.seq()).map_err(Error::Ledger)?;
    Ok(ev
        .filter(|e| e.kind == Kind::UserMessage)
        .map(|e| LatestInstruction {
            event: e.id,
            text: instruction_text(ledger, &e),
            source: InstructionSource::State,
        }))
}

fn tool_of(ev: &Event) -> Option<String> {
    ev.tool.as_ref().map(|t| t.name.clone()).or_else(|| {
        ev.data
            .as_ref()
            .and_then(|d| d.get("tool"))
            .and_then(|t| t.as_str())
            .map(str::to_owned)
    })
}

/// Where the user's turn stands after the state and its tail.
fn turn_of(inp: &Inputs) -> Turn {
    let mut turn = Turn::after_state(inp.state.as_ref());
    for ev in &inp.tail {
        turn.observe(ev);
    }
    turn
}

/// The next step under the one turn policy (remaind_validate::Turn): none once the turn
/// ended; else the newest active step after the state, else the state's (or, when the
/// state's turn had ended, the newest step still open among its loops).
fn next_step(ledger: &Ledger, inp: &Inputs, turn: &Turn) -> Option<PlannedStep> {
    if turn.ended() {
        return None;
    }
    if let Some(ev) = inp
        .tail
        .iter()
        .rev()
        .find(|e| e.kind == Kind::NextStep && inp.statuses.is_current(e.id))
    {
        return Some(PlannedStep {
            text: ev.text.clone().unwrap_or_default(),
            events: vec![ev.id],
            tool: tool_of(ev),
            source: InstructionSource::Ledger,
        });
    }
    let state = inp.state.as_ref()?;
    let Some(step) = state.next_step.as_ref() else {
        // The state's turn ended and an instruction opened a new one: the compactor's policy
        // takes the newest step still open from the open loops.
        return pending_step(ledger, inp, state);
    };
    // A later event that resolves or supersedes what the step rests on makes it stale.
    if step.events.iter().any(|id| !inp.statuses.is_current(*id)) {
        return None;
    }
    Some(PlannedStep {
        text: step.text.clone(),
        events: step.events.clone(),
        tool: step.tool.clone(),
        source: InstructionSource::State,
    })
}

/// `inp` without the state and the handover: every event of the ledger is the tail.
fn ledger_alone(ledger: &Ledger, inp: Inputs) -> Result<Inputs, Error> {
    let tail = if inp.head == 0 {
        Vec::new()
    } else {
        ledger
            .range(1, usize::MAX, &remaind_events::Filter::default())
            .map_err(Error::Ledger)?
    };
    Ok(Inputs {
        statuses: remaind_events::Statuses::from_events(&tail),
        tail,
        state: None,
        state_bytes: None,
        handover: None,
        ..inp
    })
}

/// The newest open loop of `state` resting on a `next_step` event still current (what the
/// built-in compactor promotes when a new turn opens after an ended one).
fn pending_step(ledger: &Ledger, inp: &Inputs, state: &State) -> Option<PlannedStep> {
    let mut loops: Vec<&remaind_validate::Item> = state.open_loops.iter().collect();
    loops.sort_by_key(|i| std::cmp::Reverse(i.events.iter().max().copied()));
    for item in loops {
        for id in item.events.iter().rev() {
            if !inp.statuses.is_current(*id) {
                continue;
            }
            let Ok(Some(ev)) = ledger.get(id.seq()) else {
                continue;
            };
            if ev.kind == Kind::NextStep {
                return Some(PlannedStep {
                    text: item.text.clone(),
                    events: item.events.clone(),
                    tool: tool_of(&ev),
                    source: InstructionSource::State,
                });
            }
        }
    }
    None
}

/// How far back from the head the packet looks for the event that ended a turn a prior
/// state records as ended (it is usually among the last few events the state covers).
const END_LOOKBACK: u64 = 4096;

/// The ended turn, when the turn policy says the last turn ended: its ending event (from the
/// tail, else looked for just before the state's `through_seq`) and its outcome.
fn ended_turn(ledger: &Ledger, inp: &Inputs, turn: &Turn) -> Result<Option<EndedTurn>, Error> {
    let Some(how) = turn.how_ended() else {
        return Ok(None);
    };
    let mut end = turn
        .end_event()
        .and_then(|id| inp.tail.iter().find(|e| e.id == id).cloned());
    if end.is_none() {
        let mut before = inp
            .head
            .min(inp.state.as_ref().map_or(0, |s| s.through_seq))
            + 1;
        let floor = before.saturating_sub(END_LOOKBACK);
        while end.is_none() && before > floor.max(1) {
            let chunk = ledger
                .before(before, 256, &remaind_events::Filter::default())
                .map_err(Error::Ledger)?;
            let Some(first) = chunk.first() else { break };
            before = first.seq;
            end = chunk
                .iter()
                .rev()
                .take_while(|e| e.kind != Kind::UserMessage)
                .find(|e| TurnEnd::of(e).is_some())
                .cloned();
            if chunk.iter().any(|e| e.kind == Kind::UserMessage) {
                break;
            }
        }
    }
    let how = end.as_ref().and_then(TurnEnd::of).unwrap_or(how);
    Ok(Some(EndedTurn {
        event: end.as_ref().map(|e| e.id),
        how: how.as_str().to_owned(),
        outcome: end
            .filter(|_| how == TurnEnd::Stop)
            .and_then(|e| e.text)
            .filter(|t| !t.trim().is_empty()),
    }))
}

/// Characters of an ended turn's outcome quoted in the packet.
const OUTCOME_CHARS: usize = 1200;

/// The "Next step" section once the turn ended: say so plainly, quote the outcome, wait.
fn ended_turn_text(ended: &EndedTurn) -> String {
    let at = ended.event.map(|e| format!(" [{e}]")).unwrap_or_default();
    let mut s = if ended.how == TurnEnd::Interrupted.as_str() {
        format!("- None is current: the user interrupted the last turn{at}.")
    } else {
        format!(
            "- None is current: the last turn ended{at} and the agent handed control back to the user."
        )
    };
    if let Some(outcome) = &ended.outcome {
        let cut: String = outcome.chars().take(OUTCOME_CHARS).collect();
        let more = if cut.len() < outcome.len() {
            " …"
        } else {
            ""
        };
        let _ = write!(
            s,
            " Its outcome:\n\n  > {}{more}\n\n",
            inert::block(&cut, "  > ")
        );
        s.push_str("  ");
    } else {
        s.push(' ');
    }
    s.push_str("Wait for the user's next instruction; do not redo finished work. Open loops were pending before the turn ended and may already be done.\n");
    s
}

/// What the user said since the latest instruction without opening a new turn: answers to
/// the agent's questions and a `/compact` focus, shown under the instruction.
fn since_instruction(inp: &Inputs, instruction: Option<&LatestInstruction>) -> String {
    let Some(ins) = instruction else {
        return String::new();
    };
    let mut s = String::new();
    for ev in inp.tail.iter().filter(|e| e.id > ins.event) {
        let via = ev
            .data
            .as_ref()
            .and_then(|d| d.get("via"))
            .and_then(|v| v.as_str());
        let label = match (ev.kind, via) {
            (Kind::Decision, Some("question_answer")) => "answered",
            (Kind::Decision, Some("plan_approved")) => "approved the plan",
            (Kind::Note, Some("compact_focus")) => "compaction focus",
            _ => continue,
        };
        let text = ev.text.as_deref().unwrap_or("");
        let _ = writeln!(
            s,
            "- the user {label}: {} [{}]",
            indent_continuation(text),
            ev.id
        );
    }
    if s.is_empty() {
        return s;
    }
    format!("\nSince then (not a new instruction):\n\n{s}")
}

/// A bookkeeping event (a compaction, a rejected candidate, a recovery, a band change) in one
/// line: what Remaind did, never its raw data.
fn render_bookkeeping(ev: &Event) -> String {
    let data = ev.data.as_ref();
    let num = |k: &str| data.and_then(|d| d.get(k)).and_then(|v| v.as_u64());
    let what = match ev.kind {
        Kind::Compaction => match num("through_seq") {
            Some(t) => format!("compaction accepted through e{t}"),
            None => "compaction accepted".to_owned(),
        },
        Kind::Validation => "a compaction candidate was rejected (`remaind events --kind validation --json` says why)".to_owned(),
        _ => ev
            .text
            .as_deref()
            .map(inert::one_line)
            .unwrap_or_else(|| ev.kind.to_string()),
    };
    format!("- [{}] {} {}: {what}\n", ev.id, ev.ts, ev.kind)
}

/// One droppable part of the packet.
struct Unit {
    /// Lower drops first.
    rank: (u8, u64, u64),
    text: String,
    tokens: u64,
    kept: bool,
    what: UnitKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum UnitKind {
    Framing,
    NextStep,
    Remember {
        from_state: bool,
    },
    State,
    Handover,
    Memory,
    Event(EventId),
    /// Something the user asked that is in force (not a standing rule: those always stay).
    UserWord,
}

fn indent_continuation(text: &str) -> String {
    inert::block(text, "  ")
}

fn render_event(ev: &Event) -> String {
    let mut s = format!(
        "- [{}] {} {} (importance {}",
        ev.id, ev.ts, ev.kind, ev.importance
    );
    if let Some(actor) = &ev.actor {
        let _ = write!(s, ", {}", inert::one_line(actor));
    }
    s.push(')');
    if let Some(text) = &ev.text {
        s.push_str(": ");
        s.push_str(&indent_continuation(text));
    }
    for (name, ids) in [
        ("refs", &ev.refs),
        ("supersedes", &ev.supersedes),
        ("resolves", &ev.resolves),
    ] {
        if !ids.is_empty() {
            let _ = write!(s, " {name}=[{}]", join_ids(ids));
        }
    }
    if let Some(tool) = &ev.tool {
        // The payload stays in the ledger; the event's text describes the call.
        let _ = write!(s, " tool={}", inert::one_line(&tool.name));
        let size = |v: &serde_json::Value| serde_json::to_string(v).map_or(0, |j| j.len());
        if !tool.input.is_null() || !tool.output.is_null() {
            let _ = write!(
                s,
                " (input {} B, output {} B: `remaind events --from {} --limit 1 --json`)",
                size(&tool.input),
                size(&tool.output),
                ev.seq
            );
        }
    }
    if let Some(data) = ev
        .data
        .as_ref()
        .and_then(|d| compact_data(d, ev.text.as_deref()))
    {
        let _ = write!(s, " data={data}");
    }
    for a in &ev.artifact {
        let _ = write!(
            s,
            " artifact={} ({} bytes, {})",
            a.path, a.bytes, a.media_type
        );
    }
    s.push('\n');
    s
}

/// An event's `data` for the packet: without the bookkeeping a runtime adapter adds
/// (`origin`, `plan`) and without a value the event's text already says, cut to a few
/// hundred characters; `None` when nothing is left.
fn compact_data(
    data: &serde_json::Map<String, serde_json::Value>,
    text: Option<&str>,
) -> Option<String> {
    const MAX: usize = 300;
    let mut shown = data.clone();
    shown.remove("origin");
    shown.remove("plan");
    shown.retain(|_, v| v.as_str().is_none_or(|v| Some(v) != text));
    if shown.is_empty() {
        return None;
    }
    let text = serde_json::Value::Object(shown).to_string();
    if text.len() <= MAX {
        return Some(text);
    }
    let mut cut = MAX;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    Some(format!("{}…", &text[..cut]))
}

/// Citations as `[e1][e2]`; a long list (a condensed item cites thousands) shows its ends and
/// its length, so one item cannot eat the budget.
fn cite(ids: &[EventId]) -> String {
    const ENDS: usize = 3;
    let all = |ids: &[EventId]| ids.iter().map(|i| format!("[{i}]")).collect::<String>();
    if ids.len() <= 3 * ENDS {
        return all(ids);
    }
    format!(
        "{} … {} ({} events)",
        all(&ids[..ENDS]),
        all(&ids[ids.len() - ENDS..]),
        ids.len()
    )
}

/// What the packet shows outside the state section, so the state does not repeat it, and
/// what happened to the state's items since it was accepted.
struct ShownElsewhere<'a> {
    /// Events quoted elsewhere (the latest instruction, the end of the last turn): a state
    /// item citing only these repeats them.
    events: Vec<EventId>,
    /// The events of the next step the packet shows.
    step: Vec<EventId>,
    /// The user's last turn ended: the open loops were pending before it.
    turn_ended: bool,
    /// What the events after the state settled (superseded or resolved): a state item all of
    /// whose citations are settled no longer stands, and is shown as history.
    since: &'a Statuses,
}

/// The state as Markdown, each item once: an item citing only what the packet quotes
/// elsewhere, and the next step the packet already shows, are left out; an item the events
/// after the state superseded or resolved is listed as history, never as standing.
fn render_state(state: &State, shown: &ShownElsewhere<'_>) -> String {
    let mut s = format!(
        "## State (through e{}, by {}, {})\n\n",
        state.through_seq,
        inert::one_line(&state.compactor),
        inert::one_line(&state.generated_at)
    );
    let loops = if shown.turn_ended {
        "Open loops (pending before the last turn ended; may already be done)"
    } else {
        "Open loops"
    };
    let sections: [(&str, &[remaind_validate::Item]); 8] = [
        ("Goal", &state.goal),
        ("Remember", &state.remember),
        ("Decisions", &state.decisions),
        ("Constraints", &state.constraints),
        ("Blockers", &state.blockers),
        ("Completed work", &state.completed_work),
        ("Files changed", &state.files_changed),
        (loops, &state.open_loops),
    ];
    if let Some(i) = &state.latest_user_instruction {
        let quoted = if shown.events.contains(&i.event) {
            " (quoted above)"
        } else {
            ""
        };
        let _ = writeln!(s, "- latest user instruction: [{}]{quoted}", i.event);
    }
    // Settled since the state: every citation superseded or resolved by a later event.
    let settled = |events: &[EventId]| {
        !events.is_empty() && events.iter().all(|e| !shown.since.is_current(*e))
    };
    let mut settled_since: Vec<EventId> = Vec::new();
    if let Some(step) = state
        .next_step
        .as_ref()
        .filter(|st| st.events != shown.step)
        .filter(|st| {
            let gone = settled(&st.events);
            if gone {
                settled_since.extend(&st.events);
            }
            !gone
        })
    {
        let _ = write!(
            s,
            "- next step: {} {}",
            indent_continuation(&step.text),
            cite(&step.events)
        );
        if let Some(tool) = &step.tool {
            let _ = write!(s, " (tool: {})", inert::one_line(tool));
        }
        s.push('\n');
    }
    let elsewhere = |item: &&remaind_validate::Item| {
        !item.events.is_empty() && item.events.iter().all(|e| shown.events.contains(e))
    };
    for (title, items) in sections {
        let mut listed = items
            .iter()
            .filter(|i| !elsewhere(i))
            .filter(|i| {
                let gone = settled(&i.events);
                if gone {
                    settled_since.extend(&i.events);
                }
                !gone
            })
            .peekable();
        if listed.peek().is_none() {
            continue;
        }
        let _ = writeln!(s, "\n### {title}\n");
        for item in listed {
            let _ = writeln!(
                s,
                "- {} {}",
                indent_continuation(&item.text),
                cite(&item.events)
            );
        }
    }
    settled_since.sort_unstable();
    settled_since.dedup();
    if !state.superseded.is_empty()
        || !state.resolved.is_empty()
        || !state.user_settled.is_empty()
        || !settled_since.is_empty()
    {
        s.push_str("\n### History (not current)\n\n");
        for id in &settled_since {
            let _ = match shown.since.get(*id) {
                Status::Superseded { by } => {
                    writeln!(s, "- [{id}] superseded by [{by}] (since the state)")
                }
                Status::Resolved { by } => {
                    writeln!(s, "- [{id}] resolved by [{by}] (since the state)")
                }
                Status::Current => Ok(()),
            };
        }
        for l in &state.superseded {
            let _ = writeln!(s, "- [{}] superseded by [{}]", l.event, l.by);
        }
        for l in &state.resolved {
            let _ = writeln!(s, "- [{}] resolved by [{}]", l.event, l.by);
        }
        for l in &state.user_settled {
            let how = l.how.as_str();
            let _ = writeln!(s, "- the user's [{}] {how} by [{}]", l.event, l.by);
        }
    }
    s
}

/// Handover sections the packet shows from the ledger itself (higher authority).
const HANDOVER_SHOWN_ELSEWHERE: [&str; 2] = ["Latest user instruction", "Next step"];

/// The handover without what the packet already says: the instruction and next step
/// sections, empty sections, and every line whose citations the state section cites (the
/// built-in handover renders the state, so it adds nothing; a compactor's prose stays).
/// `None` when nothing is left.
fn handover_beyond_state(text: &str, state: Option<&State>) -> Option<String> {
    let Some(state) = state else {
        return Some(text.to_owned());
    };
    let mut cited: std::collections::HashSet<EventId> = state
        .current_citations()
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    for l in state.superseded.iter().chain(&state.resolved) {
        cited.insert(l.event);
        cited.insert(l.by);
    }
    let mut out = String::new();
    let mut section = String::new();
    let mut skip_section = false;
    let mut any = false;
    let flush = |out: &mut String, section: &mut String, any: &mut bool| {
        if section.lines().skip(1).any(|l| !l.trim().is_empty()) {
            out.push_str(section);
            *any = true;
        }
        section.clear();
    };
    for line in remaind_compact::strip_binding(text).lines() {
        if let Some(title) = line.strip_prefix("## ") {
            flush(&mut out, &mut section, &mut any);
            skip_section = HANDOVER_SHOWN_ELSEWHERE.contains(&title.trim());
            section.push_str(line);
            section.push('\n');
            continue;
        }
        if line.starts_with("# ") && section.is_empty() {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        if skip_section {
            continue;
        }
        let ids = remaind_validate::citations(line);
        let repeated = if ids.is_empty() {
            matches!(line.trim(), "- (none)" | "(none)") || line.contains("listed in state.json")
        } else {
            ids.iter().all(|id| cited.contains(id))
        };
        if !repeated {
            section.push_str(line);
            section.push('\n');
        }
    }
    flush(&mut out, &mut section, &mut any);
    any.then_some(out)
}

/// The instruction block exactly as it appears in a packet.
fn instruction_block(ins: &LatestInstruction) -> String {
    format!("[{}]\n{}\n", ins.event, inert::block(&ins.text, ""))
}

struct Assembly {
    header: String,
    instruction: String,
    /// The answers and compaction focus given since the instruction, shown under it.
    since_instruction: String,
    /// The standing rules the user stated that are in force: never dropped.
    rules: String,
    units: Vec<Unit>,
    tail_range: Option<(u64, u64)>,
}

impl Assembly {
    fn render(&self) -> String {
        let mut out = self.header.clone();
        out.push_str("\n## Latest user instruction\n\n");
        out.push_str(&self.instruction);
        out.push_str(&self.since_instruction);
        self.render_user_words(&mut out);
        let kept =
            |k: fn(&UnitKind) -> bool| self.units.iter().filter(move |u| u.kept && k(&u.what));
        let section =
            |out: &mut String, title: &str, k: fn(&UnitKind) -> bool, empty: Option<&str>| {
                let mut any = false;
                for u in kept(k) {
                    if !any {
                        let _ = write!(out, "\n## {title}\n\n");
                        any = true;
                    }
                    out.push_str(&u.text);
                }
                if let (false, Some(e)) = (any, empty) {
                    let _ = write!(out, "\n## {title}\n\n{e}\n");
                }
            };
        section(
            &mut out,
            "Runtime framing",
            |k| matches!(k, UnitKind::Framing),
            None,
        );
        section(
            &mut out,
            "Next step",
            |k| matches!(k, UnitKind::NextStep),
            None,
        );
        section(
            &mut out,
            "Must remember (importance 3)",
            |k| matches!(k, UnitKind::Remember { .. }),
            None,
        );
        for k in [UnitKind::State, UnitKind::Handover, UnitKind::Memory] {
            for u in self.units.iter().filter(|u| u.kept && u.what == k) {
                out.push('\n');
                out.push_str(&u.text);
            }
        }
        if let Some((from, to)) = self.tail_range {
            let _ = write!(out, "\n## Events since the state (e{from}–e{to})\n\n");
            let dropped: Vec<EventId> = self
                .units
                .iter()
                .filter_map(|u| match u.what {
                    UnitKind::Event(id) if !u.kept => Some(id),
                    _ => None,
                })
                .collect();
            if !dropped.is_empty() {
                let _ = writeln!(
                    out,
                    "({} event(s) left out for the budget; read them with `remaind events --from {}`)\n",
                    dropped.len(),
                    dropped[0].seq()
                );
            }
            for u in kept(|k| matches!(k, UnitKind::Event(_))) {
                out.push_str(&u.text);
            }
        }
        out
    }
}

impl Assembly {
    /// What the user asked that is in force: the standing rules whole, then the rest newest
    /// first as the budget allows, saying how many were left out and where they are.
    fn render_user_words(&self, out: &mut String) {
        let words = || self.units.iter().filter(|u| u.what == UnitKind::UserWord);
        if self.rules.is_empty() && words().next().is_none() {
            return;
        }
        out.push_str("\n## What the user asked (in force; a later message wins)\n\n");
        if !self.rules.is_empty() {
            out.push_str("Standing rules:\n\n");
            out.push_str(&self.rules);
        }
        let kept: Vec<&Unit> = words().filter(|u| u.kept).collect();
        let left = words().count() - kept.len();
        if !kept.is_empty() {
            if !self.rules.is_empty() {
                out.push_str("\nNewest first:\n\n");
            }
            for u in kept {
                out.push_str(&u.text);
            }
        }
        if left > 0 {
            let _ = writeln!(
                out,
                "- ({left} older message(s) left out for the budget; `remaind events --kind \
                 user_message` shows them)"
            );
        }
    }
}

/// What the user said that is in force: the state's items with the tail folded in by the
/// built-in compactor's reading, so the packet says the same before and after a compaction.
fn user_words_in_force(inp: &Inputs) -> Vec<Asked> {
    let mut asked = inp
        .state
        .as_ref()
        .map(|s| s.user_asked.clone())
        .unwrap_or_default();
    let mut settled = Vec::new();
    let mut words = UserWords::new(&mut asked, &mut settled);
    for ev in &inp.tail {
        for t in &ev.supersedes {
            words.superseded(*t, ev.id);
        }
        for t in &ev.resolves {
            words.resolved(*t, ev.id);
        }
        words.observe(ev);
    }
    asked
}

/// The standing rules (one block, never dropped) and one part per other item, newest first,
/// leaving out the latest instruction (quoted above).
fn user_word_parts(parts: &mut Parts, asked: &[Asked], latest: Option<EventId>) -> String {
    let line = |a: &Asked| format!("- {} {}\n", indent_continuation(&a.text), cite(&a.events));
    let mut rules = String::new();
    for a in asked.iter().filter(|a| a.rule) {
        rules.push_str(&line(a));
    }
    // After the latest instruction, only answers and approvals can follow: the packet quotes
    // them under it ("Since then").
    let quoted_above = |a: &Asked| a.events.len() == 1 && latest.is_some_and(|l| a.events[0] >= l);
    let rest = asked.iter().rev().filter(|a| !a.rule && !quoted_above(a));
    for a in rest {
        let seq = a.events.last().map_or(0, |e| e.seq());
        parts.add((2, 4, seq), line(a), UnitKind::UserWord);
    }
    rules
}

/// Builds the packet and runs the gate without writing anything.
pub fn build_packet(ctx: &ContextDir, budget: Budget) -> Result<Resume, Error> {
    build_counting(ctx, &open_ledger(ctx)?, budget, Counting::Exact)
}

/// How far a build counts tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Counting {
    /// Every count exact: what `--json`, `status` and `monitor` report.
    Exact,
    /// Only as far as the packet's text and the gate's verdict depend on them. A text has at
    /// most one token per byte, so a packet no longer in bytes than its budget needs no
    /// count to be kept whole; the vocabulary (tens of milliseconds, ~70 MB) is loaded only
    /// when a decision needs an exact count: a packet over its budget in bytes, or a risky
    /// next tool whose gate reason quotes the confidence. The numbers of such a build are
    /// bounds, never shown.
    Decisions,
}

/// Builds the packet from `ledger`, the folder's ledger as the caller opened it (through its
/// shared store, or the folder's own copy when the store is away).
pub(crate) fn build_counting(
    ctx: &ContextDir,
    ledger: &Ledger,
    budget: Budget,
    counting: Counting,
) -> Result<Resume, Error> {
    let thresholds = Thresholds::load(&ctx.thresholds_path())?;
    let tools = ToolPolicy::load(&ctx.tools_path())?;
    let src = Sources::read(ledger, read_inputs(ctx, ledger)?)?;
    let budget_tokens = match budget {
        Budget::Configured => Some(thresholds.resume_budget_tokens),
        Budget::Tokens(n) => Some(n),
        Budget::Unlimited => None,
    };
    let next_tool = src
        .step
        .as_ref()
        .and_then(|s| s.tool.as_ref())
        .map(|name| NextTool {
            name: name.clone(),
            flags: tools
                .flags(name)
                .set_flags()
                .into_iter()
                .map(str::to_owned)
                .collect(),
        });
    let mut asm = Assembly {
        header: header_text(&src),
        instruction: match &src.instruction {
            Some(i) => instruction_block(i),
            None => "(no user_message in the ledger)\n".to_owned(),
        },
        since_instruction: since_instruction(&src.inp, src.instruction.as_ref()),
        rules: String::new(),
        units: parts(ctx, ledger, &src)?,
        tail_range: src
            .inp
            .tail
            .first()
            .zip(src.inp.tail.last())
            .map(|(a, b)| (a.seq, b.seq)),
    };
    let in_force = &src.in_force;
    let mut words = Parts(Vec::new());
    asm.rules = user_word_parts(
        &mut words,
        in_force,
        src.instruction.as_ref().map(|i| i.event),
    );
    // A message of the tail that is in force is quoted once, under what the user asked.
    let quoted: std::collections::HashSet<EventId> = in_force
        .iter()
        .flat_map(|a| a.events.iter().copied())
        .collect();
    let latest = src.instruction.as_ref().map(|i| i.event);
    for u in &mut asm.units {
        if let UnitKind::Event(id) = u.what
            && quoted.contains(&id)
            && Some(id) != latest
        {
            u.text = format!("- [{id}] what the user asked (quoted above)\n");
        }
    }
    asm.units.extend(words.0);
    // A text has at most one token per byte: a packet no longer in bytes than its budget
    // keeps every part whatever the exact count (see `Counting::Decisions`).
    let whole = asm.render();
    let exact = counting == Counting::Exact
        || next_tool.as_ref().is_some_and(|t| !t.flags.is_empty())
        || budget_tokens.is_some_and(|limit| whole.len() as u64 > limit);
    let tokenizer = exact.then_some(thresholds.tokenizer);
    let fit = fit_to_budget(ctx, &mut asm, whole, budget_tokens, tokenizer);
    let dropped = dropped_parts(&asm.units);
    let Sources {
        inp,
        mut reasons,
        conflict,
        instruction,
        turn_ended,
        step,
        ..
    } = src;
    gate_reasons(
        &mut reasons,
        &inp,
        &fit.packet,
        instruction.as_ref(),
        turn_ended.as_ref(),
        step.is_some(),
    );
    let confidence = Confidence::compute(&ConfidenceInputs {
        has_state: inp.state.is_some(),
        tail_tokens: fit.tail_tokens,
        window: thresholds.context_window,
        rejected_compactions: rejected_since_compaction(&inp.tail),
        dropped_events: dropped.events.len() as u64,
        conflict,
    });
    let gate = Gate::decide(reasons, confidence, next_tool);
    debug_assert!(!dropped.any() || budget_tokens.is_some());
    Ok(Resume {
        packet: fit.packet,
        tokens: fit.tokens,
        budget: budget_tokens,
        over_budget: fit.over_budget,
        tokenizer: thresholds.tokenizer.as_str().to_owned(),
        window: thresholds.context_window,
        head_seq: inp.head,
        through_seq: inp.state.as_ref().map(|s| s.through_seq),
        tail_events: inp.tail.len() as u64,
        latest_instruction: instruction,
        next_step: step,
        turn_ended,
        dropped,
        gate,
    })
}

/// What a packet is made of, read from the ledger and the derived files.
struct Sources {
    inp: Inputs,
    /// The gate's reasons found while reading (conflicts, unreadable files).
    reasons: Vec<Reason>,
    conflict: bool,
    /// The state and handover are not shown: the ledger does not vouch for them.
    distrusted: bool,
    instruction: Option<LatestInstruction>,
    turn_ended: Option<EndedTurn>,
    step: Option<PlannedStep>,
    /// What the user asked that is in force (the state's items and the tail's).
    in_force: Vec<Asked>,
}

impl Sources {
    fn read(ledger: &Ledger, mut inp: Inputs) -> Result<Sources, Error> {
        let mut reasons = inp.reasons.clone();
        reasons.extend(conflicts(ledger, &inp)?);
        let conflict = reasons.iter().any(|r| r.code.is_conflict());
        // A state or handover the ledger does not vouch for (forged, edited, from another log)
        // is never shown: the packet is built from the ledger alone, and the gate says why.
        let distrusted = conflict && (inp.state.is_some() || inp.handover.is_some());
        if distrusted {
            inp = ledger_alone(ledger, inp)?;
        }
        let instruction = latest_instruction(ledger, &inp)?;
        let turn = turn_of(&inp);
        let turn_ended = ended_turn(ledger, &inp, &turn)?;
        // Without a logged step, the compactor's policy: continue with the current instruction.
        let step = next_step(ledger, &inp, &turn).or_else(|| {
            if turn.ended() {
                return None;
            }
            let ins = instruction
                .as_ref()
                .filter(|i| inp.statuses.is_current(i.event))?;
            let step = remaind_compact::fallback_next_step(Some(ins.event))?;
            Some(PlannedStep {
                text: step.text,
                events: step.events,
                tool: step.tool,
                source: ins.source,
            })
        });
        Ok(Sources {
            in_force: user_words_in_force(&inp),
            inp,
            reasons,
            conflict,
            distrusted,
            instruction,
            turn_ended,
            step,
        })
    }
}

fn header_text(src: &Sources) -> String {
    let head = src.inp.head;
    match src.inp.state.as_ref().map(|s| s.through_seq) {
        _ if src.distrusted => format!(
            "# Resume packet\n\nLedger head e{head}. The state and handover on disk are not what the ledger recorded (the gate's reasons say how): this packet is built from the ledger alone.\n"
        ),
        Some(t) => format!(
            "# Resume packet\n\nLedger head e{head}; accepted state through e{t}. Authority when sources disagree: the latest user instruction, then the ledger events, then the state, then the handover.\n"
        ),
        None => format!(
            "# Resume packet\n\nLedger head e{head}; no accepted state yet. Authority when sources disagree: the latest user instruction, then the ledger events.\n"
        ),
    }
}

/// The packet's droppable parts, uncounted; rank = (class, importance, seq): lower drops
/// first.
struct Parts(Vec<Unit>);

impl Parts {
    fn add(&mut self, rank: (u8, u64, u64), text: String, what: UnitKind) {
        self.0.push(Unit {
            rank,
            text,
            tokens: 0,
            kept: true,
            what,
        });
    }
}

fn parts(ctx: &ContextDir, ledger: &Ledger, src: &Sources) -> Result<Vec<Unit>, Error> {
    let inp = &src.inp;
    let mut parts = Parts(Vec::new());
    // Long-term memory is the lowest authority: it is dropped first.
    // A memory resting on an event a newer one superseded or resolved is marked as such.
    let mut status = |id| ledger.status(id).ok().flatten();
    if let Some(text) =
        remaind_memory::memory_for_packet(ctx, ledger, &mut status).map_err(Error::Memory)?
    {
        let (text, _) = ledger.redactor().redact_str(&text);
        parts.add(
            (0, 1, 0),
            format!(
                "## Long-term memory (MEMORY.md; below the handover in authority)\n\n{}\n",
                inert::nested(text.trim_end())
            ),
            UnitKind::Memory,
        );
    }
    if let Some(text) = inp
        .handover
        .as_deref()
        .and_then(|h| handover_beyond_state(h, inp.state.as_ref()))
    {
        parts.add(
            (0, 2, 0),
            format!(
                "## Handover (what the state does not already say)\n\n{}\n",
                inert::nested(text.trim_end())
            ),
            UnitKind::Handover,
        );
    }
    // The state's importance-3 items still current, shown under "Must remember".
    let remember_state: Vec<&remaind_validate::Item> = inp
        .state
        .iter()
        .flat_map(|s| s.remember.iter())
        .filter(|item| item.events.iter().all(|id| inp.statuses.is_current(*id)))
        .collect();
    if let Some(state) = &inp.state {
        let mut events: Vec<EventId> = src.instruction.iter().map(|i| i.event).collect();
        events.extend(src.turn_ended.as_ref().and_then(|t| t.event));
        // What the user asked is its own section, which outlasts the state under the budget.
        events.extend(src.in_force.iter().flat_map(|a| a.events.iter().copied()));
        events.extend(remember_state.iter().flat_map(|i| i.events.iter().copied()));
        let shown = ShownElsewhere {
            events,
            step: src
                .step
                .as_ref()
                .map(|s| s.events.clone())
                .unwrap_or_default(),
            turn_ended: src.turn_ended.is_some(),
            since: &inp.statuses,
        };
        parts.add((1, 0, 0), render_state(state, &shown), UnitKind::State);
    }
    tail_parts(&mut parts, src);
    for (i, item) in remember_state.iter().enumerate() {
        parts.add(
            (3, 0, i as u64),
            format!(
                "- {} {}\n",
                indent_continuation(&item.text),
                cite(&item.events)
            ),
            UnitKind::Remember { from_state: true },
        );
    }
    remember_parts(&mut parts, src);
    parts.add((5, 0, 0), step_text(src), UnitKind::NextStep);
    let framing_text = match &inp.framing {
        Some(f) => f.to_markdown(),
        None => "- (no framing recorded; run `remaind frame`)\n".to_owned(),
    };
    parts.add((6, 0, 0), framing_text, UnitKind::Framing);
    Ok(parts.0)
}

/// The raw tail, one part per event; Remaind's own bookkeeping is dropped before any fact.
/// The changes to one file are one line, at the newest of them.
fn tail_parts(parts: &mut Parts, src: &Sources) {
    let workspace = src.inp.framing.as_ref().map(|f| f.workspace_root.as_str());
    let changes = FileChanges::of(&src.inp.tail);
    for ev in &src.inp.tail {
        if ev.kind == Kind::Monitor {
            continue;
        }
        let text = if ev.kind == Kind::FileChange
            && let Some(ids) = changes.of_event(ev)
        {
            if ids.last() != Some(&ev.id) {
                continue;
            }
            render_file_changes(ev, ids, workspace)
        } else if src.instruction.as_ref().is_some_and(|i| i.event == ev.id) {
            format!(
                "- [{}] {} {} (importance {}): (the latest user instruction, quoted above)\n",
                ev.id, ev.ts, ev.kind, ev.importance
            )
        } else if ev.kind.is_bookkeeping() {
            render_bookkeeping(ev)
        } else {
            render_event(ev)
        };
        let rank = if ev.kind.is_bookkeeping() {
            (0, 0, ev.seq)
        } else {
            (2, u64::from(ev.importance), ev.seq)
        };
        parts.add(rank, text, UnitKind::Event(ev.id));
    }
}

/// The `file_change` events of the tail, by the file they name.
struct FileChanges<'a>(std::collections::HashMap<&'a str, Vec<EventId>>);

impl<'a> FileChanges<'a> {
    fn of(tail: &'a [Event]) -> Self {
        let mut by_path: std::collections::HashMap<&str, Vec<EventId>> = Default::default();
        for ev in tail.iter().filter(|e| e.kind == Kind::FileChange) {
            if let Some(path) = changed_path(ev) {
                by_path.entry(path).or_default().push(ev.id);
            }
        }
        FileChanges(by_path)
    }

    /// Every change to the file `ev` names, oldest first.
    fn of_event(&self, ev: &Event) -> Option<&[EventId]> {
        changed_path(ev)
            .and_then(|p| self.0.get(p))
            .map(Vec::as_slice)
    }
}

/// The file a `file_change` names: its `data.path`, else its text.
fn changed_path(ev: &Event) -> Option<&str> {
    ev.data
        .as_ref()
        .and_then(|d| d.get("path"))
        .and_then(|p| p.as_str())
        .or(ev.text.as_deref())
        .map(str::trim)
        .filter(|p| !p.is_empty())
}

/// The changes to one file as one line, at its newest change: the path (relative to the
/// workspace when under it), how the newest change was made, and every change's id.
fn render_file_changes(newest: &Event, ids: &[EventId], workspace: Option<&str>) -> String {
    let path = changed_path(newest).unwrap_or_default();
    let shown = workspace
        .map(|w| w.trim_end_matches('/'))
        .filter(|w| !w.is_empty())
        .and_then(|w| path.strip_prefix(w))
        .and_then(|rest| rest.strip_prefix('/'))
        .unwrap_or(path);
    let mut s = format!(
        "- [{}] {} file_change (importance {}",
        newest.id, newest.ts, newest.importance
    );
    if let Some(actor) = &newest.actor {
        let _ = write!(s, ", {}", inert::one_line(actor));
    }
    let _ = write!(s, "): {}", inert::one_line(shown));
    let how = newest
        .data
        .as_ref()
        .and_then(|d| d.get("change"))
        .and_then(|c| c.as_str());
    if let Some(how) = how {
        let _ = write!(s, " ({})", inert::one_line(how));
    }
    if ids.len() > 1 {
        let _ = write!(s, "; changed {} times: {}", ids.len(), cite(ids));
    }
    if !newest.refs.is_empty() {
        let _ = write!(s, " refs=[{}]", join_ids(&newest.refs));
    }
    s.push('\n');
    s
}

/// The tail's importance-3 events still current, shown under "Must remember" unless the
/// step or the instruction already quotes them.
fn remember_parts(parts: &mut Parts, src: &Sources) {
    let step_ids: Vec<EventId> = src
        .step
        .as_ref()
        .map(|s| s.events.clone())
        .unwrap_or_default();
    for ev in &src.inp.tail {
        if ev.importance == 3
            && src.inp.statuses.is_current(ev.id)
            && !step_ids.contains(&ev.id)
            && src.instruction.as_ref().is_none_or(|i| i.event != ev.id)
        {
            parts.add(
                (4, 0, ev.seq),
                format!(
                    "- {} [{}] ({})\n",
                    indent_continuation(ev.text.as_deref().unwrap_or("")),
                    ev.id,
                    ev.kind
                ),
                UnitKind::Remember { from_state: false },
            );
        }
    }
}

fn step_text(src: &Sources) -> String {
    match (&src.step, &src.turn_ended) {
        (_, Some(ended)) => ended_turn_text(ended),
        (Some(s), None) => {
            let mut t = format!("- {} {}", indent_continuation(&s.text), cite(&s.events));
            if let Some(tool) = &s.tool {
                let _ = write!(t, " (tool: {})", inert::one_line(tool));
            }
            t.push('\n');
            t
        }
        (None, None) => {
            "- (none: neither the state nor an active next_step event names one)\n".to_owned()
        }
    }
}

/// The packet once fitted to its budget.
struct Fitted {
    packet: String,
    tokens: u64,
    over_budget: bool,
    /// Tokens of the raw tail's parts, kept or not.
    tail_tokens: u64,
}

/// Counts every part (exactly with `tokenizer`, else by bytes, an upper bound) and `whole`, the
/// packet with every part, and drops parts
/// by rank until the packet fits `budget_tokens`: first by the parts' counts, then checked on
/// the whole text. Exact counts are kept per chunk under db/, so a packet whose lines were
/// counted before needs no vocabulary.
fn fit_to_budget(
    ctx: &ContextDir,
    asm: &mut Assembly,
    whole: String,
    budget_tokens: Option<u64>,
    tokenizer: Option<remaind_tokens::TokenizerName>,
) -> Fitted {
    let mut counts = tokenizer.map(|t| Counts::load(ctx, t));
    let mut count = |text: &str| match counts.as_mut() {
        Some(c) => c.count(text),
        None => text.len() as u64,
    };
    let mut tail_tokens = 0;
    for u in &mut asm.units {
        u.tokens = count(&u.text);
        if matches!(u.what, UnitKind::Event(_)) {
            tail_tokens += u.tokens;
        }
    }
    let mut order: Vec<usize> = (0..asm.units.len()).collect();
    order.sort_by_key(|&i| asm.units[i].rank);
    let mut next_drop = 0;
    let mut packet = whole;
    let mut tokens = count(&packet);
    let mut over_budget = false;
    if let Some(limit) = budget_tokens {
        let mut estimate = tokens;
        while estimate > limit && next_drop < order.len() {
            let u = &mut asm.units[order[next_drop]];
            u.kept = false;
            estimate = estimate.saturating_sub(u.tokens);
            next_drop += 1;
        }
        packet = asm.render();
        tokens = count(&packet);
        while tokens > limit && next_drop < order.len() {
            asm.units[order[next_drop]].kept = false;
            next_drop += 1;
            packet = asm.render();
            tokens = count(&packet);
        }
        over_budget = tokens > limit;
    }
    if let Some(c) = &counts {
        c.save(ctx);
    }
    Fitted {
        packet,
        tokens,
        over_budget,
        tail_tokens,
    }
}

fn dropped_parts(units: &[Unit]) -> Dropped {
    let mut dropped = Dropped::default();
    for u in units.iter().filter(|u| !u.kept) {
        match u.what {
            UnitKind::Handover => dropped.handover = true,
            UnitKind::Memory => dropped.memory = true,
            UnitKind::State => dropped.state = true,
            UnitKind::Event(id) => dropped.events.push(id),
            UnitKind::Remember { .. } => dropped.remember_items += 1,
            UnitKind::NextStep => dropped.next_step = true,
            UnitKind::Framing => dropped.framing = true,
            UnitKind::UserWord => dropped.user_words += 1,
        }
    }
    dropped.events.sort();
    dropped
}

/// The gate's reasons about the step and the instruction, after the ones found reading.
fn gate_reasons(
    reasons: &mut Vec<Reason>,
    inp: &Inputs,
    packet: &str,
    instruction: Option<&LatestInstruction>,
    turn_ended: Option<&EndedTurn>,
    has_step: bool,
) {
    if let Some(ended) = turn_ended {
        reasons.push(Reason {
            code: ReasonCode::NoNextStep,
            message: format!(
                "the last turn {}{}: the agent handed control back and no step is current. This is the normal end of a session: wait for the user's next instruction; do not redo finished work",
                if ended.how == TurnEnd::Interrupted.as_str() { "was interrupted by the user" } else { "ended" },
                ended.event.map(|e| format!(" at [{e}]")).unwrap_or_default(),
            ),
            events: ended.event.into_iter().collect(),
        });
    } else if !has_step {
        reasons.push(Reason {
            code: ReasonCode::NoNextStep,
            message: "there is no next step: the state names none (or a later event resolved it) and no active next_step event follows it; log one with `remaind log --kind next_step`".to_owned(),
            events: Vec::new(),
        });
    }
    match instruction {
        Some(i) if packet.contains(&instruction_block(i)) => {}
        Some(i) => reasons.push(Reason {
            code: ReasonCode::InstructionNotInPacket,
            message: format!("the latest user instruction [{}] is not in the packet", i.event),
            events: vec![i.event],
        }),
        None => reasons.push(Reason {
            code: ReasonCode::InstructionNotInPacket,
            message: match inp.state.as_ref().and_then(|s| s.latest_user_instruction.as_ref()) {
                Some(named) => format!(
                    "the state names {} as the latest user instruction but the ledger holds no such user_message",
                    named.event
                ),
                None => "the ledger holds no user_message: there is no latest user instruction to resume from".to_owned(),
            },
            events: Vec::new(),
        }),
    }
}

/// Validation events (rejected candidates) since the tail's last compaction.
fn rejected_since_compaction(tail: &[Event]) -> u64 {
    let last_compaction = tail
        .iter()
        .rposition(|e| e.kind == Kind::Compaction)
        .map_or(0, |i| i + 1);
    tail[last_compaction..]
        .iter()
        .filter(|e| e.kind == Kind::Validation)
        .count() as u64
}

/// Builds the packet, writes it to `active/resume_packet.md` through the history store
/// (unless it is byte-identical to the current one) and returns it with the gate's verdict.
pub fn resume(ctx: &ContextDir, budget: Budget) -> Result<Resume, Error> {
    let built = build_packet(ctx, budget)?;
    write_packet(ctx, &built.packet)?;
    Ok(built)
}

/// A resume packet as an agent is shown it: its text and the gate's verdict, what `remaind
/// resume` prints and a SessionStart hook injects. Tokens are counted only as far as the text
/// and the verdict depend on them (a packet under its budget in bytes needs no count), so
/// showing one usually never loads the tokenizer; [`resume`] gives the exact numbers.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Shown {
    /// The packet, byte for byte what [`resume`] builds.
    pub packet: String,
    /// True when the agent may go on silently.
    pub proceed: bool,
    /// Every reason the gate interrupts, in [`ReasonCode`] order.
    pub reasons: Vec<Reason>,
    /// The turn that ended, when the last one did.
    pub turn_ended: Option<EndedTurn>,
}

/// [`resume`] for showing: the packet is written to `active/resume_packet.md` the same way,
/// and the tokenizer is loaded only when the packet or the verdict needs an exact count.
pub fn show(ctx: &ContextDir, budget: Budget) -> Result<Shown, Error> {
    show_from(ctx, &open_ledger(ctx)?, budget)
}

/// [`show`] from a ledger the caller opened.
pub(crate) fn show_from(ctx: &ContextDir, ledger: &Ledger, budget: Budget) -> Result<Shown, Error> {
    let built = build_counting(ctx, ledger, budget, Counting::Decisions)?;
    write_packet(ctx, &built.packet)?;
    Ok(Shown {
        packet: built.packet,
        proceed: built.gate.proceed,
        reasons: built.gate.reasons,
        turn_ended: built.turn_ended,
    })
}

/// Writes `packet` to `active/resume_packet.md` through the history store, unless it is
/// byte-identical to the current one.
fn write_packet(ctx: &ContextDir, packet: &str) -> Result<(), Error> {
    let store = open_store(ctx)?;
    let current = store.read(PACKET_FILE).map_err(Error::Atomic)?;
    if current.as_deref() != Some(packet.as_bytes()) {
        store
            .write(PACKET_FILE, packet.as_bytes())
            .map_err(Error::Atomic)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_citation_list_shows_its_ends_and_its_length() {
        let ids = |n: u64| (1..=n).map(EventId).collect::<Vec<_>>();
        assert_eq!(cite(&ids(2)), "[e1][e2]");
        assert_eq!(cite(&ids(9)).matches('[').count(), 9);
        assert_eq!(
            cite(&ids(4000)),
            "[e1][e2][e3] … [e3998][e3999][e4000] (4000 events)"
        );
    }
}
