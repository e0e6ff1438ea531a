//! Docs/contract.md's six checks, after the binding check: the facts they share are gathered
//! once from the tail and the prior's obligations ([`Facts`]), then each check is one function
//! that reads them and reports its failures.

use std::collections::{BTreeMap, BTreeSet};

use remaind_events::{Error, EventId, Kind, LedgerView};

use crate::handover::{Handover, titles};
use crate::prior::{
    Cites, IdSet, Info, Places, Prior, carry, has_own_list, may_be_required, place_bit, places_of,
};
use crate::state::State;
use crate::turn::{Turn, TurnEnd};
use crate::user_words::{LedgerLinks, TailWords, user_words_preserved};
use crate::validate::Report;
use crate::verdict::Check;

/// Links `event -> by` for superseded or resolved events: the first `by` of each event in a
/// map (no allocation per link), any further ones aside (rare: two events superseding one).
#[derive(Default)]
struct Links {
    first: foldhash::HashMap<EventId, EventId>,
    more: Vec<(EventId, EventId)>,
}

impl Links {
    fn add(&mut self, event: EventId, by: EventId) {
        match self.first.get(&event) {
            None => {
                self.first.insert(event, by);
            }
            Some(b) if *b == by => {}
            Some(_) => {
                if !self.more.contains(&(event, by)) {
                    self.more.push((event, by));
                }
            }
        }
    }

    fn contains_key(&self, event: &EventId) -> bool {
        self.first.contains_key(event)
    }

    fn has(&self, event: EventId, by: EventId) -> bool {
        self.first.get(&event) == Some(&by) || self.more.contains(&(event, by))
    }

    fn events(&self) -> impl Iterator<Item = EventId> + '_ {
        self.first.keys().copied()
    }
}

fn list(ids: &[EventId]) -> String {
    let parts: Vec<String> = ids.iter().map(ToString::to_string).collect();
    parts.join(", ")
}

/// Which check owns a citation in a state section (for ids the state does not cover).
fn state_owner(section: &str) -> Check {
    match section {
        "completed_work" | "files_changed" => Check::CompletedWorkPreserved,
        "decisions" | "constraints" | "blockers" => Check::DecisionsPreserved,
        "next_step" => Check::NextStepGrounded,
        "latest_user_instruction" => Check::LatestUserInstructionPreserved,
        "remember" => Check::Importance3Preserved,
        "superseded" | "resolved" => Check::NoSupersededAsCurrent,
        crate::state::USER_ASKED => Check::UserWordsPreserved,
        _ => Check::Binding,
    }
}

/// Which check owns a citation in a handover section (for ids the state does not cover).
fn handover_owner(title: &str) -> Check {
    match title {
        titles::COMPLETED_WORK | titles::FILES_CHANGED => Check::CompletedWorkPreserved,
        titles::DECISIONS | titles::CONSTRAINTS | titles::BLOCKERS => Check::DecisionsPreserved,
        titles::NEXT_STEP => Check::NextStepGrounded,
        titles::LATEST_USER_INSTRUCTION => Check::LatestUserInstructionPreserved,
        titles::MUST_REMEMBER => Check::Importance3Preserved,
        titles::SUPERSEDED => Check::NoSupersededAsCurrent,
        titles::USER_ASKED => Check::UserWordsPreserved,
        _ => Check::Binding,
    }
}

