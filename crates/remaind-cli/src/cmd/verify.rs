//! `remaind verify`.

use std::process::ExitCode;

use crate::args::verify::Args;
use crate::cli_error::CliError;
use crate::global::Global;

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let report = remaind_service::integrity(&global.context()?)?;
    if args.json {
        let mut doc =
            serde_json::to_value(&report).map_err(|e| CliError::runtime(e.to_string()))?;
        doc["ok"] = serde_json::Value::Bool(report.is_ok());
        println!("{doc}");
    } else {
        let ledger = &report.ledger;
        if ledger.is_ok() {
            println!(
                "ledger ok: {} lines, hash chain intact (head {}), {} artifacts verified",
                ledger.lines, ledger.head_digest, ledger.artifacts_checked
            );
        }
        for p in &ledger.problems {
            println!("{p}");
        }
        if ledger.problem_count > ledger.problems.len() as u64 {
            println!(
                "… and {} more",
                ledger.problem_count - ledger.problems.len() as u64
            );
        }
        for finding in &report.permissions {
            println!("permissions: {finding}");
        }
        for reason in &report.derived {
            println!("derived files: {}: {}", reason.code, reason.message);
        }
        if let Some(lag) = &report.memory_lag {
            println!("memory files: {lag}");
        }
    }
    match report.first_problem() {
        None => Ok(ExitCode::SUCCESS),
        Some(first) => Err(CliError::runtime(format!("verify failed: {first}"))),
    }
}
