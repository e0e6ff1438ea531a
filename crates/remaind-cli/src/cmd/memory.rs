//! `remaind memory`: long-term memory proposals, `MEMORY.md`, and the memory tree.

use std::io::Write;
use std::process::ExitCode;

use remaind_ledger::Ledger;
use remaind_memory::{Memory, Proposal, Status};

use crate::cli_error::CliError;
use crate::global::Global;

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
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
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

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Proposed => "proposed",
        Status::Accepted => "accepted",
        Status::Rejected => "rejected",
    }
}

fn print_proposal(out: &mut impl Write, p: &Proposal, json: bool) -> std::io::Result<()> {
    if json {
        return writeln!(out, "{}", serde_json::to_string(p).unwrap_or_default());
    }
    let ids = |v: &[remaind_events::EventId]| -> String {
        v.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let current = match p.contradicted_by {
        Some(by) => format!(" (no longer current: {by} superseded or resolved what it cites)"),
        None => String::new(),
    };
    let cites = if p.cites.is_empty() {
        String::new()
    } else {
        format!("\n  cites: {}", ids(&p.cites))
    };
    writeln!(
        out,
        "{} [{}]{current} {}\n  {}\n  events: {}{cites}",
        p.id,
        status_word(p.status),
        p.title,
        p.text.replace('\n', "\n  "),
        ids(&p.events)
    )
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    let ledger = Ledger::open(ctx.root())?;
    let memory = Memory::open(&ctx, &ledger)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let wrote = match args.command {
        Sub::List { json } => {
            let all = memory.proposals()?;
            if !json && all.is_empty() {
                writeln!(
                    out,
                    "no memory proposals yet; `remaind memory propose --title T TEXT` adds one"
                )
            } else {
                all.iter()
                    .try_for_each(|p| print_proposal(&mut out, p, json))
            }
        }
        Sub::Show { id, json } => print_proposal(&mut out, &memory.proposal(&id)?, json),
        Sub::Propose {
            title,
            text,
            cites,
            json,
        } => {
            let cites = cites
                .iter()
                .map(|c| {
                    c.parse().map_err(|_| {
                        CliError::invalid(format!(
                            "--cites `{c}` is not an event id; give one like e12, as `remaind search` shows"
                        ))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let p = memory.propose_citing(&title, &text, &cites)?;
            print_proposal(&mut out, &p, json)
        }
        Sub::Edit { id, text, json } => {
            let p = memory.edit(&id, &text)?;
            print_proposal(&mut out, &p, json)
        }
        Sub::Accept { id, json } => {
            let p = memory.accept(&id)?;
            print_proposal(&mut out, &p, json)
        }
        Sub::Reject { id, json } => {
            let p = memory.reject(&id)?;
            print_proposal(&mut out, &p, json)
        }
        Sub::Tree {
            budget,
            query,
            json,
        } => {
            if budget == Some(0) {
                return Err(CliError::invalid(
                    "--budget 0 leaves room for nothing; give at least 1 token",
                ));
            }
            let tree = match &query {
                Some(q) => memory.tree_matching(q, budget)?,
                None => memory.tree(budget)?,
            };
            if json {
                writeln!(out, "{}", serde_json::to_string(&tree).unwrap_or_default())
            } else {
                out.write_all(remaind_memory::render_listing(&tree).as_bytes())
                    .and_then(|()| {
                        if tree.omitted > 0 {
                            writeln!(out, "({} more nodes left out for the budget)", tree.omitted)
                        } else {
                            Ok(())
                        }
                    })
            }
        }
        Sub::Get { id, json } => {
            let node = memory.get(&id)?;
            if json {
                writeln!(out, "{}", serde_json::to_string(&node).unwrap_or_default())
            } else {
                writeln!(out, "{}", node.text)
            }
        }
    };
    wrote.map_err(CliError::stdout)?;
    Ok(ExitCode::SUCCESS)
}
