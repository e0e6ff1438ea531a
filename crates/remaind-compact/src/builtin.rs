//! The built-in deterministic compactor: an incremental fold of the events after the prior
//! state's `through_seq` into that state.
//!
//! The fold's only memory is the [`State`] itself, so compacting `a..c` from scratch and
//! compacting `a..b` then `b..c` give the same content (sections are kept sorted by their
//! first cited event). Its cost is linear in the tail plus one pass over the prior state; it
//! reads older events only through `lookup`, a bounded number of times (the kinds of a few
//! next-step candidates and the texts of the newest history lines in the handover).

// foldhash: ids are small integers and a long session's state holds thousands of links.
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use jiff::Timestamp;
use remaind_events::{Event, EventId, Kind};
use remaind_validate::{Instruction, Item, Link, NextStep, State, Turn, TurnEnd};

use crate::Candidate;
use crate::handover;
use crate::user_words::UserWords;

/// The `compactor` label of states the built-in compactor makes.
pub const BUILTIN_LABEL: &str = "builtin";

/// Longest item text, in characters, before it is cut with `…`.
pub(crate) const MAX_TEXT_CHARS: usize = 200;

/// Text of the fallback next step grounded on the latest user instruction.
const FALLBACK_INSTRUCTION: &str =
    "No next step is logged: continue with the latest user instruction";
/// The one policy for a ledger with no active `next_step` event, shared by this compactor and
/// the resume gate (so the gate's verdict does not depend on whether a compaction ran): when
/// the latest user instruction is current, the next step is to continue with it, citing it.
/// `None` without a current instruction.
pub fn fallback_next_step(latest_current_instruction: Option<EventId>) -> Option<NextStep> {
    latest_current_instruction.map(|id| NextStep {
        text: FALLBACK_INSTRUCTION.to_owned(),
        events: vec![id],
        tool: None,
    })
}

/// The start of an open loop that was a step when the user's turn ended: the agent handed
/// control back, so it may already be done (remaind_validate::Turn holds the policy).
pub const PENDING_BEFORE_END: &str = "Pending before the turn ended (may already be done): ";

/// The start of a completed-work item holding an ended turn's outcome.
pub const TURN_OUTCOME: &str = "Turn outcome: ";

/// Text of the fallback next step grounded on the newest current event.
const FALLBACK_LATEST: &str = "No next step is logged: continue from the newest current event";

/// Fold `tail` (the events after `prior.through_seq`, up to `through_seq`) into `prior` and
/// render the handover, bound to the state by its first line.
///
/// Events outside `(prior.through_seq, through_seq]` are ignored. `lookup` returns an older
/// event by id (the ledger's `get`); it is called a bounded number of times, for the kinds
/// of next-step candidates and the texts shown in the handover's "Superseded" section.
/// `log_digest` is the chain hash at `through_seq` and `now` becomes `generated_at`.
///
/// Placement: `result` → completed work; `file_change` → files changed (one item per
/// file: a repeated path adds its event to the file's item); `decision` and
/// `correction` → decisions; `constraint` → constraints; `blocker` → blockers (until
/// resolved); `remember` and every other importance-3 event → remember; the latest active
/// `next_step` → next step, other active ones → open loops; the last `user_message` → the
/// latest user instruction (byte for byte); the first user message or an event with
/// `data.goal` → goal; any other importance-2 event → open loops. An event listed in
/// `supersedes` or `resolves` leaves every current section and gets a `superseded` or
/// `resolved` link; a goal lost to a supersession passes to the superseding event.
/// Bookkeeping kinds are never placed.
pub fn compact_builtin<L>(
    prior: Option<&State>,
    tail: &[Event],
    lookup: L,
    through_seq: u64,
    log_digest: &str,
    now: Timestamp,
) -> Candidate
where
    L: FnMut(EventId) -> Option<Event>,
{
    let unbound = fold_and_render(prior, tail, lookup, through_seq, log_digest, now);
    let handover = handover::bind(&unbound.state, &unbound.handover);
    Candidate {
        state: unbound.state,
        handover,
    }
}

