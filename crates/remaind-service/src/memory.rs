//! Long-term memory as `remaind memory` works it: the proposals (list, show, propose, edit,
//! accept, reject) and the memory tree (the listing within a budget, one node in full).
//!
//! Each job opens the ledger and the memory files once; every change is an event in the
//! ledger, and the files are rebuilt from those events (`remaind_memory`).

use remaind_events::EventId;
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;
use remaind_memory::{Memory, Node, Proposal, Tree};

use crate::{Error, Result};

/// One memory job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryJob {
    /// Every proposal (under review, accepted, rejected).
    List,
    /// One proposal, by id or by a slug only one proposal has.
    Show {
        /// The proposal's id or slug.
        id: String,
    },
    /// Propose a memory for review.
    Propose {
        /// A short title, one line.
        title: String,
        /// What to remember.
        text: String,
        /// The ledger events it rests on, as given (`e12`).
        cites: Vec<String>,
    },
    /// Replace the text of a proposal under review or of an accepted memory.
    Edit {
        /// The proposal's id.
        id: String,
        /// The new text.
        text: String,
    },
    /// Accept a proposal into `MEMORY.md`.
    Accept {
        /// The proposal's id.
        id: String,
    },
    /// Reject a proposal (it is archived).
    Reject {
        /// The proposal's id.
        id: String,
    },
    /// The memory tree, hottest nodes first.
    Tree {
        /// Keep the listing within this many tokens (at least 1).
        budget: Option<u64>,
        /// Only the nodes whose text holds every one of these words (ignoring case).
        query: Option<String>,
    },
    /// One node of the tree in full.
    Get {
        /// The node's id.
        id: String,
    },
}

/// What a [`MemoryJob`] gives back.
#[derive(Debug, Clone)]
pub enum MemoryAnswer {
    /// The proposals ([`MemoryJob::List`]).
    Proposals(Vec<Proposal>),
    /// The proposal shown or changed.
    Proposal(Proposal),
    /// The tree ([`MemoryJob::Tree`]).
    Tree(Tree),
    /// One node ([`MemoryJob::Get`]).
    Node(Node),
}

/// Runs one memory job on the folder: a change is recorded in the ledger first, then the
/// memory files are brought up to date (a hand edit of `MEMORY.md` is recorded too).
pub fn memory(ctx: &ContextDir, job: MemoryJob) -> Result<MemoryAnswer> {
    let ledger = Ledger::open(ctx.root())?;
    let memory = Memory::open(ctx, &ledger)?;
    let answer = match job {
        MemoryJob::List => MemoryAnswer::Proposals(memory.proposals()?),
        MemoryJob::Show { id } => MemoryAnswer::Proposal(memory.proposal(&id)?),
        MemoryJob::Propose { title, text, cites } => {
            let cites = cites
                .iter()
                .map(|c| {
                    c.parse::<EventId>()
                        .map_err(|_| Error::NotACitation { given: c.clone() })
                })
                .collect::<Result<Vec<_>>>()?;
            MemoryAnswer::Proposal(memory.propose_citing(&title, &text, &cites)?)
        }
        MemoryJob::Edit { id, text } => MemoryAnswer::Proposal(memory.edit(&id, &text)?),
        MemoryJob::Accept { id } => MemoryAnswer::Proposal(memory.accept(&id)?),
        MemoryJob::Reject { id } => MemoryAnswer::Proposal(memory.reject(&id)?),
        MemoryJob::Tree { budget, query } => {
            if budget == Some(0) {
                return Err(Error::ZeroBudget);
            }
            MemoryAnswer::Tree(match &query {
                Some(q) => memory.tree_matching(q, budget)?,
                None => memory.tree(budget)?,
            })
        }
        MemoryJob::Get { id } => MemoryAnswer::Node(memory.get(&id)?),
    };
    Ok(answer)
}
