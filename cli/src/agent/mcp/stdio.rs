//! The MCP stdio transport: one JSON-RPC message per line in, one per line out.
//!
//! rmcp has its own (`transport-io`), but it drops a line that is not JSON without a word
//! (rust-sdk issue 938: answering garbage can start an error storm between two programs that
//! both answer). Rail answers it once with a JSON-RPC parse error (`-32700`, id `null`), as the
//! JSON-RPC 2.0 specification asks, and goes on reading: an agent or a person typing at the
//! server learns what was wrong. A line that is JSON but not a message gets `-32600` with its
//! id when it has one; a notification that is not understood gets no answer (notifications are
//! never answered). Lines are bounded ([`MAX_LINE`]), and so are the requests in hand
//! ([`MAX_PENDING`]): a request is read only while fewer than that are read and not yet answered
//! on stdout, so a client that sends without reading stops being read instead of making the
//! server keep every answer (issue 41: 607 MB after 40,000 unread requests, and growing). Two
//! rules keep "answered" exact: a request whose id is still pending is refused at once
//! (`-32600`; JSON-RPC ids are unique among pending requests), and a cancellation
//! (`notifications/cancelled`) is not passed on, so every request read gets its answer — the MCP
//! specification lets a server answer a cancelled request, and the client ignores that answer;
//! Rail's tools are short and do not stop halfway anyway.
//!
//! One writer owns stdout ([`Writer`]): rmcp's answers and the transport's own error answers
//! each go out as one whole line under its lock, never interleaved.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::sync::Arc;

use rmcp::model::{ClientNotification, JsonRpcMessage, RequestId};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, Mutex, OwnedSemaphorePermit, Semaphore};

/// The longest message read: 4 MiB (a tool call's arguments are a few hundred bytes).
pub const MAX_LINE: usize = 4 << 20;

/// The most requests read and not yet answered: past it the server reads no more until an
/// answer has been written (an agent waits for each answer; 32 is far more than any sends).
pub const MAX_PENDING: usize = 32;

/// JSON-RPC's "Parse error".
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "Invalid Request".
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's "Invalid params".
pub const INVALID_PARAMS: i64 = -32602;

/// The MCP requests whose parameters are an object that must be there: without it rmcp reads
/// the message as some other, unknown request and answers "Method not found", which tells a
/// client its method does not exist when its parameters are what is wrong.
const NEEDS_PARAMS: &[&str] = &[
    "initialize",
    "tools/call",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
];

/// The transport rmcp serves on: messages from the reader task, answers through [`Writer`].
#[derive(Debug)]
pub struct Lines<W> {
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleServer>>,
    out: Writer<W>,
    pending: Pending,
}

/// The requests read and not yet answered, each holding one of [`MAX_PENDING`] permits until
/// its answer is written.
#[derive(Clone, Debug)]
struct Pending {
    permits: Arc<Semaphore>,
    by_id: Arc<std::sync::Mutex<HashMap<String, OwnedSemaphorePermit>>>,
}

impl Pending {
    fn new() -> Pending {
        Pending {
            permits: Arc::new(Semaphore::new(MAX_PENDING)),
            by_id: Arc::default(),
        }
    }

    /// A request id as a key: JSON's `1` and `"1"` are two ids.
    fn key(id: &RequestId) -> String {
        serde_json::to_string(id).unwrap_or_default()
    }

    fn holds(&self, id: &RequestId) -> bool {
        self.by_id
            .lock()
            .map(|m| m.contains_key(&Pending::key(id)))
            .unwrap_or(false)
    }

    /// Waits for a free place, then keeps it for `id`. `None`: the server is shutting down.
    async fn enter(&self, id: &RequestId) -> Option<()> {
        let permit = self.permits.clone().acquire_owned().await.ok()?;
        if let Ok(mut map) = self.by_id.lock() {
            map.insert(Pending::key(id), permit);
        }
        Some(())
    }

