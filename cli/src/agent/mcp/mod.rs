//! `rail mcp`: the rail as an MCP server on stdio, for agents that call tools.
//!
//! Every tool is a CLI command's own function (`tools.rs`), so a claim made through MCP takes
//! the same lock, journal and rules as `rail claim`; the server decides nothing itself.
//!
//! - **Session.** No tool takes a session: each call acts as the session the CLI would in the
//!   server's place — `rail mcp --session S`, else `RAIL_SESSION` in its environment, else the
//!   branch checked out in its working directory, read afresh at each call. An agent's server
//!   speaks for that agent; a tool call cannot act as another session (the CLI's `--session`
//!   is for people and scripts, who name themselves on their own command line). Another
//!   session's stale claim is taken over with `take`, as on the command line.
//! - **Runtime.** tokio lives only inside this command, on a current-thread runtime: other
//!   commands start as fast as before. A call's blocking work (the lock, files, git) runs on
//!   tokio's blocking pool, one call at a time (calls from one agent are serial anyway, and two
//!   in one process would only queue on the lock), so the protocol keeps being read meanwhile.
//! - **stdout** carries JSON-RPC only (`out::reserve_stdout_for_protocol`: anything a command
//!   would print goes to stderr); notes such as a recovered lock go to stderr, which clients log.
//! - **Ends** at the end of its input (the client closed it), exit 0.

mod stdio;
pub mod tools;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};

use crate::fail::Fail;
use tools::{Name, Options};

const INSTRUCTIONS: &str = "Rail shares one git repository between several agent sessions. Before editing files, `claim` your task with the paths (globs) and resources it will change; if another session holds them the call fails and names the holder. `release` it when done, `renew` it on long work. `who` tells who holds a path, `board` shows every claim, `ready` lists backlog tasks free to start, `check` compares your changes with your claims.";

/// The server: the flags every call's context is made from, and the one-call-at-a-time turn.
#[derive(Clone, Debug)]
struct Server {
    opts: Arc<Options>,
    turn: Arc<tokio::sync::Mutex<()>>,
    instructions: String,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("rail", env!("CARGO_PKG_VERSION")).with_title("Rail"),
            )
            .with_instructions(self.instructions.clone())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::list()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        Name::parse(name).map(|_| tools::list().into_iter().find(|t| t.name == name))?
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(name) = Name::parse(&request.name) else {
            let known: Vec<&str> = Name::ALL.iter().map(|n| n.as_str()).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`; rail's tools: {}",
                    request.name,
                    known.join(", ")
                ),
                None,
            ));
        };
        let arguments = request.arguments.unwrap_or_default();
        let opts = self.opts.clone();
        let _turn = self.turn.lock().await;
        let done = tokio::task::spawn_blocking(move || tools::call(&opts, name, arguments)).await;
        Ok(match done {
            Ok(result) => result,
            // A bug, not the caller's fault: say so as a tool error, keep serving.
            Err(e) => CallToolResult::error(vec![ContentBlock::text(format!(
                "rail: internal error in `{}` ({e}); nothing is known to have changed — check with the `board` tool",
                name.as_str()
            ))]),
        }
        .into())
    }
}

/// `rail mcp`: serves until the client closes stdin.
pub fn serve(opts: Options) -> Result<(), Fail> {
    crate::out::reserve_stdout_for_protocol();
    let instructions = match opts.ctx(Name::Board).and_then(|ctx| ctx.session()) {
        Ok(session) => format!("{INSTRUCTIONS} You act as session `{session}`."),
        Err(f) => {
            errln!(
                "rail mcp: {} (tools that need a session will fail until this is fixed)",
                f.message
            );
            INSTRUCTIONS.to_string()
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Fail::env(format!("rail mcp: cannot start its runtime: {e}")))?;
    let server = Server {
        opts: Arc::new(opts),
        turn: Arc::new(tokio::sync::Mutex::new(())),
        instructions,
    };
    let ended = runtime.block_on(async move {
        let transport = stdio::Lines::start(tokio::io::stdin(), tokio::io::stdout());
        match server.serve(transport).await {
            Ok(running) => running
                .waiting()
                .await
                .map(drop)
                .map_err(|e| Fail::env(format!("rail mcp: the server stopped: {e}"))),
            // The client left before the handshake: nothing to serve.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
            Err(e) => Err(Fail::env(format!("rail mcp: {e}"))),
        }
    });
    // Standard input's reader may still sit in a blocking read: do not wait for it.
    runtime.shutdown_background();
    ended
}
