//! `remaind mcp` driven over its stdio like an MCP client would: concurrent writers with
//! `remaind log`, a decision through compaction into resume, and malformed requests.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout};

use serde_json::{Value, json};

use crate::common::{ok, remaind, tmp};

/// A minimal MCP client: newline-delimited JSON-RPC on the server's stdin/stdout. Every line
/// the server prints must be a JSON-RPC message (stdout carries nothing else).
struct Mcp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Mcp {
    fn start(ctx: &Path) -> Mcp {
        let mut child = crate::common::spawn_mcp(ctx);
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut mcp = Mcp {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        let init = mcp.request(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "remaind-test", "version": "0"}
            }),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "remaind", "{init}");
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, msg: &Value) {
        self.send_raw(&msg.to_string());
    }

    fn send_raw(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write to the server");
        self.stdin.flush().expect("flush");
    }

    /// The next message the server prints, checked to be JSON-RPC 2.0.
    fn read(&mut self) -> Value {
        let mut line = String::new();
        let n = self
            .stdout
            .read_line(&mut line)
            .expect("read from the server");
        assert!(n > 0, "the server closed stdout");
        let msg: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carried a non-JSON line ({e}): {line:?}"));
        assert_eq!(msg["jsonrpc"], "2.0", "not a JSON-RPC message: {line}");
        msg
    }

    /// Send a request and return the response with its id (skipping notifications).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let msg = self.read();
            if msg.get("id") == Some(&json!(id)) {
                return msg;
            }
        }
    }

    /// Call a tool; returns its result (with `isError` and `structuredContent`).
    fn call(&mut self, name: &str, args: Value) -> Value {
        let resp = self.request("tools/call", json!({"name": name, "arguments": args}));
        resp.get("result")
            .cloned()
            .unwrap_or_else(|| panic!("tools/call {name} failed: {resp}"))
    }

    /// Call a tool that must succeed; returns its structured content.
    fn call_ok(&mut self, name: &str, args: Value) -> Value {
        let result = self.call(name, args);
        assert_ne!(result["isError"], true, "{name} failed: {result}");
        result["structuredContent"].clone()
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn init(dir: &Path) -> std::path::PathBuf {
    let ctx = dir.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    ctx
}

fn events(ctx: &Path) -> Vec<Value> {
    ok(&remaind(
        ctx,
        &["events", "--limit", "100000", "--json"],
        None,
    ))
    .lines()
    .map(|l| serde_json::from_str(l).expect("event json"))
    .collect()
}

#[test]
fn mcp_record_and_log_processes_interleaved_leave_a_gapless_chain() {
    const WRITERS: usize = 8;
    const EACH: usize = 12;
    let dir = tmp();
    let ctx = init(&dir.0);
    let recorded: Vec<Vec<(String, String)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..WRITERS)
            .map(|w| {
                let ctx = &ctx;
                scope.spawn(move || {
                    let mut ids = Vec::new();
                    if w % 2 == 0 {
                        // An MCP session recording one event per call.
                        let mut mcp = Mcp::start(ctx);
                        for i in 0..EACH {
                            let text = format!("mcp writer {w} decision {i}");
                            let out = mcp.call_ok(
                                "record",
                                json!({"kind": "decision", "text": text, "actor": "assistant"}),
                            );
                            ids.push((out["id"].as_str().expect("id").to_owned(), text));
                        }
                    } else {
                        // A process per event, as a prompt rule shelling out would do.
                        for i in 0..EACH {
                            let text = format!("log writer {w} note {i}");
                            let out =
                                remaind(ctx, &["log", "--kind", "note", "--text", &text], None);
                            ids.push((ok(&out).trim().to_owned(), text));
                        }
                    }
                    ids
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("writer"))
            .collect()
    });
    ok(&remaind(&ctx, &["verify"], None));
    let all = events(&ctx);
    assert_eq!(all.len(), WRITERS * EACH);
    for (i, ev) in all.iter().enumerate() {
        assert_eq!(ev["seq"], json!(i as u64 + 1), "gap or reorder at line {i}");
    }
    let mut seen = std::collections::HashSet::new();
    for (id, text) in recorded.iter().flatten() {
        assert!(seen.insert(id.clone()), "id {id} acknowledged twice");
        let seq: usize = id[1..].parse().expect("seq");
        assert_eq!(
            all[seq - 1]["text"],
            json!(text),
            "{id} holds another event"
        );
    }
}

#[test]
fn a_decision_recorded_via_mcp_survives_compact_and_appears_in_resume() {
    let dir = tmp();
    let ctx = init(&dir.0);
    ok(&remaind(
        &ctx,
        &[
            "log",
            "--kind",
            "user_message",
            "--actor",
            "user",
            "--text",
            "Build the importer",
        ],
        None,
    ));
    let mut mcp = Mcp::start(&ctx);
    let decision = mcp.call_ok(
        "record",
        json!({"kind": "decision", "text": "Parse CSV with the csv crate, not by hand"}),
    );
    let id = decision["id"].as_str().expect("id").to_owned();
    assert_eq!(decision["kind"], "decision");
    mcp.call_ok(
        "record",
        json!({"kind": "next_step", "text": "Write the importer tests", "refs": [id]}),
    );
    let verdict = mcp.call_ok("compact", json!({}));
    assert_eq!(verdict["accepted"], true, "{verdict}");
    assert_eq!(verdict["written"], true);
    // The state cites it, and a resume (CLI or MCP) shows it.
    let state = std::fs::read_to_string(ctx.join("active/state.json")).expect("state");
    assert!(
        state.contains(&format!("\"{id}\"")),
        "state does not cite {id}: {state}"
    );
    let resumed: Value =
        serde_json::from_str(&ok(&remaind(&ctx, &["resume", "--json"], None))).expect("json");
    let packet = resumed["packet"].as_str().expect("packet");
    assert!(packet.contains("Parse CSV with the csv crate"), "{packet}");
    let via_mcp = mcp.call_ok("resume", json!({}));
    assert!(
        via_mcp["packet"]
            .as_str()
            .expect("packet")
            .contains("Parse CSV with the csv crate")
    );
    assert_eq!(via_mcp["gate"]["proceed"], true, "{via_mcp}");
    let handover = mcp.request("resources/read", json!({"uri": "remaind://handover"}));
    let text = handover["result"]["contents"][0]["text"]
        .as_str()
        .expect("text");
    assert!(text.contains(&format!("[{id}]")), "{text}");
}

#[test]
fn malformed_requests_get_errors_and_the_server_keeps_serving() {
    let dir = tmp();
    let ctx = init(&dir.0);
    let mut mcp = Mcp::start(&ctx);
    // JSON that is not a JSON-RPC message: an Invalid Request error.
    mcp.send_raw(r#"{"foo":"bar"}"#);
    let err = mcp.read();
    assert_eq!(err["error"]["code"], -32600, "{err}");
    // Bytes that are not JSON carry no id to answer; they are skipped (as every official
    // SDK does) and the session goes on.
    mcp.send_raw("this is not json {");
    // An unknown method: Method not found, with the request's id.
    let resp = mcp.request("no/such/method", json!({}));
    assert_eq!(resp["error"]["code"], -32601, "{resp}");
    // An unknown tool: Invalid params naming the tools.
    let resp = mcp.request("tools/call", json!({"name": "nope", "arguments": {}}));
    assert_eq!(resp["error"]["code"], -32602, "{resp}");
    assert!(
        resp["error"]["message"]
            .as_str()
            .expect("msg")
            .contains("record")
    );
    // Invalid tool input: a tool error naming the field, and nothing written.
    for (args, field) in [
        (json!({"kind": "decison", "text": "x"}), "kind"),
        (
            json!({"kind": "note", "text": "x", "importance": 7}),
            "importance",
        ),
        (json!({"kind": "correction", "text": "x"}), "supersedes"),
        (
            json!({"kind": "note", "text": "x", "refs": ["e99"]}),
            "refs",
        ),
        (json!({"kind": "note", "txt": "x"}), "txt"),
        (json!({"text": "x"}), "kind"),
        // An event with nothing in it.
        (json!({"kind": "note"}), "text"),
        (json!({"kind": "note", "text": " "}), "text"),
    ] {
        let result = mcp.call("record", args.clone());
        assert_eq!(result["isError"], true, "{args} was accepted: {result}");
        let msg = result["content"][0]["text"].as_str().expect("text");
        assert!(
            msg.contains(field),
            "{args}: the error does not name `{field}`: {msg}"
        );
    }
    assert!(events(&ctx).is_empty(), "invalid input wrote something");
    // Still serving.
    let tools = mcp.request("tools/list", json!({}));
    assert_eq!(
        tools["result"]["tools"].as_array().expect("tools").len(),
        12
    );
    let out = mcp.call_ok("record", json!({"kind": "note", "text": "still here"}));
    assert_eq!(out["id"], "e1");
    // Where no hook records the user's words, the model can: the kind list has it.
    let out = mcp.call_ok(
        "record",
        json!({"kind": "user_message", "text": "Ship it on Friday", "actor": "user"}),
    );
    assert_eq!(out["id"], "e2");
}