/// [`compact_builtin`] without the binding line (the commit path binds the handover with the
/// state bytes it writes, computed once).
pub(crate) fn fold_and_render<L>(
    prior: Option<&State>,
    tail: &[Event],
    mut lookup: L,
    through_seq: u64,
    log_digest: &str,
    now: Timestamp,
) -> Candidate
where
    L: FnMut(EventId) -> Option<Event>,
{
    let mut state = prior
        .cloned()
        .unwrap_or_else(|| empty_state(through_seq, log_digest));
    let from = prior.map_or(0, |p| p.through_seq);
    let tail: Vec<&Event> = tail
        .iter()
        .filter(|e| e.seq > from && e.seq <= through_seq)
        .collect();
    let mut fold = Fold::new(&mut state, &tail);
    for ev in &tail {
        fold.apply(ev, &mut lookup);
    }
    fold.finish(&tail, &mut lookup);
    state.v = 1;
    state.through_seq = through_seq;
    state.log_digest = log_digest.to_owned();
    state.generated_at = now.strftime("%Y-%m-%dT%H:%M:%S%.6fZ").to_string();
    state.compactor = BUILTIN_LABEL.to_owned();
    let handover = handover::render(&state, &mut lookup);
    Candidate { state, handover }
}

/// A state with every section empty.
pub(crate) fn empty_state(through_seq: u64, log_digest: &str) -> State {
    State {
        v: 1,
        through_seq,
        log_digest: log_digest.to_owned(),
        generated_at: String::new(),
        compactor: BUILTIN_LABEL.to_owned(),
        goal: Vec::new(),
        latest_user_instruction: None,
        user_asked: Vec::new(),
        completed_work: Vec::new(),
        decisions: Vec::new(),
        constraints: Vec::new(),
        blockers: Vec::new(),
        remember: Vec::new(),
        files_changed: Vec::new(),
        open_loops: Vec::new(),
        next_step: None,
        superseded: Vec::new(),
        resolved: Vec::new(),
        user_settled: Vec::new(),
    }
}

/// The fold's working set: the state plus indexes built once from it.
struct Fold<'s, 't> {
    state: &'s mut State,
    /// Events superseded in this tail: they leave every current section.
    removed: HashSet<EventId>,
    /// Events resolved in this tail: they leave every current section except completed work
    /// and files changed, which are history as much as current (check 1 keeps them there).
    closed: HashSet<EventId>,
    /// Every event superseded or resolved so far (prior links plus this tail).
    gone: HashSet<EventId>,
    superseded: HashSet<EventId>,
    resolved: HashSet<EventId>,
    /// Events of the tail, by id.
    tail: HashMap<EventId, &'t Event>,
    /// Kinds learned through `lookup`.
    kinds: HashMap<EventId, Option<Kind>>,
    /// Whether the open loops may hold an active `next_step` event. False only when the
    /// prior state is the built-in compactor's and fell back (then it promoted every
    /// candidate it had) and no next step moved into the open loops since.
    loops_may_hold_steps: bool,
    /// Where the user's turn stands after the events folded so far.
    turn: Turn,
}

