//! Benchmarks and the corpus report of `remaind-redact`:
//!
//! - throughput of the full rule set against a pinned older build (`remaind redact FILE` of
//!   both binaries on the same files: the corpus' ordinary agent output, and the same with 5% of
//!   its lines carrying a planted secret), and the ledger's way in process (the JSON pre-pass
//!   first, strings redacted only when it finds a rule literal) against redacting every string;
//! - recall per family on `fixtures/redact/corpus/secrets.jsonl` and false positives on
//!   `fixtures/redact/corpus/agent-output.tsv` (the figures the corpus test asserts);
//! - recall and false positives per family on detect-secrets' own cases, beside detect-secrets
//!   run on the same strings in the same run (`bench_redact_suites`).

use std::collections::BTreeMap;

use remaind_redact::Redactor;

use crate::bench::{Measurement, median_time};
use crate::workspace_root;

const KEY: &[u8] = b"bench key: not a secret, 32 byte";

fn corpus(name: &str) -> String {
    let path = workspace_root().join("fixtures/redact/corpus").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// (family, secret, text) rows of the secrets corpus.
fn secrets() -> Vec<(String, String, String)> {
    corpus("secrets.jsonl")
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|row| {
            let f = |k: &str| row[k].as_str().unwrap_or_default().to_owned();
            (f("family"), f("secret"), f("text"))
        })
        .collect()
}

fn ordinary() -> Vec<String> {
    corpus("agent-output.tsv")
        .lines()
        .filter_map(|l| l.split_once('\t').map(|(_, line)| line.to_owned()))
        .collect()
}

/// Whether any 8-byte window of `secret` (all of it if shorter) is in `out`.
fn survives(out: &str, secret: &str) -> bool {
    let n = secret.len().min(8);
    secret
        .as_bytes()
        .windows(n)
        .any(|w| out.as_bytes().windows(n).any(|o| o == w))
}

pub(crate) fn run(quick: bool) -> Vec<Measurement> {
    let mut out = Vec::new();
    out.extend(throughput(quick));
    out.extend(report());
    out.extend(crate::bench_redact_suites::report());
    out
}

/// The build the throughput is compared with: the first with `remaind redact FILE`, whose
/// rule set (issue 18's families) is today's reference point.
const BASELINE_COMMIT: &str = "14825c660df47825df9a0c9fcda34e276eaabe10";

/// Throughput of today's rule set against the build at [`BASELINE_COMMIT`], each binary's
/// `remaind redact FILE` on the same files in the same run (files of megabytes, so the
/// process start is lost in the matching), and the ledger's JSON pre-pass in process.
fn throughput(quick: bool) -> Vec<Measurement> {
    let (lines, json) = workload(quick);
    let runs = if quick { 3 } else { 7 };
    let mut out = Vec::new();
    match by_process(&lines, runs) {
        Ok(measured) => out.extend(measured),
        Err(e) => out.push(Measurement::failed("redact: full rule set", &e)),
    }
    // The ledger's way: the JSON pre-pass first, strings redacted only when it fires.
    let new = Redactor::new(KEY, &[]).unwrap_or_else(|e| panic!("redactor: {e}"));
    let mb = lines.iter().map(String::len).sum::<usize>() as f64 / 1e6;
    let plain = median_time(runs, || {
        for l in &lines {
            std::hint::black_box(new.redact_str(l));
        }
    });
    let ledger = median_time(runs, || {
        for (l, j) in lines.iter().zip(&json) {
            if !new.json_text_is_clean(j.as_bytes()) {
                std::hint::black_box(new.redact_str(l));
            }
        }
    });
    out.push(Measurement {
        name: "redact: ledger pre-pass".to_owned(),
        figure: mb / ledger.as_secs_f64(),
        baseline_name: "every string redacted, same text".to_owned(),
        baseline: mb / plain.as_secs_f64(),
        unit: "MB/s".to_owned(),
        note: "target: ratio >= 1; JSON pre-pass, strings redacted only when it fires".to_owned(),
    });
    out
}

/// The workload: ordinary lines, every 20th followed by a line with a planted secret,
/// repeated to about 16 MB (4 MB when quick), and each line as the ledger sees it (a JSON
/// event).
fn workload(quick: bool) -> (Vec<String>, Vec<String>) {
    let ordinary = ordinary();
    let secrets = secrets();
    let mut lines = Vec::new();
    let target = if quick { 4 << 20 } else { 16 << 20 };
    let (mut bytes, mut i) = (0, 0);
    while bytes < target {
        let line = if i % 20 == 19 {
            secrets[(i / 20 * 7) % secrets.len()].2.clone()
        } else {
            ordinary[i % ordinary.len()].clone()
        };
        bytes += line.len() + 1;
        lines.push(line);
        i += 1;
    }
    let json = lines
        .iter()
        .map(|l| {
            serde_json::to_string(&serde_json::json!({ "kind": "note", "text": l }))
                .unwrap_or_default()
        })
        .collect();
    (lines, json)
}

