//! The command line of `remaind resume`: its arguments and their help.

/// Build active/resume_packet.md (the latest user instruction, the runtime framing, the next
/// step, importance-3 items, the state, the handover and the events after it, highest
/// authority first, within the budget), print it, and run the resume gate: exit 0 to go on,
/// exit 4 with every reason to stop.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  remaind resume\n  remaind resume --budget 8000\n  remaind resume --json | jq .gate\n\nExit codes: 0 the gate lets the agent go on; 4 the gate interrupts (reasons on stderr)."
)]
pub(crate) struct Args {
    /// Token budget for the packet (default: `resume_budget_tokens` in thresholds.json).
    /// Parts are dropped lowest authority first; the latest user instruction never is.
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) budget: Option<u64>,
    /// Print the packet, its metadata and the gate's verdict as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