impl<'s, 't> Fold<'s, 't> {
    fn new(state: &'s mut State, tail: &[&'t Event]) -> Self {
        let superseded: HashSet<EventId> = state.superseded.iter().map(|l| l.event).collect();
        let resolved: HashSet<EventId> = state.resolved.iter().map(|l| l.event).collect();
        let gone = superseded.union(&resolved).copied().collect();
        // A prior whose turn ended (no step) moved its steps to the open loops.
        let builtin_fallback = state.compactor == BUILTIN_LABEL
            && match &state.next_step {
                Some(s) => s.text == FALLBACK_INSTRUCTION || s.text == FALLBACK_LATEST,
                None => state.latest_user_instruction.is_none(),
            };
        Fold {
            loops_may_hold_steps: !builtin_fallback,
            turn: Turn::after_state(Some(state)),
            state,
            removed: HashSet::new(),
            closed: HashSet::new(),
            gone,
            superseded,
            resolved,
            tail: tail.iter().map(|e| (e.id, *e)).collect(),
            kinds: HashMap::new(),
        }
    }

    fn kind_of<L>(&mut self, id: EventId, lookup: &mut L) -> Option<Kind>
    where
        L: FnMut(EventId) -> Option<Event>,
    {
        if let Some(ev) = self.tail.get(&id) {
            return Some(ev.kind);
        }
        *self
            .kinds
            .entry(id)
            .or_insert_with(|| lookup(id).map(|e| e.kind))
    }

    fn event_of<L>(&self, id: EventId, lookup: &mut L) -> Option<Event>
    where
        L: FnMut(EventId) -> Option<Event>,
    {
        match self.tail.get(&id) {
            Some(ev) => Some((*ev).clone()),
            None => lookup(id),
        }
    }

    /// True when the current next step rests on an active `next_step` event.
    fn next_step_is_real<L>(&mut self, lookup: &mut L) -> bool
    where
        L: FnMut(EventId) -> Option<Event>,
    {
        let Some(step) = &self.state.next_step else {
            return false;
        };
        let ids: Vec<EventId> = step.events.clone();
        ids.into_iter()
            .any(|id| !self.gone.contains(&id) && self.kind_of(id, lookup) == Some(Kind::NextStep))
    }

    fn apply<L>(&mut self, ev: &'t Event, lookup: &mut L)
    where
        L: FnMut(EventId) -> Option<Event>,
    {
        let mut goal_lost = false;
        for &t in &ev.supersedes {
            goal_lost |=
                !self.gone.contains(&t) && self.state.goal.iter().any(|i| i.events.contains(&t));
            self.words().superseded(t, ev.id);
            self.gone.insert(t);
            self.removed.insert(t);
            if self.superseded.insert(t) {
                self.state.superseded.push(Link {
                    event: t,
                    by: ev.id,
                });
            }
        }
        for &t in &ev.resolves {
            self.words().resolved(t, ev.id);
            self.gone.insert(t);
            self.closed.insert(t);
            if self.resolved.insert(t) {
                self.state.resolved.push(Link {
                    event: t,
                    by: ev.id,
                });
            }
        }
        if ev.kind.is_bookkeeping() {
            return;
        }
        self.turn.observe(ev);
        if self.turn.end_event() == Some(ev.id) {
            self.end_turn(ev, lookup);
        }
        let item = item_of(ev);
        if goal_lost && self.state.goal.iter().all(|i| self.is_removed_item(i)) {
            push_unique(&mut self.state.goal, item.clone());
        }
        // What the user said stays in force until a later message replaces it; a goal it
        // replaced passes to the message that replaced it.
        let replaced = self.words().observe(ev);
        if self
            .state
            .goal
            .iter()
            .any(|g| g.events.iter().any(|e| replaced.contains(e)))
        {
            self.state.goal = vec![item.clone()];
        }
        match ev.kind {
            Kind::UserMessage => {
                let first = self.state.latest_user_instruction.is_none();
                self.state.latest_user_instruction = Some(Instruction {
                    event: ev.id,
                    text: ev.text.clone().unwrap_or_default(),
                });
                if first && self.state.goal.iter().all(|i| self.is_removed_item(i)) {
                    push_unique(&mut self.state.goal, item.clone());
                }
                // It stops being the latest instruction with the next user message; an
                // important one must stay cited (check 2).
                if ev.importance == 2 {
                    push_unique(&mut self.state.open_loops, item.clone());
                }
            }
            Kind::Result => push_unique(&mut self.state.completed_work, item.clone()),
            Kind::FileChange => push_same_file(&mut self.state.files_changed, item.clone()),
            Kind::Decision | Kind::Correction => {
                push_unique(&mut self.state.decisions, item.clone());
            }
            Kind::Constraint => push_unique(&mut self.state.constraints, item.clone()),
            Kind::Blocker => push_unique(&mut self.state.blockers, item.clone()),
            Kind::Remember => push_unique(&mut self.state.remember, item.clone()),
            // A step logged after the turn ended and before a new instruction: the agent
            // handed control back, so it is not current.
            Kind::NextStep if self.turn.ended() => {
                self.loops_may_hold_steps = true;
                push_unique(&mut self.state.open_loops, pending_before_end(item.clone()));
            }
            Kind::NextStep => {
                if self.next_step_is_real(lookup)
                    && let Some(old) = self.state.next_step.take()
                {
                    self.loops_may_hold_steps = true;
                    push_unique(
                        &mut self.state.open_loops,
                        Item {
                            text: old.text,
                            events: old.events,
                        },
                    );
                }
                self.state.next_step = Some(NextStep {
                    text: item.text.clone(),
                    events: item.events.clone(),
                    tool: ev
                        .tool
                        .as_ref()
                        .map(|t| t.name.clone())
                        .filter(|n| !n.is_empty()),
                });
            }
            _ => {
                if ev.importance == 2 {
                    push_unique(&mut self.state.open_loops, item.clone());
                }
            }
        }
        // Importance-3 events must stay in the handover (check 5), whose long sections show
        // only their newest items: "Must remember" carries them (steps stay in the next step
        // or the open loops, whose older items the handover cites on one line).
        if ev.importance >= 3 && !matches!(ev.kind, Kind::Remember | Kind::NextStep) {
            push_unique(&mut self.state.remember, item.clone());
        }
        if is_goal_flagged(ev) {
            self.state.goal = vec![item];
        }
    }

    /// The user's turn ended with `end`: its outcome (a Stop's last message) becomes
    /// completed work, and every step still open becomes an open loop pending before the end.
    fn end_turn<L>(&mut self, end: &Event, lookup: &mut L)
    where
        L: FnMut(EventId) -> Option<Event>,
    {
        if TurnEnd::of(end) == Some(TurnEnd::Stop) {
            let outcome = item_text(end);
            // The outcome alone: the end event `refs` its instruction, and an instruction
            // cited as completed work would have to stay there for good (check 1).
            let events = vec![end.id];
            push_unique(
                &mut self.state.completed_work,
                Item {
                    text: format!("{TURN_OUTCOME}{outcome}"),
                    events,
                },
            );
        }
        let real = self.next_step_is_real(lookup);
        if let Some(step) = self.state.next_step.take()
            && real
        {
            push_unique(
                &mut self.state.open_loops,
                Item {
                    text: step.text,
                    events: step.events,
                },
            );
        }
        // Every step still open was pending when the turn ended, the current one or not
        // (so a fold from scratch and one from a prior state mark the same ones).
        let loops = std::mem::take(&mut self.state.open_loops);
        let mut marked = Vec::with_capacity(loops.len());
        for item in loops {
            let plain = !item.text.starts_with(PENDING_BEFORE_END)
                && !item.text.starts_with(LOOPS_ROLLUP.prefix);
            let step = plain
                && item.events.iter().any(|id| {
                    !self.gone.contains(id) && self.kind_of(*id, lookup) == Some(Kind::NextStep)
                });
            marked.push(if step { pending_before_end(item) } else { item });
        }
        self.state.open_loops = marked;
        self.loops_may_hold_steps = true;
    }

    fn words(&mut self) -> UserWords<'_> {
        UserWords::new(&mut self.state.user_asked, &mut self.state.user_settled)
    }

    fn is_removed_item(&self, item: &Item) -> bool {
        item.events
            .iter()
            .all(|e| self.removed.contains(e) || self.closed.contains(e))
    }

    fn finish<L>(mut self, tail: &[&Event], lookup: &mut L)
    where
        L: FnMut(EventId) -> Option<Event>,
    {
        let removed = std::mem::take(&mut self.removed);
        let closed = std::mem::take(&mut self.closed);
        if !removed.is_empty() || !closed.is_empty() {
            let st = &mut *self.state;

            let gone = |e: &EventId| removed.contains(e) || closed.contains(e);
            for (section, keeps_closed) in [
                (&mut st.goal, false),
                (&mut st.completed_work, true),
                (&mut st.decisions, false),
                (&mut st.constraints, false),
                (&mut st.blockers, false),
                (&mut st.remember, false),
                (&mut st.files_changed, true),
                (&mut st.open_loops, false),
            ] {
                for item in section.iter_mut() {
                    if keeps_closed {
                        item.events.retain(|e| !removed.contains(e));
                    } else {
                        item.events.retain(|e| !gone(e));
                    }
                }
                section.retain(|i| !i.events.is_empty());
            }
            if let Some(step) = &mut st.next_step {
                step.events.retain(|e| !gone(e));
                if step.events.is_empty() {
                    st.next_step = None;
                }
            }
        }
        if self.turn.ended() {
            // The one policy (remaind_validate::Turn): after the end no step is current.
            self.state.next_step = None;
        } else if !self.next_step_is_real(lookup) {
            let prior = self.state.next_step.take();
            self.state.next_step = match self.promote_open_loop(lookup) {
                Some(step) => Some(step),
                None => self.fallback(tail, prior),
            };
        }
        let st = &mut *self.state;
        for section in [
            &mut st.goal,
            &mut st.completed_work,
            &mut st.decisions,
            &mut st.constraints,
            &mut st.blockers,
            &mut st.remember,
            &mut st.files_changed,
            &mut st.open_loops,
        ] {
            section.sort_by_key(first_event);
        }
        UserWords::new(&mut st.user_asked, &mut st.user_settled).condense();
        for (section, rollup) in [
            (&mut st.completed_work, &ROLLUPS[0]),
            (&mut st.files_changed, &ROLLUPS[1]),
            (&mut st.decisions, &ROLLUPS[2]),
            (&mut st.open_loops, LOOPS_ROLLUP),
        ] {
            condense(section, rollup);
        }
    }

    /// The latest active `next_step` event among the open loops, taken out of them.
    fn promote_open_loop<L>(&mut self, lookup: &mut L) -> Option<NextStep>
    where
        L: FnMut(EventId) -> Option<Event>,
    {
        if !self.loops_may_hold_steps {
            return None;
        }
        let mut order: Vec<(EventId, usize)> = self
            .state
            .open_loops
            .iter()
            .enumerate()
            .filter_map(|(i, item)| item.events.iter().max().map(|e| (*e, i)))
            .collect();
        order.sort_unstable_by(|a, b| b.cmp(a));
        for (_, idx) in order {
            let ids = self.state.open_loops[idx].events.clone();
            let mut chosen = None;
            for id in ids.iter().rev() {
                if !self.gone.contains(id) && self.kind_of(*id, lookup) == Some(Kind::NextStep) {
                    chosen = Some(*id);
                    break;
                }
            }
            let Some(id) = chosen else { continue };
            let event = self.event_of(id, lookup);
            let tool = event
                .as_ref()
                .and_then(|e| e.tool.as_ref().map(|t| t.name.clone()))
                .filter(|n| !n.is_empty());
            let loops = &mut self.state.open_loops;
            if loops[idx].text.starts_with(LOOPS_ROLLUP.prefix) {
                // Out of the condensed item comes that one step, with its own text.
                loops[idx].events.retain(|e| *e != id);
                if loops[idx].events.is_empty() {
                    loops.remove(idx);
                }
                let text = event
                    .as_ref()
                    .map(item_text)
                    .unwrap_or_else(|| format!("{} {id}", Kind::NextStep));
                return Some(NextStep {
                    text,
                    events: vec![id],
                    tool,
                });
            }
            let item = loops.remove(idx);
            return Some(NextStep {
                text: item.text,
                events: item.events,
                tool,
            });
        }
        None
    }

    /// A next step when no `next_step` event is active: ground it on the latest user
    /// instruction if it is current, else on the newest event of the tail (always current:
    /// nothing after it could supersede or resolve it), else keep the prior one (the tail is
    /// empty, so nothing changed).
    fn fallback(&self, tail: &[&Event], prior: Option<NextStep>) -> Option<NextStep> {
        let st = &*self.state;
        let current = st
            .latest_user_instruction
            .as_ref()
            .map(|i| i.event)
            .filter(|e| !self.gone.contains(e));
        if let Some(step) = fallback_next_step(current) {
            return Some(step);
        }
        if let Some(last) = tail.last() {
            return Some(NextStep {
                text: FALLBACK_LATEST.to_owned(),
                events: vec![last.id],
                tool: None,
            });
        }
        prior.filter(|s| !s.events.is_empty() && s.events.iter().all(|e| !self.gone.contains(e)))
    }
}

