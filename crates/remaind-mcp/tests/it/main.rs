//! The MCP server in-process: raw JSON-RPC lines over an in-memory pipe, against a real
//! `.context/` folder.

use std::time::Duration;

use camino::Utf8PathBuf;
use remaind_ledger::Ledger;
use remaind_mcp::{Locator, Server};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

struct Client {
    write: tokio::io::WriteHalf<DuplexStream>,
    lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    next_id: u64,
}

impl Client {
    async fn connect(dir: &Utf8PathBuf) -> Client {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(theirs);
        let locator = Locator {
            explicit: Some(dir.clone()),
            cwd: "/".into(),
        };
        tokio::spawn(async move {
            let _ = remaind_mcp::serve(locator, read, write).await;
        });
        let (read, write) = tokio::io::split(ours);
        let mut c = Client {
            write,
            lines: BufReader::new(read).lines(),
            next_id: 1,
        };
        let init = c
            .request(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "it", "version": "0"}}),
            )
            .await;
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
        c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        c
    }

    async fn send(&mut self, msg: Value) {
        let line = format!("{msg}\n");
        self.write.write_all(line.as_bytes()).await.expect("write");
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
                .await
                .expect("the server answers within 30 s")
                .expect("read")
                .expect("the server closed the pipe");
            let msg: Value = serde_json::from_str(&line).expect("JSON-RPC line");
            if msg["id"] == json!(id) {
                return msg;
            }
        }
    }

    async fn call(&mut self, name: &str, args: Value) -> Value {
        let resp = self
            .request("tools/call", json!({"name": name, "arguments": args}))
            .await;
        resp["result"].clone()
    }
}

fn context() -> (tempfile::TempDir, Utf8PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = Utf8PathBuf::from_path_buf(tmp.path().join(".context")).expect("utf-8");
    remaind_resume::init(&remaind_fs::ContextDir::new(dir.clone()), false).expect("init");
    (tmp, dir)
}

#[test]
fn every_tool_declares_object_schemas_and_record_lists_the_kinds_a_model_records() {
    let server = Server::new(Locator {
        explicit: None,
        cwd: "/".into(),
    });
    for tool in server.tools() {
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        let out = tool.output_schema.as_ref().expect("output schema");
        assert_eq!(out["type"], "object", "{}", tool.name);
        let ann = tool.annotations.as_ref().expect("annotations");
        assert_eq!(ann.destructive_hint, Some(false), "{}", tool.name);
    }
    let record = server
        .tools()
        .into_iter()
        .find(|t| t.name == "record")
        .expect("record");
    let schema = serde_json::to_string(&*record.input_schema).expect("json");
    for kind in [
        "decision",
        "correction",
        "constraint",
        "remember",
        "blocker",
        "result",
        "next_step",
        "note",
        "file_change",
        "user_message",
    ] {
        assert!(
            schema.contains(&format!("\"{kind}\"")),
            "{kind} missing: {schema}"
        );
    }
}

#[tokio::test(flavor = "current_thread")]
async fn record_redacts_with_rules_added_while_the_server_runs() {
    let (_tmp, dir) = context();
    let mut c = Client::connect(&dir).await;
    let first = c
        .call(
            "record",
            json!({"kind": "note", "text": "ticket intk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA1 filed"}),
        )
        .await;
    assert_eq!(first["structuredContent"]["redactions"], 1, "{first}");
    // A new rule, written while the session is open, applies to the next call.
    std::fs::write(
        dir.join(remaind_fs::layout::REDACTION_PATH),
        r#"{"rules": [{"name": "project_code", "pattern": "\\bPRJ-[0-9]{6}\\b"}]}"#,
    )
    .expect("write rules");
    let second = c
        .call(
            "record",
            json!({"kind": "note", "text": "code PRJ-123456 is secret"}),
        )
        .await;
    assert_eq!(second["structuredContent"]["redactions"], 1, "{second}");
    let ledger = Ledger::open(&dir).expect("open");
    let stored = ledger.get(2).expect("read").expect("e2");
    assert!(!stored.text.expect("text").contains("PRJ-123456"));
}

