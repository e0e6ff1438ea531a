//! `remaind ui`.

use std::net::IpAddr;
use std::process::ExitCode;

use crate::cli_error::CliError;
use crate::global::Global;

/// Serve a local web viewer of this .context/ folder: the timeline with a live tail, search,
/// what a resumed agent will see (packet, gate verdict, state and handover), the compactions
/// with their verdicts and a side-by-side diff, memory, integrity and rollback. Prints the URL
/// to open (it carries a random token for this launch); Ctrl-C stops it. Read-only unless
/// --allow-writes.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind ui\n  \
remaind ui --port 8765 --open\n  \
remaind ui --allow-writes                 # rollback and undo from the page, each confirmed\n  \
remaind --dir ../other/.context ui\n\n\
Safety: it binds 127.0.0.1 unless --bind says otherwise; every request needs this address in its\n\
Host header, and the token (traded on the first visit for an HttpOnly cookie and a key the page\n\
keeps and sends as a header: the cookie alone, which the browser also sends to other local\n\
ports, opens nothing). The page needs JavaScript.")]
pub(crate) struct Args {
    /// The port to listen on (0: any free port).
    #[arg(long, value_name = "N", default_value_t = 0)]
    port: u16,
    /// The address to listen on. Anything but loopback exposes the viewer to the network.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    bind: IpAddr,
    /// Open the URL in the default browser.
    #[arg(long)]
    open: bool,
    /// Allow rollback and undo from the page (each a POST with a confirmation step).
    #[arg(long)]
    allow_writes: bool,
}

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
