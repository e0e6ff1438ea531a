//! `resume`, `status`, `monitor` and `compact`: the lifecycle around the ledger, through the
//! same library calls as the commands of the same names.

use remaind_compact::{Options, Source};
use remaind_resume::{Budget, Gate, LatestInstruction, PlannedStep};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ToolError;
use crate::registry::{Effect, ToolDef, def};
use crate::session::Session;

/// A value's serde name (`compact_soon`), for the enums of the lower layers.
fn wire<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(e) => format!("unserializable: {e}"),
    }
}

fn ids<'a>(ids: impl IntoIterator<Item = &'a remaind_events::EventId>) -> Vec<String> {
    ids.into_iter().map(ToString::to_string).collect()
}

/// Why the gate stops the agent.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct GateReason {
    /// A stable code, e.g. `digest_mismatch` or `no_next_step`.
    code: String,
    /// What is wrong and what to do.
    message: String,
    /// The events involved.
    events: Vec<String>,
}

/// The resume gate's verdict.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct GateVerdict {
    /// True: go on. False: stop and deal with every reason first.
    proceed: bool,
    /// Confidence in the packet, 0 to 1.
    confidence: f64,
    /// True when the confidence is below the configured floor.
    low_confidence: bool,
    /// The next planned tool, when one is named.
    next_tool: Option<String>,
    /// Every reason to stop (empty when `proceed`).
    reasons: Vec<GateReason>,
}

impl GateVerdict {
    fn of(g: &Gate) -> Self {
        GateVerdict {
            proceed: g.proceed,
            confidence: g.confidence.score,
            low_confidence: g.confidence.low,
            next_tool: g.next_tool.as_ref().map(|t| t.name.clone()),
            reasons: g
                .reasons
                .iter()
                .map(|r| GateReason {
                    code: r.code.to_string(),
                    message: r.message.clone(),
                    events: ids(&r.events),
                })
                .collect(),
        }
    }
}

/// The latest user instruction (always in the packet).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Instruction {
    /// Its event.
    event: String,
    /// Its text.
    text: String,
}

impl Instruction {
    fn of(i: &LatestInstruction) -> Self {
        Instruction {
            event: i.event.to_string(),
            text: i.text.clone(),
        }
    }
}

/// The next planned step.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct NextStep {
    /// What to do.
    text: String,
    /// The events it comes from.
    events: Vec<String>,
    /// The tool it plans to use.
    tool: Option<String>,
}

impl NextStep {
    fn of(s: &PlannedStep) -> Self {
        NextStep {
            text: s.text.clone(),
            events: ids(&s.events),
            tool: s.tool.clone(),
        }
    }
}

/// The budget of a resume packet.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResumeArgs {
    /// Token budget for the packet (default: `resume_budget_tokens` in thresholds.json).
    /// Parts are dropped lowest authority first; the latest user instruction never is.
    #[serde(default)]
    #[schemars(range(min = 1))]
    budget: Option<u64>,
}

/// A resume packet and the gate's verdict on it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Resumed {
    /// The packet (markdown): latest instruction, framing, next step, importance-3 items,
    /// state, handover and the newest events, highest authority first.
    packet: String,
    /// Its size in tokens.
    tokens: u64,
    /// The budget it was built for.
    budget: Option<u64>,
    /// True when even the parts that are never dropped exceed the budget.
    over_budget: bool,
    /// The ledger head it was built at.
    head_seq: u64,
    /// The last event the state covers.
    through_seq: Option<u64>,
    /// Events after the state.
    tail_events: u64,
    /// The latest user instruction.
    latest_instruction: Option<Instruction>,
    /// The next planned step.
    next_step: Option<NextStep>,
    /// The gate: go on, or stop with reasons.
    gate: GateVerdict,
}

fn resume(session: &Session, args: ResumeArgs) -> Result<Resumed, ToolError> {
    if args.budget == Some(0) {
        return Err(ToolError::invalid("budget", "must be at least 1 token"));
    }
    let ctx = session.context()?;
    let r = remaind_resume::resume(&ctx, args.budget.map_or(Budget::Configured, Budget::Tokens))?;
    Ok(Resumed {
        tokens: r.tokens,
        budget: r.budget,
        over_budget: r.over_budget,
        head_seq: r.head_seq,
        through_seq: r.through_seq,
        tail_events: r.tail_events,
        latest_instruction: r.latest_instruction.as_ref().map(Instruction::of),
        next_step: r.next_step.as_ref().map(NextStep::of),
        gate: GateVerdict::of(&r.gate),
        packet: r.packet,
    })
}