    /// `id` is answered: its place is free again.
    fn leave(&self, id: &RequestId) {
        if let Ok(mut map) = self.by_id.lock() {
            map.remove(&Pending::key(id));
        }
    }
}

/// The one writer of the output stream; cloning shares it.
#[derive(Debug)]
pub struct Writer<W>(Arc<Mutex<W>>);

impl<W> Clone for Writer<W> {
    fn clone(&self) -> Self {
        Writer(self.0.clone())
    }
}

impl<W: AsyncWrite + Unpin + Send> Writer<W> {
    /// Writes `line` and a newline, whole, and flushes.
    pub async fn line(&self, line: &[u8]) -> io::Result<()> {
        let mut out = self.0.lock().await;
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        out.write_all(&bytes).await?;
        out.flush().await
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> Lines<W> {
    /// Starts the reader task on `input` (inside a tokio runtime) and returns the transport.
    pub fn start<R: AsyncRead + Unpin + Send + 'static>(input: R, output: W) -> Lines<W> {
        let out = Writer(Arc::new(Mutex::new(output)));
        let (tx, rx) = mpsc::channel(16);
        let pending = Pending::new();
        tokio::spawn(read_loop(
            BufReader::new(input),
            tx,
            out.clone(),
            pending.clone(),
        ));
        Lines {
            incoming: rx,
            out,
            pending,
        }
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> Transport<RoleServer> for Lines<W> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let out = self.out.clone();
        let answered = match &item {
            JsonRpcMessage::Response(r) => Some(r.id.clone()),
            JsonRpcMessage::Error(e) => e.id.clone(),
            _ => None,
        };
        let pending = self.pending.clone();
        async move {
            let bytes = serde_json::to_vec(&item).map_err(io::Error::other);
            drop(item);
            let written = match bytes {
                Ok(bytes) => out.line(&bytes).await,
                Err(e) => Err(e),
            };
            // Written (or never to be: stdout is gone): the request's place is free.
            if let Some(id) = answered {
                pending.leave(&id);
            }
            written
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.incoming.close();
        Ok(())
    }
}

/// How a line read ended.
#[derive(Debug, PartialEq, Eq)]
enum Read {
    /// A line (its newline, if any, included) is in the buffer.
    Line,
    /// A line longer than the bound was read and dropped.
    TooLong,
    /// The input ended.
    End,
}

/// Reads one line into `buf` (cleared first), keeping at most `max` bytes. Cancel-safe is not
/// needed: only the reader task calls it, to completion.
async fn read_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<Read> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = input.fill_buf().await?;
        if chunk.is_empty() {
            // A last line without a newline still counts.
            return Ok(match (any, too_long) {
                (false, _) => Read::End,
                (true, true) => Read::TooLong,
                (true, false) => Read::Line,
            });
        }
        any = true;
        let (used, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !too_long {
            if buf.len() + used > max {
                too_long = true;
                buf.clear();
                buf.shrink_to_fit();
            } else {
                buf.extend_from_slice(&chunk[..used]);
            }
        }
        input.consume(used);
        if done {
            return Ok(if too_long { Read::TooLong } else { Read::Line });
        }
    }
}

async fn read_loop<R, W>(
    mut input: R,
    tx: mpsc::Sender<RxJsonRpcMessage<RoleServer>>,
    out: Writer<W>,
    pending: Pending,
) where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin + Send,
{
    let mut buf = Vec::new();
    loop {
        match read_line(&mut input, &mut buf, MAX_LINE).await {
            Ok(Read::End) => return,
            Ok(Read::TooLong) => {
                let answer = error_answer(
                    Value::Null,
                    INVALID_REQUEST,
                    &format!("message longer than {} bytes; ignored", MAX_LINE),
                );
                if out.line(answer.as_bytes()).await.is_err() {
                    return;
                }
                continue;
            }
            Ok(Read::Line) => {}
            Err(e) => {
                errln!("rail mcp: reading standard input: {e}");
                return;
            }
        }
        let line = trim(&buf);
        if line.is_empty() {
            continue;
        }
        if let Some(answer) = bad_params(line) {
            if out.line(answer.as_bytes()).await.is_err() {
                return;
            }
            continue;
        }
        match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
            Ok(JsonRpcMessage::Notification(n))
                if matches!(n.notification, ClientNotification::CancelledNotification(_)) =>
            {
                // Not passed on: the request it names is answered as every request is.
            }
            Ok(JsonRpcMessage::Request(request)) if pending.holds(&request.id) => {
                let answer = error_answer(
                    serde_json::to_value(&request.id).unwrap_or(Value::Null),
                    INVALID_REQUEST,
                    "Invalid Request: a request with this id is still pending (ids are unique among pending requests)",
                );
                if out.line(answer.as_bytes()).await.is_err() {
                    return;
                }
            }
            Ok(message) => {
                if let JsonRpcMessage::Request(request) = &message {
                    // Past MAX_PENDING unanswered requests, nothing more is read until an
                    // answer is written.
                    if pending.enter(&request.id).await.is_none() {
                        return;
                    }
                }
                if tx.send(message).await.is_err() {
                    return; // the service has stopped
                }
            }
            Err(e) => {
                if let Some(answer) = reject(line, &e) {
                    if out.line(answer.as_bytes()).await.is_err() {
                        return;
                    }
                }
            }
        }
    }
}