/// How many of the newest items a long section (completed work, files changed, decisions,
/// open loops) keeps word for word; older ones are condensed into the section's first item,
/// which cites them all. The handover shows the newest 20.
pub const KEEP_VERBATIM: usize = 100;

/// The condensed first item of a long section.
pub(crate) struct Rollup {
    /// Its text starts with this (how a later compaction recognizes it).
    pub(crate) prefix: &'static str,
    /// What the cited events are, in the plural.
    pub(crate) what: &'static str,
    /// The command that lists them.
    pub(crate) show: &'static str,
}

pub(crate) const ROLLUPS: [Rollup; 4] = [
    Rollup {
        prefix: "Earlier completed work, condensed:",
        what: "results",
        show: "remaind events --kind result",
    },
    Rollup {
        prefix: "Earlier file changes, condensed:",
        what: "file changes",
        show: "remaind events --kind file_change",
    },
    Rollup {
        prefix: "Earlier decisions, condensed:",
        what: "decisions and corrections",
        show: "remaind events --kind decision,correction",
    },
    Rollup {
        prefix: "Earlier open loops, condensed:",
        what: "open steps and notes",
        show: "remaind events --min-importance 2",
    },
];

/// The condensed item of the open loops.
const LOOPS_ROLLUP: &Rollup = &ROLLUPS[3];

