//! `remaind ui`.

use std::process::ExitCode;

use crate::args::ui::Args;
use crate::cli_error::CliError;
use crate::global::Global;

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    if !args.bind.is_loopback() {
        eprintln!(
            "remaind: warning: --bind {} serves the viewer beyond this machine; anyone who gets \
the URL can read the ledger",
            args.bind
        );
    }
    let viewer = remaind_ui::Viewer::bind(remaind_ui::Options {
        context: ctx,
        bind: args.bind,
        port: args.port,
        allow_writes: args.allow_writes,
    })
    .map_err(|e| {
        let in_use = e.is_addr_in_use();
        let mut err = CliError::from(e);
        err.message = if in_use {
            format!(
                "port {} is already in use; choose another with --port N (or --port 0 for any free one)",
                args.port
            )
        } else {
            format!("{} (check --bind and --port)", err.message)
        };
        err
    })?;
    let url = viewer.url();
    println!(
        "remaind ui: serving {} on {url}",
        viewer_mode(args.allow_writes)
    );
    println!("Ctrl-C stops it.");
    if args.open {
        let opened = std::process::Command::new("xdg-open")
            .arg(&url)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if opened.is_err() {
            eprintln!("remaind: warning: cannot start a browser (xdg-open); open the URL above");
        }
    }
    viewer.serve_until_ctrl_c().map_err(CliError::from)?;
    eprintln!("remaind ui: stopped");
    Ok(ExitCode::SUCCESS)
}

fn viewer_mode(writes: bool) -> &'static str {
    if writes {
        "(writes allowed)"
    } else {
        "(read-only)"
    }
}
