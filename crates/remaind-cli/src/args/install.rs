//! The command line of `remaind install`: its arguments and their help.

use remaind_adapters::Runtime;

/// Wire Remaind's hooks into a runtime: merged into its settings file, keeping every hook
/// already there.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Files: claude-code .claude/settings.json, codex .codex/hooks.json, cursor \
.cursor/hooks.json, gemini .gemini/settings.json, opencode .opencode/plugins/remaind.js (with \
--user: the same under $HOME; OpenCode's under ~/.config/opencode/plugins/). Our hooks are the \
ones whose command runs `remaind hook`; installing twice leaves them once. Before an existing \
file is changed, it is copied to <file>.remaind-backup; --uninstall removes our hooks and gives \
back that file's bytes when nothing else changed. The recipes are the files under examples/.\n\n\
Examples:\n  remaind install claude-code\n  remaind install cursor --dry-run\n  \
remaind install gemini --user\n  remaind install opencode --uninstall"
)]
pub(crate) struct Args {
    /// The runtime to wire.
    #[arg(value_enum)]
    pub(crate) runtime: Runtime,
    /// Into the user's settings under $HOME, for every project (default: into the project,
    /// the current folder; `--project` names a shared store's project, see docs/fleet.md).
    #[arg(long)]
    pub(crate) user: bool,
    /// Print what would change and write nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Remove our hooks instead.
    #[arg(long)]
    pub(crate) uninstall: bool,
    /// Print the outcome as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
