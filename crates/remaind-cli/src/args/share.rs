//! The command line of `remaind share`: its arguments and their help.

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
    pub(crate) to: String,
    /// Print the result as JSON.
    #[arg(long)]
    pub(crate) json: bool,
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
    pub(crate) from: String,
    /// Print the result as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
