//! The open loops (`remaind loops`): `blocker` and `next_step` events nothing resolved or
//! superseded yet, listed from the index, and closed by a `result` event that resolves one.
//! Both bring the loop files under `memory/loops/` up to date.

use remaind_events::{Event, EventId, Kind, NewEvent, Status};
use remaind_fs::ContextDir;
use remaind_index::{Index, LOOP_KINDS};
use remaind_ledger::Ledger;
use remaind_memory::Memory;

use crate::{Error, Result};

/// The open loops, oldest first, at most `limit` (the newest kept; at least 1).
pub fn open_loops(ctx: &ContextDir, limit: usize) -> Result<Vec<Event>> {
    let ledger = Ledger::open(ctx.root())?;
    if limit == 0 {
        return Err(Error::ZeroLimit);
    }
    let mut index = Index::open(ctx.root(), &ledger)?;
    let loops = index.open_loops(limit)?;
    // The loop files are derived: listing brings them up to date.
    Memory::open(ctx, &ledger)?.sync()?;
    Ok(loops)
}

/// Closes the open loop `loop_id` with a `result` event whose text is `text` and which
/// resolves it; returns the new event's id. Refused when the text is blank or the event is
/// not a current blocker or next step.
pub fn resolve_loop(ctx: &ContextDir, loop_id: EventId, text: &str) -> Result<EventId> {
    let ledger = Ledger::open(ctx.root())?;
    if text.trim().is_empty() {
        return Err(Error::NoResolution);
    }
    let open = ledger
        .get(loop_id.seq())?
        .filter(|e| LOOP_KINDS.contains(&e.kind))
        .is_some_and(|_| matches!(ledger.status(loop_id), Ok(Some(Status::Current))));
    if !open {
        return Err(Error::NotAnOpenLoop { id: loop_id });
    }
    let new = ledger.append(NewEvent {
        kind: Some(Kind::Result),
        text: Some(text.to_owned()),
        resolves: vec![loop_id],
        ..NewEvent::default()
    })?[0];
    Memory::open(ctx, &ledger)?.sync()?;
    Ok(new)
}
