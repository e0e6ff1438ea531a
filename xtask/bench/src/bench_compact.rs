//! Benchmark of `remaind-compact`: the whole commit path (`compact`: read the prior state and
//! the tail, fold, render, validate, write state.json and handover.md with history, append the
//! `compaction` event) on generated ledgers.
//!
//! - **full**: the first compaction of a 100,000-event ledger, against reading and parsing
//!   those 100,000 events (`Ledger::range`) in the same run;
//! - **incremental**: compacting 1,000 new events on top of an accepted state on a
//!   1,000,000-event ledger (figure) against the same on a 10,000-event ledger (baseline);
//!   target ratio <= 2. Quick mode uses 100,000 events for the big ledger and says so.
//!
//! - **session**: the first compaction of a generated 50-prompt session (each prompt followed
//!   by tool calls and results and a turn's end; a rule, an override chain, people and a
//!   reference back among the prompts), against reading and parsing its events; and the
//!   packet (`remaind resume --json`, default budget) after that compaction, in tokens,
//!   against the packet of the same session before it.
//!
//! The ledgers are written directly as stored lines with a valid hash chain (one buffered
//! pass), then opened with `Ledger::open`. Their mix is an agent's: mostly tool calls, tool
//! results, assistant turns and traces; one `user_message` in 200; about 1 % decisions,
//! results and file changes; a `next_step` in 500, resolved by a later result; a correction
//! in 2,000. Each incremental figure is the median of 9 rounds, each appending 1,000 new
//! events (one batch) and compacting them.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::{Duration, Instant};

use camino::{Utf8Path, Utf8PathBuf};
use remaind_compact::{Options, Source, compact, open_store};
use remaind_events::{EventId, GENESIS_PREV, Kind, NewEvent, build_event, line_digest};
use remaind_ledger::Ledger;

use crate::bench::Measurement;

const TS: &str = "2026-11-21T21:00:00.000000Z";
const ROUNDS: usize = 3;
/// Rounds of the incremental figures: each is short and fsync-bound, so a median of more
/// rounds keeps one slow disk flush from deciding the figure.
const INCREMENTAL_ROUNDS: usize = 9;
const NEW_EVENTS: usize = 1_000;

/// Runs the benchmark.
pub(crate) fn run(quick: bool) -> Vec<Measurement> {
    let tmp = tempfile::tempdir().expect("bench_compact: create a temp folder");
    let base = Utf8Path::from_path(tmp.path())
        .expect("bench_compact: temp folder path is not UTF-8")
        .to_owned();
    let mut out = Vec::new();

    // Full compaction of 100k events vs reading and parsing them.
    let full_n = 100_000;
    let dir = make_context(&base.join("full"), full_n);
    let ledger = Ledger::open(&dir).expect("bench_compact: open the ledger");
    let store = open_store(&dir).expect("bench_compact: open the store");
    let read = crate::bench::median_time(ROUNDS, || {
        let events = ledger
            .range(1, usize::MAX, &remaind_events::Filter::default())
            .expect("bench_compact: read events");
        assert_eq!(events.len() as u64, full_n);
    });
    let full = crate::bench::median_time(ROUNDS, || {
        // Each round is a first compaction: no prior state.
        let _ = store.remove("state.json");
        let out = compact(&ledger, &store, Source::Builtin, Options::default())
            .expect("bench_compact: compact");
        assert!(
            out.verdict.accepted,
            "bench_compact: rejected: {:?}",
            out.verdict.failures
        );
    });
    out.push(Measurement {
        name: format!("compact: full compaction, {full_n} events"),
        figure: ms(full),
        baseline_name: format!("read + parse {full_n} events"),
        baseline: ms(read),
        unit: "ms".to_owned(),
        note: "whole commit path, builtin compactor, validated and written".to_owned(),
    });

    out.extend(session(&base.join("session")));

    // Incremental compaction of 1,000 new events: big ledger vs 10k ledger.
    let big_n: u64 = if quick { 100_000 } else { 1_000_000 };
    let small = incremental(&base.join("small"), 10_000);
    let big = incremental(&base.join("big"), big_n);
    out.push(Measurement {
        name: format!("compact: {NEW_EVENTS} new events on a {big_n}-event ledger"),
        figure: ms(big),
        baseline_name: format!("{NEW_EVENTS} new events on a 10000-event ledger"),
        baseline: ms(small),
        unit: "ms".to_owned(),
        note: if quick {
            "target: ratio <= 2 at 1,000,000 events; quick mode uses 100,000".to_owned()
        } else {
            "target: ratio <= 2".to_owned()
        },
    });
    out
}