pub(crate) fn resume_tool() -> ToolDef {
    def(
        "resume",
        "Resume packet and gate",
        "Build the resume packet (latest user instruction, next step, importance-3 items, \
state, handover, newest events, within `budget` tokens; also written to \
active/resume_packet.md) and run the resume gate: `gate.proceed` false means stop and deal \
with every reason first. Call it at the start of a session or after a compaction.",
        Effect::Writes,
        resume,
    )
}

/// No arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoArgs {}

/// The last accepted compaction.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct LastCompaction {
    /// Its `compaction` event.
    event: String,
    /// When.
    ts: String,
}

/// The search index's freshness.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct IndexFreshness {
    /// The last event it holds.
    indexed_seq: u64,
    /// The ledger head.
    ledger_head: u64,
    /// True when the next search catches up first.
    stale: bool,
}

/// Where the context stands.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct StatusOut {
    /// The ledger head.
    head_seq: u64,
    /// The last event the state covers (none before the first compaction).
    through_seq: Option<u64>,
    /// Events after the state.
    tail_events: u64,
    /// The last accepted compaction after the state.
    last_compaction: Option<LastCompaction>,
    /// The token band: normal, warning, hard, emergency.
    band: String,
    /// Tokens a resume would load now.
    tokens: u64,
    /// The context window.
    window: u64,
    /// The recommended action, e.g. `compact_soon`.
    action: String,
    /// The latest user instruction.
    latest_instruction: Option<Instruction>,
    /// The next planned step.
    next_step: Option<NextStep>,
    /// The resume gate's verdict now.
    gate: GateVerdict,
    /// The search index's freshness (none when it cannot be read).
    index: Option<IndexFreshness>,
}

fn status(session: &Session, _: NoArgs) -> Result<StatusOut, ToolError> {
    let ctx = session.context()?;
    // The same status `remaind status` prints: the lifecycle and the index's freshness.
    let remaind_service::Status { context: s, index } = remaind_service::status(&ctx)?;
    Ok(StatusOut {
        head_seq: s.head_seq,
        through_seq: s.through_seq,
        tail_events: s.tail_events,
        last_compaction: s.last_compaction.as_ref().map(|c| LastCompaction {
            event: c.event.to_string(),
            ts: c.ts.clone(),
        }),
        band: s.band.to_string(),
        tokens: s.tokens,
        window: s.window,
        action: wire(&s.action),
        latest_instruction: s.latest_instruction.as_ref().map(Instruction::of),
        next_step: s.next_step.as_ref().map(NextStep::of),
        gate: GateVerdict::of(&s.gate),
        index: index.map(|f| IndexFreshness {
            indexed_seq: f.indexed_seq,
            ledger_head: f.ledger_head,
            stale: f.stale,
        }),
    })
}

pub(crate) fn status_tool() -> ToolDef {
    def(
        "status",
        "Where the context stands",
        "The ledger head, what the state covers, the last compaction, the token band and \
recommended action, the next step, the resume gate's verdict and the search index's \
freshness. Writes nothing.",
        Effect::Reads,
        status,
    )
}

/// How full the agent's context is.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MonitorArgs {
    /// Tokens the agent has used in its context window (omit to count the tokens a resume
    /// would load now).
    #[serde(default)]
    used: Option<u64>,
    /// The context window in tokens (default: `context_window` in thresholds.json).
    #[serde(default)]
    #[schemars(range(min = 1))]
    window: Option<u64>,
}

/// The band and what to do about it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct MonitorOut {
    /// normal, warning, hard or emergency.
    band: String,
    /// The tokens counted or reported.
    tokens: u64,
    /// The window.
    window: u64,
    /// tokens / window.
    ratio: f64,
    /// The recommended action: none, compact_soon, compact_now,
    /// compact_now_and_resume_minimal.
    action: String,
    /// The action in words.
    action_text: String,
    /// `reported` (from `used`) or `resume_packet` (counted).
    source: String,
    /// The band before, when it changed.
    previous_band: Option<String>,
    /// The `monitor` event recording a band change.
    event: Option<String>,
}

