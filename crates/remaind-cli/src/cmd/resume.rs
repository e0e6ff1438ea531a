//! `remaind resume`.

use std::process::ExitCode;

use remaind_resume::Budget;
use remaind_resume::Reason;

use crate::cli_error::{CliError, EXIT_GATE};
use crate::global::Global;

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
    budget: Option<u64>,
    /// Print the packet, its metadata and the gate's verdict as JSON.
    #[arg(long)]
    json: bool,
}

/// Prints the gate's reasons on stderr.
pub(crate) fn print_reasons(reasons: &[Reason]) {
    eprintln!(
        "remaind: resume gate interrupts ({} reason{}):",
        reasons.len(),
        if reasons.len() == 1 { "" } else { "s" }
    );
    for r in reasons {
        eprintln!("  - {}: {}", r.code, r.message);
    }
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    let budget = args.budget.map_or(Budget::Configured, Budget::Tokens);
    if args.json {
        let r = remaind_resume::resume(&ctx, budget)?;
        println!(
            "{}",
            serde_json::to_string(&r).map_err(|e| CliError::runtime(e.to_string()))?
        );
        return Ok(if r.gate.proceed {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(EXIT_GATE)
        });
    }
    // The text needs no exact count unless the packet or the verdict does.
    let shown = remaind_resume::show(&ctx, budget)?;
    print!("{}", shown.packet);
    if shown.proceed {
        Ok(ExitCode::SUCCESS)
    } else {
        print_reasons(&shown.reasons);
        Ok(ExitCode::from(EXIT_GATE))
    }
}
