//! The command line of `remaind ui`: its arguments and their help.

use std::net::IpAddr;

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
    pub(crate) port: u16,
    /// The address to listen on. Anything but loopback exposes the viewer to the network.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    pub(crate) bind: IpAddr,
    /// Open the URL in the default browser.
    #[arg(long)]
    pub(crate) open: bool,
    /// Allow rollback and undo from the page (each a POST with a confirmation step).
    #[arg(long)]
    pub(crate) allow_writes: bool,
}
