//! The resume gate (docs/contract.md, the gate): every mechanical reason not to go on silently.
//!
//! The gate never guesses. It reports, all at once:
//!
//! - **conflicts** between the ledger, the state and the handover: an unreadable state, a
//!   `log_digest` that is not the ledger's chain hash at `through_seq`, a `through_seq` past
//!   the head, a handover whose binding line names another state (or none), a state or
//!   handover citing events that do not exist;
//! - **no next step**: neither the state nor an active `next_step` event after it;
//! - **the latest user instruction not in the packet** (or not in the ledger at all);
//! - **low confidence with a risky next tool**: the [`Confidence`] score is below
//!   [`LOW_CONFIDENCE`] and the next planned tool is flagged `mutates`, `spends_money` or
//!   `external_side_effect` in `tools.yaml`.
//!
//! The confidence score is documented in `docs/resume-gate.md`.

use remaind_events::EventId;
use serde::{Deserialize, Serialize};

/// Below this score, resume confidence is low.
pub(crate) const LOW_CONFIDENCE: f64 = 0.5;

/// Why the gate interrupts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonCode {
    /// `state.json` is not a valid state.
    StateUnreadable,
    /// `through_seq` is past the ledger head.
    ThroughSeqPastHead,
    /// `log_digest` is not the chain hash at `through_seq`.
    DigestMismatch,
    /// `handover.md` is missing, unbound, or bound to another state.
    HandoverBinding,
    /// The state or the handover cites events that do not exist.
    MissingCitation,
    /// The state or the handover is not the pair a `compaction` event recorded (by SHA-256)
    /// when it was accepted: it was forged or edited.
    NotRecorded,
    /// No next step in the state and no active `next_step` event after it.
    NoNextStep,
    /// The latest user instruction is not in the packet.
    InstructionNotInPacket,
    /// Confidence is low and the next planned tool is risky.
    LowConfidenceRiskyTool,
}

impl ReasonCode {
    /// True for the ledger/state/handover conflicts.
    pub(crate) fn is_conflict(self) -> bool {
        matches!(
            self,
            ReasonCode::StateUnreadable
                | ReasonCode::ThroughSeqPastHead
                | ReasonCode::DigestMismatch
                | ReasonCode::HandoverBinding
                | ReasonCode::MissingCitation
                | ReasonCode::NotRecorded
        )
    }

    /// The wire name, e.g. `digest_mismatch` (what `Display` writes).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ReasonCode::StateUnreadable => "state_unreadable",
            ReasonCode::ThroughSeqPastHead => "through_seq_past_head",
            ReasonCode::DigestMismatch => "digest_mismatch",
            ReasonCode::HandoverBinding => "handover_binding",
            ReasonCode::MissingCitation => "missing_citation",
            ReasonCode::NotRecorded => "not_recorded",
            ReasonCode::NoNextStep => "no_next_step",
            ReasonCode::InstructionNotInPacket => "instruction_not_in_packet",
            ReasonCode::LowConfidenceRiskyTool => "low_confidence_risky_tool",
        }
    }
}

impl std::fmt::Display for ReasonCode {
    /// The wire name, e.g. `digest_mismatch`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One reason to interrupt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reason {
    /// What kind of problem.
    pub code: ReasonCode,
    /// One line saying what is wrong and what to do.
    pub message: String,
    /// The events at fault, if any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventId>,
}

/// One term of the confidence score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Penalty {
    /// The factor, e.g. `uncompacted_tail`.
    pub factor: String,
    /// How much it subtracts from 1.0.
    pub penalty: f64,
    /// The measured quantity, in words.
    pub detail: String,
}

/// The mechanical resume-confidence score: 1.0 minus the listed penalties, floored at 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Confidence {
    /// The score, in `[0, 1]`.
    pub score: f64,
    /// True when `score < LOW_CONFIDENCE`.
    pub low: bool,
    /// Every non-zero penalty.
    pub penalties: Vec<Penalty>,
}

/// What the confidence score is computed from.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct ConfidenceInputs {
    /// An accepted state exists and is readable.
    pub has_state: bool,
    /// Tokens of every event after `through_seq`, as rendered in the packet.
    pub tail_tokens: u64,
    /// The context window.
    pub window: u64,
    /// `validation` events (rejected compactions) since the last `compaction` event.
    pub rejected_compactions: u64,
    /// Events after `through_seq` left out of the packet for the budget.
    pub dropped_events: u64,
    /// Any ledger/state/handover conflict.
    pub conflict: bool,
}