/// The line without its newline, a carriage return, a byte-order mark or surrounding blanks.
fn trim(line: &[u8]) -> &[u8] {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    line.trim_ascii()
}

/// The "Invalid params" answer to a request for a method of [`NEEDS_PARAMS`] whose `params` is
/// missing or not an object; `None` for anything else (notifications are never answered).
fn bad_params(line: &[u8]) -> Option<String> {
    let value = serde_json::from_slice::<Value>(line).ok()?;
    let method = value.get("method")?.as_str()?;
    let id = value
        .get("id")
        .filter(|id| id.is_string() || id.is_number())?;
    if !NEEDS_PARAMS.contains(&method) || value.get("params").is_some_and(Value::is_object) {
        return None;
    }
    Some(error_answer(
        id.clone(),
        INVALID_PARAMS,
        &format!("Invalid params: {method} takes its parameters as an object (`params`: {{...}})"),
    ))
}

/// The answer to a line that is not a message the server understands, if it gets one.
fn reject(line: &[u8], error: &serde_json::Error) -> Option<String> {
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Some(error_answer(
            Value::Null,
            PARSE_ERROR,
            &format!("Parse error: not JSON ({error})"),
        ));
    };
    let id = value.get("id").cloned();
    let is_request_or_notification = value.get("method").is_some();
    match id {
        // A notification is never answered, even one the server cannot read.
        None if is_request_or_notification => {
            errln!("rail mcp: ignored a notification it could not read: {error}");
            None
        }
        id => {
            let id = id
                .filter(|id| id.is_string() || id.is_number())
                .unwrap_or(Value::Null);
            Some(error_answer(
                id,
                INVALID_REQUEST,
                &format!("Invalid Request: not an MCP message this server reads ({error})"),
            ))
        }
    }
}

