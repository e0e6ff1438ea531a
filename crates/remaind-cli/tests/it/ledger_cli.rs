//! `remaind log`, `events`, `verify` and `artifact` end to end.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{Tmp, remaind, tmp};

fn init() -> (Tmp, PathBuf) {
    let t = tmp();
    let ctx = t.0.join(".context");
    let out = remaind(&ctx, &["init"], None);
    assert!(
        out.status.success(),
        "init: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (t, ctx)
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read dir") {
            let e = e.expect("entry");
            if e.file_type().expect("type").is_dir() {
                stack.push(e.path());
            } else {
                out.insert(e.path(), std::fs::read(e.path()).expect("read"));
            }
        }
    }
    out
}

#[test]
fn log_events_verify_round_trip() {
    let (_t, ctx) = init();
    let out = remaind(
        &ctx,
        &[
            "log",
            "--kind",
            "decision",
            "--text",
            "Use SQLite for the index",
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout(&out).trim(), "e1");
    let out = remaind(
        &ctx,
        &[
            "log",
            "--kind",
            "correction",
            "--text",
            "Use Postgres",
            "--supersedes",
            "e1",
            "--data",
            r#"{"why":"scale"}"#,
            "--json",
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("json");
    assert_eq!(v["id"], "e2");
    let out = remaind(
        &ctx,
        &[
            "log",
            "--json-event",
            r#"{"kind":"next_step","text":"migrate","refs":["e2"]}"#,
        ],
        None,
    );
    assert_eq!(stdout(&out).trim(), "e3");
    let batch = b"{\"kind\":\"note\",\"text\":\"a\"}\n{\"kind\":\"result\",\"text\":\"migrated\",\"resolves\":[\"e3\"]}\n";
    let out = remaind(&ctx, &["log", "--stdin"], Some(batch));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout(&out), "e4\ne5\n");

    let out = remaind(&ctx, &["events", "--json"], None);
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[1]["supersedes"][0], "e1");
    let out = remaind(
        &ctx,
        &["events", "--from", "2", "--limit", "2", "--json"],
        None,
    );
    assert_eq!(stdout(&out).lines().count(), 2);
    assert!(stdout(&out).starts_with("{\"v\":1,\"seq\":2,"));
    let out = remaind(
        &ctx,
        &["events", "--before", "5", "--kind", "decision,correction"],
        None,
    );
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.lines().next().unwrap_or("").starts_with("e1 "),
        "{text}"
    );
    let out = remaind(&ctx, &["events", "--min-importance", "3", "--json"], None);
    assert_eq!(stdout(&out).lines().count(), 1);

    let out = remaind(&ctx, &["verify"], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout(&out).starts_with("ledger ok: 5 lines"),
        "{}",
        stdout(&out)
    );
    let out = remaind(&ctx, &["verify", "--json"], None);
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("json");
    assert_eq!(v["problem_count"], 0);
    for cmd in ["log", "events", "verify", "artifact"] {
        let out = remaind(&ctx, &[cmd, "--help"], None);
        assert!(
            stdout(&out).contains("Examples:"),
            "{cmd} --help has examples"
        );
    }
}

