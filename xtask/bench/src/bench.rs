//! The benchmark harness: every benchmark reports its figure, a baseline measured in the same
//! run, and their ratio, as a table and as JSON under `target/bench/`.

use std::time::{Duration, Instant};

use crate::workspace_root;

/// One benchmark's result.
pub(crate) struct Measurement {
    /// What was measured.
    pub(crate) name: String,
    /// The figure, in `unit`.
    pub(crate) figure: f64,
    /// What the baseline is.
    pub(crate) baseline_name: String,
    /// The baseline, in `unit`, measured in the same run.
    pub(crate) baseline: f64,
    /// The unit of figure and baseline, e.g. `ms` or `events/s`.
    pub(crate) unit: String,
    /// The target or context, e.g. `target: ratio <= 2`.
    pub(crate) note: String,
}

impl Measurement {
    /// The one row of a layer whose benchmarks could not run, saying why (the rest of the
    /// report still prints).
    pub(crate) fn failed(layer: &str, why: &str) -> Measurement {
        Measurement {
            name: layer.to_owned(),
            figure: f64::NAN,
            baseline_name: "-".to_owned(),
            baseline: f64::NAN,
            unit: "ms".to_owned(),
            note: format!("failed: {why}"),
        }
    }
}

/// One layer's benchmarks: `quick` in, measurements out.
type LayerBench = fn(bool) -> Vec<Measurement>;

/// Runs every benchmark and writes the report.
pub(crate) fn run_all(quick: bool, only: Option<&str>) -> Result<(), String> {
    // Each layer's benchmarks register here.
    let layers: [(&str, LayerBench); 16] = [
        ("index", crate::bench_index::run),
        ("search-eval", crate::eval_search::run_layer),
        ("locomo", crate::eval_locomo::run),
        ("atomic", crate::bench_atomic::run),
        ("redact", crate::bench_redact::run),
        ("redact-suites", crate::bench_redact_suites::run_layer),
        ("ledger", crate::bench_ledger::run),
        ("resume", crate::bench_resume::run),
        ("compact", crate::bench_compact::run),
        ("adapters", crate::bench_adapters::run),
        ("memory", crate::bench_memory::run),
        ("mcp", crate::bench_mcp::run),
        ("integrity", crate::bench_integrity::run),
        ("process", crate::bench_process::run),
        ("ui", crate::bench_ui::run),
        ("fleet", crate::bench_fleet::run),
    ];
    if let Some(name) = only
        && !layers.iter().any(|(layer, _)| *layer == name)
    {
        let names: Vec<&str> = layers.iter().map(|(layer, _)| *layer).collect();
        return Err(format!(
            "--only {name}: no such benchmark; use one of {}",
            names.join(", ")
        ));
    }
    let mut results: Vec<Measurement> = Vec::new();
    for (layer, run) in layers {
        // `redact-suites` is a part of `redact`, run alone only when named.
        if only.map_or(layer != "redact-suites", |name| name == layer) {
            results.extend(run(quick));
        }
    }
    print_table(&results);
    write_json(&results, quick, only)
}