fn error_answer(id: Value, code: i64, message: &str) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message }
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(input: &[u8], max: usize) -> Vec<(Read, Vec<u8>)> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut r = BufReader::with_capacity(4, input);
            let mut out = Vec::new();
            let mut buf = Vec::new();
            loop {
                let read = read_line(&mut r, &mut buf, max).await.unwrap();
                if read == Read::End {
                    return out;
                }
                out.push((read, buf.clone()));
            }
        })
    }

    #[test]
    fn lines_are_bounded_and_the_last_needs_no_newline() {
        let got = read_all(b"ab\n0123456789\ncd", 5);
        assert_eq!(
            got,
            vec![
                (Read::Line, b"ab\n".to_vec()),
                (Read::TooLong, Vec::new()),
                (Read::Line, b"cd".to_vec()),
            ]
        );
    }

    /// A request whose id is still pending is refused at once; a cancellation is not passed
    /// on (so the request it names is answered as every one is); answering frees the id.
    #[test]
    fn pending_ids_are_unique_and_cancellations_stay_here() {
        use tokio::io::AsyncWriteExt;
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let (mut client, server_in) = tokio::io::duplex(1 << 16);
            let (server_out, client_out) = tokio::io::duplex(1 << 16);
            let mut lines = Lines::start(server_in, server_out);
            let mut answers = BufReader::new(client_out);
            let request =
                |id: u64| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
            let id_of = |m: &RxJsonRpcMessage<RoleServer>| match m {
                JsonRpcMessage::Request(r) => Some(r.id.clone()),
                _ => None,
            };
            client.write_all(request(1).as_bytes()).await.unwrap();
            let first = lines.receive().await.unwrap();
            assert_eq!(id_of(&first), Some(RequestId::Number(1)));
            // 1 is pending: the same id again is refused here, 2 goes on.
            client.write_all(request(1).as_bytes()).await.unwrap();
            let cancel =
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
            client
                .write_all(format!("{cancel}\n").as_bytes())
                .await
                .unwrap();
            client.write_all(request(2).as_bytes()).await.unwrap();
            let mut line = String::new();
            answers.read_line(&mut line).await.unwrap();
            let refused: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(refused["id"], 1);
            assert_eq!(refused["error"]["code"], INVALID_REQUEST);
            // The cancellation was not passed on: the next message is request 2.
            let second = lines.receive().await.unwrap();
            assert_eq!(id_of(&second), Some(RequestId::Number(2)));
            // Answering 1 frees its id.
            let answer: TxJsonRpcMessage<RoleServer> = serde_json::from_value(
                serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
            )
            .unwrap();
            lines.send(answer).await.unwrap();
            line.clear();
            answers.read_line(&mut line).await.unwrap();
            assert!(line.contains("\"id\":1"), "{line}");
            client.write_all(request(1).as_bytes()).await.unwrap();
            let again = lines.receive().await.unwrap();
            assert_eq!(id_of(&again), Some(RequestId::Number(1)));
        });
    }

    #[test]
    fn what_is_answered() {
        let err = |line: &str| {
            let e = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line.as_bytes())
                .unwrap_err();
            reject(line.as_bytes(), &e).map(|a| serde_json::from_str::<Value>(&a).unwrap())
        };
        let parse = err("{not json").unwrap();
        assert_eq!(parse["error"]["code"], PARSE_ERROR);
        assert_eq!(parse["id"], Value::Null);
        let invalid = err(r#"{"jsonrpc":"2.0","id":7,"method":3}"#).unwrap();
        assert_eq!(invalid["error"]["code"], INVALID_REQUEST);
        assert_eq!(invalid["id"], 7);
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","method":"notifications/x","params":3}"#),
            None
        );
        assert_eq!(err("[1,2]").unwrap()["id"], Value::Null);
        let params = |line: &str| {
            bad_params(line.as_bytes()).map(|a| serde_json::from_str::<Value>(&a).unwrap())
        };
        assert_eq!(
            params(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":3}"#).unwrap()
                ["error"]["code"],
            INVALID_PARAMS
        );
        assert_eq!(
            params(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#).unwrap()["id"],
            7
        );
        assert_eq!(params(r#"{"jsonrpc":"2.0","method":"tools/call"}"#), None);
        assert_eq!(
            params(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}"#),
            None
        );
        assert_eq!(
            params(r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#),
            None
        );
        assert_eq!(trim(b"\xEF\xBB\xBF {} \r\n"), b"{}");
    }
}
