//! The stdio transport: newline-delimited JSON-RPC, where every request that carries an id
//! gets an answer, even one no JSON parser accepts.
//!
//! rmcp's own transport skips a line serde_json refuses (nesting deeper than 128 levels, a
//! lone surrogate escape, a number beyond `f64`, a line over 16 MiB), so a client waits for
//! its own timeout. Here such a line is answered with a JSON-RPC error naming the problem, at
//! the id a lenient scan of the raw bytes finds (`IdScanner`); only bytes with no id to
//! answer are skipped, as every official SDK does (answering them invites error storms).
//! Well-formed JSON that is no JSON-RPC message is answered at its own id too.
//!
//! The arguments of a `tools/call` are also read as the CLI reads an event: a key repeated in
//! one object is refused (serde_json would silently keep the last one), and the call becomes
//! a tool error naming the key.

use std::io;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

/// The largest message read (rmcp's limit for stdio and streamable HTTP alike).
pub(crate) const MAX_LINE: usize = 16 << 20;

/// The JSON-RPC error codes answered here.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// Set on a `tools/call` request whose arguments repeat a key: the call is answered with
/// this tool error instead of running.
#[derive(Debug, Clone)]
pub(crate) struct RefusedArguments(pub(crate) String);

/// Reads messages from `R`; everything written (rmcp's replies and the errors answered here)
/// goes through one channel to [`write_frames`], so lines never interleave.
pub(crate) struct Frames<R> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// While the rest of an oversized line is skipped: the scan for its id.
    oversized: Option<IdScanner>,
    out: UnboundedSender<Vec<u8>>,
}

/// What one read gave.
enum Line {
    /// A whole line is in `Frames::line`.
    Whole,
    /// A line over [`MAX_LINE`] was skipped; the id found in it.
    Oversized(Option<Value>),
}

impl<R: AsyncRead + Unpin + Send> Frames<R> {
    pub(crate) fn new(read: R, out: UnboundedSender<Vec<u8>>) -> Self {
        Frames {
            read: BufReader::new(read),
            line: Vec::new(),
            oversized: None,
            out,
        }
    }

