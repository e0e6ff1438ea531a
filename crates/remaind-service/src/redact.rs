//! Text as the ledger would store it (`remaind redact`): the project's redaction rules
//! applied (the built-ins, `schemas/redaction.json`, `schemas/redaction.toml` and the
//! gitleaks files it lists). Writes nothing.

use std::collections::BTreeMap;

use remaind_fs::ContextDir;
use remaind_ledger::Ledger;
use remaind_redact::Applied;

use crate::Result;

/// What [`redact`] made of its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted {
    /// The input with every secret replaced by its placeholder.
    pub bytes: Vec<u8>,
    /// Each replacement, in the order of the input.
    pub applied: Vec<Applied>,
}

impl Redacted {
    /// `3 secrets redacted: generic_secret ×2, url_credentials`, or `nothing redacted`.
    pub fn summary(&self) -> String {
        if self.applied.is_empty() {
            return "nothing redacted".to_owned();
        }
        let mut by_rule: BTreeMap<&str, usize> = BTreeMap::new();
        for a in &self.applied {
            *by_rule.entry(a.rule.as_str()).or_default() += 1;
        }
        let counted: Vec<String> = by_rule
            .into_iter()
            .map(|(rule, n)| match n {
                1 => rule.to_owned(),
                n => format!("{rule} ×{n}"),
            })
            .collect();
        let noun = if self.applied.len() == 1 {
            "secret"
        } else {
            "secrets"
        };
        format!(
            "{} {noun} redacted: {}",
            self.applied.len(),
            counted.join(", ")
        )
    }
}

/// Applies the folder's redaction rules to `input` (a bad rule file is an error naming the
/// file and the rule, as it is for every job that opens the ledger).
pub fn redact(ctx: &ContextDir, input: &[u8]) -> Result<Redacted> {
    let redactor = Ledger::project_redactor(ctx.root())?;
    let (bytes, applied) = redactor.redact_bytes(input);
    Ok(Redacted { bytes, applied })
}