#[test]
fn output_file_goes_to_an_artifact_and_shows_back() {
    let (t, ctx) = init();
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend((0..40_000u32).map(|i| (i % 251) as u8));
    let file = t.0.join("out.bin");
    std::fs::write(&file, &bytes).expect("write");
    let file = file.to_str().expect("utf-8");
    let out = remaind(
        &ctx,
        &[
            "log",
            "--kind",
            "tool_result",
            "--tool",
            "screenshot",
            "--output-file",
            file,
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = remaind(&ctx, &["events", "--json"], None);
    let ev: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("json");
    let sha = ev["artifact"][0]["sha256"]
        .as_str()
        .expect("sha")
        .to_owned();
    assert_eq!(ev["artifact"][0]["field"], "tool.output");
    let out = remaind(&ctx, &["artifact", "show", &sha], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, bytes);
    let out = remaind(&ctx, &["artifact", "show", "nothex"], None);
    assert_eq!(out.status.code(), Some(2));

    // A tampered artifact makes verify exit 1 naming the file.
    let path = ctx.join(format!("artifacts/{}/{sha}", &sha[..2]));
    let mut stored = std::fs::read(&path).expect("artifact");
    stored[100] ^= 0xff;
    std::fs::write(&path, stored).expect("write");
    let out = remaind(&ctx, &["verify"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&sha),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn bad_input_exits_2_and_leaves_the_ledger_byte_identical() {
    let (_t, ctx) = init();
    let out = remaind(&ctx, &["log", "--kind", "note", "--text", "first"], None);
    assert!(out.status.success());
    let before = files(&ctx);
    type Case<'a> = (Vec<&'a str>, Option<&'a [u8]>, &'a str);
    let cases: Vec<Case<'_>> = vec![
        (vec!["log", "--kind", "memo", "--text", "x"], None, "kind"),
        (vec!["log", "--kind", "decision", "--importance", "1"], None, "importance"),
        (vec!["log", "--kind", "note", "--importance", "9"], None, "importance"),
        (vec!["log", "--kind", "correction", "--text", "x"], None, "supersedes"),
        (vec!["log", "--kind", "note", "--refs", "e99"], None, "refs"),
        (vec!["log", "--kind", "note", "--refs", "12"], None, "refs"),
        (vec!["log", "--kind", "note", "--data", "{oops"], None, "data"),
        (vec!["log", "--kind", "note", "--data", "[1]"], None, "data"),
        (vec!["log", "--kind", "compaction", "--text", "x"], None, "kind"),
        (vec!["log", "--json-event", r#"{"kind":"note","text":5}"#], None, "text"),
        (vec!["log", "--json-event", "{not json"], None, "malformed"),
        (vec!["log", "--json-event", r#"{"kind":"note","seq":3}"#], None, "seq"),
        (vec!["log", "--text", "no kind"], None, "--kind"),
        (
            vec!["log", "--stdin"],
            Some(b"{\"kind\":\"note\",\"text\":\"ok\"}\n{\"kind\":\"note\",\"text\":\"ok\"}\n{\"kind\":\"remember\",\"importance\":1}\n"),
            "line 3",
        ),
        (vec!["log", "--stdin"], Some(b"{\"kind\":\"note\"}\n[1,2]\n"), "line 2"),
        (vec!["log", "--stdin"], Some(b"\n\n"), "no events"),
        (vec!["events", "--kind", "memo"], None, "kind"),
    ];
    for (args, stdin, needle) in cases {
        let out = remaind(&ctx, &args, stdin);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} printed {}", stdout(&out));
        assert_eq!(files(&ctx), before, "{args:?} changed .context/");
    }
}

#[test]
fn eight_processes_append_sixteen_thousand_events() {
    let (_t, ctx) = init();
    let workers: Vec<_> = (0..8)
        .map(|w| {
            let ctx = ctx.clone();
            std::thread::spawn(move || {
                let mut ids = Vec::new();
                for round in 0..4 {
                    let mut input = Vec::new();
                    for i in 0..500 {
                        writeln!(
                            input,
                            "{{\"kind\":\"note\",\"text\":\"worker {w} round {round} event {i}\"}}"
                        )
                        .expect("write");
                    }
                    let out = remaind(&ctx, &["log", "--stdin"], Some(&input));
                    assert!(
                        out.status.success(),
                        "{}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                    let got: Vec<u64> = stdout(&out)
                        .lines()
                        .map(|l| l.trim_start_matches('e').parse().expect("id"))
                        .collect();
                    assert_eq!(got.len(), 500);
                    assert!(
                        got.windows(2).all(|p| p[1] == p[0] + 1),
                        "a batch is contiguous"
                    );
                    ids.extend(got);
                }
                ids
            })
        })
        .collect();
    let mut all = Vec::new();
    for w in workers {
        all.extend(w.join().expect("worker"));
    }
    all.sort_unstable();
    assert_eq!(all, (1..=16_000).collect::<Vec<u64>>());
    let log = std::fs::read(ctx.join("logs/events.jsonl")).expect("log");
    assert_eq!(log.iter().filter(|&&b| b == b'\n').count(), 16_000);
    let out = remaind(&ctx, &["verify"], None);
    assert!(
        out.status.success(),
        "{}{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout(&out).starts_with("ledger ok: 16000 lines"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn eight_processes_append_single_events() {
    let (_t, ctx) = init();
    let workers: Vec<_> = (0..8)
        .map(|w| {
            let ctx = ctx.clone();
            std::thread::spawn(move || {
                for i in 0..25 {
                    let text = format!("worker {w} event {i}");
                    let out = remaind(&ctx, &["log", "--kind", "trace", "--text", &text], None);
                    assert!(
                        out.status.success(),
                        "{}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker");
    }
    let out = remaind(&ctx, &["verify"], None);
    assert!(
        stdout(&out).starts_with("ledger ok: 200 lines"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn verify_names_the_first_bad_line() {
    let (_t, ctx) = init();
    for i in 0..5 {
        let out = remaind(
            &ctx,
            &["log", "--kind", "note", "--text", &format!("note {i}")],
            None,
        );
        assert!(out.status.success());
    }
    let path = ctx.join("logs/events.jsonl");
    let log = std::fs::read_to_string(&path).expect("log");
    let mut lines: Vec<&str> = log.lines().collect();
    lines.remove(2);
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let out = remaind(&ctx, &["verify"], None);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("logs/events.jsonl line 3"), "{err}");
}