    /// The next line, `None` at the end of the input. Cancel-safe (rmcp polls `receive` in
    /// a `select!`): bytes are consumed only together with their copy into `line` or the scan.
    async fn read_line(&mut self) -> Option<Line> {
        loop {
            let available = self.read.fill_buf().await.ok()?;
            if available.is_empty() {
                return None;
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let chunk = &available[..take];
            let mut done = None;
            if let Some(scan) = self.oversized.as_mut() {
                scan.feed(chunk);
                if newline.is_some() {
                    done = self.oversized.take().map(|s| Line::Oversized(s.id()));
                }
            } else if self.line.len() + take > MAX_LINE {
                let mut scan = IdScanner::default();
                scan.feed(&self.line);
                scan.feed(chunk);
                self.line.clear();
                if newline.is_some() {
                    done = Some(Line::Oversized(scan.id()));
                } else {
                    self.oversized = Some(scan);
                }
            } else {
                self.line.extend_from_slice(chunk);
                if newline.is_some() {
                    done = Some(Line::Whole);
                }
            }
            self.read.consume(take);
            if done.is_some() {
                return done;
            }
        }
    }

    fn answer(&self, id: Option<Value>, code: i64, message: String) {
        let reply = serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": code, "message": message},
        });
        let mut bytes = reply.to_string().into_bytes();
        bytes.push(b'\n');
        // A closed output ends the session through rmcp's next send.
        let _ = self.out.send(bytes);
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> Transport<RoleServer> for Frames<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let out = self.out.clone();
        let sent = serde_json::to_vec(&item)
            .map_err(io::Error::other)
            .and_then(|mut bytes| {
                bytes.push(b'\n');
                out.send(bytes)
                    .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "stdout is closed"))
            });
        std::future::ready(sent)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            match self.read_line().await? {
                Line::Oversized(id) => {
                    let message = format!(
                        "invalid request: the message is larger than {} MiB; send less in one \
                         message",
                        MAX_LINE >> 20
                    );
                    self.answer(id, INVALID_REQUEST, message);
                }
                Line::Whole => {
                    let verdict = judge(&self.line);
                    self.line.clear();
                    match verdict {
                        Verdict::Message(msg) => return Some(*msg),
                        Verdict::Skip => {}
                        Verdict::Answer { id, code, message } => self.answer(id, code, message),
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        Ok(())
    }
}

/// Writes every frame sent through the channel to `write`, flushing each, until all senders
/// are gone.
pub(crate) async fn write_frames<W: AsyncWrite + Unpin>(
    mut write: W,
    mut frames: UnboundedReceiver<Vec<u8>>,
) -> io::Result<()> {
    while let Some(frame) = frames.recv().await {
        write.write_all(&frame).await?;
        write.flush().await?;
    }
    Ok(())
}

/// What to do with one line.
#[derive(Debug)]
enum Verdict {
    /// Hand the message to the server.
    Message(Box<ClientJsonRpcMessage>),
    /// Nothing to answer (a blank line, a notification rmcp ignores, bytes with no id).
    Skip,
    /// Answer a JSON-RPC error.
    Answer {
        id: Option<Value>,
        code: i64,
        message: String,
    },
}

/// UTF-8 byte order mark, which RFC 8259 lets a parser ignore.
const BOM: &[u8] = b"\xEF\xBB\xBF";

fn judge(line: &[u8]) -> Verdict {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(BOM).unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    let err = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(mut msg) => {
            refuse_repeated_arguments(line, &mut msg);
            return Verdict::Message(Box::new(msg));
        }
        Err(e) => e,
    };
    match serde_json::from_slice::<Value>(line) {
        Ok(value) => {
            let id = value.get("id").filter(|v| v.is_string() || v.is_number());
            let method = value.get("method").and_then(Value::as_str);
            if id.is_none() && method.is_some_and(ignored_notification) {
                return Verdict::Skip;
            }
            Verdict::Answer {
                id: id.cloned(),
                code: INVALID_REQUEST,
                message: format!("invalid request: {}", without_position(&err.to_string())),
            }
        }
        Err(e) => match IdScanner::scan(line) {
            Some(id) => Verdict::Answer {
                id: Some(id),
                code: PARSE_ERROR,
                message: parse_error_message(&e),
            },
            None => Verdict::Skip,
        },
    }
}

/// A message without an id that rmcp drops for compatibility (a method MCP does not define,
/// an unknown notification): answered by no one.
fn ignored_notification(method: &str) -> bool {
    const REQUESTS: [&str; 18] = [
        "initialize",
        "ping",
        "server/discover",
        "prompts/get",
        "prompts/list",
        "resources/list",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "resources/templates/list",
        "subscriptions/listen",
        "tools/call",
        "tools/list",
        "completion/complete",
        "elicitation/create",
        "logging/setLevel",
        "roots/list",
        "sampling/createMessage",
    ];
    const NOTIFICATIONS: [&str; 10] = [
        "notifications/cancelled",
        "notifications/initialized",
        "notifications/message",
        "notifications/progress",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
        "notifications/roots/list_changed",
        "notifications/subscriptions/acknowledged",
        "notifications/tools/list_changed",
    ];
    if method.starts_with("notifications/") {
        !NOTIFICATIONS.contains(&method)
    } else {
        !REQUESTS.contains(&method)
    }
}

/// `parse error: <what serde_json says>`, and how to fix the three ways valid-looking JSON
/// fails.
fn parse_error_message(e: &serde_json::Error) -> String {
    let what = e.to_string();
    let fix = if what.contains("recursion limit") {
        "; nest objects and arrays at most 127 levels deep"
    } else if what.contains("surrogate") || what.contains("hex escape") {
        "; a \\u escape takes 4 hex digits, and one in \\ud800-\\udfff must be half of a \
         surrogate pair"
    } else if what.contains("number out of range") {
        "; numbers must fit a 64-bit float"
    } else {
        "; send one JSON-RPC message per line, as UTF-8 JSON"
    };
    format!("parse error: {what}{fix}")
}

