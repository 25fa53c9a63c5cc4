//! `rail mcp`: an MCP server on stdio, the rail's operations as tools for agents
//! (`crate::agent::mcp`; docs/agents.md).

use crate::context::Flags;
use crate::fail::Fail;

/// Serves until the client closes stdin. Each tool call makes its own context (the time and the
/// branch are read per call).
pub fn run(flags: Flags, fetch: bool) -> Result<(), Fail> {
    crate::sys::env::serving_mcp();
    crate::agent::mcp::serve(crate::agent::mcp::tools::Options {
        rail: flags.rail,
        session: flags.session,
        now: flags.now,
        fetch,
    })
}
