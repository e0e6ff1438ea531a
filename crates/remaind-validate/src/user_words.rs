//! Check 7, `user_words_preserved`: nothing the user said leaves the state silently.
//!
//! Every user word a compaction covers (a `user_message`, or a `decision` whose actor is the
//! user, such as a question's answer) is either carried in `user_asked` (still in force) or
//! listed in `user_settled` with the later event that superseded or fulfilled it; an item the
//! prior state carried stays carried unless settled the same way; and a settlement names an
//! event that comes later and can settle it (a later user word, a turn's outcome or `result`,
//! or an event the ledger records as superseding or resolving it).

use remaind_events::{Error, Event, EventId, Kind, LedgerView};

use crate::handover::{Handover, titles};
use crate::prior::IdSet;
use crate::state::{Settled, Settlement, State};
use crate::turn::TurnEnd;
use crate::validate::Report;
use crate::verdict::Check;

/// Whether an event is something the user said that a compaction must account for.
pub fn is_user_word(event: &Event) -> bool {
    event.kind == Kind::UserMessage
        || (event.kind == Kind::Decision && event.actor.as_deref() == Some("user"))
}

/// What a tail event can settle a user word as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Settler {
    /// A later user word: it may supersede an earlier one.
    UserWord,
    /// A turn's outcome (Stop) or a `result`: it may fulfil an earlier request.
    Outcome,
}

impl Settler {
    fn of(event: &Event) -> Option<Settler> {
        if is_user_word(event) {
            Some(Settler::UserWord)
        } else if event.kind == Kind::Result || TurnEnd::of(event) == Some(TurnEnd::Stop) {
            Some(Settler::Outcome)
        } else {
            None
        }
    }

    fn can(self, how: Settlement) -> bool {
        matches!(
            (self, how),
            (Settler::UserWord, Settlement::Superseded) | (Settler::Outcome, Settlement::Fulfilled)
        )
    }
}

/// The user words of the tail and the tail events that may settle one, gathered in the walk.
#[derive(Default)]
pub(crate) struct TailWords {
    /// The tail's user words, in order, each with the start of its text (for the reason).
    words: Vec<(EventId, String)>,
    settlers: foldhash::HashMap<EventId, Settler>,
}

impl TailWords {
    pub(crate) fn observe(&mut self, event: &Event) {
        if let Some(settler) = Settler::of(event) {
            self.settlers.insert(event.id, settler);
        }
        if is_user_word(event) {
            let text = event.text.as_deref().unwrap_or_default();
            self.words.push((event.id, snippet(text)));
        }
    }
}

/// The first words of a message, for a rejection a model can act on.
fn snippet(text: &str) -> String {
    const CHARS: usize = 60;
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(CHARS) {
        Some((at, _)) => format!("{}…", &flat[..at]),
        None => flat,
    }
}

/// The ledger's own links, which also settle a user word.
pub(crate) struct LedgerLinks<'a> {
    pub(crate) supersedes: &'a dyn Fn(EventId, EventId) -> bool,
    pub(crate) resolves: &'a dyn Fn(EventId, EventId) -> bool,
}

