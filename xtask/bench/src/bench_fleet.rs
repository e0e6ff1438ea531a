//! Benchmarks of a project shared through PostgreSQL (`remaind-pg` and a replica ledger), on
//! a throwaway cluster (`REMAIND_TEST_PG` to use another server), each against a baseline in
//! the same run:
//!
//! - batched appends through the store's protocol (row lock, header check, one round trip per
//!   batch) against plain multi-row INSERTs of the same rows through the same client;
//! - batched appends through a replica ledger (redaction, schema, the store, the folder)
//!   against the same batches on a plain folder;
//! - sixteen writers on two replica folders at once against sixteen on one plain folder;
//! - one append over an open connection (p50, p99) against one on a plain folder;
//! - follow latency (an append committed on one connection to the follower holding it)
//!   against a bare NOTIFY round trip on the same server.
//!
//! - at 1,000,000 events (the `index` benchmark's generated ledger, pushed to the store): the
//!   push itself; the server's search index built from scratch against the folder's; search
//!   p50 on the server (`search --on-store`) against the folder's index, for the `index`
//!   benchmark's three query classes; `remaind resume` on a replica folder against the same
//!   folder plain.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use camino::{Utf8Path, Utf8PathBuf};
use remaind_events::{GENESIS_PREV, Kind, NewEvent};
use remaind_ledger::{Ledger, StoreSetting};
use remaind_pg::{Head, Store};

use crate::bench::Measurement;

fn note(text: String) -> NewEvent {
    NewEvent {
        kind: Some(Kind::Note),
        text: Some(text),
        ..NewEvent::default()
    }
}

/// About 300 bytes, as a typical tool event's line.
fn text(i: usize) -> String {
    format!(
        "event {i}: ran cargo test -p remaind-ledger, 35 passed; the index caught up after the \
         batch and the follower printed it; next: measure the follow latency under sixteen \
         writers on two machines ({})",
        "x".repeat(i % 50)
    )
}

/// A folder with a ledger, plain or a replica of a new project.
fn folder(url: Option<&str>) -> Result<(tempfile::TempDir, Utf8PathBuf), String> {
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let dir = Utf8PathBuf::from_path_buf(tmp.path().join(".context"))
        .map_err(|_| "a non-UTF-8 temp folder".to_owned())?;
    Ledger::create(&dir).map_err(|e| e.to_string())?;
    if let Some(url) = url {
        let project = remaind_testkit::unique_project("bench");
        Store::create(url, &project, GENESIS_PREV, &[]).map_err(|e| e.to_string())?;
        StoreSetting {
            url: url.to_owned(),
            project,
        }
        .save(&dir)
        .map_err(|e| e.to_string())?;
    }
    Ok((tmp, dir))
}

fn join(dir: &Utf8Path, url: &str) -> Result<(tempfile::TempDir, Utf8PathBuf), String> {
    let setting = StoreSetting::load(dir)
        .map_err(|e| e.to_string())?
        .ok_or("not a replica")?;
    let (tmp, other) = folder(None)?;
    std::fs::copy(dir.join("redaction.key"), other.join("redaction.key"))
        .map_err(|e| e.to_string())?;
    StoreSetting {
        url: url.to_owned(),
        project: setting.project,
    }
    .save(&other)
    .map_err(|e| e.to_string())?;
    Ok((tmp, other))
}

