//! Benchmarks and the corpus report of `remaind-redact`:
//!
//! - throughput of the full rule set against the pre-issue-18 matcher (`frozen_redact`, ten
//!   rules) on the same text: the corpus' ordinary agent output with 5% of its lines carrying a
//!   planted secret, both as plain per-string redaction and the ledger's way (the JSON pre-pass
//!   first, strings redacted only when it finds a rule literal);
//! - recall per family on `fixtures/redact/corpus/secrets.jsonl` and false positives on
//!   `fixtures/redact/corpus/agent-output.tsv` (the figures the corpus test asserts);
//! - recall and false positives per family on detect-secrets' own cases, beside detect-secrets
//!   run on the same strings in the same run (`bench_redact_suites`).

use std::collections::BTreeMap;

use remaind_redact::Redactor;

use crate::bench::{Measurement, median_time};
use crate::frozen_redact;
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

fn throughput(quick: bool) -> Vec<Measurement> {
    // The workload: ordinary lines, every 20th followed by a line with a planted secret,
    // repeated to about 4 MB (1 MB when quick).
    let ordinary = ordinary();
    let secrets = secrets();
    let mut lines = Vec::new();
    let target = if quick { 1 << 20 } else { 4 << 20 };
    let mut bytes = 0;
    let mut i = 0;
    while bytes < target {
        let line = if i % 20 == 19 {
            secrets[(i / 20 * 7) % secrets.len()].2.clone()
        } else {
            ordinary[i % ordinary.len()].clone()
        };
        bytes += line.len();
        lines.push(line);
        i += 1;
    }
    let json: Vec<String> = lines
        .iter()
        .map(|l| {
            serde_json::to_string(&serde_json::json!({ "kind": "note", "text": l }))
                .unwrap_or_default()
        })
        .collect();
    let mb = bytes as f64 / 1e6;
    let runs = if quick { 3 } else { 7 };
    let new = Redactor::new(KEY, &[]).unwrap_or_else(|e| panic!("redactor: {e}"));
    let old = frozen_redact::Redactor::new(KEY, &[]).unwrap_or_else(|e| panic!("frozen: {e}"));
    let plain_new = median_time(runs, || {
        for l in &lines {
            std::hint::black_box(new.redact_str(l));
        }
    });
    let plain_old = median_time(runs, || {
        for l in &lines {
            std::hint::black_box(old.redact_str(l));
        }
    });
    let ledger_new = median_time(runs, || {
        for (l, j) in lines.iter().zip(&json) {
            if !new.json_text_is_clean(j.as_bytes()) {
                std::hint::black_box(new.redact_str(l));
            }
        }
    });
    let ledger_old = median_time(runs, || {
        for (l, j) in lines.iter().zip(&json) {
            if !old.json_text_is_clean(j.as_bytes()) {
                std::hint::black_box(old.redact_str(l));
            }
        }
    });
    // Ordinary agent output alone (the corpus' lines, repeated to the same size): the text a
    // redactor sees nearly all the time, where both rule sets have the same job (nothing to
    // find). The mix above also times the new families' real work on the planted secrets
    // the old rules let through.
    let clean: Vec<&String> = ordinary.iter().cycle().take(lines.len()).collect();
    let clean_mb = clean.iter().map(|l| l.len()).sum::<usize>() as f64 / 1e6;
    let clean_new = median_time(runs, || {
        for l in &clean {
            std::hint::black_box(new.redact_str(l));
        }
    });
    let clean_old = median_time(runs, || {
        for l in &clean {
            std::hint::black_box(old.redact_str(l));
        }
    });
    let rate = |d: std::time::Duration| mb / d.as_secs_f64();
    let clean_rate = |d: std::time::Duration| clean_mb / d.as_secs_f64();
    vec![
        Measurement {
            name: "redact: full rule set, ordinary output".to_owned(),
            figure: clean_rate(clean_new),
            baseline_name: "pre-#18 rules (10) on the same text".to_owned(),
            baseline: clean_rate(clean_old),
            unit: "MB/s".to_owned(),
            note: format!(
                "target: ratio >= 0.5; the corpus' agent-output lines, {clean_mb:.1} MB, no secret"
            ),
        },
        Measurement {
            name: "redact: full rule set, per string".to_owned(),
            figure: rate(plain_new),
            baseline_name: "pre-#18 rules (10) on the same text".to_owned(),
            baseline: rate(plain_old),
            unit: "MB/s".to_owned(),
            note: format!(
                "target: ratio >= 0.5; {} lines, {mb:.1} MB, 5% with a secret (most of a family the old rules miss)",
                lines.len()
            ),
        },
        Measurement {
            name: "redact: full rule set, ledger pre-pass".to_owned(),
            figure: rate(ledger_new),
            baseline_name: "pre-#18 rules (10) on the same text".to_owned(),
            baseline: rate(ledger_old),
            unit: "MB/s".to_owned(),
            note: "target: ratio >= 0.5; JSON pre-pass, strings redacted only when it fires"
                .to_owned(),
        },
    ]
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
