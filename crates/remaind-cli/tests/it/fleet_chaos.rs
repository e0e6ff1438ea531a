//! Many writers on two machines sharing one project through PostgreSQL, one compacting and
//! one following, with writers killed (`SIGKILL`) at random instants: the shared chain stays
//! gapless and unforked, no acknowledged event is lost, every folder holds the store's exact
//! bytes, and the follower sees every event exactly once, in order (docs/fleet.md).

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use remaind_pg::Store;

use crate::common::{ok, remaind, tmp};

/// Writer processes alive at once: eight on each machine.
const WRITERS: usize = 16;
/// Writers killed in the run.
const KILLS: usize = 200;

/// A small xorshift generator: the run is random but needs no dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

fn spawn(ctx: &Path, args: &[&str], stdout: Stdio) -> Child {
    Command::new(env!("CARGO_BIN_EXE_remaind"))
        .arg("--dir")
        .arg(ctx)
        .args(args)
        .env_remove("REMAIND_DIR")
        .env_remove("REMAIND_STORE")
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn remaind")
}

struct Writer {
    child: Child,
    text: String,
    doomed_at: Option<Instant>,
}

#[test]
fn killed_writers_on_two_machines_lose_nothing_and_fork_nothing() {
    let url = remaind_testkit::postgres_url();
    let project = remaind_testkit::unique_project("chaos");
    let t = tmp();
    let machines: Vec<PathBuf> = ["a", "b", "follower"]
        .iter()
        .map(|m| t.0.join(m).join(".context"))
        .collect();
    for ctx in &machines {
        ok(&remaind(
            ctx,
            &["init", "--store", &url, "--project", &project],
            None,
        ));
    }
    let follower = spawn(
        &machines[2],
        &["events", "--follow", "--json"],
        Stdio::piped(),
    );
    let (follower, seen) = follow(follower);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ u64::from(std::process::id()));
    let mut writers: Vec<Writer> = Vec::new();
    let mut acknowledged: BTreeMap<u64, String> = BTreeMap::new();
    let (mut kills, mut started) = (0, 0);
    let mut compactor: Option<Child> = None;
    let deadline = Instant::now() + Duration::from_secs(240);
    while kills < KILLS && Instant::now() < deadline {
        while writers.len() < WRITERS {
            let ctx = &machines[started % 2];
            let text = format!("writer event {started}");
            let child = spawn(
                ctx,
                &["log", "--kind", "note", "--text", &text],
                Stdio::piped(),
            );
            // Most writers are doomed, at a random instant of their run.
            let doomed_at = (rng.below(4) != 0)
                .then(|| Instant::now() + Duration::from_micros(rng.below(60_000)));
            writers.push(Writer {
                child,
                text,
                doomed_at,
            });
            started += 1;
        }
        if compactor
            .as_mut()
            .is_none_or(|c| c.try_wait().ok().flatten().is_some())
        {
            compactor = Some(spawn(&machines[0], &["compact", "--json"], Stdio::null()));
        }
        std::thread::sleep(Duration::from_millis(1));
        let mut i = 0;
        while i < writers.len() {
            let w = &mut writers[i];
            if w.doomed_at.is_some_and(|at| Instant::now() >= at) {
                if w.child.try_wait().ok().flatten().is_none() {
                    let _ = w.child.kill();
                    kills += 1;
                }
                w.doomed_at = None;
            }
            if let Some(status) = w.child.try_wait().ok().flatten() {
                let w = writers.swap_remove(i);
                record(w, status.success(), &mut acknowledged);
                continue;
            }
            i += 1;
        }
    }
    for w in writers.drain(..) {
        let mut w = w;
        let status = w.child.wait().expect("wait");
        record(w, status.success(), &mut acknowledged);
    }
    if let Some(mut c) = compactor {
        let _ = c.wait();
    }
    assert!(
        kills >= KILLS,
        "only {kills} writers were killed before the deadline"
    );
    check(&url, &project, &machines, &acknowledged, follower, seen);
}