/// serde_json's " at line 1 column 57" (kept for a parse error, where it helps find the
/// spot; dropped for a message about a field).
fn without_position(msg: &str) -> &str {
    msg.find(" at line ").map_or(msg, |i| &msg[..i])
}

/// Marks a `tools/call` whose `arguments` repeat a key in any object ([`RefusedArguments`]):
/// the parser every other door into the ledger uses, instead of serde_json's last-one-wins.
fn refuse_repeated_arguments(line: &[u8], msg: &mut ClientJsonRpcMessage) {
    #[derive(serde::Deserialize)]
    struct Frame<'a> {
        #[serde(borrow)]
        params: Option<Params<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(borrow)]
        arguments: Option<&'a RawValue>,
    }
    let JsonRpcMessage::Request(req) = msg else {
        return;
    };
    let ClientRequest::CallToolRequest(call) = &mut req.request else {
        return;
    };
    let raw = serde_json::from_slice::<Frame<'_>>(line)
        .ok()
        .and_then(|f| f.params?.arguments);
    if let Some(raw) = raw
        && let Err(e) = remaind_ledger::parse_json_strict(raw.get().as_bytes())
    {
        let reason = without_position(&e.to_string()).to_owned();
        call.extensions.insert(RefusedArguments(format!(
            "invalid input: field `arguments`: {reason}"
        )));
    }
}

/// A lenient, streaming scan of a JSON object's bytes for its top-level `"id"` value (a string
/// or a number), whatever the rest holds: any nesting depth, bad escapes, huge numbers,
/// truncation. It tracks only strings and brackets, so it costs one pass and no recursion.
#[derive(Debug, Default)]
pub(crate) struct IdScanner {
    depth: u64,
    in_string: bool,
    escaped: bool,
    state: Top,
    /// The top-level key being read (only whether it is `id` matters).
    key: Vec<u8>,
    /// The id's bytes as written.
    value: Vec<u8>,
    found: bool,
}

/// Where the scan is inside the top-level object.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Top {
    /// Outside it, or inside something that is not an object.
    #[default]
    None,
    ExpectKey,
    InKey,
    ExpectColon,
    ExpectValue {
        id: bool,
    },
    InIdString,
    InIdBare,
    /// In a value that is not the id, until the next top-level `,`.
    OtherValue,
}

/// The longest id kept (longer ones are not ids anyone sends).
const MAX_ID: usize = 1024;

