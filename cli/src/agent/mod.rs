//! The agent host: the agents' hooks ([`hook`]: a payload on stdin, core's verdict in the
//! agent's own answer, within a bound), the after-tool check on disk ([`after`]), work in flight ([`flight`]) and the MCP
//! server ([`mcp`]), each running the operations (`crate::ops`) the commands run.

pub mod after;
pub mod flight;
pub mod hook;
pub mod mcp;
