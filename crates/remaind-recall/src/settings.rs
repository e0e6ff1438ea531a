//! The `recall` part of `schemas/thresholds.json`: whether each recall runs, its budget, and
//! how much of a prompt an event must bear on.

use camino::Utf8Path;
use serde_json::Value;

use crate::{Error, Result};

/// What recall reads from `thresholds.json` (a missing file, section or key means the
/// default).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Settings {
    /// Per-prompt recall runs (default true).
    pub prompt: bool,
    /// File recall runs (default true).
    pub files: bool,
    /// Most tokens one prompt's recall injects (default 1000).
    pub prompt_budget_tokens: u64,
    /// Most tokens one file's history injects (default 600).
    pub file_budget_tokens: u64,
    /// The least share of a prompt's weight an event must hold to be recalled, 0 to 1
    /// (default 0.4).
    pub min_share: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            prompt: true,
            files: true,
            prompt_budget_tokens: 1000,
            file_budget_tokens: 600,
            min_share: 0.4,
        }
    }
}

impl Settings {
    /// Reads the settings of the `.context/` folder at `context_dir`.
    pub fn load(context_dir: &Utf8Path) -> Result<Settings> {
        let path = context_dir.join(remaind_fs::layout::THRESHOLDS_PATH);
        let bytes = match remaind_fs::read_file(&path) {
            Ok(Some(b)) => b,
            Ok(None) => return Ok(Settings::default()),
            Err(source) => return Err(Error::Session { path, source }),
        };
        let invalid = |reason: String| Error::Config {
            path: path.clone(),
            reason,
        };
        let doc: Value =
            serde_json::from_slice(&bytes).map_err(|e| invalid(format!("not valid JSON: {e}")))?;
        let mut s = Settings::default();
        let Some(recall) = doc.get("recall") else {
            return Ok(s);
        };
        let recall = recall.as_object().ok_or_else(|| {
            invalid("`recall` must be an object, e.g. {\"prompt\": false} to turn it off".into())
        })?;
        let flag = |key: &str, default: bool| match recall.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(invalid(format!("`recall.{key}` must be true or false"))),
        };
        let budget = |key: &str, default: u64| match recall.get(key) {
            None => Ok(default),
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=100_000).contains(n))
                .ok_or_else(|| {
                    invalid(format!(
                        "`recall.{key}` must be a whole number of tokens, 1 to 100000"
                    ))
                }),
        };
        s.prompt = flag("prompt", s.prompt)?;
        s.files = flag("files", s.files)?;
        s.prompt_budget_tokens = budget("prompt_budget_tokens", s.prompt_budget_tokens)?;
        s.file_budget_tokens = budget("file_budget_tokens", s.file_budget_tokens)?;
        if let Some(v) = recall.get("min_share") {
            s.min_share = v
                .as_f64()
                .filter(|x| (0.0..=1.0).contains(x))
                .ok_or_else(|| {
                    invalid("`recall.min_share` must be a number from 0 to 1, e.g. 0.4".into())
                })?;
        }
        Ok(s)
    }
}
