//! The redaction report on detect-secrets' own cases, side by side with detect-secrets in the
//! same run (part of `cargo xtask bench --only redact`; `--only redact-suites` runs it alone).
//!
//! Nothing of detect-secrets is kept in the repository (licences): the bench installs the
//! pinned version from PyPI into `target/detect-secrets-venv`, downloads the same version's
//! sdist into `target/detect-secrets/`, and `xtask/bench/detect_secrets_suite.py` (run with
//! the venv's interpreter) extracts the cases and scans each with detect-secrets. The sdist
//! carries no tests, so the cases are the package's documented examples (that script says
//! which); each row says so. A case is found by Remaind when `Redactor::redact_str` leaves
//! fewer copies of its secret part than the text had; a negative is flagged when anything is
//! redacted. gitleaks' and trufflehog's rule tests are in no package registry this bench may
//! use, so they are not fetched.
//!
//! `REMAIND_SECRET_SUITE=/path/a.jsonl:/path/b.jsonl` (a list, as `PATH` is) adds a suite per
//! file, named by its stem (kept outside the repository, e.g. the cases of detect-secrets',
//! gitleaks' and trufflehog's own rule tests): one JSON object a line, `{"family", "positive",
//! "text", "secret", "filename"?, "source"?}`, the secret being the part of a positive's text
//! that must not survive and `filename` the name detect-secrets scans the text as (its keyword
//! plugin picks its regexes by extension). The script scans those cases with detect-secrets in
//! the same run, so both tools are measured on the same strings; their rows are `<suite> …`
//! (`detect-secrets docs …` for the documented examples), and each suite has an `all
//! families` row. Remaind sees no file name: a line that a suite expects found under one
//! extension and not under another counts against Remaind one way or the other.
//!
//! A scanner's test marks a string negative for the rule under test, not for every rule: its
//! negatives include other families' real keys (gitleaks' Anthropic admin key among the API
//! key rule's negatives). Each suite therefore has a second false-positive row over its *clean*
//! negatives: those holding no positive case's secret of the same suite (any family).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use remaind_redact::Redactor;

use crate::bench::Measurement;
use crate::workspace_root;

/// The pinned detect-secrets (`pip install detect-secrets==…`).
const DETECT_SECRETS: &str = "1.5.0";

const KEY: &[u8] = b"bench key: not a secret, 32 byte";

/// One case: its family, whether it must be found, its text, its secret part, and whether
/// detect-secrets found it (positive) or flagged it (negative).
struct Case {
    /// `docs` (the package's documented examples) or a suite file's stem
    /// (`$REMAIND_SECRET_SUITE`).
    suite: String,
    family: String,
    positive: bool,
    text: String,
    secret: String,
    detect_secrets: bool,
}

