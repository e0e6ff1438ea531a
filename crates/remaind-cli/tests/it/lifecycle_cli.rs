//! The lifecycle commands end to end: `monitor`, `frame`, `resume`, `rollback`, `status`, and
//! the rollback round-trip law at the CLI level.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use proptest::prelude::*;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_remaind");

/// The derived files rollback covers, relative to `.context/active/`.
const DERIVED: [&str; 4] = [
    "state.json",
    "handover.md",
    "framing.json",
    "resume_packet.md",
];

struct Ctx {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

impl Ctx {
    fn new() -> Ctx {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join(".context");
        let ctx = Ctx { _tmp: tmp, dir };
        let out = ctx.run(&["init"]);
        assert!(out.status.success(), "init: {}", stderr(&out));
        ctx
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(BIN)
            .args(crate::common::store_args(args))
            .arg("--dir")
            .arg(&self.dir)
            .env_remove("REMAIND_DIR")
            .env_remove("REMAIND_MODEL")
            .output()
            .expect("run remaind")
    }

    fn ok(&self, args: &[&str]) -> Output {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        out
    }

    fn json(&self, args: &[&str]) -> Value {
        let out = self.ok(args);
        serde_json::from_slice(&out.stdout).expect("JSON output")
    }

    fn derived(&self) -> Vec<Option<Vec<u8>>> {
        DERIVED
            .iter()
            .map(|f| std::fs::read(self.dir.join("active").join(f)).ok())
            .collect()
    }

    fn events(&self) -> Vec<u8> {
        read(&self.dir.join("logs/events.jsonl"))
    }