/// The median of `runs` timings of `f`.
pub(crate) fn median_time(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn ratio(m: &Measurement) -> f64 {
    if m.baseline == 0.0 {
        f64::NAN
    } else {
        m.figure / m.baseline
    }
}

fn print_table(results: &[Measurement]) {
    println!(
        "\n{:<46} {:>14} {:>14} {:>8}  {:<10} baseline / note",
        "benchmark", "figure", "baseline", "ratio", "unit"
    );
    for m in results {
        println!(
            "{:<46} {:>14.3} {:>14.3} {:>8.3}  {:<10} {} — {}",
            m.name,
            m.figure,
            m.baseline,
            ratio(m),
            m.unit,
            m.baseline_name,
            m.note
        );
    }
}

fn write_json(results: &[Measurement], quick: bool, only: Option<&str>) -> Result<(), String> {
    let rows: Vec<serde_json::Value> = results
        .iter()
        .map(|m| {
            serde_json::json!({
                "name": m.name,
                "figure": m.figure,
                "baseline_name": m.baseline_name,
                "baseline": m.baseline,
                "ratio": ratio(m),
                "unit": m.unit,
                "note": m.note,
            })
        })
        .collect();
    let doc = serde_json::json!({ "quick": quick, "results": rows });
    let dir = workspace_root().join("target").join("bench");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // A partial run keeps the full run's report intact.
    let path = dir.join(match only {
        Some(layer) => format!("results-{layer}.json"),
        None => "results.json".to_owned(),
    });
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("\nwrote {}", path.display());
    Ok(())
}

/// `cp -a from to`, replacing `to` if it exists: a whole folder (a context, a build) copied
/// with its modes and links, as a bench needs a fresh copy per run.
pub(crate) fn copy_tree(from: &std::path::Path, to: &std::path::Path) -> Result<(), String> {
    if to.exists() {
        std::fs::remove_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    }
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        Ok(())
    } else {
        Err(format!(
            "cannot copy {} to {}",
            from.display(),
            to.display()
        ))
    }
}

/// This build's release `remaind` binary, which `cargo xtask bench` builds first.
pub(crate) fn release_binary() -> std::path::PathBuf {
    crate::workspace_root().join("target/release/remaind")
}

/// The release `remaind` binary of `commit`, built once into `target/bench-base/<commit>/`
/// from `git archive` of that commit (its own target folder, removed after the build so only
/// the binary stays): the in-run baseline of a benchmark that compares with an older build,
/// pinned by name as a benchmark suite pins the engines it compares against, instead of a
/// copy of old source kept in this crate.
pub(crate) fn pinned_binary(commit: &str) -> Result<std::path::PathBuf, String> {
    let base = crate::workspace_root()
        .join("target/bench-base")
        .join(commit);
    let bin = base.join("remaind");
    if bin.is_file() {
        return Ok(bin);
    }
    let src = base.join("src");
    if src.exists() {
        std::fs::remove_dir_all(&src).map_err(|e| format!("{}: {e}", src.display()))?;
    }
    std::fs::create_dir_all(&src).map_err(|e| format!("{}: {e}", src.display()))?;
    println!(
        "building the baseline at {commit} (once; kept in {})",
        base.display()
    );
    let archive = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "git -C '{}' archive --format=tar {commit} | tar -x -C '{}'",
            crate::workspace_root().display(),
            src.display()
        ))
        .status()
        .map_err(|e| format!("git archive: {e}"))?;
    if !archive.success() {
        return Err(format!(
            "cannot unpack commit {commit} (a shallow clone lacks it: `git fetch --unshallow`)"
        ));
    }
    let target = base.join("target");
    let built = std::process::Command::new(env!("CARGO"))
        .args(["build", "--release", "--quiet", "-p", "remaind-cli"])
        .current_dir(&src)
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .map_err(|e| format!("cargo build at {commit}: {e}"))?;
    if !built.success() {
        return Err(format!("cargo build --release at {commit} failed"));
    }
    std::fs::copy(target.join("release/remaind"), &bin)
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    for done in [&src, &target] {
        let _ = std::fs::remove_dir_all(done);
    }
    Ok(bin)
}

/// Runs `bin ARGS --dir DIR` (no `REMAIND_DIR` or `REMAIND_STORE` from the caller), output
/// discarded: how long it took, or what failed with its stderr.
pub(crate) fn run_remaind(
    bin: &std::path::Path,
    dir: &std::path::Path,
    args: &[&str],
) -> Result<Duration, String> {
    let start = std::time::Instant::now();
    let out = std::process::Command::new(bin)
        .args(args)
        .arg("--dir")
        .arg(dir)
        .env_remove("REMAIND_DIR")
        .env_remove("REMAIND_STORE")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    let took = start.elapsed();
    if out.status.success() {
        Ok(took)
    } else {
        Err(format!(
            "{} {}: {}",
            bin.display(),
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}
