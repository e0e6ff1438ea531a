//! Where the context stands (`remaind status`): the lifecycle snapshot (band, last
//! compaction, ledger head, next step, the resume gate's verdict) with the search index's
//! freshness. Writes nothing.

use remaind_fs::ContextDir;
use remaind_index::{Freshness, Index};
use remaind_ledger::Ledger;
use serde::Serialize;

use crate::Result;

/// What [`status`] read. Serialized as `remaind status --json` prints it: the snapshot's
/// fields, then `index` (`indexed_seq`, `ledger_head`, `stale`, or null).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Status {
    /// The lifecycle snapshot.
    #[serde(flatten)]
    pub context: remaind_resume::Status,
    /// How far the search index is behind the ledger; `None` when it cannot be read.
    #[serde(serialize_with = "freshness")]
    pub index: Option<Freshness>,
}

/// Reads the folder's status and its index's freshness without changing anything (no
/// packet, no `monitor` event, the index not brought up to date).
pub fn status(ctx: &ContextDir) -> Result<Status> {
    let context = remaind_resume::status(ctx)?;
    Ok(Status {
        context,
        index: index_freshness(ctx),
    })
}

/// The search index's freshness, read without changing anything; `None` when it cannot be
/// read.
fn index_freshness(ctx: &ContextDir) -> Option<Freshness> {
    let ledger = Ledger::open(ctx.root()).ok()?;
    let index = Index::open(ctx.root(), &ledger).ok()?;
    index.freshness().ok()
}

fn freshness<S: serde::Serializer>(
    index: &Option<Freshness>,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Fields {
        indexed_seq: u64,
        ledger_head: u64,
        stale: bool,
    }
    index
        .map(|f| Fields {
            indexed_seq: f.indexed_seq,
            ledger_head: f.ledger_head,
            stale: f.stale,
        })
        .serialize(serializer)
}
