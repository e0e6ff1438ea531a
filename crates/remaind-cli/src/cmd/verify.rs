//! `remaind verify`.

use std::process::ExitCode;

use remaind_ledger::Ledger;

use crate::cli_error::CliError;
use crate::global::Global;

/// Check the ledger: every line valid, seq gapless, ids, the hash chain, and the SHA-256 of
/// every referenced artifact. Exits 1 naming the first bad line or file.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind verify\n  \
remaind verify --json | jq '.problems[0]'\n\n\
Exit codes: 0 intact, 1 a problem was found (the first bad line or file is named).")]
pub(crate) struct Args {
    /// Print the full report as JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    let ledger = Ledger::open(ctx.root())?;
    let report = ledger.verify()?;
    if args.json {
        let line = serde_json::to_string(&report).map_err(|e| CliError::runtime(e.to_string()))?;
        println!("{line}");
    } else if report.is_ok() {
        println!(
            "ok: {} lines, hash chain intact (head {}), {} artifacts verified",
            report.lines, report.head_digest, report.artifacts_checked
        );
    } else {
        for p in &report.problems {
            println!("{p}");
        }
        if report.problem_count > report.problems.len() as u64 {
            println!(
                "… and {} more",
                report.problem_count - report.problems.len() as u64
            );
        }
    }
    match report.first_problem() {
        None => Ok(ExitCode::SUCCESS),
        Some(first) => Err(CliError::runtime(format!(
            "verify failed: {first} ({} problem(s) in all)",
            report.problem_count
        ))),
    }
}