    /// The time of the latest history point of a derived file (an instant as of which every
    /// derived file has its current bytes).
    fn last_point(&self) -> Option<String> {
        let list = self.json(&["rollback", "--list", "--json"]);
        list.as_array()?
            .last()
            .map(|p| p["time"].as_str().expect("time").to_owned())
    }
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_default()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn monitor_classifies_and_records_band_changes() {
    let ctx = Ctx::new();
    let r = ctx.json(&["monitor", "--used", "150000", "--json"]);
    assert_eq!(r["band"], "warning");
    assert_eq!(r["action"], "compact_soon");
    assert_eq!(r["window"], 200000);
    assert!(r["event"].is_string());
    let r = ctx.json(&["monitor", "--used", "150000", "--json"]);
    assert!(r["event"].is_null(), "no band change, no event");
    let r = ctx.json(&["monitor", "--used", "99", "--window", "100", "--json"]);
    assert_eq!(r["band"], "emergency");
    assert_eq!(r["action"], "compact_now_and_resume_minimal");
    let out = ctx.run(&["monitor", "--used", "1", "--window", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn resume_interrupts_with_every_reason_then_goes_on() {
    let ctx = Ctx::new();
    // Nothing logged: no instruction, no next step.
    let out = ctx.run(&["resume"]);
    assert_eq!(out.status.code(), Some(4));
    let err = stderr(&out);
    assert!(err.contains("no_next_step"), "{err}");
    assert!(err.contains("instruction_not_in_packet"), "{err}");
    assert!(ctx.dir.join("active/resume_packet.md").is_file());

    ctx.ok(&[
        "log",
        "--kind",
        "user_message",
        "--text",
        "Ship the parser.",
    ]);
    ctx.ok(&["log", "--kind", "next_step", "--text", "Write tests."]);
    let out = ctx.ok(&["resume", "--budget", "2000"]);
    let packet = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(packet.contains("Ship the parser."));
    let r = ctx.json(&["resume", "--json"]);
    assert_eq!(r["gate"]["proceed"], true);
    assert_eq!(r["latest_instruction"]["text"], "Ship the parser.");

    let s = ctx.json(&["status", "--json"]);
    assert_eq!(s["head_seq"], 2);
    assert_eq!(s["band"], "normal");
    assert_eq!(s["next_step"]["text"], "Write tests.");
    assert_eq!(s["gate"]["proceed"], true);
}

#[test]
fn frame_records_and_rejects_bad_input() {
    let ctx = Ctx::new();
    let f = ctx.json(&[
        "frame",
        "--model",
        "gpt-5",
        "--set",
        "thinking=high",
        "--time-zone",
        "UTC",
        "--json",
    ]);
    assert_eq!(f["model"], "gpt-5");
    assert_eq!(f["settings"]["thinking"], "high");
    assert_eq!(f["time_zone"], "UTC");
    let out = ctx.run(&["frame", "--set", "oops"]);
    assert_eq!(out.status.code(), Some(2));
    let out = ctx.run(&["frame", "--date", "tomorrow"]);
    assert_eq!(out.status.code(), Some(2));
    let out = ctx.run(&["rollback", "--to", "not-a-time"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn malformed_tools_yaml_names_the_line() {
    let ctx = Ctx::new();
    std::fs::write(
        ctx.dir.join("schemas/tools.yaml"),
        "default:\n  mutates: false\ntools:\n  shell: {mutate: true}\n",
    )
    .expect("write tools.yaml");
    let out = ctx.run(&["resume"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("tools.yaml:4:"), "{err}");
}

#[derive(Debug, Clone)]
enum Op {
    Log(&'static str, String),
    Compact,
    Frame(String),
    Resume,
    Rollback(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (
            prop::sample::select(vec!["user_message", "note", "decision", "next_step", "result"]),
            "[a-z]{1,8}( [a-z]{1,8}){0,3}",
        )
            .prop_map(|(k, t)| Op::Log(k, t)),
        2 => Just(Op::Compact),
        2 => "[a-z][a-z0-9-]{0,9}".prop_map(Op::Frame),
        1 => Just(Op::Resume),
        3 => any::<usize>().prop_map(Op::Rollback),
    ]
}

fn apply(ctx: &Ctx, op: &Op) {
    match op {
        Op::Log(kind, text) => {
            ctx.ok(&["log", "--kind", kind, "--text", text]);
        }
        Op::Compact => {
            let out = ctx.run(&["compact"]);
            assert!(
                matches!(out.status.code(), Some(0 | 3)),
                "compact: {}",
                stderr(&out)
            );
        }
        Op::Frame(model) => {
            ctx.ok(&[
                "frame",
                &format!("--model={model}"),
                "--time-zone",
                "UTC",
                "--date",
                "2026-11-21",
            ]);
        }
        Op::Resume => {
            let out = ctx.run(&["resume"]);
            assert!(
                matches!(out.status.code(), Some(0 | 4)),
                "resume: {}",
                stderr(&out)
            );
        }
        Op::Rollback(_) => unreachable!("handled by the caller"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(32),
        ..ProptestConfig::default()
    })]

    /// For any sequence of log, compact, frame, resume and rollback operations:
    /// `rollback --to T` restores the exact bytes of every derived file as of T, rolling back
    /// the rollback restores the bytes from before it, and events.jsonl is byte-identical
    /// across every rollback.
    #[test]
    fn prop_cli_rollback_round_trip(ops in proptest::collection::vec(op(), 1..10)) {
        let ctx = Ctx::new();
        // (time, bytes of every derived file as of that time); before any write: all absent.
        let mut checkpoints: Vec<(String, Vec<Option<Vec<u8>>>)> =
            vec![("2000-01-01T00:00:00Z".to_owned(), ctx.derived())];
        for op in &ops {
            if let Op::Rollback(pick) = op {
                let (to, expected) = checkpoints[pick % checkpoints.len()].clone();
                let before = ctx.derived();
                let events = ctx.events();
                let r = ctx.json(&["rollback", "--to", &to, "--json"]);
                prop_assert_eq!(&ctx.derived(), &expected, "rollback --to {} restores the bytes as of it", to);
                prop_assert_eq!(&ctx.events(), &events, "rollback never touches events.jsonl");
                match r["undo_to"].as_str() {
                    Some(undo) => {
                        ctx.json(&["rollback", "--to", undo, "--json"]);
                        prop_assert_eq!(&ctx.derived(), &before, "rolling back the rollback restores the bytes before it");
                        prop_assert_eq!(&ctx.events(), &events);
                    }
                    None => prop_assert_eq!(&before, &expected, "nothing changed, so nothing to undo"),
                }
            } else {
                apply(&ctx, op);
            }
            if let Some(t) = ctx.last_point() {
                checkpoints.push((t, ctx.derived()));
            }
        }
    }
}
