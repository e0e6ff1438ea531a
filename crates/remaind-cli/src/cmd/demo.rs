//! `remaind demo`: run the scripted agent session and narrate it.

use std::process::ExitCode;

use crate::demo::{self, Action, Step};
use camino::Utf8PathBuf;

use crate::args::demo::Args;
use crate::cli_error::CliError;
use crate::global::Global;
use crate::style::Style;

/// True when `--dir` was given on the command line (not merely through `REMAIND_DIR`).
fn dir_on_command_line() -> bool {
    std::env::args_os().any(|a| {
        a.to_str()
            .is_some_and(|a| a == "--dir" || a.starts_with("--dir="))
    })
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let workspace: Utf8PathBuf = match (&global.dir, dir_on_command_line()) {
        (Some(dir), true) => {
            if dir.is_absolute() {
                dir.clone()
            } else {
                global.cwd()?.join(dir)
            }
        }
        _ => demo::fresh_dir()?,
    };
    let style = Style::stdout();
    let mut narrate = |step: &Step| {
        if !args.json {
            println!("{}", step_line(style, step));
        }
    };
    if !args.json {
        println!(
            "{} {}",
            style.bold("remaind demo:"),
            style.dim(&format!("a coding-agent session in {workspace}"))
        );
    }
    let report = demo::run(&workspace, &mut narrate)?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| CliError::runtime(e.to_string()))?
        );
    } else {
        println!();
        println!(
            "{}",
            style.bold("The resume packet (active/resume_packet.md):")
        );
        println!();
        print!("{}", report.resume.packet);
        if !report.resume.packet.ends_with('\n') {
            println!();
        }
        println!();
        println!(
            "{} {}",
            style.bold("Kept for inspection:"),
            report.workspace
        );
        println!(
            "  remaind --dir {} events --kind validation --json",
            report.context
        );
        println!("  remaind --dir {} rollback --list", report.context);
        println!(
            "  remaind --dir {} rollback --to {}    # the rollback the demo made, and undid",
            report.context, report.rollback.to
        );
    }
    if report.problems.is_empty() {
        if !args.json {
            println!(
                "{}",
                style.good("Every step behaved as designed (the rejection included).")
            );
        }
        Ok(ExitCode::SUCCESS)
    } else {
        Err(CliError::runtime(format!(
            "the demo did not behave as designed: {}",
            report.problems.join("; ")
        )))
    }
}

fn step_line(style: Style, step: &Step) -> String {
    let mark = if step.ok {
        style.good("✓")
    } else {
        style.bad("✗")
    };
    let label = format!("{:<8}", step.action.as_str());
    let label = match step.action {
        Action::Reject => style.bad(&label),
        _ => style.bold(&label),
    };
    format!("{mark} {label} {}", step.summary)
}
