//! The tools, one module per family: `record` (the model's own events), `read` (search,
//! timeline, get_events: three steps so an agent pays tokens only for what it opens) and
//! `context` (resume, status, monitor, compact) and `memory` (the memory tree, proposals,
//! open loops).

pub(crate) mod context;
pub(crate) mod memory;
pub(crate) mod read;
pub(crate) mod record;

use remaind_events::{EventId, Status};

use crate::error::ToolError;

/// Parse an event id given in `field`.
pub(crate) fn parse_id(field: &str, s: &str) -> Result<EventId, ToolError> {
    s.trim()
        .parse::<EventId>()
        .map_err(|e| ToolError::invalid(field, e))
}

/// `current`, `superseded` or `resolved`, and the event that did it.
pub(crate) fn status_parts(status: Status) -> (&'static str, Option<String>) {
    match status {
        Status::Current => ("current", None),
        Status::Superseded { by } => ("superseded", Some(by.to_string())),
        Status::Resolved { by } => ("resolved", Some(by.to_string())),
    }
}
