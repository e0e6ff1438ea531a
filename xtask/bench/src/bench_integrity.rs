//! Benchmarks of the integrity checks on every read (issue 14): `resume` and a one-event `log`
//! on a large ledger, run by this build's release binary and by a baseline binary built from
//! the commit before the checks (`REMAIND_BASELINE_BIN`, default `target/bench-base/remaind`),
//! each on its own copy of the same ledger. Target: ratio ≤ 1.2 for both.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::bench::{Measurement, median_time};
use crate::bench_resume::build_ledger;
use crate::workspace_root;

fn baseline() -> PathBuf {
    std::env::var_os("REMAIND_BASELINE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/bench-base/remaind"))
}

fn time_ms(bin: &Path, dir: &Path, args: &[&str], runs: usize) -> Result<f64, String> {
    let run = || {
        Command::new(bin)
            .args(args)
            .arg("--dir")
            .arg(dir)
            .env_remove("REMAIND_DIR")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
    };
    // Warm-up, and a check that the command works at all.
    let out = run().map_err(|e| format!("{}: {e}", bin.display()))?;
    if !matches!(out.status.code(), Some(0 | 4)) {
        return Err(format!(
            "{} {}: {}",
            bin.display(),
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(median_time(runs, || {
        let _ = run();
    })
    .as_secs_f64()
        * 1e3)
}

/// Runs the integrity benchmarks; one that cannot run reports NaN and says why.
pub(crate) fn run(quick: bool) -> Vec<Measurement> {
    let events = if quick { 100_000 } else { 1_000_000 };
    let failed = |name: &str, e: String| Measurement {
        name: name.to_owned(),
        figure: f64::NAN,
        baseline_name: String::new(),
        baseline: f64::NAN,
        unit: "ms".to_owned(),
        note: format!("did not run: {e}"),
    };
    let base_bin = baseline();
    if !base_bin.is_file() {
        let why = format!(
            "no baseline binary at {} (build the commit before the checks with `cargo build --release -p remaind-cli` and copy target/release/remaind there, or set REMAIND_BASELINE_BIN)",
            base_bin.display()
        );
        return vec![failed("integrity", why)];
    }
    let root = workspace_root().join("target/bench/integrity");
    let measured = (|| -> Result<Vec<Measurement>, String> {
        std::fs::create_dir_all(&root).map_err(|e| format!("{}: {e}", root.display()))?;
        let built = build_ledger(&root, events)?;
        let ours = root.join("ours");
        let theirs = root.join("baseline");
        crate::bench::copy_tree(built.parent().ok_or("no parent")?, &ours)?;
        crate::bench::copy_tree(built.parent().ok_or("no parent")?, &theirs)?;
        let (ours, theirs) = (ours.join(".context"), theirs.join(".context"));
        let runs = if quick { 5 } else { 11 };
        let mut out = Vec::new();
        for (what, args) in [
            ("resume", &["resume"][..]),
            (
                "log (one event)",
                &["log", "--kind", "note", "--text", "bench"][..],
            ),
        ] {
            let base = time_ms(&base_bin, &theirs, args, runs)?;
            let figure = time_ms(&crate::bench::release_binary(), &ours, args, runs)?;
            out.push(Measurement {
                name: format!("{what}, {events}-event ledger, with the integrity checks"),
                figure,
                baseline_name: format!("{what}, same ledger, baseline binary (no checks)"),
                baseline: base,
                unit: "ms".to_owned(),
                note: "target: ratio <= 1.2".to_owned(),
            });
        }
        Ok(out)
    })();
    measured.unwrap_or_else(|e| vec![failed("integrity", e)])
}
