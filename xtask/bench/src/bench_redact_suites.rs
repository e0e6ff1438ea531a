//! The redaction report on detect-secrets' own cases, side by side with detect-secrets in the
//! same run (part of `cargo xtask bench --only redact`).
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

/// The cases and detect-secrets' verdicts, and the source line for the notes.
fn cases() -> Result<(Vec<Case>, String), String> {
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
    let out = run("xtask/bench/detect_secrets_suite.py", script)?;
    let doc: serde_json::Value = serde_json::from_slice(&out)
        .map_err(|e| format!("detect_secrets_suite.py printed no JSON object: {e}"))?;
    let source = format!(
        "detect-secrets {}, {}",
        doc["version"].as_str().unwrap_or("?"),
        doc["source"].as_str().unwrap_or("?")
    );
    let cases: Vec<Case> = doc["cases"]
        .as_array()
        .ok_or("detect_secrets_suite.py: no `cases` array")?
        .iter()
        .map(|c| Case {
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
    Ok((cases, source))
}

/// Per family: (positives, found by Remaind, found by detect-secrets, negatives, flagged by
/// Remaind, flagged by detect-secrets).
type Tally = (usize, usize, usize, usize, usize, usize);

pub(crate) fn report() -> Vec<Measurement> {
    let (cases, source) = match cases() {
        Ok(found) => found,
        Err(why) => return vec![Measurement::failed("redact: detect-secrets' cases", &why)],
    };
    let r = Redactor::new(KEY, &[]).unwrap_or_else(|e| panic!("redactor: {e}"));
    let mut per_family: BTreeMap<String, Tally> = BTreeMap::new();
    for case in &cases {
        let (out, applied) = r.redact_str(&case.text);
        let t = per_family.entry(case.family.clone()).or_default();
        if case.positive {
            let before = case.text.matches(case.secret.as_str()).count();
            let after = out.matches(case.secret.as_str()).count();
            t.0 += 1;
            t.1 += usize::from(!case.secret.is_empty() && after < before);
            t.2 += usize::from(case.detect_secrets);
        } else {
            t.3 += 1;
            t.4 += usize::from(!applied.is_empty());
            t.5 += usize::from(case.detect_secrets);
        }
    }
    let pct = |n: usize, d: usize| {
        if d == 0 {
            f64::NAN
        } else {
            100.0 * n as f64 / d as f64
        }
    };
    let mut rows = Vec::new();
    for (family, (pos, found, ds_found, neg, flagged, ds_flagged)) in per_family {
        if pos > 0 {
            rows.push(Measurement {
                name: format!("detect-secrets cases recall: {family}"),
                figure: pct(found, pos),
                baseline_name: "detect-secrets on the same cases".to_owned(),
                baseline: pct(ds_found, pos),
                unit: "%".to_owned(),
                note: format!(
                    "target: ratio >= 1; Remaind {found}/{pos}, detect-secrets {ds_found}/{pos}; {source}"
                ),
            });
        }
        if neg > 0 {
            rows.push(Measurement {
                name: format!("detect-secrets cases false pos.: {family}"),
                figure: pct(flagged, neg),
                baseline_name: "detect-secrets on the same cases".to_owned(),
                baseline: pct(ds_flagged, neg),
                unit: "%".to_owned(),
                note: format!(
                    "target: figure <= baseline; Remaind {flagged}/{neg}, detect-secrets {ds_flagged}/{neg}; {source}"
                ),
            });
        }
    }
    rows
}
