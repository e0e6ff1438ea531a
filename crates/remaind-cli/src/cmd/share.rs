//! `remaind push` and `remaind pull`: copy a project between a folder and a shared store.

use std::process::ExitCode;

use remaind_service::ShareReport;

use crate::cli_error::CliError;
use crate::global::Global;

/// Copy this folder's project to a shared PostgreSQL store: the events and artifacts the
/// store lacks (byte for byte), and the derived files that differ. The project is created
/// when missing, with this folder's key and rules. Re-running copies only what is new; a
/// store whose chain differs is refused with the first differing seq.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind push --to postgres://remaind@db.internal/remaind --project web-app\n  \
PGPASSWORD=… remaind push --to postgres://ci@db/remaind --project web-app --json\n\n\
The URL's password, if any, comes from $PGPASSWORD. See docs/fleet.md.")]
pub(crate) struct PushArgs {
    /// The store: `postgres://user@host[:port]/database[?sslmode=disable|prefer|require|verify-full[&sslrootcert=CA.pem]]`.
    #[arg(long, value_name = "URL")]
    to: String,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// Copy a project from a shared PostgreSQL store into a folder (--dir, created when
/// missing, with the project's key and rules): the events and artifacts it lacks (byte for
/// byte) and every file that differs. Re-running copies only what is new; a folder whose
/// chain differs is refused with the first differing seq.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind pull --from postgres://remaind@db.internal/remaind --project web-app --dir ./copy/.context\n  \
remaind pull --from postgres://remaind@db/remaind --project web-app --json\n\n\
See docs/fleet.md.")]
pub(crate) struct PullArgs {
    /// The store: `postgres://user@host[:port]/database[?sslmode=disable|prefer|require|verify-full[&sslrootcert=CA.pem]]`.
    #[arg(long, value_name = "URL")]
    from: String,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

fn project(global: &Global) -> Result<&str, CliError> {
    let project = global
        .project
        .as_deref()
        .filter(|p| !p.is_empty())
        .ok_or_else(|| CliError::invalid("--project NAME is required: the project in the store"))?;
    crate::global::check_project(project)?;
    Ok(project)
}

fn print(report: &ShareReport, json: bool, verb: &str, url: &str) -> Result<(), CliError> {
    if json {
        let line = serde_json::to_string(report).map_err(|e| CliError::runtime(e.to_string()))?;
        println!("{line}");
    } else {
        println!(
            "{verb} project {:?} ({}){}: {} events, {} files; {} is at seq {}",
            report.project,
            remaind_pg::mask_password(url),
            if report.created_project {
                ", created"
            } else {
                ""
            },
            report.events,
            report.files,
            report.root,
            report.head
        );
    }
    Ok(())
}

pub(crate) fn push(global: &Global, args: PushArgs) -> Result<ExitCode, CliError> {
    let project = project(global)?;
    let ctx = global.folder_to_share()?;
    let report = remaind_service::push(&ctx, &args.to, project)?;
    print(&report, args.json, "pushed to", &args.to)?;
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn pull(global: &Global, args: PullArgs) -> Result<ExitCode, CliError> {
    let project = project(global)?;
    let ctx = global.init_target()?;
    let report = remaind_service::pull(&ctx, &args.from, project)?;
    print(&report, args.json, "pulled from", &args.from)?;
    Ok(ExitCode::SUCCESS)
}
