//! `remaind install RUNTIME`: wire Remaind's hooks into a runtime's settings file.

use std::process::ExitCode;

use remaind_service::{InstallOptions, UserEnv};
use serde_json::json;

use crate::args::install::Args;
use crate::cli_error::CliError;
use crate::global::Global;

/// `HOME`, `XDG_CONFIG_HOME` and `PATH`, for the jobs that look outside the project.
#[expect(clippy::disallowed_methods, reason = "the CLI reads the environment")]
pub(crate) fn user_env() -> UserEnv {
    UserEnv {
        home: std::env::var("HOME").ok(),
        xdg_config_home: std::env::var("XDG_CONFIG_HOME").ok(),
        path: std::env::var("PATH").ok(),
    }
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let runtime = args.runtime;
    let done = remaind_service::install(&InstallOptions {
        runtime,
        project: global.cwd()?,
        user: args.user,
        dry_run: args.dry_run,
        uninstall: args.uninstall,
        env: user_env(),
    })?;
    let file = &done.file;
    let action = done.action.as_str();
    if args.json {
        let out = json!({
            "runtime": runtime.as_str(),
            "scope": if args.user { "user" } else { "project" },
            "file": file.as_str(),
            "dry_run": args.dry_run,
            "action": action,
            "added": done.added,
            "removed": done.removed,
            "kept": done.kept,
            "backup": done.backup.as_ref().map(|b| b.as_str()),
            "notes": done.notes,
        });
        println!("{out}");
        return Ok(ExitCode::SUCCESS);
    }
    let verb = if args.dry_run { "would be" } else { "" };
    println!(
        "remaind install {runtime}{}: {file} {verb}{}{action}",
        if args.uninstall { " --uninstall" } else { "" },
        if args.dry_run { " " } else { "" },
    );
    for line in &done.removed {
        println!("  - {line}");
    }
    for line in &done.added {
        println!("  + {line}");
    }
    if done.kept > 0 {
        println!("  = {} hook(s) of yours kept as they were", done.kept);
    }
    if let Some(backup) = &done.backup {
        let verb = if args.dry_run {
            "would be saved"
        } else {
            "saved"
        };
        println!("  backup: the file as it was {verb} to {backup}");
    }
    for note in done.notes {
        println!("  note: {note}");
    }
    Ok(ExitCode::SUCCESS)
}