#[tokio::test(flavor = "current_thread")]
async fn reads_see_events_other_processes_appended_after_the_last_call() {
    let (_tmp, dir) = context();
    let mut c = Client::connect(&dir).await;
    let hits = c.call("search", json!({"query": "otter"})).await;
    assert_eq!(hits["structuredContent"]["hits"], json!([]));
    // Another writer (a hook, `remaind log`) appends behind the server's back.
    let other = Ledger::open(&dir).expect("open");
    let id = other
        .append(remaind_ledger::AppendRequest::json_lines(
            b"{\"kind\":\"decision\",\"text\":\"Feed the otter at noon\"}\n",
        ))
        .expect("append")[0];
    let hits = c.call("search", json!({"query": "otter"})).await;
    assert_eq!(
        hits["structuredContent"]["hits"][0]["id"],
        id.to_string(),
        "{hits}"
    );
    let tail = c.call("get_events", json!({"limit": 1})).await;
    assert_eq!(tail["structuredContent"]["events"][0]["id"], id.to_string());
    let status = c.call("status", json!({})).await;
    assert_eq!(status["structuredContent"]["head_seq"], 1);
    // And the server's own append chains after it.
    let next = c
        .call("record", json!({"kind": "note", "text": "after"}))
        .await;
    assert_eq!(next["structuredContent"]["id"], "e2");
    assert!(other.verify().expect("verify").problems.is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn a_tool_error_names_the_nested_field_and_writes_nothing() {
    let (_tmp, dir) = context();
    let mut c = Client::connect(&dir).await;
    for (args, field) in [
        (json!({"kind": "note", "tool": {"input": 1}}), "tool"),
        (
            json!({"kind": "note", "tool": {"name": "x", "colour": 1}}),
            "colour",
        ),
        (json!({"kind": "note", "importance": "high"}), "importance"),
        (json!({"kind": "note", "refs": "e1"}), "refs"),
    ] {
        let r = c.call("record", args.clone()).await;
        assert_eq!(r["isError"], true, "{args}: {r}");
        let text = r["content"][0]["text"].as_str().expect("text");
        assert!(text.contains(field), "{args}: {text}");
    }
    let ledger = Ledger::open(&dir).expect("open");
    assert_eq!(ledger.head().expect("head").0, 0);
}

#[tokio::test(flavor = "current_thread")]
async fn without_a_context_folder_tools_say_to_run_init() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = Utf8PathBuf::from_path_buf(tmp.path().join("missing")).expect("utf-8");
    let mut c = Client::connect(&dir).await;
    let r = c.call("status", json!({})).await;
    assert_eq!(r["isError"], true);
    assert!(
        r["content"][0]["text"]
            .as_str()
            .expect("text")
            .contains("remaind init"),
        "{r}"
    );
}

/// The tools that speak of bands name the bands `monitor` classifies into, and no other:
/// a description is what a model reads before it calls.
#[test]
fn tool_descriptions_name_the_real_bands() {
    use remaind_resume::Band;
    let server = Server::new(Locator {
        explicit: None,
        cwd: "/".into(),
    });
    let real = [Band::Normal, Band::Warning, Band::Hard, Band::Emergency].map(|b| b.to_string());
    for tool in server.tools() {
        let text = serde_json::to_string(&tool).expect("json");
        if !text.contains("band") {
            continue;
        }
        for stale in ["warn,", "\"compact\" band", "critical"] {
            assert!(
                !text.contains(stale),
                "{} says `{stale}`: {text}",
                tool.name
            );
        }
        if tool.name == "monitor" {
            for band in &real {
                assert!(
                    text.contains(band.as_str()),
                    "monitor does not name `{band}`: {text}"
                );
            }
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_search_of_hundreds_of_words_is_bounded_and_says_it_was_cut() {
    let (_tmp, dir) = context();
    let other = Ledger::open(&dir).expect("open");
    other
        .append(remaind_ledger::AppendRequest::json_lines(
            b"{\"kind\":\"decision\",\"text\":\"Feed the otter at noon\"}\n",
        ))
        .expect("append");
    let mut c = Client::connect(&dir).await;
    // A word repeated 300 times is one word: nothing is cut.
    let repeated = vec!["otter"; 300].join(" ");
    let hits = c.call("search", json!({"query": repeated})).await;
    assert_eq!(
        hits["structuredContent"]["hits"].as_array().map(Vec::len),
        Some(1)
    );
    assert!(
        hits["structuredContent"].get("query_cut").is_none(),
        "{hits}"
    );
    // 200 distinct words: the first 32 are searched, and the result says so.
    let mut words: Vec<String> = (0..200).map(|i| format!("w{i}")).collect();
    words[0] = "otter".to_owned();
    let hits = c.call("search", json!({"query": words.join(" ")})).await;
    assert_eq!(
        hits["structuredContent"]["hits"].as_array().map(Vec::len),
        Some(1)
    );
    let cut = hits["structuredContent"]["query_cut"]
        .as_str()
        .unwrap_or_default();
    assert!(
        cut.contains("searched 32 distinct words") && cut.contains("168 more"),
        "{hits}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn search_brings_neighbours_and_says_when_quotes_fell_back_to_words() {
    let (_tmp, dir) = context();
    let other = Ledger::open(&dir).expect("open");
    other
        .append(remaind_ledger::AppendRequest::json_lines(
            b"{\"kind\":\"note\",\"text\":\"We wrote a pact at camp\"}\n\
              {\"kind\":\"user_message\",\"text\":\"Should we sign the friendship pact again?\"}\n\
              {\"kind\":\"assistant_message\",\"text\":\"Yes, after dinner.\"}\n\
              {\"kind\":\"note\",\"text\":\"I'm reading Charlottes Web to my niece\"}\n",
        ))
        .expect("append");
    let mut c = Client::connect(&dir).await;
    let hits = c
        .call("search", json!({"query": "friendship", "context": 1}))
        .await;
    let hit = &hits["structuredContent"]["hits"][0];
    assert_eq!(hit["id"], "e2", "{hits}");
    let around: Vec<&str> = hit["context"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|e| e["id"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(around, ["e1", "e3"], "{hits}");
    // Without `context`, no list.
    let hits = c.call("search", json!({"query": "friendship"})).await;
    assert!(
        hits["structuredContent"]["hits"][0]
            .get("context")
            .is_none()
    );
    // A quoted title spelled differently.
    let hits = c
        .call(
            "search",
            json!({"query": "read to her niece, \"Charlotte's Web\"?"}),
        )
        .await;
    assert_eq!(hits["structuredContent"]["hits"][0]["id"], "e4", "{hits}");
    let fallback = hits["structuredContent"]["fallback"]
        .as_str()
        .unwrap_or_default();
    assert!(fallback.contains("\"Charlotte's Web\""), "{hits}");
    // Out of range names the field.
    let bad = c
        .call("search", json!({"query": "friendship", "context": 21}))
        .await;
    assert_eq!(bad["isError"], true, "{bad}");
    assert!(bad.to_string().contains("context"), "{bad}");
}
