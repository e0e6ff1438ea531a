//! Following a transcript costs a bounded window whatever the file holds: a line longer than
//! a hook reads (a huge or sparse file with no newline) is skipped, never held in memory
//! whole, and said in `logs/hook-errors.jsonl`; the lines after it are followed as ever.

use std::io::{Seek, SeekFrom, Write};

use remaind_adapters::{MAX_LINE_BYTES, Runtime, WINDOW_BYTES, follow_transcript};
use serde_json::json;

use crate::prop_import::{ledger, tempdir};

fn queued(content: &str, ts: &str) -> String {
    json!({"type": "queue-operation", "operation": "enqueue", "timestamp": ts,
           "sessionId": "s-long-line", "content": content})
    .to_string()
}

#[test]
fn a_line_past_the_limit_is_skipped_and_the_lines_after_it_are_followed() {
    let (_t, dir) = tempdir();
    let ledger = ledger(&dir);
    let path = dir.join("transcript.jsonl");
    let mut file = std::fs::File::create(&path).expect("create");
    writeln!(
        file,
        "{}",
        queued("first queued prompt", "2026-03-01T10:00:00.000Z")
    )
    .expect("write");
    // A sparse line of 600 MiB: more than one hook scans for its end.
    let gap = 600u64 << 20;
    let end = file.stream_position().expect("position") + gap;
    file.set_len(end).expect("set_len");
    file.seek(SeekFrom::Start(end)).expect("seek");
    writeln!(file).expect("write");
    writeln!(
        file,
        "{}",
        queued("second queued prompt", "2026-03-01T10:00:01.000Z")
    )
    .expect("write");
    drop(file);

    let mut calls = 0;
    let mut skipped = 0;
    let mut recorded = 0;
    loop {
        let followed = follow_transcript(&ledger, Runtime::ClaudeCode, &path).expect("follow");
        calls += 1;
        assert!(
            followed.bytes <= MAX_LINE_BYTES.max(WINDOW_BYTES),
            "{followed:?}"
        );
        skipped += followed.skipped_lines;
        recorded += followed.interrupts;
        if recorded == 2 || calls == 10 {
            break;
        }
    }
    assert_eq!((recorded, skipped), (2, 1), "after {calls} calls");
    assert!(calls > 2, "{calls}: the skip was not bounded per call");
    let texts: Vec<String> = ledger
        .range(1, 100, &remaind_events::Filter::default())
        .expect("range")
        .into_iter()
        .filter_map(|e| e.text)
        .collect();
    assert!(
        texts.iter().any(|t| t == "first queued prompt"),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t == "second queued prompt"),
        "{texts:?}"
    );
    let notes =
        std::fs::read_to_string(dir.join(".context/logs/hook-errors.jsonl")).expect("a note");
    assert_eq!(notes.lines().count(), 1, "{notes}");
    assert!(
        notes.contains("line 2 of") && notes.contains("skipped"),
        "{notes}"
    );
    // Nothing new: nothing read, nothing recorded again.
    let again = follow_transcript(&ledger, Runtime::ClaudeCode, &path).expect("follow");
    assert_eq!(
        (again.bytes, again.interrupts, again.skipped_lines),
        (0, 0, 0)
    );
}

#[test]
fn a_line_longer_than_the_window_but_within_the_limit_is_read() {
    let (_t, dir) = tempdir();
    let ledger = ledger(&dir);
    let path = dir.join("transcript.jsonl");
    let padding = "x".repeat(usize::try_from(WINDOW_BYTES + (1 << 20)).unwrap_or(0));
    let long = json!({"type": "queue-operation", "operation": "enqueue",
                      "timestamp": "2026-03-01T10:00:00.000Z", "sessionId": "s",
                      "content": "a long queued prompt", "padding": padding})
    .to_string();
    std::fs::write(&path, format!("{long}\n")).expect("write");
    let followed = follow_transcript(&ledger, Runtime::ClaudeCode, &path).expect("follow");
    assert_eq!((followed.interrupts, followed.skipped_lines), (1, 0));
}
