//! The command line of `remaind import`: its arguments and their help.

use camino::Utf8PathBuf;

/// Import agent transcripts: each line becomes events as the hooks would have logged them,
/// with the line's own id and time kept in `data.origin`.
///
/// Importing the same file again appends only the lines not imported before (a session that
/// went on since is brought up to date), and a session the hooks recorded live adds only what
/// they did not see (its prompts, turn ends and tool uses are matched by content). Damaged and
/// unknown lines are counted and skipped.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "PATH is a transcript file or a folder of them: a Claude Code project \
folder (~/.claude/projects/<project>/, subagent files included) or a Codex sessions folder \
(~/.codex/sessions/). A Claude Code session file brings its subagents/agent-*.jsonl along.\n\n\
Examples:\n  remaind import claude-code ~/.claude/projects/-home-me-app/\n  \
remaind import claude-code session.jsonl --json\n  \
remaind import codex ~/.codex/sessions/2025/12/28/rollout-2025-12-28T12-18-30.jsonl"
)]
pub(crate) struct Args {
    /// The runtime that wrote the transcripts.
    #[arg(value_enum)]
    pub(crate) runtime: RuntimeArg,
    /// Transcript files or folders.
    #[arg(required = true, value_name = "PATH")]
    pub(crate) paths: Vec<Utf8PathBuf>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
}

/// The runtimes whose transcripts `remaind import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum RuntimeArg {
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
}