impl IdScanner {
    /// The top-level id of `bytes`, if it has one.
    pub(crate) fn scan(bytes: &[u8]) -> Option<Value> {
        let mut s = IdScanner::default();
        s.feed(bytes);
        s.id()
    }

    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.found {
                return;
            }
            self.byte(b);
        }
    }

    fn byte(&mut self, b: u8) {
        if self.in_string {
            match self.state {
                Top::InKey if self.key.len() < 8 => self.key.push(b),
                Top::InIdString if self.value.len() <= MAX_ID => self.value.push(b),
                _ => {}
            }
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                match self.state {
                    Top::InKey => self.state = Top::ExpectColon,
                    Top::InIdString => self.found = true,
                    _ => {}
                }
            }
            return;
        }
        let top = self.depth == 1;
        match b {
            b'"' => {
                self.in_string = true;
                match self.state {
                    Top::ExpectKey if top => {
                        self.key.clear();
                        self.state = Top::InKey;
                    }
                    Top::ExpectValue { id: true } if top => {
                        self.value = vec![b'"'];
                        self.state = Top::InIdString;
                    }
                    Top::ExpectValue { id: false } if top => self.state = Top::OtherValue,
                    _ => {}
                }
            }
            b'{' | b'[' => {
                if top {
                    self.state = Top::OtherValue;
                }
                self.depth += 1;
                if self.depth == 1 {
                    self.state = if b == b'{' { Top::ExpectKey } else { Top::None };
                }
            }
            b'}' | b']' => {
                if top && self.state == Top::InIdBare {
                    self.found = true;
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b':' if top && self.state == Top::ExpectColon => {
                self.state = Top::ExpectValue {
                    id: self.key == b"id\"",
                };
            }
            b',' if top => {
                if self.state == Top::InIdBare {
                    self.found = true;
                } else {
                    self.state = Top::ExpectKey;
                }
            }
            b' ' | b'\t' | b'\r' | b'\n' if top && self.state == Top::InIdBare => {
                self.found = true;
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ if top => match self.state {
                Top::ExpectValue { id: true } => {
                    self.value = vec![b];
                    self.state = Top::InIdBare;
                }
                Top::InIdBare if self.value.len() <= MAX_ID => self.value.push(b),
                Top::ExpectValue { id: false } => self.state = Top::OtherValue,
                _ => {}
            },
            _ => {}
        }
    }

    /// The id found: a string or a number JSON-RPC allows (`null` otherwise).
    pub(crate) fn id(&self) -> Option<Value> {
        // An id cut off by the end of the bytes may be missing digits: no answer beats one
        // at the wrong id.
        if !self.found {
            return None;
        }
        match serde_json::from_slice::<Value>(&self.value).ok()? {
            v @ Value::String(_) => Some(v),
            Value::Number(n) if n.is_i64() || n.is_u64() => Some(Value::Number(n)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_top_level_id_is_found_whatever_the_rest_holds() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","params":{}1{},"id":7}}"#,
            "[".repeat(500),
            "]".repeat(500)
        );
        for (bytes, want) in [
            (deep.as_str(), Some(json!(7))),
            (r#"{"id":"a\"b","x":"\ud83d"}"#, Some(json!("a\"b"))),
            (r#"{"x":{"id":1},"id": 42 ,"y":1e999}"#, Some(json!(42))),
            (r#"{"method":"x","params":{"id":3}}"#, None),
            (r#"{"x":"\"id\":5","id":null}"#, None),
            (r#"{"id":12"#, None),
            (r#"{"id":12}"#, Some(json!(12))),
            (r#"[{"id":1}]"#, None),
            ("not json", None),
        ] {
            assert_eq!(IdScanner::scan(bytes.as_bytes()), want, "{bytes}");
        }
    }

    #[test]
    fn every_unparsable_request_with_an_id_is_answered_at_its_id() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"record","arguments":{{"data":{}{}}}}}}}"#,
            r#"{"a":"#.repeat(130),
            "}".repeat(130)
        );
        let cases = [
            (deep, "recursion limit"),
            (
                r#"{"jsonrpc":"2.0","id":"s","method":"ping","params":{"x":"\ud83d"}}"#.into(),
                "surrogate pair",
            ),
            (
                r#"{"jsonrpc":"2.0","method":"ping","params":{"x":1e999},"id":3}"#.into(),
                "number out of range",
            ),
        ];
        for (line, needle) in cases {
            match judge(line.as_bytes()) {
                Verdict::Answer { id, code, message } => {
                    assert!(id.is_some(), "{line}");
                    assert_eq!(code, PARSE_ERROR);
                    assert!(message.contains(needle), "{message}");
                }
                other => panic!("{line}: {other:?}"),
            }
        }
        assert!(matches!(judge(b"garbage"), Verdict::Skip));
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":7}"#),
            Verdict::Answer {
                id: Some(_),
                code: INVALID_REQUEST,
                ..
            }
        ));
    }

    #[test]
    fn repeated_argument_keys_mark_the_call() {
        let line = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"record","arguments":{"kind":"note","kind":"remember","text":"x"}}}"#;
        let Verdict::Message(msg) = judge(line) else {
            panic!("not a message")
        };
        let JsonRpcMessage::Request(req) = *msg else {
            panic!("not a request")
        };
        let ClientRequest::CallToolRequest(call) = req.request else {
            panic!("not a call")
        };
        let refused = call.extensions.get::<RefusedArguments>().expect("marked");
        assert!(refused.0.contains("`kind` appears twice"), "{}", refused.0);
    }
}