/// Keep the newest [`KEEP_VERBATIM`] items of `section` (sorted by first event) and fold the
/// older ones into one first item citing every event they cited, so state.json grows by an id
/// per old event instead of a sentence. Every citation stays in the same section, which is
/// what checks 1 and 2 ask of it.
fn condense(section: &mut Vec<Item>, rollup: &Rollup) {
    let has_rollup = section
        .first()
        .is_some_and(|i| i.text.starts_with(rollup.prefix));
    let verbatim = section.len() - usize::from(has_rollup);
    if verbatim <= KEEP_VERBATIM {
        if let Some(first) = section.first_mut().filter(|_| has_rollup) {
            first.text = rollup_text(rollup, &first.events);
        }
        return;
    }
    let fold = verbatim - KEEP_VERBATIM;
    let start = usize::from(has_rollup);
    let mut events: Vec<EventId> = if has_rollup {
        std::mem::take(&mut section[0].events)
    } else {
        Vec::new()
    };
    for item in section.drain(start..start + fold) {
        events.extend(item.events);
    }
    events.sort_unstable();
    events.dedup();
    let item = Item {
        text: rollup_text(rollup, &events),
        events,
    };
    if has_rollup {
        section[0] = item;
    } else {
        section.insert(0, item);
    }
}

fn rollup_text(rollup: &Rollup, events: &[EventId]) -> String {
    let (Some(first), Some(last)) = (events.first(), events.last()) else {
        return rollup.prefix.to_owned();
    };
    format!(
        "{} {} earlier {} ({first} to {last}); `{}` shows each",
        rollup.prefix,
        events.len(),
        rollup.what,
        rollup.show
    )
}

