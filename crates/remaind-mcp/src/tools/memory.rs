//! Long-term memory and open loops: `memory_tree` and `memory_get` (the project's
//! instructions and accepted memories, node by node), `memory_propose` (a memory for a
//! person to review; accepting it is theirs, with `remaind memory accept`) and `open_loops`.

use remaind_memory::{Memory, Status};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::registry::{Effect, ToolDef, def};
use crate::session::Session;

impl From<remaind_memory::Error> for ToolError {
    fn from(err: remaind_memory::Error) -> Self {
        let invalid = err.is_invalid_input();
        ToolError::from_lib(&err, invalid)
    }
}

/// Which part of the tree.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TreeArgs {
    /// Keep the listing within this many tokens (default 2000).
    #[serde(default)]
    #[schemars(range(min = 1))]
    budget: Option<u64>,
    /// Only the nodes whose text holds every one of these words (ignoring case); a match
    /// warms the node.
    #[serde(default)]
    query: Option<String>,
}

/// One node of the tree, without its text.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct TreeNode {
    /// Open it with `memory_get`.
    id: String,
    /// The enclosing heading's id.
    parent: Option<String>,
    /// The file it is in.
    file: String,
    /// heading, list, kv, table, preamble, text, code or embed.
    node_type: String,
    /// Its first meaningful line.
    label: String,
    /// Tokens of the whole node.
    tokens: u64,
    /// How warm it is: recently opened nodes come first.
    temperature: f64,
}

/// The memory tree, hottest first.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct TreeOut {
    /// The nodes that fit the budget.
    nodes: Vec<TreeNode>,
    /// Nodes left out for the budget.
    omitted: usize,
    /// Tokens of the listing.
    tokens: u64,
}

fn memory_tree(session: &Session, args: TreeArgs) -> Result<TreeOut, ToolError> {
    let budget = args.budget.unwrap_or(2000);
    if budget == 0 {
        return Err(ToolError::invalid("budget", "must be at least 1 token"));
    }
    let (ctx, ledger) = session.ledger()?;
    let memory = Memory::open(&ctx, &ledger)?;
    let tree = match args.query.as_deref() {
        Some(q) => memory.tree_matching(q, Some(budget))?,
        None => memory.tree(Some(budget))?,
    };
    Ok(TreeOut {
        nodes: tree
            .nodes
            .into_iter()
            .map(|n| TreeNode {
                id: n.id,
                parent: n.parent,
                file: n.file,
                node_type: n.node_type.as_str().to_owned(),
                label: n.label,
                tokens: n.tokens,
                temperature: n.temperature,
            })
            .collect(),
        omitted: tree.omitted,
        tokens: tree.tokens,
    })
}

pub(crate) fn memory_tree_tool() -> ToolDef {
    def(
        "memory_tree",
        "The project's memory and instructions as a tree",
        "MEMORY.md (accepted memories), CLAUDE.md and AGENTS.md as typed nodes (heading, list, \
kv, table, preamble, text, code, embed) with ids, labels and token counts, hottest first \
within a token budget; with `query`, only the nodes holding its words. Open the nodes you \
need with `memory_get`.",
        Effect::Reads,
        memory_tree,
    )
}

/// Which node.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GetArgs {
    /// A node id from `memory_tree`.
    #[schemars(regex(pattern = "^[0-9a-f]{12}$"))]
    id: String,
}

/// One node in full.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct NodeOut {
    /// Its id.
    id: String,
    /// The file it is in.
    file: String,
    /// The line it starts on.
    line: usize,
    /// Its kind.
    node_type: String,
    /// Its text as written.
    text: String,
    /// Tokens of the text.
    tokens: u64,
}

fn memory_get(session: &Session, args: GetArgs) -> Result<NodeOut, ToolError> {
    let (ctx, ledger) = session.ledger()?;
    let n = Memory::open(&ctx, &ledger)?.get(args.id.trim())?;
    Ok(NodeOut {
        id: n.id,
        file: n.file,
        line: n.line,
        node_type: n.node_type.as_str().to_owned(),
        text: n.text,
        tokens: n.tokens,
    })
}

