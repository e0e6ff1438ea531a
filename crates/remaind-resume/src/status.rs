//! `remaind status`: the band, the last compaction, the head, the next step and the gate's
//! verdict, read without writing anything.

use remaind_events::{EventId, Kind};
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::conv::open_ledger;
use crate::gate::Gate;
use crate::layout::ContextDir;
use crate::monitor::{Action, Band};
use crate::packet::{self, Budget, LatestInstruction, PlannedStep};
use crate::thresholds::Thresholds;

/// The last accepted compaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastCompaction {
    /// The `compaction` event.
    pub event: EventId,
    /// When it was recorded.
    pub ts: String,
}

/// A snapshot of the context's lifecycle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Status {
    /// The ledger head.
    pub head_seq: u64,
    /// The accepted state's `through_seq`, if any.
    pub through_seq: Option<u64>,
    /// Events after the state.
    pub tail_events: u64,
    /// The last accepted compaction after the state, if any.
    pub last_compaction: Option<LastCompaction>,
    /// The band of the packet a resume would load now (no budget).
    pub band: Band,
    /// That packet's tokens.
    pub tokens: u64,
    /// The context window.
    pub window: u64,
    /// The recommended action for the band.
    pub action: Action,
    /// The latest user instruction.
    pub latest_instruction: Option<LatestInstruction>,
    /// The next step.
    pub next_step: Option<PlannedStep>,
    /// The gate's verdict on a resume with the configured budget.
    pub gate: Gate,
}

/// Reads the status. Writes nothing (no packet, no `monitor` event).
pub fn status(ctx: &ContextDir) -> Result<Status, Error> {
    let thresholds = Thresholds::load(&ctx.thresholds_path())?;
    let full = packet::build_packet(ctx, Budget::Unlimited)?;
    let budgeted = packet::build_packet(ctx, Budget::Configured)?;
    let band = Band::classify(full.tokens, thresholds.context_window, &thresholds.bands);
    let ledger = open_ledger(ctx)?;
    let from = full.through_seq.unwrap_or(0) + 1;
    let last_compaction = ledger
        .range(from, usize::MAX, &remaind_events::Filter::default())
        .map_err(Error::Ledger)?
        .into_iter()
        .rev()
        .find(|e| e.kind == Kind::Compaction)
        .map(|e| LastCompaction {
            event: e.id,
            ts: e.ts,
        });
    Ok(Status {
        head_seq: full.head_seq,
        through_seq: full.through_seq,
        tail_events: full.tail_events,
        last_compaction,
        band,
        tokens: full.tokens,
        window: thresholds.context_window,
        action: band.action(),
        latest_instruction: budgeted.latest_instruction.clone(),
        next_step: budgeted.next_step.clone(),
        gate: budgeted.gate,
    })
}
