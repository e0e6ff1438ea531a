//! Benchmarks of the lifecycle commands, run on the release binary:
//!
//! - `resume` on a large ledger against `resume` on a 10,000-event ledger with the same
//!   uncompacted tail (target: ratio ≤ 2, i.e. the cost does not grow with the ledger);
//! - `monitor --used N` against a process that only starts and exits (`remaind --version`)
//!   (target: figure < 5 ms).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::bench::{Measurement, median_time};
use crate::workspace_root;

/// Events after the state in both ledgers.
const TAIL: usize = 200;
/// Lines per `log --stdin` batch.
const BATCH: usize = 100_000;

pub(crate) fn binary() -> PathBuf {
    workspace_root()
        .join("target")
        .join("release")
        .join("remaind")
}

pub(crate) fn remaind(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(binary());
    cmd.args(args)
        .arg("--dir")
        .arg(dir)
        .env_remove("REMAIND_DIR");
    cmd
}

pub(crate) fn check(what: &str, mut cmd: Command, ok_codes: &[i32]) -> Result<(), String> {
    let out = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("{what}: cannot start: {e}"))?;
    match out.status.code() {
        Some(c) if ok_codes.contains(&c) => Ok(()),
        _ => Err(format!(
            "{what} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

pub(crate) fn log_batch(dir: &Path, lines: impl Iterator<Item = String>) -> Result<(), String> {
    let mut child = remaind(dir, &["log", "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("log --stdin: cannot start: {e}"))?;
    {
        let stdin = child.stdin.as_mut().ok_or("log --stdin: no stdin")?;
        let mut buf = std::io::BufWriter::with_capacity(1 << 20, stdin);
        for line in lines {
            buf.write_all(line.as_bytes())
                .and_then(|()| buf.write_all(b"\n"))
                .map_err(|e| format!("log --stdin: {e}"))?;
        }
        buf.flush().map_err(|e| format!("log --stdin: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("log --stdin: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "log --stdin failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn note(i: usize) -> String {
    format!(
        r#"{{"kind":"note","importance":{},"text":"progress note {i}: looked at module {} and found nothing new"}}"#,
        i % 2,
        i % 97
    )
}

/// Builds a ledger of `total` events whose last `TAIL` come after an accepted state.
pub(crate) fn build_ledger(root: &Path, total: usize) -> Result<PathBuf, String> {
    let dir = root.join(format!("ledger-{total}")).join(".context");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    check("init", remaind(&dir, &["init"]), &[0])?;
    let head = total - TAIL;
    let mut done = 0;
    let first = r#"{"kind":"user_message","actor":"user","text":"Keep the service green while refactoring."}"#;
    log_batch(&dir, std::iter::once(first.to_owned()))?;
    done += 1;
    while done < head - 1 {
        let n = BATCH.min(head - 1 - done);
        log_batch(&dir, (done..done + n).map(note))?;
        done += n;
    }
    log_batch(
        &dir,
        std::iter::once(r#"{"kind":"next_step","text":"Refactor the scheduler."}"#.to_owned()),
    )?;
    check("compact", remaind(&dir, &["compact"]), &[0])?;
    // The same tail in both ledgers: notes, one instruction, one next step.
    let tail = (0..TAIL - 3).map(note).chain([
        r#"{"kind":"user_message","actor":"user","text":"Now also update the docs."}"#.to_owned(),
        r#"{"kind":"next_step","text":"Update the docs.","tool":{"name":"write_file"}}"#.to_owned(),
    ]);
    log_batch(&dir, tail)?;
    Ok(dir)
}

fn resume_ms(dir: &Path, runs: usize) -> Result<f64, String> {
    check("resume (warm-up)", remaind(dir, &["resume"]), &[0, 4])?;
    let mut failed = None;
    let t = median_time(runs, || {
        let r = remaind(dir, &["resume"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if !matches!(r.map(|s| s.code()), Ok(Some(0 | 4))) {
            failed = Some("resume failed during timing".to_owned());
        }
    });
    match failed {
        Some(e) => Err(e),
        None => Ok(t.as_secs_f64() * 1e3),
    }
}

pub(crate) fn process_ms(runs: usize, mut cmd: impl FnMut() -> Command) -> f64 {
    median_time(runs, || {
        let _ = cmd().stdout(Stdio::null()).stderr(Stdio::null()).status();
    })
    .as_secs_f64()
        * 1e3
}

fn resume_scaling(quick: bool, root: &Path) -> Result<Measurement, String> {
    let big = if quick { 100_000 } else { 1_000_000 };
    let small_dir = build_ledger(root, 10_000)?;
    let big_dir = build_ledger(root, big)?;
    let runs = if quick { 5 } else { 11 };
    let small = resume_ms(&small_dir, runs)?;
    let large = resume_ms(&big_dir, runs)?;
    Ok(Measurement {
        name: format!("resume, {big}-event ledger"),
        figure: large,
        baseline_name: "resume, 10000-event ledger, same 200-event tail".to_owned(),
        baseline: small,
        unit: "ms".to_owned(),
        note: if quick {
            "target: ratio <= 2; quick mode uses 100000 events instead of 1000000".to_owned()
        } else {
            "target: ratio <= 2".to_owned()
        },
    })
}

fn monitor_used(quick: bool, root: &Path) -> Result<Measurement, String> {
    let dir = root.join("monitor").join(".context");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    check("init", remaind(&dir, &["init"]), &[0])?;
    log_batch(&dir, (0..1000).map(note))?;
    check(
        "monitor",
        remaind(&dir, &["monitor", "--used", "1000"]),
        &[0],
    )?;
    let runs = if quick { 21 } else { 101 };
    let baseline = process_ms(runs, || {
        let mut c = Command::new(binary());
        c.arg("--version");
        c
    });
    let figure = process_ms(runs, || remaind(&dir, &["monitor", "--used", "1000"]));
    Ok(Measurement {
        name: "monitor --used (process)".to_owned(),
        figure,
        baseline_name: "remaind --version (start and exit)".to_owned(),
        baseline,
        unit: "ms".to_owned(),
        note: "target: figure < 5 ms".to_owned(),
    })
}

/// Runs the lifecycle benchmarks; a benchmark that cannot run reports NaN and says why.
pub(crate) fn run(quick: bool) -> Vec<Measurement> {
    let root = workspace_root().join("target").join("bench").join("resume");
    let failed = |name: &str, e: String| Measurement {
        name: name.to_owned(),
        figure: f64::NAN,
        baseline_name: String::new(),
        baseline: f64::NAN,
        unit: "ms".to_owned(),
        note: format!("did not run: {e}"),
    };
    let mut out = Vec::new();
    if let Err(e) = std::fs::create_dir_all(&root) {
        return vec![failed("resume", format!("{}: {e}", root.display()))];
    }
    out.push(resume_scaling(quick, &root).unwrap_or_else(|e| failed("resume scaling", e)));
    out.push(monitor_used(quick, &root).unwrap_or_else(|e| failed("monitor --used", e)));
    out
}
