//! The validator's verdict: findings are data, every failed check listed.

use remaind_events::EventId;
use serde::{Deserialize, Serialize};

/// A check the validator runs. The first two are structural; the rest are docs/contract.md's
/// seven.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// The candidate state matches `state.schema.json` and the handover parses.
    Schema,
    /// `through_seq` within the ledger and not behind the prior state; `log_digest` matches.
    Binding,
    /// 1. completed work preserved.
    CompletedWorkPreserved,
    /// 2. decisions preserved.
    DecisionsPreserved,
    /// 3. next step grounded.
    NextStepGrounded,
    /// 4. latest user instruction preserved.
    LatestUserInstructionPreserved,
    /// 5. importance-3 items preserved.
    Importance3Preserved,
    /// 6. no superseded memory presented as current.
    NoSupersededAsCurrent,
    /// 7. every user message accounted for: in force, superseded by a later one, or fulfilled.
    UserWordsPreserved,
}

impl Check {
    /// The seven checks of docs/contract.md#compaction-and-the-seven-checks, in order.
    pub const SEVEN: [Check; 7] = [
        Check::CompletedWorkPreserved,
        Check::DecisionsPreserved,
        Check::NextStepGrounded,
        Check::LatestUserInstructionPreserved,
        Check::Importance3Preserved,
        Check::NoSupersededAsCurrent,
        Check::UserWordsPreserved,
    ];

    /// The wire name, e.g. `next_step_grounded`.
    pub fn as_str(self) -> &'static str {
        match self {
            Check::Schema => "schema",
            Check::Binding => "binding",
            Check::CompletedWorkPreserved => "completed_work_preserved",
            Check::DecisionsPreserved => "decisions_preserved",
            Check::NextStepGrounded => "next_step_grounded",
            Check::LatestUserInstructionPreserved => "latest_user_instruction_preserved",
            Check::Importance3Preserved => "importance3_preserved",
            Check::NoSupersededAsCurrent => "no_superseded_as_current",
            Check::UserWordsPreserved => "user_words_preserved",
        }
    }
}

/// One failed check, with the events at fault and a one-line reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// Which check failed.
    pub check: Check,
    /// The offending event ids (may be empty for purely structural failures).
    pub events: Vec<EventId>,
    /// One line saying what is wrong and how to fix it.
    pub reason: String,
}

/// The validator's decision on a candidate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// True when no check failed.
    pub accepted: bool,
    /// Which checks ran, in order.
    pub checks_run: Vec<Check>,
    /// Every failure, in check order; empty when accepted.
    pub failures: Vec<Failure>,
}

impl Verdict {
    /// The distinct checks that failed, in order.
    pub fn failed_checks(&self) -> Vec<Check> {
        let mut checks: Vec<Check> = self.failures.iter().map(|f| f.check).collect();
        checks.sort();
        checks.dedup();
        checks
    }
}
