//! External candidates: folders and commands speaking the compactor protocol.

use std::time::{Duration, Instant};

use camino::Utf8PathBuf;
use remaind_compact::{CompactorInput, from_command, from_dir};
use remaind_events::Kind;
use remaind_validate::LedgerView;

use crate::common::{accepted, ev, ledger, verdict};

fn tempdir() -> (tempfile::TempDir, Utf8PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let path = Utf8PathBuf::from_path_buf(tmp.path().to_owned()).expect("UTF-8 temp dir");
    (tmp, path)
}

fn sample() -> (
    remaind_validate::MemoryLedger,
    CompactorInput,
    remaind_compact::Candidate,
) {
    let l = ledger(vec![
        ev(Kind::UserMessage, "Write the report"),
        ev(Kind::NextStep, "Outline it"),
    ]);
    let good = accepted(&l);
    let events: Vec<_> = l.events_in(0, 2).map(|e| e.expect("in memory")).collect();
    let input = CompactorInput::new(None, &events, 2, &good.state.log_digest);
    (l, input, good)
}

#[test]
fn a_candidate_folder_is_read() {
    let (l, _, good) = sample();
    let (_tmp, dir) = tempdir();
    std::fs::write(dir.join("state.json"), good.state.to_canonical_bytes()).expect("write");
    std::fs::write(dir.join("handover.md"), &good.handover).expect("write");
    let cand = from_dir(&dir).expect("readable");
    assert_eq!(cand, good);
    assert!(verdict(&l, None, &cand).accepted);
}

#[test]
fn a_bad_candidate_folder_is_a_rejection_naming_the_file() {
    let (_tmp, dir) = tempdir();
    let err = from_dir(&dir).expect_err("nothing there");
    assert!(err.reason.contains("state.json"), "{}", err.reason);

    std::fs::write(
        dir.join("state.json"),
        b"{\"v\": 1, \"through_seq\": \"two\"}",
    )
    .expect("write");
    let err = from_dir(&dir).expect_err("bad JSON");
    assert!(
        err.reason.contains("state.json") && err.reason.contains("line 1"),
        "{}",
        err.reason
    );

    let (_, _, good) = sample();
    std::fs::write(dir.join("state.json"), good.state.to_canonical_bytes()).expect("write");
    let err = from_dir(&dir).expect_err("no handover");
    assert!(err.reason.contains("handover.md"), "{}", err.reason);
    std::fs::write(dir.join("handover.md"), [0xff, 0xfe]).expect("write");
    let err = from_dir(&dir).expect_err("not UTF-8");
    assert!(
        err.reason.contains("handover.md") && err.reason.contains("UTF-8"),
        "{}",
        err.reason
    );
}

#[test]
fn a_good_command_reads_stdin_and_prints_a_candidate() {
    let (l, input, good) = sample();
    let (_tmp, dir) = tempdir();
    let out = serde_json::json!({"state": good.state, "handover": good.handover});
    let out_path = dir.join("out.json");
    std::fs::write(&out_path, serde_json::to_vec(&out).expect("json")).expect("write");
    let seen = dir.join("stdin.json");
    // The command must see the whole protocol document on stdin.
    let cmd = format!("cat > '{seen}' && cat '{out_path}'");
    let cand = from_command(&cmd, &input, Duration::from_secs(30)).expect("good command");
    assert_eq!(cand, good);
    assert!(verdict(&l, None, &cand).accepted);
    let sent: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&seen).expect("stdin copy")).expect("JSON");
    assert_eq!(sent["protocol"], 1);
    assert_eq!(sent["through_seq"], 2);
    assert_eq!(sent["prior_state"], serde_json::Value::Null);
    assert_eq!(sent["events"].as_array().map(Vec::len), Some(2));
    assert_eq!(sent["events"][0]["text"], "Write the report");
    assert!(
        sent["handover_format"]
            .as_str()
            .is_some_and(|s| s.contains("Superseded"))
    );
}

#[test]
fn a_failing_command_is_a_rejection_quoting_stderr() {
    let (_, input, _) = sample();
    let err = from_command(
        "echo 'model overloaded' >&2; exit 7",
        &input,
        Duration::from_secs(30),
    )
    .expect_err("non-zero exit");
    assert!(
        err.reason.contains("exited with status 7"),
        "{}",
        err.reason
    );
    assert!(err.reason.contains("model overloaded"), "{}", err.reason);
}

#[test]
fn a_slow_command_is_killed_at_the_timeout() {
    let (_, input, _) = sample();
    let start = Instant::now();
    // The background sleeper holds stdout open too: the whole group must die.
    let err = from_command("sleep 30 & sleep 30", &input, Duration::from_millis(300))
        .expect_err("timeout");
    assert!(err.reason.contains("timed out"), "{}", err.reason);
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "took {:?}",
        start.elapsed()
    );
}

#[test]
fn garbage_output_is_a_rejection() {
    let (_, input, _) = sample();
    for (cmd, want) in [
        ("echo 'Sure! Here is your summary:'", "output is not"),
        ("true", "printed nothing"),
        (
            "echo '{\"state\": {\"v\": 1}, \"handover\": \"# Handover\"}'",
            "not a valid state",
        ),
        ("echo '{\"handover\": \"x\"}'", "missing field `state`"),
        ("echo '[1, 2, 3]'", "output is not"),
    ] {
        let err = from_command(cmd, &input, Duration::from_secs(30)).expect_err(cmd);
        assert!(err.reason.contains(want), "{cmd}: {}", err.reason);
    }
}

#[test]
fn a_missing_program_is_a_rejection() {
    let (_, input, _) = sample();
    let err = from_command(
        "definitely-not-a-compactor-xyz",
        &input,
        Duration::from_secs(30),
    )
    .expect_err("missing");
    assert!(
        err.reason.contains("exited with status 127"),
        "{}",
        err.reason
    );
}
