//! Secret detection and deterministic placeholders.
//!
//! This layer owns the built-in secret rules, user rules from `redaction.json`, and the keyed
//! placeholder scheme. It knows nothing about files, events or the ledger: it turns text or
//! bytes into redacted text or bytes plus a list of what it replaced. No secret byte survives
//! in its output and no placeholder contains one.
//!
//! A secret becomes `[REDACTED:<rule>:<h>]`, `<h>` being the first 12 hex digits of
//! HMAC-SHA256(project key, secret): equal secrets get equal placeholders within a project.
//! Placeholders never match a rule, so redaction is idempotent. Matching is linear-time
//! (`regex::bytes`, ASCII classes); the built-in rules are compiled once per process and a
//! single Aho-Corasick pass over literals every match must contain decides which of them need a
//! closer look, so clean text costs one fast scan.
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
mod prefilter;
mod redactor;
mod rules;
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

/// Names of the built-in rules, most specific first (the order that breaks ties):
///
/// | name | finds |
/// | --- | --- |
/// | `private_key` | PEM private key blocks of every type (`-----BEGIN … PRIVATE KEY-----`), also with literal `\n` escapes and truncated ones with no END line |
/// | `anthropic_api_key` | `sk-ant-api03-…`, `sk-ant-admin01-…` |
/// | `openai_api_key` | `sk-…`, `sk-proj-…`, `sk-svcacct-…`, `sk-admin-…` |
/// | `github_token` | `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_` + 36, `github_pat_…` |
/// | `slack_token` | `xoxb-`/`xoxp-`/`xoxa-`/`xoxr-`/`xoxs-`/`xoxe-`/`xoxo-` tokens, `xapp-` app tokens |
/// | `aws_access_key_id` | `AKIA`/`ASIA`/`ABIA`/`ACCA` + 16 |
/// | `jwt` | three base64url segments, the header starting `eyJ` |
/// | `aws_secret_access_key` | a 40+ character base64 value after `aws_secret_access_key`, `SecretAccessKey`, … and `=`, `:` or whitespace |
/// | `bearer_token` | the token after `Bearer ` (16+ bytes that look random) |
/// | `authorization_header` | the value of an `Authorization:` header or `"authorization"` field (a leading scheme such as `Basic` stays) |
pub const BUILTIN_RULES: &[&str] = rules::NAMES;
