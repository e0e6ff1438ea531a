//! The command line of `remaind init`: its arguments and their help.

/// Create a .context/ folder: contract, schemas, configuration and an empty ledger.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  remaind init                  # creates ./.context\n  remaind init --dir /srv/agent/.context\n  remaind init --force          # restore missing files only; never overwrites\n  remaind init --store postgres://remaind@db.internal/remaind --project web-app\n                                # share the project through PostgreSQL (docs/fleet.md)\n\nWith --store and --project, the folder becomes a replica of that project of the store\n(created from this folder when missing, joined when it exists) and store.json records it,\nso every command and hook on this folder appends through the store."
)]
pub(crate) struct Args {
    /// Restore missing files of an existing folder (existing files are never overwritten).
    #[arg(long)]
    pub(crate) force: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