/// Binding, then the six checks. A candidate bound outside the ledger's range is checked no
/// further (nothing it cites can be placed).
pub(crate) fn check_all(
    view: &dyn LedgerView,
    prior: Option<&Prior<'_>>,
    state: &State,
    handover: &Handover,
    report: &mut Report,
) -> Result<(), Error> {
    let prior_state = prior.map(Prior::state);
    if !binding(view, prior_state, state, report)? {
        return Ok(());
    }
    report.checks_run.extend(Check::SEVEN);
    let f = Facts::gather(view, prior, state, handover)?;
    uncovered(state, handover, report);
    ungrounded(
        view,
        prior_state,
        (f.after, f.through),
        &f.bookkeeping,
        &f.state_citations,
        handover,
        report,
    )?;
    completed_work_preserved(&f, report);
    decisions_preserved(&f, report);
    next_step_grounded(&f, state, handover, report);
    latest_user_instruction_preserved(&f, state, handover, report);
    importance_3_preserved(&f, report);
    no_superseded_as_current(&f, state, handover, report);
    let links = LedgerLinks {
        supersedes: &|event, by| f.superseded.has(event, by),
        resolves: &|event, by| f.resolved.has(event, by),
    };
    user_words_preserved(
        view,
        (prior_state, f.after, f.through),
        &f.words,
        &links,
        (state, handover),
        report,
    )
}

/// The binding check: `through_seq` within the ledger and not behind the prior, `log_digest`
/// the chain hash there, the prior bound to this ledger. `false` when the range is wrong.
fn binding(
    view: &dyn LedgerView,
    prior_state: Option<&State>,
    state: &State,
    report: &mut Report,
) -> Result<bool, Error> {
    report.checks_run.push(Check::Binding);
    let head = view.head()?;
    let through = state.through_seq;
    let after = prior_state.map_or(0, |p| p.through_seq);
    let mut out_of_range = false;
    if through > head {
        out_of_range = true;
        report.fail(
            Check::Binding,
            Vec::new(),
            format!(
                "through_seq is {through} but the ledger ends at seq {head}; bind the state to \
                 an existing prefix"
            ),
        );
    }
    if through < after {
        out_of_range = true;
        report.fail(
            Check::Binding,
            Vec::new(),
            format!(
                "through_seq is {through}, behind the prior accepted state's {after}; a \
                 compaction must cover at least what the prior state covered"
            ),
        );
    }
    if out_of_range {
        return Ok(false);
    }
    let digest = view.digest_at(through)?;
    if digest.as_deref() != Some(state.log_digest.as_str()) {
        report.fail(
            Check::Binding,
            Vec::new(),
            format!(
                "log_digest is {} but the chain hash at seq {through} is {}; set log_digest to \
                 the digest of the ledger line at through_seq",
                state.log_digest,
                digest.as_deref().unwrap_or("unknown")
            ),
        );
    }
    if let Some(p) = prior_state {
        let prior_digest = view.digest_at(p.through_seq)?;
        if prior_digest.as_deref() != Some(p.log_digest.as_str()) {
            report.fail(
                Check::Binding,
                Vec::new(),
                format!(
                    "the prior state's log_digest does not match this ledger at seq {after}: \
                     pass the prior state accepted for this ledger"
                ),
            );
        }
    }
    Ok(true)
}