/// Check 7 (see the module documentation).
pub(crate) fn user_words_preserved(
    view: &dyn LedgerView,
    (prior, after, through): (Option<&State>, u64, u64),
    tail: &TailWords,
    links: &LedgerLinks<'_>,
    (state, handover): (&State, &Handover),
    report: &mut Report,
) -> Result<(), Error> {
    let asked: IdSet = state
        .user_asked
        .iter()
        .flat_map(|a| a.events.iter().copied())
        .collect();
    let settled: foldhash::HashMap<EventId, &Settled> =
        state.user_settled.iter().map(|s| (s.event, s)).collect();
    let accounted = |id: &EventId| asked.contains(id) || settled.contains_key(id);

    let mut both: Vec<EventId> = settled
        .keys()
        .copied()
        .filter(|id| asked.contains(id))
        .collect();
    both.sort_unstable();
    if !both.is_empty() {
        let reason = format!(
            "user messages {} are both in force (`user_asked`) and settled (`user_settled`): \
             keep each in one of the two",
            list(&both)
        );
        report.fail(Check::UserWordsPreserved, both, reason);
    }
    let unaccounted: Vec<&(EventId, String)> =
        tail.words.iter().filter(|(id, _)| !accounted(id)).collect();
    if !unaccounted.is_empty() {
        let quoted: Vec<String> = unaccounted
            .iter()
            .map(|(id, text)| format!("{id} \"{text}\""))
            .collect();
        let reason = format!(
            "the user said {} and the state drops it: carry each in `user_asked` (verbatim \
             when short), or list it in `user_settled` with the later message that superseded \
             it or the turn outcome that fulfilled it",
            quoted.join(", ")
        );
        report.fail(
            Check::UserWordsPreserved,
            unaccounted.iter().map(|(id, _)| *id).collect(),
            reason,
        );
    }
    if let Some(prior) = prior {
        let mut dropped: Vec<EventId> = prior
            .user_asked
            .iter()
            .flat_map(|a| a.events.iter().copied())
            .filter(|id| id.seq() <= after && !accounted(id))
            .collect();
        dropped.sort_unstable();
        dropped.dedup();
        if !dropped.is_empty() {
            let reason = format!(
                "the prior accepted state carried the user's {} as in force and this state \
                 drops them: keep them in `user_asked`, or settle each in `user_settled` citing \
                 what superseded or fulfilled it",
                list(&dropped)
            );
            report.fail(Check::UserWordsPreserved, dropped, reason);
        }
    }
    let prior_settled: Vec<&Settled> = prior
        .map(|p| p.user_settled.iter().collect())
        .unwrap_or_default();
    for s in &state.user_settled {
        if prior_settled.contains(&s) {
            continue; // judged when it was accepted
        }
        if let Some(reason) = bad_settlement(view, s, tail, links, through)? {
            report.fail(Check::UserWordsPreserved, vec![s.event, s.by], reason);
        }
    }
    if let Some(section) = handover.section(titles::USER_ASKED) {
        let stale: Vec<EventId> = section
            .citations
            .iter()
            .copied()
            .filter(|id| settled.contains_key(id))
            .collect();
        if !stale.is_empty() {
            let reason = format!(
                "the handover's `{}` section presents {} as in force, which the state settles: \
                 leave settled messages out of it",
                titles::USER_ASKED,
                list(&stale)
            );
            report.fail(Check::UserWordsPreserved, stale, reason);
        }
    }
    Ok(())
}

/// Why a new settlement is wrong, if it is.
fn bad_settlement(
    view: &dyn LedgerView,
    s: &Settled,
    tail: &TailWords,
    links: &LedgerLinks<'_>,
    through: u64,
) -> Result<Option<String>, Error> {
    let (event, by) = (s.event, s.by);
    let how = s.how.as_str();
    if by.seq() > through || event.seq() > through {
        return Ok(Some(format!(
            "`user_settled` marks {event} {how} by {by}, past through_seq {through}: cite only \
             events the state covers"
        )));
    }
    if by.seq() <= event.seq() {
        return Ok(Some(format!(
            "`user_settled` marks {event} {how} by {by}, which does not come later: only a later \
             message supersedes what the user said, and only a later outcome fulfils it; keep \
             {event} in `user_asked`"
        )));
    }
    let by_ledger = match s.how {
        Settlement::Superseded => (links.supersedes)(event, by),
        Settlement::Fulfilled => (links.resolves)(event, by),
    };
    if by_ledger {
        return Ok(None);
    }
    let settler = match tail.settlers.get(&by) {
        Some(settler) => Some(*settler),
        None => view.event(by)?.as_ref().and_then(Settler::of),
    };
    if settler.is_some_and(|k| k.can(s.how)) {
        return Ok(None);
    }
    let needs = match s.how {
        Settlement::Superseded => "a later user message (or an event whose `supersedes` lists it)",
        Settlement::Fulfilled => {
            "a later turn's outcome or `result` (or an event whose `resolves` lists it)"
        }
    };
    Ok(Some(format!(
        "`user_settled` marks {event} {how} by {by}, which cannot settle it: cite {needs}, or \
         keep {event} in `user_asked`"
    )))
}

fn list(ids: &[EventId]) -> String {
    let parts: Vec<String> = ids.iter().map(ToString::to_string).collect();
    parts.join(", ")
}
