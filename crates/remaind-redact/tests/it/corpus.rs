//! Recall per family and false positives, measured on the corpus under
//! `fixtures/redact/corpus/` (see its README): synthetic secrets in each family's public shape
//! in five contexts, and lines of ordinary agent output (real transcripts, code, diffs, logs,
//! prose). `cargo xtask bench --only redact` prints the same figures; so does
//! `cargo test -p remaind-redact --release --test it corpus::report -- --nocapture`, with the
//! throughput of this crate alone.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::support::redactor;

fn corpus(name: &str) -> String {
    let path = format!(
        "{}/../../fixtures/redact/corpus/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Whether `secret` survives in `out`: any window of 8 bytes (the whole secret if shorter).
fn survives(out: &str, secret: &str) -> bool {
    let n = secret.len().min(8);
    secret
        .as_bytes()
        .windows(n)
        .any(|w| out.as_bytes().windows(n).any(|o| o == w))
}

#[test]
fn every_family_is_caught_in_every_context() {
    let r = redactor();
    let mut per_family: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    for line in corpus("secrets.jsonl").lines() {
        let row: serde_json::Value = serde_json::from_str(line).expect("corpus row");
        let field = |k: &str| row[k].as_str().expect("string field").to_owned();
        let (family, context, text, secret) = (
            field("family"),
            field("context"),
            field("text"),
            field("secret"),
        );
        let (out, _) = r.redact_str(&text);
        let caught = !survives(&out, &secret);
        let entry = per_family.entry(family.clone()).or_default();
        entry.0 += usize::from(caught);
        entry.1 += 1;
        if !caught {
            misses.push(format!("{family}/{context}: {out}"));
        }
    }
    assert_eq!(
        per_family.len(),
        remaind_redact::BUILTIN_RULES.len(),
        "every family is in the corpus"
    );
    let table: Vec<String> = per_family
        .iter()
        .map(|(family, (caught, total))| format!("{family:<26} {caught:>3}/{total:<3}"))
        .collect();
    assert!(
        misses.is_empty(),
        "recall:\n{}\nmissed:\n{}",
        table.join("\n"),
        misses.join("\n")
    );
}

#[test]
fn ordinary_agent_output_is_left_alone() {
    let r = redactor();
    let text = corpus("agent-output.tsv");
    let lines: Vec<(&str, &str)> = text.lines().filter_map(|l| l.split_once('\t')).collect();
    assert!(lines.len() >= 1000, "{} lines", lines.len());
    let hits: Vec<String> = lines
        .iter()
        .filter_map(|(kind, line)| {
            let (out, applied) = r.redact_str(line);
            (!applied.is_empty()).then(|| format!("{kind}: {line}\n   -> {out}"))
        })
        .collect();
    assert!(
        hits.is_empty(),
        "{} false positives:\n{}",
        hits.len(),
        hits.join("\n")
    );
}

/// Prints recall per family (and per shape, for rows that name one), the false positives on
/// ordinary agent output, and throughput: the figures to compare before and after a rule
/// change. Asserts nothing (the tests above do); run it with `--nocapture`, and `--release`
/// for throughput worth comparing.
#[test]
#[expect(
    clippy::print_stdout,
    reason = "the corpus report is read in the test log"
)]
fn report() {
    let r = redactor();
    let mut per_family: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut rows = Vec::new();
    for line in corpus("secrets.jsonl").lines() {
        let row: serde_json::Value = serde_json::from_str(line).expect("corpus row");
        let field = |k: &str| row[k].as_str().unwrap_or_default().to_owned();
        let text = field("text");
        let (out, _) = r.redact_str(&text);
        let caught = usize::from(!survives(&out, &field("secret")));
        let mut keys = vec![field("family")];
        if !field("shape").is_empty() {
            keys.push(format!("{}/{}", field("family"), field("shape")));
        }
        for key in keys {
            let entry = per_family.entry(key).or_default();
            entry.0 += caught;
            entry.1 += 1;
        }
        rows.push(text);
    }
    let (caught, total) = per_family
        .iter()
        .filter(|(k, _)| !k.contains('/'))
        .fold((0, 0), |(c, t), (_, (c1, t1))| (c + c1, t + t1));
    println!("recall per family (planted secrets caught / planted):");
    for (family, (c, t)) in &per_family {
        println!("  {family:<40} {c:>4}/{t:<4}");
    }
    println!("  {:<40} {caught:>4}/{total:<4}", "all");
    let text = corpus("agent-output.tsv");
    let ordinary: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_once('\t').map(|(_, line)| line))
        .collect();
    let flagged: Vec<&str> = ordinary
        .iter()
        .copied()
        .filter(|l| !r.redact_str(l).1.is_empty())
        .collect();
    println!(
        "false positives: {} of {} ordinary lines",
        flagged.len(),
        ordinary.len()
    );
    for line in &flagged {
        println!("  {line}");
    }
    // Ordinary lines repeated to about 2 MB, and the same with every 20th line one of the
    // planted secrets (the bench's mix).
    let median = |f: &dyn Fn()| {
        let mut times: Vec<Duration> = (0..5)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect();
        times.sort();
        times[2]
    };
    let clean: Vec<&str> = ordinary
        .iter()
        .copied()
        .cycle()
        .take(28 * ordinary.len())
        .collect();
    let mixed: Vec<&str> = clean
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i % 20 == 19 {
                rows[(i / 20 * 7) % rows.len()].as_str()
            } else {
                l
            }
        })
        .collect();
    for (name, lines) in [("ordinary output", &clean), ("5% with a secret", &mixed)] {
        let mb = lines.iter().map(|l| l.len()).sum::<usize>() as f64 / 1e6;
        let took = median(&|| {
            for l in lines {
                std::hint::black_box(r.redact_str(l));
            }
        });
        println!(
            "throughput, {name}: {:.1} MB/s ({mb:.2} MB, median of 5)",
            mb / took.as_secs_f64()
        );
    }
}
