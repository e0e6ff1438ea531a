//! The command line of `remaind demo`: its arguments and their help.

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
    pub(crate) json: bool,
}
