//! The command line of `remaind man`: its arguments and their help.

use camino::Utf8PathBuf;

/// Print the man page, or write one page per command into a folder.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  remaind man | man -l -                  # read it now\n  remaind man --out /usr/local/share/man/man1   # remaind.1, remaind-log.1, …"
)]
pub(crate) struct Args {
    /// Write remaind.1 and one remaind-COMMAND.1 per subcommand into this folder (created
    /// if missing) instead of printing remaind.1.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<Utf8PathBuf>,
}
