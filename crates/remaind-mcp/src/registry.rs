//! The tool table: one entry per tool, built from its input and output types, so adding a
//! tool is one line in [`all`] plus its handler.
//!
//! Arguments are parsed here, not by rmcp's extractor, so that a malformed argument is a
//! tool error naming the field (the model can fix it and retry) rather than a JSON-RPC error
//! the client shows as an opaque failure.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::ToolError;
use crate::session::Session;
use crate::tools;

type Handler = dyn Fn(&Session, JsonObject) -> Result<Value, ToolError> + Send + Sync;

/// One tool: what `tools/list` shows and what `tools/call` runs.
pub(crate) struct ToolDef {
    pub(crate) tool: Tool,
    handler: Arc<Handler>,
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDef")
            .field("name", &self.tool.name)
            .finish_non_exhaustive()
    }
}

/// How a tool touches the context folder, for the client's annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Reads only.
    Reads,
    /// Appends to the ledger or replaces derived files (never destroys anything: the ledger
    /// is append-only and derived files keep their history).
    Writes,
}

/// A tool taking `I` and answering `O` (both with JSON Schemas the client sees).
pub(crate) fn def<I, O>(
    name: &'static str,
    title: &'static str,
    description: &'static str,
    effect: Effect,
    run: fn(&Session, I) -> Result<O, ToolError>,
) -> ToolDef
where
    I: DeserializeOwned + JsonSchema + 'static,
    O: Serialize + JsonSchema + 'static,
{
    let input = rmcp::handler::server::tool::schema_for_type::<I>();
    let mut output = (*rmcp::handler::server::tool::schema_for_output::<O>()).clone();
    terse(&mut output);
    let annotations = ToolAnnotations::with_title(title)
        .read_only(effect == Effect::Reads)
        .destructive(false)
        .idempotent(effect == Effect::Reads)
        .open_world(false);
    let tool = Tool::new(name, description, input)
        .with_title(title)
        .with_raw_output_schema(Arc::new(output))
        .with_annotations(annotations);
    let handler = move |session: &Session, args: JsonObject| -> Result<Value, ToolError> {
        let input: I = parse_args(args)?;
        let out = run(session, input)?;
        serde_json::to_value(out).map_err(|e| ToolError {
            message: format!("cannot serialize the result: {e}"),
            invalid_input: false,
        })
    };
    ToolDef {
        tool,
        handler: Arc::new(handler),
    }
}

/// An output schema without the prose no client reads: clients validate `structuredContent`
/// against its shape, and the model reads the input schema and the tool's description. The
/// descriptions made up half of `tools/list`, paid by every session.
fn terse(schema: &mut JsonObject) {
    schema.remove("$schema");
    terse_schema(schema);
}

/// Strips one schema object and every schema under it. The maps of named schemas
/// (`properties`, `$defs`) are walked by value, so a field called `description` stays.
fn terse_schema(schema: &mut JsonObject) {
    schema.remove("description");
    schema.remove("title");
    for (key, value) in schema.iter_mut() {
        match (key.as_str(), value) {
            (
                "properties" | "$defs" | "definitions" | "patternProperties",
                Value::Object(named),
            ) => {
                for sub in named.values_mut() {
                    if let Value::Object(sub) = sub {
                        terse_schema(sub);
                    }
                }
            }
            (_, Value::Object(sub)) => terse_schema(sub),
            (_, Value::Array(items)) => {
                for item in items {
                    if let Value::Object(sub) = item {
                        terse_schema(sub);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Arguments into `I`, with an error naming the field at fault.
pub(crate) fn parse_args<I: DeserializeOwned>(args: JsonObject) -> Result<I, ToolError> {
    serde_path_to_error::deserialize(Value::Object(args)).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        // serde names a missing or unknown field in its message, at the parent's path.
        let field = if path == "." {
            field_in_message(&inner).unwrap_or_else(|| "arguments".to_owned())
        } else {
            path
        };
        ToolError::invalid(&field, strip_position(&inner))
    })
}

/// The field a serde message names in backticks (`missing field \`kind\``).
fn field_in_message(msg: &str) -> Option<String> {
    let start = msg.find('`')? + 1;
    let len = msg[start..].find('`')?;
    Some(msg[start..start + len].to_owned())
}

/// serde_json appends "at line 1 column 5" to messages about a `Value` input: meaningless
/// to a caller who sent JSON-RPC.
fn strip_position(msg: &str) -> &str {
    msg.find(" at line ").map_or(msg, |i| &msg[..i])
}

/// All tools, in the order `tools/list` shows them. Add a tool here.
pub(crate) fn all() -> Vec<ToolDef> {
    vec![
        tools::record::record_tool(),
        tools::read::search_tool(),
        tools::read::timeline_tool(),
        tools::read::get_events_tool(),
        tools::context::resume_tool(),
        tools::context::status_tool(),
        tools::context::monitor_tool(),
        tools::context::compact_tool(),
        tools::memory::memory_tree_tool(),
        tools::memory::memory_get_tool(),
        tools::memory::memory_propose_tool(),
        tools::memory::open_loops_tool(),
    ]
}

impl ToolDef {
    /// Run the tool: structured content on success, a tool error (`isError: true`) with one
    /// text line naming the field or the failure otherwise.
    pub(crate) fn call(&self, session: &Session, args: JsonObject) -> CallToolResult {
        match (self.handler)(session, args) {
            Ok(value) => CallToolResult::structured(value),
            Err(err) => CallToolResult::error(vec![ContentBlock::text(err.message)]),
        }
    }
}