pub(crate) fn memory_get_tool() -> ToolDef {
    def(
        "memory_get",
        "Open one memory-tree node",
        "The full text of one node of `memory_tree`. Opening a node warms it: it is listed \
earlier next time.",
        Effect::Writes,
        memory_get,
    )
}

/// A memory to propose.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProposeArgs {
    /// A short title, one line (the same title proposes the same memory again).
    title: String,
    /// What should outlive this task: a preference, a convention, a hard-won fact.
    text: String,
    /// Ledger event ids it rests on (e.g. `["e12"]`): when a newer event supersedes or
    /// resolves one, the memory is shown as no longer current.
    #[serde(default)]
    cites: Vec<String>,
}

/// A proposal and where it stands.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct ProposalOut {
    /// `slug--uuid`: what a person accepts with `remaind memory accept ID`.
    id: String,
    /// Its title.
    title: String,
    /// proposed, accepted or rejected.
    status: String,
    /// The events that proposed and decided it.
    events: Vec<String>,
}

fn memory_propose(session: &Session, args: ProposeArgs) -> Result<ProposalOut, ToolError> {
    let cites = args
        .cites
        .iter()
        .map(|c| {
            c.parse().map_err(|_| {
                ToolError::invalid(
                    "cites",
                    format!("`{c}` is not an event id; give one like e12"),
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (ctx, ledger) = session.ledger()?;
    let p = Memory::open(&ctx, &ledger)?.propose_citing(&args.title, &args.text, &cites)?;
    Ok(ProposalOut {
        id: p.id,
        title: p.title,
        status: match p.status {
            Status::Proposed => "proposed",
            Status::Accepted => "accepted",
            Status::Rejected => "rejected",
        }
        .to_owned(),
        events: p.events.iter().map(ToString::to_string).collect(),
    })
}

pub(crate) fn memory_propose_tool() -> ToolDef {
    def(
        "memory_propose",
        "Propose a long-term memory",
        "Propose something that should outlive this task (a user preference, a project \
convention, a fact about the codebase learned the hard way). A person reviews it: once \
accepted it is in MEMORY.md and in every resume packet. Invalid input names the field and \
writes nothing.",
        Effect::Writes,
        memory_propose,
    )
}

/// No arguments but a limit.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LoopsArgs {
    /// At most this many, newest kept (1-200, default 50).
    #[serde(default)]
    #[schemars(range(min = 1, max = 200))]
    limit: Option<usize>,
}

/// One open loop.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct LoopOut {
    /// The event, e.g. "e42"; close it by recording a `result` that `resolves` it.
    id: String,
    /// blocker or next_step.
    kind: String,
    /// When it was recorded.
    ts: String,
    /// What is open.
    text: String,
}

/// The open loops, oldest first.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct LoopsOut {
    /// Blockers and next steps no later event resolved or superseded.
    loops: Vec<LoopOut>,
}

fn open_loops(session: &Session, args: LoopsArgs) -> Result<LoopsOut, ToolError> {
    let limit = args.limit.unwrap_or(50);
    if !(1..=200).contains(&limit) {
        return Err(ToolError::invalid(
            "limit",
            format!("{limit} is out of range; give 1 to 200"),
        ));
    }
    let (ctx, ledger) = session.ledger()?;
    let events = session.with_index(&ctx, &ledger, |index| Ok(index.open_loops(limit)?))?;
    Ok(LoopsOut {
        loops: events
            .into_iter()
            .map(|e| LoopOut {
                id: e.id.to_string(),
                kind: e.kind.as_str().to_owned(),
                ts: e.ts,
                text: e.text.unwrap_or_default(),
            })
            .collect(),
    })
}

pub(crate) fn open_loops_tool() -> ToolDef {
    def(
        "open_loops",
        "Open loops",
        "Blockers and next steps that no later event resolved or superseded, oldest first. \
Close one by recording a `result` whose `resolves` names it.",
        Effect::Reads,
        open_loops,
    )
}
