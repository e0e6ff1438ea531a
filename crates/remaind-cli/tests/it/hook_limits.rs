//! A hook stays within bounded memory whatever its `transcript_path` is: a sparse 2 GiB file
//! with no newline, under a 400 MB address-space limit, costs one window; the hook exits 0,
//! records what it should, and says in `logs/hook-errors.jsonl` that the line was skipped.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::common::{ok, remaind, tmp};

#[test]
fn a_sparse_transcript_with_no_newline_under_a_memory_limit() {
    let t = tmp();
    let ctx = t.0.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    let transcript = t.0.join("huge.jsonl");
    std::fs::File::create(&transcript)
        .and_then(|f| f.set_len(2 << 30))
        .expect("a sparse file");
    let payload = json!({
        "session_id": "s-huge",
        "cwd": t.0,
        "hook_event_name": "Stop",
        "transcript_path": transcript,
        "last_assistant_message": "The upload test is fixed.",
    });
    let script = format!(
        "ulimit -v 400000; exec '{}' --dir '{}' hook stop",
        env!("CARGO_BIN_EXE_remaind"),
        ctx.display()
    );
    let started = std::time::Instant::now();
    let mut child = Command::new("sh")
        .args(["-c", &script])
        .env_remove("REMAIND_DIR")
        .env_remove("FAILPOINTS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(payload.to_string().as_bytes())
        .expect("payload");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    let events: Vec<Value> = std::fs::read_to_string(ctx.join("logs/events.jsonl"))
        .expect("log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("event"))
        .collect();
    assert!(
        events
            .iter()
            .any(|e| e["text"] == "The upload test is fixed."),
        "{events:#?}"
    );
    let notes = std::fs::read_to_string(ctx.join("logs/hook-errors.jsonl")).unwrap_or_default();
    assert!(notes.contains("skipped"), "{notes}");
    assert!(
        !notes.contains("huge.jsonl") || notes.contains("line 1 of"),
        "{notes}"
    );
}