fn first_event(item: &Item) -> EventId {
    item.events.first().copied().unwrap_or(EventId(0))
}

fn push_unique(section: &mut Vec<Item>, item: Item) {
    let id = item.events[0];
    if !section.iter().rev().any(|i| i.events.contains(&id)) {
        section.push(item);
    }
}

/// Files changed keep one item per file: a later change of a file whose item (same text) is
/// still listed adds its event to that item instead of repeating the path.
fn push_same_file(section: &mut Vec<Item>, item: Item) {
    let id = item.events[0];
    match section.iter_mut().rev().find(|i| i.text == item.text) {
        Some(same) => {
            if !same.events.contains(&id) {
                same.events.push(id);
            }
        }
        None => section.push(item),
    }
}

fn is_goal_flagged(ev: &Event) -> bool {
    match ev.data.as_ref().and_then(|d| d.get("goal")) {
        Some(serde_json::Value::Bool(b)) => *b,
        Some(serde_json::Value::String(s)) => !s.trim().is_empty(),
        _ => false,
    }
}

/// The one-line claim for an event: its text, whitespace collapsed, cut to
/// [`MAX_TEXT_CHARS`]; a placeholder naming the kind (and a file path) when it has none.
pub(crate) fn item_text(ev: &Event) -> String {
    let text = ev.text.as_deref().map(one_line).unwrap_or_default();
    if !text.is_empty() {
        return text;
    }
    let path = ev
        .data
        .as_ref()
        .and_then(|d| d.get("path").or_else(|| d.get("file")))
        .and_then(|v| v.as_str())
        .map(one_line)
        .filter(|p| !p.is_empty());
    match (path, &ev.tool) {
        (Some(p), _) => format!("{}: {p}", ev.kind),
        (None, Some(tool)) if !tool.name.is_empty() => {
            format!("{} ({})", ev.kind, one_line(&tool.name))
        }
        _ => format!("{} without text", ev.kind),
    }
}

/// An open loop made of a step that was pending when the turn ended.
fn pending_before_end(mut item: Item) -> Item {
    if !item.text.starts_with(PENDING_BEFORE_END) {
        item.text = one_line(&format!("{PENDING_BEFORE_END}{}", item.text));
    }
    item
}

fn item_of(ev: &Event) -> Item {
    // A user message a runtime wrapped in editor context is said by what the user typed.
    let typed = (ev.kind == Kind::UserMessage)
        .then(|| ev.text.as_deref().and_then(crate::user_words::request_part))
        .flatten()
        .map(one_line);
    Item {
        text: typed.unwrap_or_else(|| item_text(ev)),
        events: vec![ev.id],
    }
}

/// Collapse whitespace runs (newlines included) to one space, trim, and cut to
/// [`MAX_TEXT_CHARS`] characters with a trailing `…`.
pub(crate) fn one_line(s: &str) -> String {
    let mut out = String::new();
    let mut chars = 0usize;
    for word in s.split_whitespace() {
        if chars > 0 {
            out.push(' ');
            chars += 1;
        }
        for c in word.chars() {
            if chars >= MAX_TEXT_CHARS {
                let cut = out.trim_end().len();
                out.truncate(cut);
                out.push('…');
                return out;
            }
            if c.is_control() {
                continue;
            }
            out.push(c);
            chars += 1;
        }
    }
    out
}