impl Confidence {
    /// Computes the score (see `docs/resume-gate.md`):
    ///
    /// ```text
    /// score = max(0, 1 − 0.3·[no state] − min(0.3, tail_tokens / window)
    ///               − 0.2·min(3, rejected_compactions) − 0.2·[events dropped for budget]
    ///               − 0.6·[conflict])
    /// low   = score < 0.5
    /// ```
    pub(crate) fn compute(inputs: &ConfidenceInputs) -> Confidence {
        let mut penalties = Vec::new();
        let mut add = |factor: &str, penalty: f64, detail: String| {
            if penalty > 0.0 {
                penalties.push(Penalty {
                    factor: factor.to_owned(),
                    penalty: round3(penalty),
                    detail,
                });
            }
        };
        if !inputs.has_state {
            add("no_state", 0.3, "no accepted state.json".to_owned());
        }
        let ratio = if inputs.window == 0 {
            1.0
        } else {
            inputs.tail_tokens as f64 / inputs.window as f64
        };
        add(
            "uncompacted_tail",
            ratio.min(0.3),
            format!(
                "{} tokens after the state, of a {}-token window",
                inputs.tail_tokens, inputs.window
            ),
        );
        add(
            "rejected_compactions",
            0.2 * inputs.rejected_compactions.min(3) as f64,
            format!(
                "{} rejected compaction(s) since the last accepted one",
                inputs.rejected_compactions
            ),
        );
        if inputs.dropped_events > 0 {
            add(
                "budget_dropped_events",
                0.2,
                format!(
                    "{} event(s) after the state left out of the packet for the budget",
                    inputs.dropped_events
                ),
            );
        }
        if inputs.conflict {
            add(
                "conflict",
                0.6,
                "the ledger, state and handover conflict".to_owned(),
            );
        }
        let total: f64 = penalties.iter().map(|p| p.penalty).sum();
        let score = round3((1.0 - total).max(0.0));
        Confidence {
            score,
            low: score < LOW_CONFIDENCE,
            penalties,
        }
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The gate's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gate {
    /// True when the agent may go on silently (no reasons).
    pub proceed: bool,
    /// The confidence score.
    pub confidence: Confidence,
    /// The next planned tool and its flags, if a tool is planned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_tool: Option<NextTool>,
    /// Every reason to interrupt, in [`ReasonCode`] order.
    pub reasons: Vec<Reason>,
}

/// The next planned tool and its risk flags from `tools.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NextTool {
    /// The tool's name.
    pub name: String,
    /// The flags set for it (`mutates`, `spends_money`, `external_side_effect`).
    pub flags: Vec<String>,
}

impl Gate {
    /// Assembles the verdict from the reasons found, adding the low-confidence reason when
    /// the score is low and the next tool is risky.
    pub(crate) fn decide(
        mut reasons: Vec<Reason>,
        confidence: Confidence,
        next_tool: Option<NextTool>,
    ) -> Gate {
        if let Some(tool) = next_tool
            .as_ref()
            .filter(|t| confidence.low && !t.flags.is_empty())
        {
            reasons.push(Reason {
                code: ReasonCode::LowConfidenceRiskyTool,
                message: format!(
                    "resume confidence is {:.3} (below {LOW_CONFIDENCE}) and the next planned tool `{}` is flagged {} in tools.yaml; confirm before running it",
                    confidence.score,
                    tool.name,
                    tool.flags.join(", ")
                ),
                events: Vec::new(),
            });
        }
        reasons.sort_by_key(|r| r.code);
        Gate {
            proceed: reasons.is_empty(),
            confidence,
            next_tool,
            reasons,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_state_scores_one() {
        let c = Confidence::compute(&ConfidenceInputs {
            has_state: true,
            window: 200_000,
            ..Default::default()
        });
        assert_eq!(c.score, 1.0);
        assert!(!c.low);
        assert!(c.penalties.is_empty());
    }

    #[test]
    fn penalties_add_up_and_floor_at_zero() {
        let c = Confidence::compute(&ConfidenceInputs {
            has_state: true,
            tail_tokens: 20_000,
            window: 200_000,
            rejected_compactions: 2,
            ..Default::default()
        });
        assert_eq!(c.score, 0.5);
        assert!(!c.low);
        let c = Confidence::compute(&ConfidenceInputs {
            has_state: false,
            tail_tokens: 200_000,
            window: 200_000,
            rejected_compactions: 9,
            dropped_events: 3,
            conflict: true,
        });
        assert_eq!(c.score, 0.0);
        assert!(c.low);
        assert_eq!(c.penalties.len(), 5);
    }

    #[test]
    fn risky_tool_only_interrupts_when_low() {
        let tool = Some(NextTool {
            name: "git_push".into(),
            flags: vec!["mutates".into()],
        });
        let high = Confidence::compute(&ConfidenceInputs {
            has_state: true,
            window: 10,
            ..Default::default()
        });
        assert!(Gate::decide(vec![], high, tool.clone()).proceed);
        let low = Confidence::compute(&ConfidenceInputs {
            has_state: true,
            window: 10,
            rejected_compactions: 3,
            ..Default::default()
        });
        let g = Gate::decide(vec![], low.clone(), tool);
        assert!(!g.proceed);
        assert_eq!(g.reasons[0].code, ReasonCode::LowConfidenceRiskyTool);
        let safe = Some(NextTool {
            name: "grep".into(),
            flags: vec![],
        });
        assert!(Gate::decide(vec![], low, safe).proceed);
    }
}
