//! `remaind resume`.

use std::process::ExitCode;

use remaind_resume::Budget;
use remaind_resume::Reason;

use crate::args::resume::Args;
use crate::cli_error::{CliError, EXIT_GATE};
use crate::global::Global;

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
