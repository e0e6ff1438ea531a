//! Token counting: the one owner of the tokenizer names `schemas/thresholds.json` accepts and
//! of how a text is counted with them, for every layer that budgets text (the memory tree,
//! the resume packet, `monitor`).
//!
//! It knows nothing of files, events or budgets: a name and a text in, a count out.
//!
//! The vocabularies come from `bpe-openai` (GitHub's `rust-gems`), which serializes them at
//! build time: nothing is downloaded at run time. A vocabulary is deserialized the first time
//! a text is counted with it and kept for the life of the process, so commands that never
//! count (`monitor --used N`) never pay for it.
//!
//! ```
//! use remaind_tokens::TokenizerName;
//!
//! let name: TokenizerName = "cl100k_base".parse().unwrap();
//! assert_eq!(name.count("hello world"), 2);
//! assert_eq!(TokenizerName::default().as_str(), "o200k_base");
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A tokenizer named in `schemas/thresholds.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum TokenizerName {
    /// OpenAI's `o200k_base` (GPT-4o and later); the default.
    #[default]
    #[serde(rename = "o200k_base")]
    O200kBase,
    /// OpenAI's `cl100k_base` (GPT-4, GPT-3.5).
    #[serde(rename = "cl100k_base")]
    Cl100kBase,
}

impl TokenizerName {
    /// The wire name, e.g. `o200k_base`.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenizerName::O200kBase => "o200k_base",
            TokenizerName::Cl100kBase => "cl100k_base",
        }
    }

    /// Counts the tokens of `text`. The first call for a vocabulary loads it (tens of
    /// milliseconds); later calls are linear in the length of `text`.
    pub fn count(self, text: &str) -> u64 {
        let tokenizer = match self {
            TokenizerName::O200kBase => bpe_openai::o200k_base(),
            TokenizerName::Cl100kBase => bpe_openai::cl100k_base(),
        };
        u64::try_from(tokenizer.count(text)).unwrap_or(u64::MAX)
    }
}

impl fmt::Display for TokenizerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TokenizerName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "o200k_base" => Ok(TokenizerName::O200kBase),
            "cl100k_base" => Ok(TokenizerName::Cl100kBase),
            other => Err(format!(
                "unknown tokenizer `{other}`; expected `o200k_base` or `cl100k_base`"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_known_strings() {
        // Reference counts from OpenAI's tiktoken.
        assert_eq!(TokenizerName::O200kBase.count("hello world"), 2);
        assert_eq!(TokenizerName::Cl100kBase.count("hello world"), 2);
        assert_eq!(TokenizerName::O200kBase.count(""), 0);
        assert!(
            TokenizerName::O200kBase.count("The quick brown fox jumps over the lazy dog.") >= 9
        );
    }

    #[test]
    fn names_round_trip() {
        for name in [TokenizerName::O200kBase, TokenizerName::Cl100kBase] {
            assert_eq!(name.as_str().parse::<TokenizerName>(), Ok(name));
        }
        assert!("gpt2".parse::<TokenizerName>().is_err());
    }
}
