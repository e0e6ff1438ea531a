//! The command line of `remaind mcp`: its arguments and their help.

/// Serve the Model Context Protocol on stdin/stdout: agents record decisions, corrections,
/// constraints, results and the next step, and read their context back, through tools
/// (record, search, timeline, get_events, resume, status, monitor, compact), resources
/// (remaind://handover, remaind://state, remaind://resume-packet, remaind://events/{id}) and
/// the `remaind-usage` prompt. Stdout carries only protocol messages; the `.context/` folder
/// is found like every other command (--dir, REMAIND_DIR, else the nearest), on every call.
#[derive(Debug, clap::Args)]
#[command(after_help = "Setup (one line each):\n  \
Claude Code:  claude mcp add remaind -- remaind mcp\n  \
Codex:        ~/.codex/config.toml: [mcp_servers.remaind] command = \"remaind\" args = [\"mcp\"]\n  \
Cursor:       .cursor/mcp.json: {\"mcpServers\":{\"remaind\":{\"command\":\"remaind\",\"args\":[\"mcp\"]}}}\n  \
Gemini CLI:   gemini mcp add remaind remaind mcp\n\n\
Examples:\n  remaind mcp\n  remaind --dir /work/project/.context mcp\n\n\
See docs/mcp.md for the tools and recipes combining hooks with MCP.")]
pub(crate) struct Args {}