/// Prompts of the generated session.
const SESSION_PROMPTS: usize = 50;

/// The 50-prompt session's rows: its first compaction against reading its events, and its
/// packet after the compaction against the packet before.
fn session(root: &Utf8Path) -> Vec<Measurement> {
    let conversation = remaind_testkit::conversation::Conversation::generate(42, SESSION_PROMPTS);
    let ctx = root.join(".context");
    let init = crate::bench_resume::remaind(ctx.as_std_path(), &["init"]);
    crate::bench_resume::check("init", init, &[0]).expect("bench_compact: init");
    let ledger = Ledger::open(&ctx).expect("bench_compact: open the session");
    let mut generator = Gen::new(0);
    for (i, event) in conversation.events.iter().enumerate() {
        ledger.append(event.clone()).expect("bench_compact: append");
        if i % 2 == 0 {
            // Between a prompt and its turn's end: the agent's tool calls and results.
            let head = ledger.head().expect("bench_compact: head").0;
            generator.seq = head;
            let chatter: Vec<NewEvent> = (0..10)
                .map(|_| generator.next_new())
                .filter(|e| !matches!(e.kind, Some(Kind::UserMessage | Kind::Correction)))
                .map(|mut e| {
                    e.supersedes.clear();
                    e.resolves.clear();
                    e
                })
                .collect();
            ledger.append(chatter).expect("bench_compact: append");
        }
    }
    let n = ledger.head().expect("bench_compact: head").0;
    let tokens = || -> f64 {
        let out = crate::bench_resume::remaind(ctx.as_std_path(), &["resume", "--json"])
            .output()
            .expect("bench_compact: resume");
        let json: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("bench_compact: resume --json");
        json["tokens"].as_f64().expect("bench_compact: tokens")
    };
    let before = tokens();
    let store = open_store(&ctx).expect("bench_compact: open the store");
    let read = crate::bench::median_time(ROUNDS, || {
        let events = ledger
            .range(1, usize::MAX, &remaind_events::Filter::default())
            .expect("bench_compact: read");
        assert_eq!(events.len() as u64, n);
    });
    let time = crate::bench::median_time(ROUNDS, || {
        let _ = store.remove("state.json");
        let out = compact(&ledger, &store, Source::Builtin, Options::default())
            .expect("bench_compact: compact");
        assert!(
            out.verdict.accepted,
            "bench_compact: {:?}",
            out.verdict.failures
        );
    });
    let after = tokens();
    vec![
        Measurement {
            name: format!(
                "compact: {SESSION_PROMPTS}-prompt session ({n} events), first compaction"
            ),
            figure: ms(time),
            baseline_name: format!("read + parse its {n} events"),
            baseline: ms(read),
            unit: "ms".to_owned(),
            note: "whole commit path, builtin compactor; every user message carried".to_owned(),
        },
        Measurement {
            name: format!("resume: packet after compacting the {SESSION_PROMPTS}-prompt session"),
            figure: after,
            baseline_name: "the same packet before the compaction".to_owned(),
            baseline: before,
            unit: "tokens".to_owned(),
            note: "default budget".to_owned(),
        },
    ]
}

/// Median time of compacting [`NEW_EVENTS`] new events on an `n`-event ledger with an
/// accepted state through its head.
fn incremental(dir: &Utf8Path, n: u64) -> Duration {
    let dir = make_context(dir, n);
    let ledger = Ledger::open(&dir).expect("bench_compact: open the ledger");
    let store = open_store(&dir).expect("bench_compact: open the store");
    let first = compact(&ledger, &store, Source::Builtin, Options::default())
        .expect("bench_compact: first compaction");
    assert!(
        first.verdict.accepted,
        "bench_compact: rejected: {:?}",
        first.verdict.failures
    );
    let mut generator = Gen::new(n);
    let mut times = Vec::with_capacity(INCREMENTAL_ROUNDS);
    for _ in 0..INCREMENTAL_ROUNDS {
        let head = ledger.head().expect("bench_compact: head").0;
        generator.seq = head;
        let batch: Vec<NewEvent> = (0..NEW_EVENTS).map(|_| generator.next_new()).collect();
        ledger.append(batch).expect("bench_compact: append");
        let start = Instant::now();
        let out = compact(&ledger, &store, Source::Builtin, Options::default())
            .expect("bench_compact: compact");
        times.push(start.elapsed());
        assert!(
            out.verdict.accepted,
            "bench_compact: rejected: {:?}",
            out.verdict.failures
        );
    }
    times.sort();
    times[times.len() / 2]
}

