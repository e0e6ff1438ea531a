//! The command line of `remaind completions`: its arguments and their help.

/// Print a shell completion script for remaind.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  remaind completions bash > ~/.local/share/bash-completion/completions/remaind\n  remaind completions zsh > ~/.zfunc/_remaind      # with fpath+=(~/.zfunc) in ~/.zshrc\n  remaind completions fish > ~/.config/fish/completions/remaind.fish"
)]
pub(crate) struct Args {
    /// The shell to generate for.
    #[arg(value_enum, value_name = "SHELL")]
    pub(crate) shell: CompletionShell,
}

/// The shells Remaind ships completions for.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}
