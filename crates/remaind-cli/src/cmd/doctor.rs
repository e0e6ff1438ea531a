//! `remaind doctor`: is Remaind wired into the runtimes, and are the hooks running?

use std::process::ExitCode;

use remaind_service::DoctorOptions;

use crate::args::doctor::Args;
use crate::cli_error::CliError;
use crate::cmd::install::user_env;
use crate::global::Global;

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let project = global.cwd()?;
    let context = match global.dir {
        Some(_) => global.context().ok(),
        None => remaind_fs::ContextDir::discover(None, &project).ok(),
    };
    let report = remaind_service::doctor(&DoctorOptions {
        project,
        context,
        env: user_env(),
    });
    if args.json {
        let out = serde_json::to_string(&report).map_err(|e| CliError::runtime(e.to_string()))?;
        println!("{out}");
        return Ok(ExitCode::SUCCESS);
    }
    match &report.binary {
        Some(b) => println!("binary: {b}"),
        None => println!("binary: not on PATH"),
    }
    match &report.context {
        Some(c) => println!("ledger: {c}"),
        None => println!("ledger: none (no .context/ found)"),
    }
    for r in &report.runtimes {
        let files: Vec<String> = r
            .files
            .iter()
            .map(|(scope, w)| format!("{scope} {} ({})", w.file, w.state.as_str()))
            .collect();
        let last = match &r.last_hook {
            None => "never".to_owned(),
            Some(last) => format!("{} ({})", last.ts, last.hook),
        };
        println!("{}: {}; last hook: {last}", r.runtime, files.join(", "));
    }
    if !report.hook_errors.is_empty() {
        println!("recent hook errors:");
        for line in &report.hook_errors {
            println!("  {line}");
        }
    }
    if report.problems.is_empty() {
        println!("no problems found");
    }
    for p in &report.problems {
        println!("problem: {}\n  fix: {}", p.problem, p.fix);
    }
    Ok(ExitCode::SUCCESS)
}
