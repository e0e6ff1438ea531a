//! The ledger's part of `schemas/thresholds.json`.

use camino::Utf8Path;
use serde_json::Value;

use crate::error::{Error, Result};

/// Size limits the ledger enforces, read from `schemas/thresholds.json`.
///
/// Unknown keys in that file belong to other layers and are ignored; a missing file or key
/// means the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Content longer than this (in bytes) is routed to `artifacts/`. Default 16384.
    pub(crate) artifact_threshold_bytes: u64,
    /// A stored line (without its newline) may not be longer than this. Default 1048576.
    pub(crate) max_line_bytes: u64,
    /// Length of the head and tail excerpts kept in an artifact record. Default 512.
    pub(crate) excerpt_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            artifact_threshold_bytes: 16384,
            max_line_bytes: 1_048_576,
            excerpt_bytes: 512,
        }
    }
}

impl Limits {
    /// Read the limits from a `thresholds.json` file; a missing file gives the defaults.
    pub(crate) fn load(path: &Utf8Path) -> Result<Limits> {
        let text = match crate::ledger::read_regular(path) {
            Ok(Some(bytes)) => String::from_utf8(bytes).map_err(|_| Error::Config {
                path: path.to_owned(),
                reason: "is not UTF-8 text".to_owned(),
                source: None,
            })?,
            Ok(None) => return Ok(Limits::default()),
            Err(e) => return Err(Error::io(path, "cannot read", e)),
        };
        Limits::from_json(&text).map_err(|reason| Error::Config {
            path: path.to_owned(),
            reason,
            source: None,
        })
    }

    /// Parse the limits from the text of a `thresholds.json` file.
    pub(crate) fn from_json(text: &str) -> Result<Limits, String> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
        let obj = value.as_object().ok_or("must be a JSON object")?;
        let mut limits = Limits::default();
        let get = |key: &str, min: u64| -> Result<Option<u64>, String> {
            match obj.get(key) {
                None => Ok(None),
                Some(v) => match v.as_u64() {
                    Some(n) if n >= min => Ok(Some(n)),
                    _ => Err(format!("`{key}` must be an integer of at least {min}")),
                },
            }
        };
        if let Some(n) = get("artifact_threshold_bytes", 1)? {
            limits.artifact_threshold_bytes = n;
        }
        if let Some(n) = get("max_line_bytes", 1024)? {
            limits.max_line_bytes = n;
        }
        if let Some(n) = get("excerpt_bytes", 0)? {
            limits.excerpt_bytes =
                usize::try_from(n).map_err(|_| "`excerpt_bytes` is too large")?;
        }
        Ok(limits)
    }
}
