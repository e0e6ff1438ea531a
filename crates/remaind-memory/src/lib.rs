//! Long-term memory for a `.context/` folder: what should outlive a task (a preference, a
//! convention, a hard-won fact about the codebase), reviewed before it is trusted, and the
//! project's instruction files as a tree an agent opens node by node.
//!
//! This layer owns the `memory/` folder: memory *proposals* (one Markdown file each, named
//! `{slug}--{uuid-v5 of the title}.md` so the same title is always the same file), the
//! `MEMORY.md` a person reads and edits by hand, the archive of every accept and reject, and
//! the memory tree's use counts. The ledger stays the authority: every action is a `note`
//! event with `data.memory` (and every `remember` event proposes itself, titled by its
//! first line), and the files are projected from those events; a hand edit of
//! `MEMORY.md` is recorded as an event by the next memory command, never lost. It knows
//! nothing of compaction, the resume packet or the CLI: those layers read it.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let tmp = tempfile::tempdir()?;
//! # let root = camino::Utf8PathBuf::from_path_buf(tmp.path().join(".context")).map_err(|_| "utf-8")?;
//! # let ctx = remaind_fs::ContextDir::new(root);
//! remaind_ledger::Ledger::create(ctx.root())?;
//! let ledger = remaind_ledger::Ledger::open(ctx.root())?;
//! let memory = remaind_memory::Memory::open(&ctx, &ledger)?;
//! let p = memory.propose("Test command", "Run `cargo xtask ci` before every push.")?;
//! memory.accept(&p.id)?;
//! let tree = memory.tree(Some(2000))?;
//! assert!(tree.nodes.iter().any(|n| n.label == "Test command"));
//! # Ok(()) }
//! ```

mod cache;
mod error;
mod project;
mod store;
mod tree;

pub use error::{Error, Result};
pub use project::{Proposal, Status};
pub use store::{
    FlushItem, Memory, history, lag, loop_id, memory_for_packet, proposal_id, restore_to, slug,
};
pub use tree::{
    Node, NodeType, TokenizerName, Tree, TreeEntry, compile, render_listing, select, temperature,
};
