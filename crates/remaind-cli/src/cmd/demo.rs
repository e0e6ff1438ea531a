//! `remaind demo`: run the scripted agent session and narrate it.

use std::process::ExitCode;

use crate::demo::{self, Action, Step};
use camino::Utf8PathBuf;

use crate::cli_error::CliError;
use crate::global::Global;
use crate::style::Style;

/// Run a realistic coding-agent session through every layer, narrating each step.
///
/// In a fresh temporary folder (kept for inspection; or the folder given with --dir), the
/// demo initializes a .context/, logs a session (instructions, tool calls, a large test log
/// routed to artifacts/, an .env dump whose secrets get redacted, decisions, a correction, a
/// blocker and its resolution, a remember-instruction, file changes, results, next steps),
/// monitors, compacts through the validator, proposes a deliberately bad candidate and shows
/// its rejection, logs a newer instruction, resumes and prints the packet, rolls the
/// compaction back to the exact prior bytes, and verifies the ledger. It exits 0 when every
/// step behaved as designed (the rejection included) and 1 otherwise.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Here --dir names the demo folder (created if missing): the demo writes \
PATH/.context/ and PATH/bad-candidate/, and refuses a folder that already holds either. \
REMAIND_DIR is ignored: the demo never writes into an existing context.\n\nExamples:\n  \
remaind demo                        # fresh folder under $TMPDIR, path printed\n  \
remaind demo --dir /tmp/remaind-demo\n  \
remaind demo --json | jq .problems  # the report as JSON; [] when all went as designed"
)]
pub(crate) struct Args {
    /// Print the report (every step, the rejection, the packet, the rollback) as JSON.
    #[arg(long)]
    json: bool,
}

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
