//! The user's turn, and the one next-step policy built on it (docs/contract.md, turns).
//!
//! A turn opens with a `user_message` (a user instruction) and ends with an event whose
//! `data.turn_end` is `"stop"` (the runtime's Stop: the agent handed control back, its last
//! message is the turn's outcome) or `"interrupted"` (the user stopped it). The compactor,
//! the validator's check 3 and the resume packet and gate all ask this module where the turn
//! stands, so they can never disagree:
//!
//! - **turn in progress** ([`Turn::ended`] is false): the next step is the newest active
//!   step (one logged since the instruction, else an older one still active); else "continue
//!   with the latest instruction";
//! - **turn ended**: no step is current. Steps from before the end are open loops ("pending
//!   before the turn ended; may already be done"), the state's `next_step` is null and the
//!   gate interrupts with `no_next_step`, telling the agent to wait for the user;
//! - a later `user_message` opens a new turn and the policy starts again: an older step still
//!   active may be current again (its open loop says it may already be done).
//!
//! ```
//! use remaind_events::{Event, EventId, Kind};
//! use remaind_validate::Turn;
//!
//! let event = |seq: u64, kind: Kind, data: serde_json::Value| -> Event {
//!     serde_json::from_value(serde_json::json!({
//!         "v": 1, "seq": seq, "id": format!("e{seq}"), "ts": "2026-11-26T10:00:00Z",
//!         "prev": "0", "kind": kind.as_str(), "importance": 1, "data": data,
//!     }))
//!     .unwrap()
//! };
//! let mut turn = Turn::after_state(None);
//! turn.observe(&event(1, Kind::UserMessage, serde_json::json!({})));
//! turn.observe(&event(2, Kind::NextStep, serde_json::json!({})));
//! assert!(!turn.ended());
//! turn.observe(&event(3, Kind::AssistantMessage, serde_json::json!({"turn_end": "stop"})));
//! assert!(turn.ended());
//! assert_eq!(turn.end_event(), Some(EventId(3)));
//! turn.observe(&event(4, Kind::UserMessage, serde_json::json!({})));
//! assert!(!turn.ended());
//! ```

use remaind_events::{Event, EventId, Kind};

use crate::state::State;

/// How a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnEnd {
    /// The runtime's Stop: the agent finished and handed control back.
    Stop,
    /// The user interrupted the agent.
    Interrupted,
}

impl TurnEnd {
    /// The `data.turn_end` value.
    pub fn as_str(self) -> &'static str {
        match self {
            TurnEnd::Stop => "stop",
            TurnEnd::Interrupted => "interrupted",
        }
    }

    /// How `ev` ends a turn, when its `data.turn_end` says it does.
    pub fn of(ev: &Event) -> Option<TurnEnd> {
        match ev.data.as_ref()?.get("turn_end")?.as_str()? {
            "stop" => Some(TurnEnd::Stop),
            "interrupted" => Some(TurnEnd::Interrupted),
            _ => None,
        }
    }
}

/// Where the user's latest turn stands, folded from the events in ledger order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Turn {
    /// The latest user instruction (the event that opened the turn).
    instruction: Option<EventId>,
    /// Set when the turn ended: the ending event (when it was observed, not only implied by
    /// a prior state) and how it ended.
    ended: Option<(Option<EventId>, TurnEnd)>,
}

impl Turn {
    /// The turn as an accepted state leaves it: a state with a latest instruction and no
    /// next step records an ended turn (check 3 accepts a null `next_step` only then).
    pub fn after_state(state: Option<&State>) -> Turn {
        let Some(state) = state else {
            return Turn::default();
        };
        let instruction = state.latest_user_instruction.as_ref().map(|i| i.event);
        let ended = instruction.is_some() && state.next_step.is_none();
        Turn {
            instruction,
            ended: ended.then_some((None, TurnEnd::Stop)),
        }
    }

    /// Fold the next event (in ledger order) into the turn.
    pub fn observe(&mut self, ev: &Event) {
        if ev.kind == Kind::UserMessage {
            self.instruction = Some(ev.id);
            self.ended = None;
            return;
        }
        // An end before any instruction closes no turn.
        if let Some(how) = TurnEnd::of(ev).filter(|_| self.instruction.is_some()) {
            self.ended = Some((Some(ev.id), how));
        }
    }

    /// The latest user instruction.
    pub fn instruction(&self) -> Option<EventId> {
        self.instruction
    }

    /// True when the latest turn ended (or was interrupted) and no instruction followed.
    pub fn ended(&self) -> bool {
        self.ended.is_some()
    }

    /// How the latest turn ended, if it did.
    pub fn how_ended(&self) -> Option<TurnEnd> {
        self.ended.map(|(_, how)| how)
    }

    /// The event that ended the latest turn, when it was observed (a turn ended before a
    /// prior state's `through_seq` is known to have ended, not by which event).
    pub fn end_event(&self) -> Option<EventId> {
        self.ended.and_then(|(id, _)| id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{Instruction, NextStep};

    fn ev(seq: u64, kind: Kind, turn_end: Option<&str>) -> Event {
        let data = turn_end.map(|t| serde_json::json!({ "turn_end": t }));
        serde_json::from_value(serde_json::json!({
            "v": 1, "seq": seq, "id": format!("e{seq}"), "ts": "2026-11-26T10:00:00Z",
            "prev": "0", "kind": kind.as_str(), "importance": 1, "data": data,
        }))
        .unwrap()
    }

    #[test]
    fn an_end_leaves_no_step_current_until_the_next_instruction() {
        let mut t = Turn::default();
        for e in [
            ev(1, Kind::UserMessage, None),
            ev(2, Kind::NextStep, None),
            ev(3, Kind::AssistantMessage, Some("interrupted")),
            ev(4, Kind::NextStep, None),
        ] {
            t.observe(&e);
        }
        assert_eq!(t.how_ended(), Some(TurnEnd::Interrupted));
        t.observe(&ev(5, Kind::UserMessage, None));
        assert!(!t.ended());
        assert_eq!(t.instruction(), Some(EventId(5)));
        // An unknown value is no end.
        t.observe(&ev(7, Kind::AssistantMessage, Some("paused")));
        assert!(!t.ended());
    }

    #[test]
    fn a_state_without_a_next_step_records_an_ended_turn() {
        let mut s: State = serde_json::from_value(serde_json::json!({
            "v": 1, "through_seq": 9, "log_digest": "x", "generated_at": "t", "compactor": "c",
            "goal": [], "completed_work": [], "decisions": [], "constraints": [],
            "blockers": [], "remember": [], "files_changed": [], "open_loops": [],
            "superseded": [], "latest_user_instruction": null, "next_step": null
        }))
        .unwrap();
        assert!(!Turn::after_state(Some(&s)).ended());
        s.latest_user_instruction = Some(Instruction {
            event: EventId(2),
            text: "go".into(),
        });
        let t = Turn::after_state(Some(&s));
        assert!(t.ended() && t.end_event().is_none());
        s.next_step = Some(NextStep {
            text: "x".into(),
            events: vec![EventId(2)],
            tool: None,
        });
        assert!(!Turn::after_state(Some(&s)).ended());
    }
}
