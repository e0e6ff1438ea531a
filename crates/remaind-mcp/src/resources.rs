//! Resources: the derived files an agent reads whole (handover, state, last resume packet)
//! and one event by id.

use remaind_fs::layout::{HANDOVER_FILE, PACKET_FILE, STATE_FILE};
use rmcp::ErrorData;
use rmcp::model::{Resource, ResourceContents, ResourceTemplate};

use crate::error::chain;
use crate::session::Session;
use crate::tools::parse_id;

/// The handover (markdown).
pub const HANDOVER_URI: &str = "remaind://handover";
/// The state (JSON).
pub const STATE_URI: &str = "remaind://state";
/// The last resume packet (markdown).
pub const PACKET_URI: &str = "remaind://resume-packet";
/// One event by id: `remaind://events/e42`.
pub const EVENT_URI_TEMPLATE: &str = "remaind://events/{id}";
const EVENT_URI_PREFIX: &str = "remaind://events/";

/// The derived files, by URI: (uri, file under active/, name, description, MIME type).
const FILES: [(&str, &str, &str, &str, &str); 3] = [
    (
        HANDOVER_URI,
        HANDOVER_FILE,
        "handover",
        "The handover of the last accepted compaction: what a fresh session needs to go on, \
every line citing its events.",
        "text/markdown",
    ),
    (
        STATE_URI,
        STATE_FILE,
        "state",
        "The validated state of the last accepted compaction: goal, decisions, constraints, \
open items, next step, each citing events.",
        "application/json",
    ),
    (
        PACKET_URI,
        PACKET_FILE,
        "resume-packet",
        "The last resume packet built (call the `resume` tool for a fresh one).",
        "text/markdown",
    ),
];

pub(crate) fn list() -> Vec<Resource> {
    FILES
        .iter()
        .map(|(uri, _, name, description, mime)| {
            Resource::new(*uri, *name)
                .with_description(*description)
                .with_mime_type(*mime)
        })
        .collect()
}

pub(crate) fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(EVENT_URI_TEMPLATE, "event")
            .with_description("One full event from the ledger by id, e.g. remaind://events/e42.")
            .with_mime_type("application/json"),
    ]
}

fn internal(err: &(dyn std::error::Error + 'static)) -> ErrorData {
    ErrorData::internal_error(chain(err), None)
}

/// Read one resource: its text, or a JSON-RPC error (unknown URI, not written yet, no such
/// event).
pub(crate) fn read(session: &Session, uri: &str) -> Result<ResourceContents, ErrorData> {
    if let Some((_, file, _, _, mime)) = FILES.iter().find(|f| f.0 == uri) {
        let ctx = session
            .context()
            .map_err(|e| ErrorData::internal_error(e.message, None))?;
        let store = remaind_compact::open_store(ctx.root()).map_err(|e| internal(&e))?;
        // The history store refuses a symlink or special file under active/.
        let bytes = store.read(*file).map_err(|e| internal(&e))?;
        let Some(bytes) = bytes else {
            let hint = if *file == PACKET_FILE {
                "call the `resume` tool to build one"
            } else {
                "call the `compact` tool to write it"
            };
            return Err(ErrorData::resource_not_found(
                format!("{uri}: active/{file} does not exist yet; {hint}"),
                None,
            ));
        };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        return Ok(ResourceContents::text(text, uri).with_mime_type(*mime));
    }
    if let Some(id) = uri.strip_prefix(EVENT_URI_PREFIX) {
        let id = parse_id("uri", id).map_err(|e| ErrorData::invalid_params(e.message, None))?;
        let (_, ledger) = session
            .ledger()
            .map_err(|e| ErrorData::internal_error(e.message, None))?;
        let ev = ledger.get(id.seq()).map_err(|e| internal(&e))?;
        let Some(ev) = ev else {
            return Err(ErrorData::resource_not_found(
                format!("{uri}: no event {id} in the ledger"),
                None,
            ));
        };
        let json = serde_json::to_string_pretty(&ev).map_err(|e| internal(&e))?;
        return Ok(ResourceContents::text(json, uri).with_mime_type("application/json"));
    }
    Err(ErrorData::resource_not_found(
        format!(
            "unknown resource {uri}; known: {HANDOVER_URI}, {STATE_URI}, {PACKET_URI}, {EVENT_URI_TEMPLATE}"
        ),
        None,
    ))
}
