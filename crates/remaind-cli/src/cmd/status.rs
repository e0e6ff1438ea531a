//! `remaind status`.

use std::process::ExitCode;

use crate::cli_error::CliError;
use crate::global::Global;

/// Show the band, the last compaction, the ledger head, the next step and the resume gate's
/// verdict. Writes nothing.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  remaind status\n  remaind status --json")]
pub(crate) struct Args {
    /// Print the status as JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    let s = remaind_resume::status::status(&ctx)?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&s).map_err(|e| CliError::runtime(e.to_string()))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!("ledger head:     e{}", s.head_seq);
    match s.through_seq {
        Some(t) => println!("state through:   e{t} ({} events since)", s.tail_events),
        None => println!("state:           none yet ({} events)", s.tail_events),
    }
    match &s.last_compaction {
        Some(c) => println!("last compaction: {} at {}", c.event, c.ts),
        None => println!("last compaction: none after the state"),
    }
    println!(
        "band:            {} ({} of {} tokens; action: {})",
        s.band,
        s.tokens,
        s.window,
        s.action.describe()
    );
    match &s.next_step {
        Some(n) => println!(
            "next step:       {}{}",
            n.text,
            n.tool
                .as_ref()
                .map(|t| format!(" (tool: {t})"))
                .unwrap_or_default()
        ),
        None => println!("next step:       none"),
    }
    if s.gate.proceed {
        println!(
            "gate:            go on (confidence {:.3})",
            s.gate.confidence.score
        );
    } else {
        println!(
            "gate:            interrupts (confidence {:.3})",
            s.gate.confidence.score
        );
        for r in &s.gate.reasons {
            println!("  - {}: {}", r.code.as_str(), r.message);
        }
    }
    Ok(ExitCode::SUCCESS)
}