/// An exited writer's acknowledged id (it printed `eN` and exited 0).
fn record(mut w: Writer, success: bool, acknowledged: &mut BTreeMap<u64, String>) {
    let mut out = String::new();
    if let Some(mut stdout) = w.child.stdout.take() {
        use std::io::Read;
        let _ = stdout.read_to_string(&mut out);
    }
    if success {
        let seq: u64 = out.trim().trim_start_matches('e').parse().expect("an id");
        assert!(
            acknowledged.insert(seq, w.text).is_none(),
            "seq {seq} acknowledged twice"
        );
    }
}

/// The follower's stdout, read on a thread: the seqs it printed, in order.
fn follow(mut child: Child) -> (Child, std::sync::mpsc::Receiver<u64>) {
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let v: serde_json::Value = serde_json::from_str(&line).expect("a JSON event");
            if tx.send(v["seq"].as_u64().expect("seq")).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

#[expect(
    clippy::print_stderr,
    reason = "the run's figures, for whoever runs it with --nocapture"
)]
fn check(
    url: &str,
    project: &str,
    machines: &[PathBuf],
    acknowledged: &BTreeMap<u64, String>,
    mut follower: Child,
    seen: std::sync::mpsc::Receiver<u64>,
) {
    let mut store = Store::connect(url, project).expect("connect");
    let lines = store
        .lines(0, u64::MAX, usize::MAX)
        .expect("the store's lines");
    let head = store.head().expect("head");
    // Gapless, one chain.
    let mut prev = remaind_events::GENESIS_PREV.to_owned();
    for (i, (seq, line)) in lines.iter().enumerate() {
        assert_eq!(*seq, i as u64 + 1, "a gap before seq {seq}");
        let text = std::str::from_utf8(line).expect("utf-8");
        assert!(
            text.contains(&format!(r#""prev":"{prev}""#)),
            "a fork at seq {seq}"
        );
        prev = remaind_hash::sha256_hex(line);
    }
    assert_eq!((head.seq, head.digest), (lines.len() as u64, prev));
    // No acknowledged event lost: each is in the store with its text.
    for (seq, text) in acknowledged {
        let (_, line) = &lines[*seq as usize - 1];
        assert!(
            String::from_utf8_lossy(line).contains(text.as_str()),
            "acknowledged e{seq} ({text}) is not what the store holds"
        );
    }
    // Every folder, caught up, holds the store's bytes and verifies.
    let mut bytes = Vec::new();
    for (_, line) in &lines {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    for ctx in machines {
        ok(&remaind(ctx, &["verify"], None));
        assert_eq!(
            std::fs::read(ctx.join("logs/events.jsonl")).expect("log"),
            bytes,
            "{} differs from the store",
            ctx.display()
        );
    }
    // The follower printed every event once, in order.
    let mut printed = Vec::new();
    let until = Instant::now() + Duration::from_secs(60);
    while printed.len() < lines.len() && Instant::now() < until {
        if let Ok(seq) = seen.recv_timeout(Duration::from_millis(200)) {
            printed.push(seq);
        }
    }
    let _ = follower.kill();
    let _ = follower.wait();
    let expected: Vec<u64> = (1..=lines.len() as u64).collect();
    assert_eq!(printed, expected, "the follower's seqs");
    let unique: BTreeSet<_> = printed.iter().collect();
    assert_eq!(unique.len(), printed.len());
    // Writers killed after the store committed their line (their event is kept although
    // they never said so): the kills reached every part of an append.
    let unacknowledged = lines
        .iter()
        .filter(|(seq, line)| {
            !acknowledged.contains_key(seq)
                && String::from_utf8_lossy(line).contains("writer event")
        })
        .count();
    eprintln!(
        "fleet chaos: {} events in the store, {} acknowledged writes all kept, {} more from \
         writers killed after the store committed",
        lines.len(),
        acknowledged.len(),
        unacknowledged
    );
}