/// `remaind redact FILE` of this build and of the baseline build, on the mix and on ordinary
/// output alone (the text a redactor sees nearly all the time, where both rule sets have the
/// same job: nothing to find).
fn by_process(lines: &[String], runs: usize) -> Result<Vec<Measurement>, String> {
    let ours = crate::bench::release_binary();
    let theirs = crate::bench::pinned_binary(BASELINE_COMMIT)?;
    let root = workspace_root().join("target/bench/redact");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).map_err(|e| format!("{}: {e}", root.display()))?;
    let mix = root.join("mix.txt");
    std::fs::write(&mix, lines.join("\n")).map_err(|e| format!("{}: {e}", mix.display()))?;
    let ordinary = ordinary();
    let clean_text: Vec<&String> = ordinary.iter().cycle().take(lines.len()).collect();
    let clean = root.join("ordinary.txt");
    let clean_bytes = clean_text.iter().map(|l| l.len() + 1).sum::<usize>();
    let joined: Vec<&str> = clean_text.iter().map(|l| l.as_str()).collect();
    std::fs::write(&clean, joined.join("\n")).map_err(|e| format!("{}: {e}", clean.display()))?;
    let mix_mb = lines.iter().map(|l| l.len() + 1).sum::<usize>() as f64 / 1e6;
    let clean_mb = clean_bytes as f64 / 1e6;
    let mut rates = Vec::new();
    for (who, bin) in [("ours", &ours), ("baseline", &theirs)] {
        let project = root.join(who).join(".context");
        crate::bench::run_remaind(bin, &project, &["init"])?;
        for (file, mb) in [(&clean, clean_mb), (&mix, mix_mb)] {
            let args = ["redact", file.to_str().ok_or("a non-UTF-8 path")?];
            crate::bench::run_remaind(bin, &project, &args)?;
            let took = median_time(runs, || {
                let _ = crate::bench::run_remaind(bin, &project, &args);
            });
            rates.push(mb / took.as_secs_f64());
        }
    }
    let measurement = |name: &str, ours: f64, theirs: f64, note: String| Measurement {
        name: name.to_owned(),
        figure: ours,
        baseline_name: format!("the build at {}, same file", &BASELINE_COMMIT[..7]),
        baseline: theirs,
        unit: "MB/s".to_owned(),
        note,
    };
    Ok(vec![
        measurement(
            "redact: full rule set, ordinary output",
            rates[0],
            rates[2],
            format!(
                "target: ratio >= 0.5; the corpus' agent-output lines, {clean_mb:.1} MB, no secret"
            ),
        ),
        measurement(
            "redact: full rule set, 5% secrets",
            rates[1],
            rates[3],
            format!(
                "target: ratio >= 0.5; {} lines, {mix_mb:.1} MB, 5% with a secret",
                lines.len()
            ),
        ),
    ])
}

fn report() -> Vec<Measurement> {
    let r = Redactor::new(KEY, &[]).unwrap_or_else(|e| panic!("redactor: {e}"));
    let mut per_family: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (family, secret, text) in secrets() {
        let (out, _) = r.redact_str(&text);
        let entry = per_family.entry(family).or_default();
        entry.0 += usize::from(!survives(&out, &secret));
        entry.1 += 1;
    }
    let mut out: Vec<Measurement> = per_family
        .into_iter()
        .map(|(family, (caught, total))| Measurement {
            name: format!("redact recall: {family}"),
            figure: caught as f64,
            baseline_name: "planted (5 contexts)".to_owned(),
            baseline: total as f64,
            unit: "secrets".to_owned(),
            note: "ratio = recall".to_owned(),
        })
        .collect();
    let ordinary = ordinary();
    let flagged = ordinary
        .iter()
        .filter(|l| !r.redact_str(l).1.is_empty())
        .count();
    out.push(Measurement {
        name: "redact false positives: agent output".to_owned(),
        figure: flagged as f64,
        baseline_name: "lines (transcripts, code, diffs, logs, prose)".to_owned(),
        baseline: ordinary.len() as f64,
        unit: "lines".to_owned(),
        note: "ratio = false-positive rate".to_owned(),
    });
    out
}