fn per_second(n: usize, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Two rows, p50 and p99 of `ours` against `base` (milliseconds, any order).
fn p50_p99(
    name: &str,
    mut ours: Vec<f64>,
    baseline_name: &str,
    mut base: Vec<f64>,
    note: &str,
) -> Vec<Measurement> {
    ours.sort_by(f64::total_cmp);
    base.sort_by(f64::total_cmp);
    [("p50", 0.5), ("p99", 0.99)]
        .into_iter()
        .map(|(label, p)| Measurement {
            name: format!("{name} {label}"),
            figure: percentile(&ours, p),
            baseline_name: baseline_name.into(),
            baseline: percentile(&base, p),
            unit: "ms".into(),
            note: note.into(),
        })
        .collect()
}

/// Lines chained onto `head` as the ledger writes them.
fn lines(head: &Head, n: usize) -> Vec<Vec<u8>> {
    let (mut seq, mut prev) = (head.seq, head.digest.clone());
    (0..n)
        .map(|i| {
            seq += 1;
            let line = format!(
                r#"{{"v":1,"seq":{seq},"id":"e{seq}","ts":"2026-11-26T10:00:00Z","prev":"{prev}","kind":"note","actor":"agent","importance":1,"text":{:?}}}"#,
                text(i)
            )
            .into_bytes();
            prev = remaind_hash::sha256_hex(&line);
            line
        })
        .collect()
}

fn store_protocol(url: &str, n: usize, batch: usize) -> Result<Measurement, String> {
    let (mut store, _) = Store::create(
        url,
        &remaind_testkit::unique_project("proto"),
        GENESIS_PREV,
        &[],
    )
    .map_err(|e| e.to_string())?;
    let all = lines(&store.head().map_err(|e| e.to_string())?, n);
    let started = Instant::now();
    for (i, chunk) in all.chunks(batch).enumerate() {
        let refs: Vec<&[u8]> = chunk.iter().map(Vec::as_slice).collect();
        store
            .append((i * batch) as u64, &refs)
            .map_err(|e| e.to_string())?;
    }
    let ours = started.elapsed();
    // The baseline: the same rows, plain INSERTs in one statement per batch, same client.
    let mut client = postgres::Client::connect(url, postgres::NoTls).map_err(|e| e.to_string())?;
    client
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS bench_plain_events (project bigint, seq bigint, digest text,
             line bytea, PRIMARY KEY (project, seq)); TRUNCATE bench_plain_events",
        )
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    for (i, chunk) in all.chunks(batch).enumerate() {
        let seqs: Vec<i64> = (0..chunk.len())
            .map(|j| (i * batch + j + 1) as i64)
            .collect();
        let digests: Vec<String> = chunk.iter().map(|l| remaind_hash::sha256_hex(l)).collect();
        let refs: Vec<&[u8]> = chunk.iter().map(Vec::as_slice).collect();
        client
            .execute(
                "INSERT INTO bench_plain_events SELECT 1, s, d, l
                 FROM unnest($1::bigint[], $2::text[], $3::bytea[]) AS t (s, d, l)",
                &[&seqs, &digests, &refs],
            )
            .map_err(|e| e.to_string())?;
    }
    let plain = started.elapsed();
    Ok(Measurement {
        name: format!("fleet: batched appends, store protocol ({batch}/batch)"),
        figure: per_second(n, ours),
        baseline_name: "plain multi-row INSERTs, same rows and client".into(),
        baseline: per_second(n, plain),
        unit: "lines/s".into(),
        note: format!(
            "target ratio >= 0.5; {n} lines of ~300 bytes; digests computed client-side for the baseline"
        ),
    })
}

fn replica_batches(url: &str, n: usize, batch: usize) -> Result<Measurement, String> {
    let run = |dir: &Utf8Path| -> Result<Duration, String> {
        let ledger = Ledger::open(dir).map_err(|e| e.to_string())?;
        let started = Instant::now();
        for b in 0..n / batch {
            ledger
                .append(
                    (0..batch)
                        .map(|i| note(text(b * batch + i)))
                        .collect::<Vec<_>>(),
                )
                .map_err(|e| e.to_string())?;
        }
        Ok(started.elapsed())
    };
    let (_a, shared) = folder(Some(url))?;
    let (_b, plain) = folder(None)?;
    Ok(Measurement {
        name: format!("fleet: batched appends, replica ledger ({batch}/batch)"),
        figure: per_second(n, run(&shared)?),
        baseline_name: "the same batches on a plain folder".into(),
        baseline: per_second(n, run(&plain)?),
        unit: "events/s".into(),
        note: "redaction, schema, the store's append and the folder's synced write".into(),
    })
}

