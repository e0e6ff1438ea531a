//! The hash chain and `verify`: tampering is found and named.

use remaind_events::{GENESIS_PREV, Kind};

use remaind_ledger::Ledger;

use crate::common::{self, event};

fn sample() -> (tempfile::TempDir, camino::Utf8PathBuf) {
    let (tmp, dir, ledger) = common::ledger();
    for i in 0..10 {
        ledger
            .append(event(Kind::Note, &format!("note number {i}")))
            .expect("append");
    }
    let mut big = event(Kind::ToolResult, "big output");
    big.tool = Some(remaind_events::Tool {
        name: "bash".into(),
        input: serde_json::Value::Null,
        output: "line of output\n".repeat(2000).into(),
    });
    ledger.append(big).expect("append");
    ledger.append(event(Kind::Note, "last")).expect("append");
    (tmp, dir)
}

fn lines(dir: &camino::Utf8Path) -> Vec<Vec<u8>> {
    let log = common::log_bytes(dir);
    log.split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

fn write_lines(dir: &camino::Utf8Path, lines: &[Vec<u8>]) {
    std::fs::write(dir.join("logs/events.jsonl"), lines.concat()).expect("write log");
}

#[test]
fn chain_links_every_line() {
    let (_tmp, dir) = sample();
    let ledger = Ledger::open(&dir).expect("open");
    let report = ledger.verify().expect("verify");
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(report.lines, 12);
    assert_eq!(report.artifacts_checked, 1);
    let mut prev = GENESIS_PREV.to_owned();
    for (i, ev) in ledger.iter().expect("iter").enumerate() {
        let ev = ev.expect("event");
        assert_eq!(ev.seq, i as u64 + 1);
        assert_eq!(ev.prev, prev);
        prev = ledger.digest_at(ev.seq).expect("digest").expect("exists");
    }
    assert_eq!(ledger.head().expect("head"), (12, prev.clone()));
    assert_eq!(report.head_digest, prev);
    assert_eq!(
        ledger.digest_at(0).expect("digest").as_deref(),
        Some(GENESIS_PREV)
    );
    assert_eq!(ledger.digest_at(13).expect("digest"), None);
}

#[test]
fn verify_finds_a_flipped_byte() {
    let (_tmp, dir) = sample();
    let mut ls = lines(&dir);
    // Change a letter of line 4's text: still valid JSON, but line 5's prev no longer matches.
    let pos = ls[3].windows(6).position(|w| w == b"number").expect("text");
    ls[3][pos] = b'N';
    write_lines(&dir, &ls);
    let report = tampered_open(&dir).verify().expect("verify");
    let first = report.problems.first().expect("a problem");
    assert_eq!(first.line, Some(5), "{first}");
    assert!(first.reason.contains("prev"), "{first}");
}

#[test]
fn verify_finds_a_deleted_line() {
    let (_tmp, dir) = sample();
    let mut ls = lines(&dir);
    ls.remove(6);
    write_lines(&dir, &ls);
    let report = tampered_open(&dir).verify().expect("verify");
    let first = report.problems.first().expect("a problem");
    assert_eq!(first.line, Some(7), "{first}");
    assert!(first.reason.contains("seq is 8"), "{first}");
}

#[test]
fn verify_finds_reordered_lines() {
    let (_tmp, dir) = sample();
    let mut ls = lines(&dir);
    ls.swap(2, 3);
    write_lines(&dir, &ls);
    let report = tampered_open(&dir).verify().expect("verify");
    let first = report.problems.first().expect("a problem");
    assert_eq!(first.line, Some(3), "{first}");
    assert!(report.problem_count >= 2);
}

#[test]
fn verify_finds_a_broken_line_and_a_tampered_artifact() {
    let (_tmp, dir) = sample();
    let ledger = Ledger::open(&dir).expect("open");
    let ev = ledger.get(11).expect("read").expect("event");
    let path = dir.join(&ev.artifact[0].path);
    drop(ledger);
    let mut bytes = std::fs::read(&path).expect("artifact");
    bytes[10] ^= 1;
    std::fs::write(&path, bytes).expect("write");
    let mut ls = lines(&dir);
    ls[1] = b"{\"v\":1,\"seq\":2 oops}\n".to_vec();
    write_lines(&dir, &ls);
    let report = tampered_open(&dir).verify().expect("verify");
    let first = report.problems.first().expect("a problem");
    assert_eq!(first.line, Some(2), "{first}");
    assert!(first.reason.contains("JSON"), "{first}");
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.file == ev.artifact[0].path && p.line == Some(11)),
        "{:?}",
        report.problems
    );
}

/// A changed log is refused by [`Ledger::open`] and by the read-only
/// [`remaind_ledger::LogReader`] (naming a line) and opened for inspection by
/// [`Ledger::open_with`] and [`remaind_ledger::Options::to_verify`].
fn tampered_open(dir: &camino::Utf8Path) -> Ledger {
    match Ledger::open(dir) {
        Err(remaind_ledger::Error::Tampered { line, .. }) => assert!(line >= 1),
        other => panic!("open should refuse a changed log: {other:?}"),
    }
    match remaind_ledger::LogReader::open(dir) {
        Err(remaind_ledger::Error::Tampered { line, .. }) => assert!(line >= 1),
        other => panic!("a reader should refuse a changed log: {other:?}"),
    }
    let to_verify = remaind_ledger::Options {
        to_verify: true,
        ..remaind_ledger::Options::default()
    };
    Ledger::open_with(dir, &to_verify).expect("open to verify")
}

/// A batch built at the head is refused, before it is built, when another process changed
/// the log under the open handle: the same check every append makes.
#[test]
fn a_batch_built_at_the_head_refuses_a_log_changed_under_it() {
    let (_tmp, dir) = sample();
    let ledger = Ledger::open(&dir).expect("open");
    let mut ls = lines(&dir);
    let last = ls.len() - 1;
    ls[last] = String::from_utf8_lossy(&ls[last])
        .replace("last", "lost")
        .into_bytes();
    write_lines(&dir, &ls);
    let before = common::log_bytes(&dir);
    let mut built = false;
    let err = ledger
        .append(remaind_ledger::AppendRequest::built(|_| {
            built = true;
            vec![event(Kind::Note, "after the change")]
        }))
        .expect_err("refused");
    assert!(
        matches!(err, remaind_ledger::Error::Tampered { .. }),
        "{err:?}"
    );
    assert!(!built, "the batch was built over a changed log");
    assert_eq!(common::log_bytes(&dir), before);
}
