//! The lifecycle's part of `schemas/thresholds.json`: the context window, the tokenizer, the
//! band edges and the default resume budget.

use camino::Utf8Path;
use serde_json::Value;

use crate::Error;
use remaind_tokens::TokenizerName;

/// Band edges as fractions of the context window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BandEdges {
    /// From this fraction on, the band is `warning` (default 0.60).
    pub(crate) warning: f64,
    /// From this fraction on, the band is `hard` (default 0.80).
    pub(crate) hard: f64,
    /// From this fraction on, the band is `emergency` (default 0.95).
    pub(crate) emergency: f64,
}

impl Default for BandEdges {
    fn default() -> Self {
        BandEdges {
            warning: 0.60,
            hard: 0.80,
            emergency: 0.95,
        }
    }
}

/// What the monitor and the resume packet read from `thresholds.json`.
///
/// Keys that belong to other layers are ignored; a missing file or key means the default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Thresholds {
    /// The context window in tokens (default 200000).
    pub(crate) context_window: u64,
    /// The tokenizer (default `o200k_base`).
    pub(crate) tokenizer: TokenizerName,
    /// The band edges.
    pub(crate) bands: BandEdges,
    /// The budget `resume` uses when none is given (default 24000 tokens).
    pub(crate) resume_budget_tokens: u64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            context_window: 200_000,
            tokenizer: TokenizerName::O200kBase,
            bands: BandEdges::default(),
            resume_budget_tokens: 24_000,
        }
    }
}

impl Thresholds {
    /// Reads `thresholds.json`; a missing file gives the defaults.
    pub(crate) fn load(path: &Utf8Path) -> Result<Thresholds, Error> {
        match crate::tools::read_text(path) {
            Ok(Some(text)) => Thresholds::from_json(&text).map_err(|message| Error::InvalidInput {
                field: path.to_string(),
                message,
            }),
            Ok(None) => Ok(Thresholds::default()),
            Err(e) => Err(Error::io("cannot read", path, e)),
        }
    }

    /// Parses the text of a `thresholds.json`.
    pub(crate) fn from_json(text: &str) -> Result<Thresholds, String> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
        let obj = value.as_object().ok_or("must be a JSON object")?;
        let mut t = Thresholds::default();
        if let Some(v) = obj.get("context_window") {
            t.context_window = v
                .as_u64()
                .filter(|n| *n > 0)
                .ok_or("`context_window` must be a positive integer")?;
        }
        if let Some(v) = obj.get("resume_budget_tokens") {
            t.resume_budget_tokens = v
                .as_u64()
                .filter(|n| *n > 0)
                .ok_or("`resume_budget_tokens` must be a positive integer")?;
        }
        if let Some(v) = obj.get("tokenizer") {
            t.tokenizer = v
                .as_str()
                .ok_or("`tokenizer` must be a string".to_owned())
                .and_then(|s| s.parse().map_err(|e| format!("`tokenizer`: {e}")))?;
        }
        if let Some(v) = obj.get("bands") {
            let b = v.as_object().ok_or("`bands` must be an object")?;
            let edge = |key: &str, default: f64| -> Result<f64, String> {
                match b.get(key) {
                    None => Ok(default),
                    Some(v) => v
                        .as_f64()
                        .filter(|f| *f > 0.0 && *f <= 1.0)
                        .ok_or_else(|| format!("`bands.{key}` must be a fraction in (0, 1]")),
                }
            };
            t.bands = BandEdges {
                warning: edge("warning", t.bands.warning)?,
                hard: edge("hard", t.bands.hard)?,
                emergency: edge("emergency", t.bands.emergency)?,
            };
            if !(t.bands.warning < t.bands.hard && t.bands.hard < t.bands.emergency) {
                return Err("`bands` must satisfy warning < hard < emergency".to_owned());
            }
        }
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_file_parses_to_defaults() {
        let t = Thresholds::from_json(include_str!("../../../schemas/thresholds.json")).unwrap();
        assert_eq!(t, Thresholds::default());
    }

    #[test]
    fn bad_values_are_named() {
        for (text, needle) in [
            ("[]", "object"),
            (r#"{"context_window": 0}"#, "context_window"),
            (r#"{"tokenizer": "gpt2"}"#, "tokenizer"),
            (r#"{"bands": {"warning": 1.5}}"#, "bands.warning"),
            (
                r#"{"bands": {"warning": 0.9, "hard": 0.8}}"#,
                "warning < hard",
            ),
        ] {
            let err = Thresholds::from_json(text).unwrap_err();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }
}
