//! `remaind push` and `remaind pull`: copy a project between a folder and a shared store.

use std::process::ExitCode;

use remaind_service::ShareReport;

use crate::args::share::{PullArgs, PushArgs};
use crate::cli_error::CliError;
use crate::global::Global;

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