/// What the six checks look at: the links, requirements and turn of the tail and the prior's
/// obligations, and what the candidate cites.
struct Facts {
    after: u64,
    through: u64,
    superseded: Links,
    resolved: Links,
    infos: BTreeMap<EventId, Info>,
    last_user: Option<(EventId, String)>,
    /// Bookkeeping events of the tail: citing one grounds nothing (see `ungrounded`).
    bookkeeping: foldhash::HashMap<EventId, Kind>,
    turn: Turn,
    /// The outcomes of the turns that ended in the tail: completed work (check 1).
    outcomes: Vec<EventId>,
    state_citations: Vec<(&'static str, EventId)>,
    cited_places: foldhash::HashMap<EventId, Places>,
    handover_current: IdSet,
    prior_latest_step: Option<EventId>,
    /// The prior's completed work the candidate no longer cites as completed, sorted.
    carried_completed: Vec<EventId>,
    /// The tail's user words and what may settle one (check 7).
    words: TailWords,
}

impl Facts {
    fn gather(
        view: &dyn LedgerView,
        prior: Option<&Prior<'_>>,
        state: &State,
        handover: &Handover,
    ) -> Result<Facts, Error> {
        let prior_state = prior.map(Prior::state);
        let after = prior_state.map_or(0, |p| p.through_seq);
        let through = state.through_seq;
        let mut superseded: Links = Links::default();
        let mut resolved: Links = Links::default();
        if let Some(p) = prior_state {
            for l in &p.superseded {
                superseded.add(l.event, l.by);
            }
            for l in &p.resolved {
                resolved.add(l.event, l.by);
            }
        }
        let mut infos: BTreeMap<EventId, Info> = BTreeMap::new();
        let mut last_user: Option<(EventId, String)> = None;
        // Bookkeeping events of the tail: citing one grounds nothing (see `ungrounded`).
        let mut bookkeeping: foldhash::HashMap<EventId, Kind> = foldhash::HashMap::default();
        let mut turn = Turn::after_state(prior_state);
        // The outcomes of the turns that ended in the tail: completed work (check 1).
        let mut outcomes: Vec<EventId> = Vec::new();
        let mut words = TailWords::default();
        for event in view.events_in(after, through) {
            let event = event?;
            turn.observe(&event);
            words.observe(&event);
            if turn.end_event() == Some(event.id) && TurnEnd::of(&event) == Some(TurnEnd::Stop) {
                outcomes.push(event.id);
            }
            if event.kind.is_bookkeeping() {
                bookkeeping.insert(event.id, event.kind);
            }
            for target in &event.supersedes {
                superseded.add(*target, event.id);
            }
            for target in &event.resolves {
                resolved.add(*target, event.id);
            }
            if event.kind == Kind::UserMessage {
                last_user = Some((event.id, event.text.clone().unwrap_or_default()));
            }
            if may_be_required(event.kind, event.importance) {
                infos.insert(
                    event.id,
                    Info {
                        id: event.id,
                        kind: event.kind,
                        importance: event.importance,
                    },
                );
            }
        }
        let mut f = Facts {
            after,
            through,
            superseded,
            resolved,
            infos,
            last_user,
            bookkeeping,
            turn,
            outcomes,
            state_citations: state.current_citations(),
            cited_places: places_of(state, u64::MAX),
            handover_current: handover.current_citations().map(|(_, id)| id).collect(),
            prior_latest_step: None,
            carried_completed: Vec::new(),
            words,
        };
        if let Some(prior) = prior {
            f.carry_prior(view, prior)?;
        }
        Ok(f)
    }

    /// What older events still require (see prior.rs).
    fn carry_prior(&mut self, view: &dyn LedgerView, prior: &Prior<'_>) -> Result<(), Error> {
        let tail_has_step = self
            .infos
            .values()
            .any(|i| i.kind == Kind::NextStep && self.is_current(&i.id) && !self.turn.ended());
        let p = prior.state();
        let cites = Cites {
            state: &self.cited_places,
            handover: &self.handover_current,
        };
        let carried = carry(
            view,
            prior,
            &|id| self.is_current(id),
            &cites,
            !tail_has_step,
        )?;
        for info in carried.infos {
            self.infos.insert(info.id, info);
        }
        self.prior_latest_step = carried.latest_step;
        for item in p.completed_work.iter().chain(&p.files_changed) {
            // Only the ones the candidate no longer cites as completed can be dropped.
            let dropped: Vec<EventId> = item
                .events
                .iter()
                .copied()
                .filter(|id| id.seq() <= self.after && !self.in_completed(id))
                .collect();
            self.carried_completed.extend(dropped);
        }
        self.carried_completed.sort_unstable();
        self.carried_completed.dedup();
        if self.last_user.is_none()
            && let Some(ins) = &p.latest_user_instruction
            && let Some(event) = view.event(ins.event)?
        {
            self.last_user = Some((event.id, event.text.unwrap_or_default()));
        }
        Ok(())
    }

