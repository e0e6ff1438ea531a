//! Secret detection and deterministic placeholders.
//!
//! This layer owns the built-in secret rules, user rules from `redaction.json` and gitleaks
//! TOML rule files, and the keyed placeholder scheme. It knows nothing about files, events or the ledger: it turns text or
//! bytes into redacted text or bytes plus a list of what it replaced. No secret byte survives
//! in its output and no placeholder contains one.
//!
//! A secret becomes `[REDACTED:<rule>:<h>]`, `<h>` being the first 12 hex digits of
//! HMAC-SHA256(project key, secret): equal secrets get equal placeholders within a project.
//! Placeholders never match a rule, so redaction is idempotent. Matching is linear-time
//! (`regex::bytes`, ASCII classes); the built-in rules are compiled once per process and a
//! single SIMD pass over literals every match must contain decides which of them need a closer
//! look, so clean text costs one fast scan. User rules must compile under a size bound, so no
//! rule can make a long line slow.
//!
//! ```
//! use remaind_redact::Redactor;
//!
//! let redactor = Redactor::new(b"project key", &[]).unwrap();
//! let (text, applied) = redactor.redact_str("export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJklmnopqr");
//! assert!(text.starts_with("export GITHUB_TOKEN=[REDACTED:github_token:"));
//! assert_eq!(applied[0].rule, "github_token");
//! ```

mod config;
mod error;
mod gitleaks;
mod judge;
mod key;
mod literals;
mod prefilter;
mod redactor;
mod rules;
mod search;
mod user;

pub use error::Error;
pub use key::{generate_key, try_generate_key};
pub use redactor::{Applied, Redactor, UserRule};

/// The gitleaks rule files a `redaction.json` lists under `gitleaks` (one path or an array),
/// as written; the caller resolves and reads them and passes their text to
/// [`Redactor::from_sources`].
///
/// # Errors
///
/// [`Error::Config`] when the document is not a JSON object or `gitleaks` is not a path or an
/// array of paths.
pub fn gitleaks_files(redaction_json: &str) -> Result<Vec<String>, Error> {
    config::rule_files(redaction_json)
}

/// Names of the built-in rules, most specific first (the order that breaks ties). What each
/// catches and deliberately leaves, with example shapes: `docs/redaction.md`.
///
/// Vendor tokens (`private_key` PEM blocks, Anthropic, OpenRouter, OpenAI, GitHub, GitLab,
/// Slack tokens and webhooks, Stripe, Google, npm, PyPI, Hugging Face, SendGrid, Twilio, Vault,
/// DigitalOcean, Databricks, Sentry, Shopify, Linear, Discord bot tokens, Azure keys and SAS
/// signatures, AWS key ids, session tokens, Bedrock keys, JWTs) are found by shape, unless they
/// are placeholders (`ghp_xxxx…`, `AKIAIOSFODNN7EXAMPLE`). Context rules find AWS secret keys,
/// `Bearer` and `Authorization` credentials, API-key headers, passwords in URLs and command
/// lines, strings compared with a key-named identifier in code (`secret_comparison`), and
/// key-named assignments (`generic_secret`) whose value is judged by entropy and placeholder
/// shape.
pub const BUILTIN_RULES: &[&str] = rules::NAMES;

/// A deterministic xorshift64 generator for the unit tests' generated texts.
#[cfg(test)]
pub(crate) fn test_rng(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