fn concurrent(url: &str, per_writer: usize) -> Result<Measurement, String> {
    const WRITERS: usize = 16;
    let run = |dirs: &[Utf8PathBuf]| -> Result<Duration, String> {
        let ledgers: Vec<Ledger> = (0..WRITERS)
            .map(|w| Ledger::open(&dirs[w % dirs.len()]).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        let started = Instant::now();
        std::thread::scope(|s| {
            let handles: Vec<_> = ledgers
                .iter()
                .enumerate()
                .map(|(w, l)| {
                    s.spawn(move || {
                        (0..per_writer).try_for_each(|i| {
                            l.append(note(text(w * per_writer + i)))
                                .map(|_| ())
                                .map_err(|e| e.to_string())
                        })
                    })
                })
                .collect();
            handles
                .into_iter()
                .try_for_each(|h| h.join().map_err(|_| "a writer panicked".to_owned())?)
        })?;
        Ok(started.elapsed())
    };
    let (_a, a) = folder(Some(url))?;
    let (_b, b) = join(&a, url)?;
    let shared = run(&[a.clone(), b])?;
    let (_p, plain) = folder(None)?;
    let local = run(&[plain])?;
    let total = WRITERS * per_writer;
    Ok(Measurement {
        name: "fleet: 16 writers on 2 machines, total".into(),
        figure: per_second(total, shared),
        baseline_name: "16 writers on one plain folder".into(),
        baseline: per_second(total, local),
        unit: "events/s".into(),
        note: format!("{total} single-event appends; each writer its own connection"),
    })
}

fn one_append(url: &str, n: usize) -> Result<Vec<Measurement>, String> {
    let run = |dir: &Utf8Path| -> Result<Vec<f64>, String> {
        let ledger = Ledger::open(dir).map_err(|e| e.to_string())?;
        let times: Vec<f64> = (0..n)
            .map(|i| {
                let started = Instant::now();
                ledger.append(note(text(i))).map_err(|e| e.to_string())?;
                Ok(started.elapsed().as_secs_f64() * 1e3)
            })
            .collect::<Result<_, String>>()?;
        Ok(times)
    };
    let (_a, shared) = folder(Some(url))?;
    let (_b, plain) = folder(None)?;
    Ok(p50_p99(
        "fleet: one append over an open connection",
        run(&shared)?,
        "one append on a plain folder",
        run(&plain)?,
        &format!("{n} appends, one writer"),
    ))
}

fn follow_latency(url: &str, n: usize) -> Result<Vec<Measurement>, String> {
    let project = remaind_testkit::unique_project("follow");
    let (mut writer, _) =
        Store::create(url, &project, GENESIS_PREV, &[]).map_err(|e| e.to_string())?;
    let mut follower = Store::connect(url, &project).map_err(|e| e.to_string())?;
    let sent: Arc<Mutex<Vec<Instant>>> = Arc::default();
    let ours = {
        let shared = Arc::clone(&sent);
        let handle = std::thread::spawn(move || -> Result<Vec<f64>, String> {
            let mut seen = 0;
            let mut lat = Vec::new();
            while seen < n as u64 {
                let head = follower
                    .wait(seen, Duration::from_secs(5))
                    .map_err(|e| e.to_string())?;
                let now = Instant::now();
                let at = shared.lock().map_err(|_| "poisoned")?.clone();
                for s in seen + 1..=head.seq {
                    lat.push(now.duration_since(at[s as usize - 1]).as_secs_f64() * 1e3);
                }
                seen = head.seq;
            }
            Ok(lat)
        });
        for _ in 0..n {
            let head = writer.head().map_err(|e| e.to_string())?;
            let line = lines(&head, 1);
            sent.lock().map_err(|_| "poisoned")?.push(Instant::now());
            writer
                .append(head.seq, &[line[0].as_slice()])
                .map_err(|e| e.to_string())?;
            std::thread::sleep(Duration::from_millis(3));
        }
        handle.join().map_err(|_| "the follower panicked")??
    };
    Ok(p50_p99(
        "fleet: follow latency",
        ours,
        "a bare NOTIFY round trip",
        notify_round_trips(url, n)?,
        &format!("{n} appends 3 ms apart; from before the append to the follower reading the head"),
    ))
}

/// From sending a NOTIFY on one connection to receiving it on another, `n` times.
fn notify_round_trips(url: &str, n: usize) -> Result<Vec<f64>, String> {
    use postgres::fallible_iterator::FallibleIterator;
    let mut tx = postgres::Client::connect(url, postgres::NoTls).map_err(|e| e.to_string())?;
    let mut rx = postgres::Client::connect(url, postgres::NoTls).map_err(|e| e.to_string())?;
    rx.batch_execute("LISTEN bench_ping")
        .map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let started = Instant::now();
        tx.batch_execute("NOTIFY bench_ping")
            .map_err(|e| e.to_string())?;
        rx.notifications()
            .timeout_iter(Duration::from_secs(5))
            .next()
            .map_err(|e| e.to_string())?
            .ok_or("a NOTIFY never arrived")?;
        out.push(started.elapsed().as_secs_f64() * 1e3);
    }
    Ok(out)
}

pub(crate) fn run(quick: bool) -> Vec<Measurement> {
    match run_inner(quick) {
        Ok(out) => out,
        Err(why) => vec![Measurement::failed("fleet", &why)],
    }
}