/// The interpreter that creates the venv: `$REMAIND_PYTHON`, else `python3`.
fn python() -> String {
    std::env::var("REMAIND_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

fn run(what: &str, mut command: Command) -> Result<Vec<u8>, String> {
    let out = command
        .output()
        .map_err(|e| format!("{what}: cannot start: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(3).collect();
        Err(format!(
            "{what}: {} ({})",
            out.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
        ))
    }
}

/// The venv's interpreter with the pinned detect-secrets, installing it when needed.
fn venv(root: &Path) -> Result<PathBuf, String> {
    let venv = root.join("target/detect-secrets-venv");
    let py = venv.join("bin/python");
    let mut check = Command::new(&py);
    check.args([
        "-c",
        &format!(
            "import importlib.metadata as m, sys; sys.exit(m.version('detect-secrets') != '{DETECT_SECRETS}')"
        ),
    ]);
    if run("check the detect-secrets venv", check).is_ok() {
        return Ok(py);
    }
    let mut create = Command::new(python());
    create.arg("-m").arg("venv").arg("--clear").arg(&venv);
    run("create target/detect-secrets-venv", create)
        .map_err(|e| format!("{e}; needs python3 with venv (or set REMAIND_PYTHON)"))?;
    let mut pip = Command::new(&py);
    pip.args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        &format!("detect-secrets=={DETECT_SECRETS}"),
    ]);
    run(
        &format!("pip install detect-secrets=={DETECT_SECRETS}"),
        pip,
    )
    .map_err(|e| format!("{e}; needs PyPI"))?;
    Ok(py)
}

/// The pinned sdist under `target/detect-secrets/`, downloaded when missing.
fn sdist(root: &Path, py: &Path) -> Result<PathBuf, String> {
    let dir = root.join("target/detect-secrets");
    let file = dir.join(format!("detect_secrets-{DETECT_SECRETS}.tar.gz"));
    if file.is_file() {
        return Ok(file);
    }
    let mut pip = Command::new(py);
    pip.args([
        "-m",
        "pip",
        "download",
        "--quiet",
        "--disable-pip-version-check",
    ])
    .arg(format!("detect-secrets=={DETECT_SECRETS}"))
    .args(["--no-binary", ":all:", "--no-deps", "-d"])
    .arg(&dir);
    run(
        &format!("pip download detect-secrets=={DETECT_SECRETS} --no-binary :all:"),
        pip,
    )
    .map_err(|e| format!("{e}; needs PyPI"))?;
    if file.is_file() {
        Ok(file)
    } else {
        Err(format!("pip download left no {}", file.display()))
    }
}

/// The cases and detect-secrets' verdicts, and each suite's source line for the notes.
fn cases() -> Result<(Vec<Case>, BTreeMap<String, String>), String> {
    let root = workspace_root();
    let py = venv(&root)?;
    let sdist = sdist(&root, &py)?;
    let work = root.join("target/detect-secrets/src");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let mut script = Command::new(&py);
    script
        .arg(root.join("xtask/bench/detect_secrets_suite.py"))
        .arg(&sdist)
        .arg(&work);
    if let Some(suites) = std::env::var_os("REMAIND_SECRET_SUITE") {
        for suite in std::env::split_paths(&suites).filter(|p| !p.as_os_str().is_empty()) {
            if !suite.is_file() {
                return Err(format!(
                    "REMAIND_SECRET_SUITE: {}: no such file",
                    suite.display()
                ));
            }
            script.arg(suite);
        }
    }
    let out = run("xtask/bench/detect_secrets_suite.py", script)?;
    let doc: serde_json::Value = serde_json::from_slice(&out)
        .map_err(|e| format!("detect_secrets_suite.py printed no JSON object: {e}"))?;
    let version = doc["version"].as_str().unwrap_or("?");
    let mut sources = BTreeMap::new();
    sources.insert(
        "docs".to_owned(),
        format!(
            "detect-secrets {version}, {}",
            doc["source"].as_str().unwrap_or("?")
        ),
    );
    if let Some(suites) = doc["suite_sources"].as_object() {
        for (suite, line) in suites {
            sources.insert(
                suite.clone(),
                format!(
                    "detect-secrets {version} on $REMAIND_SECRET_SUITE ({})",
                    line.as_str().unwrap_or("?")
                ),
            );
        }
    }
    let cases: Vec<Case> = doc["cases"]
        .as_array()
        .ok_or("detect_secrets_suite.py: no `cases` array")?
        .iter()
        .map(|c| Case {
            suite: c["suite"].as_str().unwrap_or("docs").to_owned(),
            family: c["family"].as_str().unwrap_or_default().to_owned(),
            positive: c["positive"].as_bool().unwrap_or_default(),
            text: c["text"].as_str().unwrap_or_default().to_owned(),
            secret: c["secret"].as_str().unwrap_or_default().to_owned(),
            detect_secrets: c["detect_secrets"].as_bool().unwrap_or_default(),
        })
        .collect();
    if cases.iter().filter(|c| c.positive).count() == 0 {
        return Err("detect_secrets_suite.py found no positive case".to_owned());
    }
    Ok((cases, sources))
}

/// The family name of a suite's overall rows.
const ALL: &str = "all families";

/// Per family, Remaind's and detect-secrets' counts.
#[derive(Default, Clone, Copy)]
struct Tally {
    positives: usize,
    found: usize,
    ds_found: usize,
    negatives: usize,
    flagged: usize,
    ds_flagged: usize,
    /// Negatives holding no positive's secret of the same suite, and those flagged.
    clean: usize,
    clean_flagged: usize,
    ds_clean_flagged: usize,
}

/// Whether a negative holds a secret some positive case of its suite must not let through
/// (another family's key that the scanner's test lists as negative for the rule under test).
fn holds_a_suite_secret(negative: &Case, secrets: &[&str]) -> bool {
    secrets.iter().any(|secret| negative.text.contains(secret))
}

/// The `redact-suites` layer: these rows alone, without the throughput and corpus figures of
/// `redact`.
pub(crate) fn run_layer(_quick: bool) -> Vec<Measurement> {
    report()
}

pub(crate) fn report() -> Vec<Measurement> {
    let (cases, sources) = match cases() {
        Ok(found) => found,
        Err(why) => return vec![Measurement::failed("redact: detect-secrets' cases", &why)],
    };
    let r = Redactor::new(KEY, &[]).unwrap_or_else(|e| panic!("redactor: {e}"));
    // Positives' secrets per suite; a short one (`XYZ`) says nothing of another string.
    let mut secrets: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for case in cases.iter().filter(|c| c.positive && c.secret.len() >= 8) {
        secrets.entry(&case.suite).or_default().push(&case.secret);
    }
    // (suite, family) -> tally; family "all families" sums the suite.
    let mut per_family: BTreeMap<(String, String), Tally> = BTreeMap::new();
    for case in &cases {
        let (out, applied) = r.redact_str(&case.text);
        let clean = !case.positive
            && !holds_a_suite_secret(
                case,
                secrets.get(case.suite.as_str()).map_or(&[], Vec::as_slice),
            );
        for family in [case.family.as_str(), ALL] {
            let t = per_family
                .entry((case.suite.clone(), family.to_owned()))
                .or_default();
            if case.positive {
                let before = case.text.matches(case.secret.as_str()).count();
                let after = out.matches(case.secret.as_str()).count();
                t.positives += 1;
                t.found += usize::from(!case.secret.is_empty() && after < before);
                t.ds_found += usize::from(case.detect_secrets);
            } else {
                t.negatives += 1;
                t.flagged += usize::from(!applied.is_empty());
                t.ds_flagged += usize::from(case.detect_secrets);
                if clean {
                    t.clean += 1;
                    t.clean_flagged += usize::from(!applied.is_empty());
                    t.ds_clean_flagged += usize::from(case.detect_secrets);
                }
            }
        }
    }
    // Each suite's families, its `all families` row last.
    let mut keys: Vec<&(String, String)> = per_family.keys().collect();
    keys.sort_by_key(|(suite, family)| (suite.clone(), family == ALL, family.clone()));
    let mut rows = Vec::new();
    for key in keys {
        let (suite, family) = key;
        let t = per_family[key];
        let source = sources.get(suite).map_or("?", String::as_str);
        let suite = if suite == "docs" {
            "detect-secrets docs"
        } else {
            suite.as_str()
        };
        if t.positives > 0 {
            rows.push(compared(
                format!("{suite} recall: {family}"),
                (t.found, t.ds_found, t.positives),
                "ratio >= 1",
                source,
            ));
        }
        if t.negatives > 0 {
            rows.push(compared(
                format!("{suite} false pos.: {family}"),
                (t.flagged, t.ds_flagged, t.negatives),
                "figure <= baseline",
                source,
            ));
        }
        if family == ALL && t.clean > 0 && t.clean < t.negatives {
            rows.push(compared(
                format!("{suite} false pos. on clean negatives: {family}"),
                (t.clean_flagged, t.ds_clean_flagged, t.clean),
                "figure <= baseline",
                &format!(
                    "{} of {} negatives hold no positive's secret of the suite; {source}",
                    t.clean, t.negatives
                ),
            ));
        }
    }
    rows
}

fn pct(n: usize, d: usize) -> f64 {
    if d == 0 {
        f64::NAN
    } else {
        100.0 * n as f64 / d as f64
    }
}

/// A row of Remaind's count against detect-secrets' on the same `total` cases.
fn compared(
    name: String,
    (remaind, detect_secrets, total): (usize, usize, usize),
    target: &str,
    source: &str,
) -> Measurement {
    Measurement {
        name,
        figure: pct(remaind, total),
        baseline_name: "detect-secrets on the same cases".to_owned(),
        baseline: pct(detect_secrets, total),
        unit: "%".to_owned(),
        note: format!(
            "target: {target}; Remaind {remaind}/{total}, detect-secrets {detect_secrets}/{total}; {source}"
        ),
    }
}
