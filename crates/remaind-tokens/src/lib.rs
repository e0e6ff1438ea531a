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

/// `text` cut where every vocabulary here ends a pre-token: after a newline followed by a
/// character that is neither whitespace nor `/`. The pre-tokenizers of `o200k_base` and
/// `cl100k_base` end the newline's piece there (its patterns take more newlines or slashes,
/// never a following character) and start the next piece there whatever came before, and
/// byte-pair merges never cross a piece, so a text's count is the sum of its chunks' counts.
/// That is what lets a count be kept per chunk (a packet line, say) and reused.
///
/// ```
/// use remaind_tokens::{TokenizerName, chunks};
///
/// let text = "# Packet\n- [e1] first\n- [e2] second\n";
/// let parts: Vec<&str> = chunks(text).collect();
/// assert_eq!(parts, ["# Packet\n", "- [e1] first\n", "- [e2] second\n"]);
/// let name = TokenizerName::default();
/// assert_eq!(parts.iter().map(|p| name.count(p)).sum::<u64>(), name.count(text));
/// ```
pub fn chunks(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut at = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        while at < bytes.len() {
            let cut = at > start
                && bytes[at - 1] == b'\n'
                && !bytes[at].is_ascii_whitespace()
                && bytes[at] != b'/'
                // Not inside a multi-byte character, and not a Unicode space either.
                && text.is_char_boundary(at)
                && !text[at..].starts_with(char::is_whitespace);
            if cut {
                let piece = &text[start..at];
                start = at;
                return Some(piece);
            }
            at += 1;
        }
        let piece = &text[start..];
        start = bytes.len();
        Some(piece)
    })
}

impl fmt::Display for TokenizerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The one error type of this crate.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A vocabulary's name that is none of those built in.
    UnknownTokenizer {
        /// The name given.
        given: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownTokenizer { given } => write!(
                f,
                "unknown tokenizer `{given}`; expected `o200k_base` or `cl100k_base`"
            ),
        }
    }
}

impl std::error::Error for Error {}

impl FromStr for TokenizerName {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "o200k_base" => Ok(TokenizerName::O200kBase),
            "cl100k_base" => Ok(TokenizerName::Cl100kBase),
            other => Err(Error::UnknownTokenizer {
                given: other.to_owned(),
            }),
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

    /// A text's count is the sum of its chunks' counts, in both vocabularies: on texts built
    /// from the pieces a packet is made of (markdown, event lines, code, paths, CRLF, Unicode
    /// spaces, slashes after a newline).
    #[test]
    fn prop_chunks_add_up() {
        use proptest::prelude::*;
        let piece = prop::sample::select(vec![
            "# Resume packet\n",
            "\n",
            "\n\n",
            "- [e12] 2026-11-26T10:00:00Z note: ran it\n",
            "## Next step\n",
            "  indented\n",
            "/usr/bin\n",
            "//comment\n",
            "x.\n",
            "...\n",
            "word",
            " ",
            "\t",
            "\r\n",
            "\u{a0}",
            "\u{2003}x\n",
            "é\n",
            "日本語\n",
            "123456\n",
            "don't\n",
            "'s\n",
            "> quoted\n",
            "```rust\nfn main() {}\n```\n",
            "|a|b|\n",
            "\n/",
            "\n-",
            "\n ",
            "A",
            "\n\u{85}",
            "?\n\n!",
        ]);
        let texts = prop::collection::vec(piece, 0..40).prop_map(|v| v.concat());
        proptest!(ProptestConfig::with_cases(256), |(text in texts)| {
            for name in [TokenizerName::O200kBase, TokenizerName::Cl100kBase] {
                let parts: Vec<&str> = chunks(&text).collect();
                prop_assert_eq!(parts.concat(), text.clone());
                let sum: u64 = parts.iter().map(|p| name.count(p)).sum();
                prop_assert_eq!(sum, name.count(&text), "{:?} {:?}", name, parts);
            }
        });
    }

    #[test]
    fn names_round_trip() {
        for name in [TokenizerName::O200kBase, TokenizerName::Cl100kBase] {
            assert_eq!(name.as_str().parse::<TokenizerName>(), Ok(name));
        }
        assert!("gpt2".parse::<TokenizerName>().is_err());
    }
}
