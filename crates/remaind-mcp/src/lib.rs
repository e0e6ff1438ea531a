//! The Remaind MCP server: agents record the facts only they know (decisions, corrections,
//! constraints, results, the next step) and read their context back through MCP tools,
//! resources and a prompt, over stdio (`remaind mcp`).
//!
//! This layer owns the MCP surface: the tool table (`record`, `search`, `timeline`,
//! `get_events`, `resume`, `status`, `monitor`, `compact`) with input and output JSON
//! Schemas, the resources (`remaind://handover`, `remaind://state`,
//! `remaind://resume-packet`, `remaind://events/{id}`), the usage prompt, and the stdio
//! session. It is built on rmcp, the official Rust SDK. Every tool is one call into the
//! layers below (the ledger's append with its validation, redaction and artifact routing;
//! the index's search and slices; compaction; resume, gate, status and monitor), so a tool
//! and the command of the same name give the same answer. It must not know about argument
//! parsing or terminals, and it never writes to stdout anything but protocol messages.
//!
//! Invariants:
//! - invalid tool input is a tool error (`isError: true`) naming the field, and nothing is
//!   written;
//! - nothing is cached that another process can change: every call reads the ledger head
//!   afresh, catches the index up, and reopens the ledger when its configuration changed;
//! - every request with an id gets a reply: a malformed one (not JSON-RPC, not parsable by
//!   serde_json, over 16 MiB) a JSON-RPC error at the id a lenient scan finds, and the
//!   session goes on;
//! - tool arguments are read as the CLI reads an event: a repeated key is a tool error.
//!
//! ```
//! use remaind_mcp::{Locator, Server};
//!
//! let server = Server::new(Locator { explicit: Some(".context".into()), cwd: "/".into() });
//! let names: Vec<String> = server.tools().iter().map(|t| t.name.to_string()).collect();
//! assert_eq!(
//!     names,
//!     [
//!         "record", "search", "timeline", "get_events", "resume", "status", "monitor",
//!         "compact", "memory_tree", "memory_get", "memory_propose", "open_loops",
//!     ]
//! );
//! // `remaind_mcp::serve_stdio(locator)` runs it on stdin/stdout until the client leaves.
//! ```

mod error;
mod frames;
mod prompt;
mod registry;
mod resources;
mod server;
mod session;
mod tools;

pub use error::Error;
pub use prompt::{PROMPT_NAME, USAGE};
pub use resources::{EVENT_URI_TEMPLATE, HANDOVER_URI, PACKET_URI, STATE_URI};
pub use server::Server;
pub use session::Locator;

use rmcp::ServiceExt;

/// Serve MCP on stdin/stdout until the client closes the connection.
///
/// The context folder is looked up per call (see [`Locator`]), so the server starts even
/// before `remaind init`, and its tools say what to do until the folder exists.
pub fn serve_stdio(locator: Locator) -> Result<(), Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    runtime.block_on(async move {
        let (stdin, stdout) = rmcp::transport::stdio_pipes();
        serve(locator, stdin, stdout).await
    })
}

/// Serve MCP on any byte stream pair (newline-delimited JSON-RPC) until `read` ends: what
/// [`serve_stdio`] runs, usable in-process (tests, embedding) on a tokio runtime.
pub async fn serve<R, W>(locator: Locator, read: R, write: W) -> Result<(), Error>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let (out, frames) = tokio::sync::mpsc::unbounded_channel();
    let transport = frames::Frames::new(read, out);
    let session = async move {
        let running = Server::new(locator)
            .serve(transport)
            .await
            .map_err(|e| Error::Session {
                reason: e.to_string(),
            })?;
        running.waiting().await.map_err(|e| Error::Session {
            reason: e.to_string(),
        })?;
        Ok(())
    };
    // The writer ends once the session dropped the transport and every reply is written.
    let (ended, written) = tokio::join!(session, frames::write_frames(write, frames));
    ended?;
    written.map_err(|e| Error::Session {
        reason: format!("cannot write to the client: {e}"),
    })
}