fn monitor(session: &Session, args: MonitorArgs) -> Result<MonitorOut, ToolError> {
    if args.window == Some(0) {
        return Err(ToolError::invalid("window", "must be at least 1 token"));
    }
    let ctx = session.context()?;
    let r = remaind_resume::monitor(&ctx, args.used, args.window)?;
    Ok(MonitorOut {
        band: r.band.to_string(),
        tokens: r.tokens,
        window: r.window,
        ratio: r.ratio,
        action: wire(&r.action),
        action_text: r.action.to_string(),
        source: wire(&r.source),
        previous_band: r.previous_band.map(|b| b.to_string()),
        event: r.event.map(|e| e.to_string()),
    })
}

pub(crate) fn monitor_tool() -> ToolDef {
    def(
        "monitor",
        "How full is the context",
        "Classify the agent's context use into a band (normal, warning, hard, emergency) and \
recommend an action (e.g. compact_now). Give `used` (and `window`) from the runtime, or \
omit `used` to count what a resume would load. A band change is recorded in the ledger.",
        Effect::Writes,
        monitor,
    )
}

/// What to compact with.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CompactArgs {
    /// A candidate state.json document (give it with `handover`); omit both to let the
    /// built-in compactor propose.
    #[serde(default)]
    state: Option<serde_json::Map<String, Value>>,
    /// The candidate handover.md text for `state`.
    #[serde(default)]
    handover: Option<String>,
    /// Validate and report only: write and append nothing.
    #[serde(default)]
    dry_run: bool,
}

/// One failed check.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct FailedCheck {
    /// The check: schema, citations, supersession, importance, next_step, instruction, …
    check: String,
    /// What is wrong and how to fix it.
    reason: String,
    /// The events at fault.
    events: Vec<String>,
}

/// The validator's verdict on the compaction.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Compacted {
    /// True when every check passed.
    accepted: bool,
    /// True when state.json and handover.md were replaced.
    written: bool,
    /// The `compaction` (accepted) or `validation` (rejected) event; none on a dry run.
    event: Option<String>,
    /// The last event the candidate covers.
    through_seq: u64,
    /// How many events after the prior state were compacted.
    tail_events: usize,
    /// The checks that ran.
    checks_run: Vec<String>,
    /// Every failed check (empty when accepted).
    failures: Vec<FailedCheck>,
}

fn compact(session: &Session, args: CompactArgs) -> Result<Compacted, ToolError> {
    let source = match (args.state, args.handover) {
        (Some(state), Some(handover)) => Source::Given {
            state: Value::Object(state),
            handover,
        },
        (None, None) => Source::Builtin,
        (Some(_), None) => {
            return Err(ToolError::invalid(
                "handover",
                "is required with `state`: give the handover.md text for the candidate",
            ));
        }
        (None, Some(_)) => {
            return Err(ToolError::invalid(
                "state",
                "is required with `handover`: give the state.json document for the candidate",
            ));
        }
    };
    let (ctx, ledger) = session.ledger()?;
    let store = remaind_compact::open_store(ctx.root())?;
    let opts = Options {
        dry_run: args.dry_run,
        through_seq: None,
    };
    let out = remaind_compact::compact(&ledger, &store, source, opts)?;
    Ok(Compacted {
        accepted: out.verdict.accepted,
        written: out.written,
        event: out.event_id.map(|e| e.to_string()),
        through_seq: out.through_seq,
        tail_events: out.tail_events,
        checks_run: out
            .verdict
            .checks_run
            .iter()
            .map(|c| c.as_str().to_owned())
            .collect(),
        failures: out
            .verdict
            .failures
            .iter()
            .map(|f| FailedCheck {
                check: f.check.as_str().to_owned(),
                reason: f.reason.clone(),
                events: ids(&f.events),
            })
            .collect(),
    })
}

pub(crate) fn compact_tool() -> ToolDef {
    def(
        "compact",
        "Compact the ledger into state and handover",
        "Fold the events since the last compaction into active/state.json and \
active/handover.md. Without arguments the built-in compactor proposes; or give your own \
candidate `state` + `handover`. The validator decides: a rejected candidate changes nothing \
and the result lists every failed check with the events it names (fix them and call again).",
        Effect::Writes,
        compact,
    )
}