/// A `.context/` folder whose ledger holds `n` generated events.
fn make_context(dir: &Utf8Path, n: u64) -> Utf8PathBuf {
    let dir = dir.join(".context");
    Ledger::create(&dir).expect("bench_compact: create the ledger");
    let file = File::create(dir.join("logs/events.jsonl")).expect("bench_compact: create log");
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut generator = Gen::new(0);
    let mut prev = GENESIS_PREV.to_owned();
    for _ in 0..n {
        let new = generator.next_new();
        let seq = generator.seq;
        let event = build_event(new, seq, &prev, TS).expect("bench_compact: a valid event");
        let line = serde_json::to_vec(&event).expect("bench_compact: serialize");
        prev = line_digest(&line);
        w.write_all(&line).expect("bench_compact: write");
        w.write_all(b"\n").expect("bench_compact: write");
    }
    w.flush().expect("bench_compact: flush");
    w.into_inner()
        .map_err(|e| e.to_string())
        .and_then(|f| f.sync_all().map_err(|e| e.to_string()))
        .expect("bench_compact: sync");
    dir
}

/// A deterministic generator of an agent's events.
struct Gen {
    seq: u64,
    state: u64,
    open_step: Option<u64>,
    last_decision: Option<u64>,
}

impl Gen {
    fn new(seq: u64) -> Self {
        Gen {
            seq,
            state: 0x2545_f491_4f6c_dd1d ^ seq,
            open_step: None,
            last_decision: None,
        }
    }

    fn rand(&mut self) -> u64 {
        // xorshift64*
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// The next event, as a caller would log it; advances `seq`.
    fn next_new(&mut self) -> NewEvent {
        self.seq += 1;
        let seq = self.seq;
        let r = self.rand() % 10_000;
        let mut e = NewEvent::default();
        let (kind, text) = if seq == 1 || r < 50 {
            (
                Kind::UserMessage,
                format!("Please continue with task {seq}: keep the API stable and run the tests"),
            )
        } else if r < 70 {
            (
                Kind::NextStep,
                format!("Implement part {seq} of the importer"),
            )
        } else if r < 110 {
            if let Some(step) = self.open_step.take() {
                e.resolves.push(EventId(step));
            }
            (Kind::Result, format!("Finished part {seq}: tests pass"))
        } else if r < 140 {
            (Kind::FileChange, format!("src/importer/part_{seq}.rs"))
        } else if r < 165 {
            (
                Kind::Decision,
                format!("Decision {seq}: stream rows instead of loading the file"),
            )
        } else if r < 170 {
            match self.last_decision {
                Some(d) => {
                    e.supersedes.push(EventId(d));
                    (
                        Kind::Correction,
                        format!("Correction {seq}: batch rows by 1,000 instead"),
                    )
                }
                None => (Kind::Note, format!("note {seq}")),
            }
        } else if r < 3_500 {
            (
                Kind::ToolCall,
                format!("cargo test -p importer --test part_{seq}"),
            )
        } else if r < 7_000 {
            (
                Kind::ToolResult,
                format!("test result: ok. {seq} passed; 0 failed; finished in 0.42s"),
            )
        } else if r < 9_000 {
            (
                Kind::AssistantMessage,
                format!("Looking at the failure in part {seq}; the parser drops the last row."),
            )
        } else {
            (Kind::Trace, format!("trace {seq}: parser state = Idle"))
        };
        match kind {
            Kind::NextStep => self.open_step = Some(seq),
            Kind::Decision | Kind::Correction => self.last_decision = Some(seq),
            _ => {}
        }
        e.kind = Some(kind);
        e.text = Some(text);
        e
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
