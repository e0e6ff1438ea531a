//! The command line of `remaind memory`: its arguments and their help.

/// Review what should outlive a task, and read the project's instructions as a tree.
///
/// A proposal is a Markdown file under `.context/memory/proposals/`; accepting it adds it to
/// `.context/memory/MEMORY.md`, rejecting it archives it. Every action is an event in the
/// ledger, and the files are rebuilt from those events. Edit `MEMORY.md` by hand freely:
/// the next memory command records the edit in the ledger and keeps it.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind memory propose --title 'Test command' 'Run cargo xtask ci before every push.'\n  \
remaind memory list\n  \
remaind memory accept test-command--2b53589a-c017-56ec-92b8-f9c44e08c04c\n  \
remaind memory edit test-command 'Run cargo xtask ci before every push and every release.'\n  \
remaind memory propose --title 'API port' --cites e12 'The API listens on 8080.'\n  \
remaind memory tree --budget 2000\n  \
remaind memory tree --query 'release checklist'\n  \
remaind memory get 3c75e49eae14 --json")]
pub(crate) struct Args {
    #[command(subcommand)]
    pub(crate) command: Sub,
}

#[derive(Debug, clap::Subcommand)]
pub(crate) enum Sub {
    /// List the proposals (under review, accepted, rejected).
    List {
        /// Print one JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Show one proposal: its text, status and events.
    Show {
        /// The proposal's id (`slug--uuid`), or its slug when only one proposal has it.
        id: String,
        /// Print it as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Propose a memory for review.
    Propose {
        /// A short title, one line; the same title proposes the same memory again.
        #[arg(long, allow_hyphen_values = true)]
        title: String,
        /// What to remember.
        #[arg(allow_hyphen_values = true)]
        text: String,
        /// A ledger event this memory rests on (repeatable): when a newer event supersedes
        /// or resolves it, the memory is shown as no longer current.
        #[arg(long, value_name = "EVENT_ID")]
        cites: Vec<String>,
        /// Print the proposal as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Replace the text of a proposal under review or of an accepted memory.
    Edit {
        /// The proposal's id.
        id: String,
        /// The new text.
        #[arg(allow_hyphen_values = true)]
        text: String,
        /// Print the proposal as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Accept a proposal into MEMORY.md.
    Accept {
        /// The proposal's id.
        id: String,
        /// Print the proposal as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Reject a proposal (it is archived).
    Reject {
        /// The proposal's id.
        id: String,
        /// Print the proposal as JSON.
        #[arg(long)]
        json: bool,
    },
    /// The memory tree (MEMORY.md, CLAUDE.md, AGENTS.md), hottest nodes first.
    Tree {
        /// Keep the listing within this many tokens.
        #[arg(long, value_name = "TOKENS")]
        budget: Option<u64>,
        /// Only the nodes whose text holds every one of these words (ignoring case); a
        /// match warms the node.
        #[arg(long, value_name = "WORDS", allow_hyphen_values = true)]
        query: Option<String>,
        /// Print the tree as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Print one node of the tree in full (opening a node warms it).
    Get {
        /// The node's id, from `remaind memory tree`.
        id: String,
        /// Print the node as JSON.
        #[arg(long)]
        json: bool,
    },
}