    fn is_superseded(&self, id: &EventId) -> bool {
        self.superseded.contains_key(id)
    }

    fn is_resolved(&self, id: &EventId) -> bool {
        self.resolved.contains_key(id)
    }

    fn is_current(&self, id: &EventId) -> bool {
        !self.is_superseded(id) && !self.is_resolved(id)
    }

    fn cited_anywhere(&self, id: &EventId) -> bool {
        self.cited_places.contains_key(id)
    }

    fn cited(&self, section: &str, id: &EventId) -> bool {
        self.cited_places
            .get(id)
            .is_some_and(|p| p & place_bit(section) != 0)
    }

    fn in_completed(&self, id: &EventId) -> bool {
        let completed = place_bit("completed_work") | place_bit("files_changed");
        self.cited_places
            .get(id)
            .is_some_and(|p| p & completed != 0)
    }
}

/// Citations of events this state does not cover (past its `through_seq`), reported under the
/// check that owns the section citing them.
fn uncovered(state: &State, handover: &Handover, report: &mut Report) {
    let through = state.through_seq;
    let state_citations = state.current_citations();
    // Keyed (check, 0 = state / 1 = handover, place) so state findings come first.
    let mut uncovered: BTreeMap<(Check, u8, String), Vec<EventId>> = BTreeMap::new();
    for (section, id) in &state_citations {
        if id.seq() > through {
            uncovered
                .entry((state_owner(section), 0, format!("state `{section}`")))
                .or_default()
                .push(*id);
        }
    }
    for (name, links) in [
        ("superseded", &state.superseded),
        ("resolved", &state.resolved),
    ] {
        for link in links {
            for id in [link.event, link.by] {
                if id.seq() > through {
                    uncovered
                        .entry((state_owner(name), 0, format!("state `{name}`")))
                        .or_default()
                        .push(id);
                }
            }
        }
    }
    for section in &handover.sections {
        for id in &section.citations {
            if id.seq() > through {
                uncovered
                    .entry((
                        handover_owner(&section.title),
                        1,
                        format!("handover `{}`", section.title),
                    ))
                    .or_default()
                    .push(*id);
            }
        }
    }
    for ((check, _, place), ids) in uncovered {
        let reason = format!(
            "{place} cites {}, past through_seq {through}: cite only events the state covers",
            list(&ids)
        );
        report.fail(check, ids, reason);
    }
}

/// Check 1: results, file changes and ended turns' outcomes are cited as completed work, and
/// what the prior cited as completed stays there.
fn completed_work_preserved(f: &Facts, report: &mut Report) {
    let missing: Vec<EventId> = f
        .infos
        .values()
        .filter(|i| matches!(i.kind, Kind::Result | Kind::FileChange))
        .map(|i| i.id)
        .filter(|id| !f.is_superseded(id) && !f.in_completed(id))
        .collect();
    if !missing.is_empty() {
        let reason = format!(
            "result/file_change events {} are not cited: cite each in `completed_work` or \
             `files_changed`",
            list(&missing)
        );
        report.fail(Check::CompletedWorkPreserved, missing.clone(), reason);
    }
    let unsaid: Vec<EventId> = f
        .outcomes
        .iter()
        .copied()
        .filter(|id| !f.is_superseded(id) && !f.in_completed(id))
        .collect();
    if !unsaid.is_empty() {
        let reason = format!(
            "the outcomes of ended turns {} (data.turn_end \"stop\") are not cited: cite each \
             in `completed_work`",
            list(&unsaid)
        );
        report.fail(Check::CompletedWorkPreserved, unsaid, reason);
    }
    let dropped: Vec<EventId> = f
        .carried_completed
        .iter()
        .filter(|id| !f.is_superseded(id) && !f.in_completed(id) && !missing.contains(id))
        .copied()
        .collect();
    if !dropped.is_empty() {
        let reason = format!(
            "the prior accepted state cited {} as completed work and nothing supersedes them: \
             keep them in `completed_work` or `files_changed`",
            list(&dropped)
        );
        report.fail(Check::CompletedWorkPreserved, dropped, reason);
    }
}

/// Check 2: current decisions, corrections, constraints and blockers are cited in their lists,
/// and every current importance-2 event somewhere.
fn decisions_preserved(f: &Facts, report: &mut Report) {
    for (kinds, section, what) in [
        (
            &[Kind::Decision, Kind::Correction][..],
            "decisions",
            "decision/correction",
        ),
        (&[Kind::Constraint][..], "constraints", "constraint"),
        (&[Kind::Blocker][..], "blockers", "unresolved blocker"),
    ] {
        let missing: Vec<EventId> = f
            .infos
            .values()
            .filter(|i| kinds.contains(&i.kind) && f.is_current(&i.id) && !f.cited(section, &i.id))
            .map(|i| i.id)
            .collect();
        if !missing.is_empty() {
            let reason = format!(
                "{what} events {} are current but not cited in `{section}`: add an item citing \
                 each",
                list(&missing)
            );
            report.fail(Check::DecisionsPreserved, missing, reason);
        }
    }
    let missing: Vec<EventId> = f
        .infos
        .values()
        .filter(|i| {
            i.importance == 2
                && !has_own_list(i.kind)
                && f.is_current(&i.id)
                && !f.cited_anywhere(&i.id)
        })
        .map(|i| i.id)
        .collect();
    if !missing.is_empty() {
        let reason = format!(
            "importance-2 events {} are current but cited nowhere in the state: cite each in \
             the section it belongs to",
            list(&missing)
        );
        report.fail(Check::DecisionsPreserved, missing, reason);
    }
}

/// Check 3: the next step cites the latest active step (none after an ended turn), nothing
/// superseded or resolved.
fn next_step_grounded(f: &Facts, state: &State, handover: &Handover, report: &mut Report) {
    // The turn policy (turn.rs): after a turn ended no step is current.
    let latest_step = f
        .infos
        .values()
        .filter(|i| i.kind == Kind::NextStep && f.is_current(&i.id))
        .map(|i| i.id)
        .chain(f.prior_latest_step)
        .max();
    match &state.next_step {
        None if f.turn.ended() => {}
        Some(step) if f.turn.ended() => {
            let end = f.turn.end_event();
            let reason = format!(
                "the last turn ended{} and no user instruction followed: no step is current; \
                 set next_step to null and keep the steps pending before the end as open loops",
                end.map(|e| format!(" at {e}")).unwrap_or_default()
            );
            report.fail(Check::NextStepGrounded, step.events.clone(), reason);
        }
        None => {
            let reason = match latest_step {
                Some(step) => {
                    format!(
                        "next_step is missing: set it, citing the latest active next_step {step}"
                    )
                }
                None => "next_step is missing: set it, citing at least one current event \
                         (e.g. the latest user instruction)"
                    .to_owned(),
            };
            report.fail(
                Check::NextStepGrounded,
                latest_step.into_iter().collect(),
                reason,
            );
        }
        Some(step) => {
            if step.events.is_empty() {
                report.fail(
                    Check::NextStepGrounded,
                    Vec::new(),
                    "next_step cites no event: cite the events it rests on".to_owned(),
                );
            }
            let stale: Vec<EventId> = step
                .events
                .iter()
                .copied()
                .filter(|id| f.is_superseded(id))
                .collect();
            if !stale.is_empty() {
                let reason = format!(
                    "next_step cites superseded {}: ground it on what superseded them instead",
                    list(&stale)
                );
                report.fail(Check::NextStepGrounded, stale, reason);
            }
            let done: Vec<EventId> = step
                .events
                .iter()
                .copied()
                .filter(|id| f.is_resolved(id) && !f.is_superseded(id))
                .collect();
            if !done.is_empty() {
                let reason = format!(
                    "next_step cites {}, already resolved: move on to the latest active step",
                    list(&done)
                );
                report.fail(Check::NextStepGrounded, done, reason);
            }
            if let Some(latest) = latest_step
                && !step.events.contains(&latest)
            {
                report.fail(
                    Check::NextStepGrounded,
                    vec![latest],
                    format!("next_step must cite {latest}, the latest active next_step event"),
                );
            }
        }
    }
    if let Some(section) = handover.section(titles::NEXT_STEP) {
        let bad: Vec<EventId> = section
            .citations
            .iter()
            .copied()
            .filter(|id| !f.is_current(id))
            .collect();
        if !bad.is_empty() {
            let reason = format!(
                "the handover's `{}` section cites superseded or resolved {}: cite the current \
                 step",
                titles::NEXT_STEP,
                list(&bad)
            );
            report.fail(Check::NextStepGrounded, bad, reason);
        }
    }
}

/// Check 4: the latest user instruction is named and copied byte for byte, in the state and in
/// the handover.
fn latest_user_instruction_preserved(
    f: &Facts,
    state: &State,
    handover: &Handover,
    report: &mut Report,
) {
    let instruction_section = handover.section(titles::LATEST_USER_INSTRUCTION);
    match (&f.last_user, &state.latest_user_instruction) {
        (None, None) => {}
        (None, Some(ins)) => report.fail(
            Check::LatestUserInstructionPreserved,
            vec![ins.event],
            format!(
                "latest_user_instruction names {} but there is no user_message up to \
                 through_seq: set it to null",
                ins.event
            ),
        ),
        (Some((id, _)), None) => report.fail(
            Check::LatestUserInstructionPreserved,
            vec![*id],
            format!("latest_user_instruction is null: set it to {id} and its text byte for byte"),
        ),
        (Some((id, text)), Some(ins)) => {
            if ins.event != *id {
                report.fail(
                    Check::LatestUserInstructionPreserved,
                    vec![*id, ins.event],
                    format!(
                        "latest_user_instruction names {} but the last user_message up to \
                         through_seq is {id}: name {id} and copy its text",
                        ins.event
                    ),
                );
            } else if ins.text != *text {
                let at = ins
                    .text
                    .bytes()
                    .zip(text.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                report.fail(
                    Check::LatestUserInstructionPreserved,
                    vec![*id],
                    format!(
                        "latest_user_instruction's text differs from {id}'s from byte {at}: copy \
                         the event's text byte for byte, never paraphrase"
                    ),
                );
            }
        }
    }
    if let Some((id, text)) = &f.last_user {
        match instruction_section {
            None => report.fail(
                Check::LatestUserInstructionPreserved,
                vec![*id],
                format!(
                    "the handover has no `{}` section: add it with the line [{id}] and the text \
                     verbatim",
                    titles::LATEST_USER_INSTRUCTION
                ),
            ),
            Some(section) => {
                if !section.citations.contains(id) {
                    report.fail(
                        Check::LatestUserInstructionPreserved,
                        vec![*id],
                        format!(
                            "the handover's `{}` section does not cite [{id}] on its first line",
                            titles::LATEST_USER_INSTRUCTION
                        ),
                    );
                }
                if !section.body.contains(text.as_str()) {
                    report.fail(
                        Check::LatestUserInstructionPreserved,
                        vec![*id],
                        format!(
                            "the handover's `{}` section does not carry {id}'s text verbatim: \
                             copy it byte for byte (fence it if a line starts with `#`)",
                            titles::LATEST_USER_INSTRUCTION
                        ),
                    );
                }
            }
        }
    }
}

/// Check 5: every current importance-3 event is cited in the state and in a current handover
/// section.
fn importance_3_preserved(f: &Facts, report: &mut Report) {
    let vital: Vec<EventId> = f
        .infos
        .values()
        .filter(|i| i.importance >= 3 && f.is_current(&i.id))
        .map(|i| i.id)
        .collect();
    let not_in_state: Vec<EventId> = vital
        .iter()
        .copied()
        .filter(|id| !f.cited_anywhere(id))
        .collect();
    if !not_in_state.is_empty() {
        let reason = format!(
            "importance-3 events {} are current but cited nowhere in the state: cite each in \
             `remember` or the section it belongs to",
            list(&not_in_state)
        );
        report.fail(Check::Importance3Preserved, not_in_state, reason);
    }
    let not_in_handover: Vec<EventId> = vital
        .iter()
        .copied()
        .filter(|id| !f.handover_current.contains(id))
        .collect();
    if !not_in_handover.is_empty() {
        let reason = format!(
            "importance-3 events {} are not cited in a current handover section: write each \
             with its [eN] citation, e.g. under `{}`",
            list(&not_in_handover),
            titles::MUST_REMEMBER
        );
        report.fail(Check::Importance3Preserved, not_in_handover, reason);
    }
}

/// Check 6: nothing superseded or resolved is presented as current, and the `superseded` and
/// `resolved` lists say exactly what the ledger records.
fn no_superseded_as_current(f: &Facts, state: &State, handover: &Handover, report: &mut Report) {
    type Stale = (BTreeSet<EventId>, BTreeSet<EventId>);
    // Keyed (0 = state / 1 = handover, section): state findings first.
    let mut as_current: BTreeMap<(u8, &str), Stale> = BTreeMap::new();
    for (section, id) in &f.state_citations {
        if matches!(*section, "next_step" | "latest_user_instruction") {
            continue; // owned by checks 3 and 4
        }
        let history_ok = matches!(*section, "completed_work" | "files_changed");
        if f.is_superseded(id) {
            as_current.entry((0, section)).or_default().0.insert(*id);
        } else if f.is_resolved(id) && !history_ok {
            as_current.entry((0, section)).or_default().1.insert(*id);
        }
    }
    for (title, id) in handover.current_citations() {
        if title == titles::NEXT_STEP || title == titles::LATEST_USER_INSTRUCTION {
            continue; // owned by checks 3 and 4
        }
        let history_ok = title == titles::COMPLETED_WORK || title == titles::FILES_CHANGED;
        if f.is_superseded(&id) {
            as_current.entry((1, title)).or_default().0.insert(id);
        } else if f.is_resolved(&id) && !history_ok {
            as_current.entry((1, title)).or_default().1.insert(id);
        }
    }
    for ((side, section), (stale, done)) in as_current {
        let place = match side {
            0 => format!("state `{section}`"),
            _ => format!("handover `{section}`"),
        };
        if !stale.is_empty() {
            let ids: Vec<EventId> = stale.into_iter().collect();
            let reason = format!(
                "{place} presents superseded {} as current: drop them there (list them under \
                 superseded) and cite what superseded them",
                list(&ids)
            );
            report.fail(Check::NoSupersededAsCurrent, ids, reason);
        }
        if !done.is_empty() {
            let ids: Vec<EventId> = done.into_iter().collect();
            let reason = format!(
                "{place} presents resolved {} as current: move them to history (resolved)",
                list(&ids)
            );
            report.fail(Check::NoSupersededAsCurrent, ids, reason);
        }
    }
    for (name, truth, listed) in [
        ("superseded", &f.superseded, &state.superseded),
        ("resolved", &f.resolved, &state.resolved),
    ] {
        let listed_events: IdSet = listed.iter().map(|l| l.event).collect();
        let mut unlisted: Vec<EventId> = truth
            .events()
            .filter(|id| id.seq() <= f.through && !listed_events.contains(id))
            .collect();
        unlisted.sort_unstable();
        if !unlisted.is_empty() {
            let reason = format!(
                "`{name}` does not list {}: add an {{event, by}} link for each",
                list(&unlisted)
            );
            report.fail(Check::NoSupersededAsCurrent, unlisted, reason);
        }
        let bogus: Vec<EventId> = listed
            .iter()
            .filter(|l| l.event.seq() <= f.through && l.by.seq() <= f.through)
            .filter(|l| !truth.has(l.event, l.by))
            .flat_map(|l| [l.event, l.by])
            .collect();
        if !bogus.is_empty() {
            let reason = format!(
                "`{name}` holds links the ledger does not record ({}): keep only links where \
                 `by` lists `event` in its `{}`",
                list(&bogus),
                if name == "superseded" {
                    "supersedes"
                } else {
                    "resolves"
                }
            );
            report.fail(Check::NoSupersededAsCurrent, bogus, reason);
        }
    }
}

/// Every cited event must be a fact a claim can rest on: a message, a tool result, a
/// decision… never a bookkeeping event (`compaction`, `validation`, `recovery`, `monitor`),
/// which only says what Remaind did. This is what makes an item an LLM extracted from prose
/// checkable: it cites the message it came from, the message exists and (check 6) is
/// current. Tail events are known from the walk; an older event is read only when the prior
/// state did not already cite it (the prior was judged the same way).
fn ungrounded(
    view: &dyn LedgerView,
    prior: Option<&State>,
    (after, through): (u64, u64),
    tail_bookkeeping: &foldhash::HashMap<EventId, Kind>,
    state_citations: &[(&'static str, EventId)],
    handover: &Handover,
    report: &mut Report,
) -> Result<(), Error> {
    let prior_cited: IdSet = prior
        .map(|p| {
            p.current_citations()
                .into_iter()
                .map(|(_, id)| id)
                .collect()
        })
        .unwrap_or_default();
    let mut older: foldhash::HashMap<EventId, Option<Kind>> = foldhash::HashMap::default();
    let mut kind_of = |id: EventId| -> Result<Option<Kind>, Error> {
        if id.seq() > through {
            return Ok(None); // reported as not covered
        }
        if id.seq() > after {
            return Ok(tail_bookkeeping.get(&id).copied());
        }
        if prior_cited.contains(&id) {
            return Ok(None);
        }
        if let Some(kind) = older.get(&id) {
            return Ok(*kind);
        }
        let kind = view
            .event(id)?
            .map(|e| e.kind)
            .filter(|k| k.is_bookkeeping());
        older.insert(id, kind);
        Ok(kind)
    };
    // Keyed (check, 0 = state / 1 = handover, place) so state findings come first.
    let mut found: BTreeMap<(Check, u8, String), BTreeMap<EventId, Kind>> = BTreeMap::new();
    // The next step and the latest instruction are owned by checks 3 and 4, which say what
    // they may cite (a step may rest on whatever the ledger last holds when it has no user
    // message at all).
    let owned = |section: &str| matches!(section, "next_step" | "latest_user_instruction");
    for (section, id) in state_citations {
        if owned(section) {
            continue;
        }
        if let Some(kind) = kind_of(*id)? {
            found
                .entry((state_owner(section), 0, format!("state `{section}`")))
                .or_default()
                .insert(*id, kind);
        }
    }
    for (title, id) in handover.current_citations() {
        if title == titles::NEXT_STEP || title == titles::LATEST_USER_INSTRUCTION {
            continue;
        }
        if let Some(kind) = kind_of(id)? {
            found
                .entry((handover_owner(title), 1, format!("handover `{title}`")))
                .or_default()
                .insert(id, kind);
        }
    }
    for ((check, _, place), cited) in found {
        let what: Vec<String> = cited
            .iter()
            .map(|(id, kind)| format!("{id} (a `{kind}` event)"))
            .collect();
        let reason = format!(
            "{place} cites {}: bookkeeping grounds no claim; cite the message, tool result or \
             other event the item comes from",
            what.join(", ")
        );
        report.fail(check, cited.into_keys().collect(), reason);
    }
    Ok(())
}