fn run_inner(quick: bool) -> Result<Vec<Measurement>, String> {
    let url = remaind_testkit::postgres_url();
    let scale = if quick { 1 } else { 5 };
    let mut out = vec![
        store_protocol(&url, 20_000 * scale, 1000)?,
        replica_batches(&url, 4_000 * scale, 1000)?,
        concurrent(&url, 40 * scale)?,
    ];
    out.extend(one_append(&url, 200 * scale)?);
    out.extend(follow_latency(&url, 200 * scale)?);
    out.extend(at_scale(&url, if quick { 100_000 } else { 1_000_000 })?);
    Ok(out)
}

/// Median milliseconds of `f` over `runs` calls (after one unmeasured).
fn median_ms(runs: usize, mut f: impl FnMut() -> Result<(), String>) -> Result<f64, String> {
    f()?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        f()?;
        times.push(started.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok(percentile(&times, 0.5))
}

/// Search and resume on `n` events: the `index` benchmark's ledger pushed to the store.
fn at_scale(url: &str, n: usize) -> Result<Vec<Measurement>, String> {
    use remaind_index::{Index, SearchOptions};
    let note = format!("{n} events (the index benchmark's generated ledger)");
    let (_tmp, dir, _, _) = crate::bench_index::cached_context(n, crate::bench_index::SEED)?;
    let ledger = Ledger::open(&dir).map_err(|e| e.to_string())?;
    let project = remaind_testkit::unique_project("scale");
    let (mut store, _) =
        Store::create(url, &project, GENESIS_PREV, &[]).map_err(|e| e.to_string())?;
    let started = Instant::now();
    ledger.push_to(&mut store).map_err(|e| e.to_string())?;
    let push = started.elapsed();
    let started = Instant::now();
    store.index_for_search().map_err(|e| e.to_string())?;
    let server_index = started.elapsed();
    let started = Instant::now();
    let mut index = Index::open(&dir, &ledger).map_err(|e| e.to_string())?;
    index.catch_up().map_err(|e| e.to_string())?;
    let folder_index = started.elapsed();
    let mut out = vec![
        Measurement {
            name: format!("fleet: push of {n} events to the store"),
            figure: per_second(n, push),
            baseline_name: "-".into(),
            baseline: f64::NAN,
            unit: "events/s".into(),
            note: format!("{note}; one transaction, 1,000 lines a round trip; no target"),
        },
        Measurement {
            name: "fleet: server search index, from scratch".into(),
            figure: server_index.as_secs_f64(),
            baseline_name: "the folder's index from scratch".into(),
            baseline: folder_index.as_secs_f64(),
            unit: "s".into(),
            note: format!("{note}; no target"),
        },
    ];
    let opts = SearchOptions::default();
    let filter = remaind_pg::SearchFilter::default();
    for (class, queries) in [
        ("one word", &crate::bench_search::ONE_WORD[..]),
        ("five-word natural", &crate::bench_search::NATURAL[..]),
        ("phrase", &crate::bench_search::PHRASES[..]),
    ] {
        let (mut server, mut folder) = (Vec::new(), Vec::new());
        for q in queries {
            server.push(median_ms(5, || {
                store
                    .search(q, &filter)
                    .map(drop)
                    .map_err(|e| e.to_string())
            })?);
            folder.push(median_ms(5, || {
                index.search(q, &opts).map(drop).map_err(|e| e.to_string())
            })?);
        }
        server.sort_by(f64::total_cmp);
        folder.sort_by(f64::total_cmp);
        out.push(Measurement {
            name: format!(
                "fleet: search p50 on the server, {class} ({} queries)",
                queries.len()
            ),
            figure: percentile(&server, 0.5),
            baseline_name: "the folder's index, same queries".into(),
            baseline: percentile(&folder, 0.5),
            unit: "ms".into(),
            note: format!("{note}; median of 5 runs per query, then the median query; no target"),
        });
    }
    drop(index);
    let resume = |dir: &Utf8Path| {
        median_ms(5, || {
            std::process::Command::new(crate::bench_index::binary())
                .args(["resume", "--dir", dir.as_str()])
                .env_remove("REMAIND_DIR")
                .env_remove("REMAIND_STORE")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .map(drop)
                .map_err(|e| e.to_string())
        })
    };
    let plain = resume(&dir)?;
    StoreSetting {
        url: url.to_owned(),
        project,
    }
    .save(&dir)
    .map_err(|e| e.to_string())?;
    let replica = resume(&dir)?;
    out.push(Measurement {
        name: "fleet: remaind resume on a replica".into(),
        figure: replica,
        baseline_name: "the same folder, plain".into(),
        baseline: plain,
        unit: "ms".into(),
        note: format!("{note}; whole process, median of 5; no target"),
    });
    Ok(out)
}
