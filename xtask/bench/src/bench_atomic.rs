//! Benchmark of `remaind-atomic`: the cost of one atomic write of a ~4 KiB derived file through
//! `HistoryStore` (snapshot into history + temp, fsync, rename, fsync folder, under the store
//! lock) against two baselines measured in the same run, in the same temp folder, with the
//! same bytes:
//!
//! - a plain replacement: write a temp file, rename it over the target (no fsync, no history);
//! - a durable replacement: write a temp file, fsync it, rename it, fsync the folder.
//!
//! The three kinds are interleaved write by write, so disk contention from anything else on
//! the machine hits all of them alike; each figure is the median per-write time.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::time::{Duration, Instant};

use camino::Utf8Path;
use remaind_atomic::HistoryStore;

use crate::bench::Measurement;

/// Size of the file written, like a mid-sized `state.json`.
const SIZE: usize = 4096;

/// Runs the benchmark: N = 200 writes of each kind with `quick`, else 2000.
pub(crate) fn run(quick: bool) -> Vec<Measurement> {
    let n = if quick { 200 } else { 2000 };
    let tmp = tempfile::tempdir().expect("bench_atomic: create a temp folder");
    let base =
        Utf8Path::from_path(tmp.path()).expect("bench_atomic: temp folder path is not UTF-8");
    let root = base.join("active");
    let store = HistoryStore::open(&root).expect("bench_atomic: open the history store");

    let mut plain = Vec::with_capacity(n);
    let mut durable = Vec::with_capacity(n);
    let mut history = Vec::with_capacity(n);
    for i in 0..n {
        let bytes = payload(i);
        plain.push(time(|| replace_plain(&root, &bytes)));
        durable.push(time(|| replace_durable(&root, &bytes)));
        history.push(time(|| {
            store
                .write("state.json", &bytes)
                .map(drop)
                .map_err(|e| format!("{e}"))
        }));
    }

    let store_us = median_us(&mut history);
    let plain_us = median_us(&mut plain);
    let durable_us = median_us(&mut durable);
    let name = format!("atomic write via HistoryStore ({} KiB)", SIZE / 1024);
    let note = format!(
        "median of {n}; store = snapshot into history + temp, fsync, rename, fsync dir \
         (4 fsyncs, history grows to {n} points)"
    );
    vec![
        Measurement {
            name: name.clone(),
            figure: store_us,
            baseline_name: "write temp + rename (no fsync, no history)".to_owned(),
            baseline: plain_us,
            unit: "us".to_owned(),
            note: note.clone(),
        },
        Measurement {
            name: format!("{name} vs durable"),
            figure: store_us,
            baseline_name: "write temp + fsync + rename + fsync dir".to_owned(),
            baseline: durable_us,
            unit: "us".to_owned(),
            note: format!("{note}; ratio ~2 means history costs one more durable write"),
        },
    ]
}

/// ~4 KiB of JSON-like text that differs from write to write.
fn payload(i: usize) -> Vec<u8> {
    let mut out = format!("{{\"write\":{i},\"pad\":\"").into_bytes();
    let pad = b"abcdefghijklmnopqrstuvwxyz0123456789";
    while out.len() < SIZE - 2 {
        out.push(pad[(out.len() + i) % pad.len()]);
    }
    out.extend_from_slice(b"\"}");
    out
}

/// Times one call; a failure aborts the benchmark with the error.
fn time(f: impl FnOnce() -> Result<(), String>) -> Duration {
    let start = Instant::now();
    if let Err(e) = f() {
        panic!("bench_atomic: write failed: {e}");
    }
    start.elapsed()
}

fn median_us(samples: &mut [Duration]) -> f64 {
    samples.sort_unstable();
    samples
        .get(samples.len() / 2)
        .map_or(f64::NAN, |d| d.as_secs_f64() * 1e6)
}

fn io_err(what: &str, path: &Utf8Path, e: std::io::Error) -> String {
    format!("{what} {path}: {e}")
}

/// Write a temp file and rename it over `plain.json`: no fsync, no history.
fn replace_plain(dir: &Utf8Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = dir.join(".bench-plain.tmp");
    let target = dir.join("plain.json");
    write_temp(&tmp, bytes, false)?;
    fs::rename(&tmp, &target).map_err(|e| io_err("rename", &target, e))
}

/// Write a temp file, fsync it, rename it over `durable.json`, fsync the folder.
fn replace_durable(dir: &Utf8Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = dir.join(".bench-durable.tmp");
    let target = dir.join("durable.json");
    write_temp(&tmp, bytes, true)?;
    fs::rename(&tmp, &target).map_err(|e| io_err("rename", &target, e))?;
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io_err("fsync folder", dir, e))
}

fn write_temp(path: &Utf8Path, bytes: &[u8], sync: bool) -> Result<(), String> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| io_err("create", path, e))?;
    f.write_all(bytes).map_err(|e| io_err("write", path, e))?;
    if sync {
        f.sync_all().map_err(|e| io_err("fsync", path, e))?;
    }
    Ok(())
}
