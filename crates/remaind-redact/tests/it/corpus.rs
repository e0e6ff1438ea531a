//! Recall per family and false positives, measured on the corpus under
//! `fixtures/redact/corpus/` (see its README): synthetic secrets in each family's public shape
//! in five contexts, and lines of ordinary agent output (real transcripts, code, diffs, logs,
//! prose). `cargo xtask bench --only redact` prints the same figures.

use std::collections::BTreeMap;

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
