//! User rules, from `redaction.json` or gitleaks TOML files: compiling them under a cost
//! bound, and matching them with their keywords, entropy floor and allowlists.

use aho_corasick::AhoCorasick;
use regex::bytes::{Regex, RegexBuilder};

use crate::judge::entropy;

/// The largest compiled program a user rule may have. Matching costs at most a constant times
/// the input per rule, and that constant grows with the compiled size: bounded repeats such as
/// `(?s).{0,3000}zzz.{0,3000}` multiply it (that rule compiles to about 1 MiB and cost 56 s
/// per MiB of input before this bound). At 256 KiB the worst rule accepted stays well under a
/// second per MiB of adversarial input, while gitleaks-style assignment rules
/// (`[\w.-]{0,50}?(?:key|token)…([\w.=-]{10,150})`, ASCII classes) compile to under 64 KiB.
pub(crate) const SIZE_LIMIT: usize = 256 * 1024;

/// Which part of a match is the secret.
#[derive(Clone, Debug)]
pub(crate) enum SecretGroup {
    /// The whole match.
    Whole,
    /// This capture group (by index).
    Index(usize),
    /// gitleaks' default: the first capture group that matched something, else the whole match.
    FirstNonEmpty,
}

/// Which text an allowlist regex is tried on.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Target {
    Secret,
    Match,
    Line,
}

/// One allowlist: a candidate it allows is not redacted.
#[derive(Clone, Debug)]
pub(crate) struct Allowlist {
    pub(crate) regexes: Vec<Regex>,
    pub(crate) target: Target,
    /// Lower-cased; a secret containing one is allowed.
    pub(crate) stopwords: Vec<Vec<u8>>,
    /// All checks present must hold (gitleaks `condition = "AND"`), else any one.
    pub(crate) all: bool,
    /// The allowlist also names paths or commits, which text never has: under `AND` it can
    /// never hold.
    pub(crate) needs_path: bool,
}

impl Allowlist {
    fn allows(&self, secret: &[u8], whole: &[u8], line: &[u8]) -> bool {
        let target = match self.target {
            Target::Secret => secret,
            Target::Match => whole,
            Target::Line => line,
        };
        let mut checks = Vec::with_capacity(2);
        if !self.regexes.is_empty() {
            checks.push(self.regexes.iter().any(|r| r.is_match(target)));
        }
        if !self.stopwords.is_empty() {
            let lower = secret.to_ascii_lowercase();
            checks.push(
                self.stopwords
                    .iter()
                    .any(|w| memchr::memmem::find(&lower, w).is_some()),
            );
        }
        if checks.is_empty() {
            return false;
        }
        if self.all {
            !self.needs_path && checks.iter().all(|c| *c)
        } else {
            checks.iter().any(|c| *c)
        }
    }
}

/// A user rule ready to match.
#[derive(Clone, Debug)]
pub(crate) struct Compiled {
    pub(crate) name: String,
    pub(crate) regex: Regex,
    pub(crate) secret: SecretGroup,
    /// The secret's Shannon entropy must exceed this (gitleaks `entropy`).
    pub(crate) min_entropy: Option<f64>,
    /// Lower-cased; the rule only runs on text holding one (none: always runs).
    pub(crate) keywords: Vec<String>,
    pub(crate) allowlists: Vec<Allowlist>,
}

/// Compiles a user pattern under [`SIZE_LIMIT`]: first with ASCII classes, as RE2 and gitleaks
/// read `\w`, `\d`, `\s` and `\b` (and far smaller than their Unicode forms), then, for a
/// pattern that needs Unicode (`\p{L}`), with Unicode classes.
pub(crate) fn compile(pattern: &str) -> Result<Regex, String> {
    let build = |unicode: bool| {
        RegexBuilder::new(pattern)
            .unicode(unicode)
            .size_limit(SIZE_LIMIT)
            .build()
    };
    let too_big = |_| {
        format!(
            "compiles to more than {} KiB, which would make matching slow on long lines; large bounded repeats such as `.{{0,3000}}` multiply the compiled size: use a smaller bound or a narrower class",
            SIZE_LIMIT / 1024
        )
    };
    match build(false) {
        Ok(regex) => Ok(regex),
        Err(regex::Error::CompiledTooBig(limit)) => Err(too_big(limit)),
        Err(_) => match build(true) {
            Ok(regex) => Ok(regex),
            Err(regex::Error::CompiledTooBig(limit)) => Err(too_big(limit)),
            Err(e) => Err(e.to_string()),
        },
    }
}

/// The user rules of a redactor, with one keyword search for all of them.
#[derive(Debug)]
pub(crate) struct UserRules {
    pub(crate) rules: Vec<Compiled>,
    /// Every keyword of every rule, ASCII case-insensitively; `None` when no rule has any.
    keywords: Option<AhoCorasick>,
    /// For each keyword (by pattern index), its rule.
    keyword_rule: Vec<usize>,
    /// Every rule has keywords, none of which JSON escapes could hide: text without any of
    /// them needs no user rule (see `Redactor::json_text_is_clean`).
    pub(crate) keyword_gated: bool,
}

impl UserRules {
    pub(crate) fn new(rules: Vec<Compiled>) -> Result<Self, String> {
        let mut words = Vec::new();
        let mut keyword_rule = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            for k in &rule.keywords {
                words.push(k.as_str());
                keyword_rule.push(i);
            }
        }
        let keywords = if words.is_empty() {
            None
        } else {
            Some(
                AhoCorasick::builder()
                    .ascii_case_insensitive(true)
                    .build(&words)
                    .map_err(|e| format!("keywords: {e}"))?,
            )
        };
        let keyword_gated = rules.iter().all(|r| {
            !r.keywords.is_empty()
                && r.keywords.iter().all(|k| {
                    k.bytes()
                        .all(|b| b >= 0x20 && !matches!(b, b'"' | b'\\' | b'/'))
                })
        });
        Ok(Self {
            rules,
            keywords,
            keyword_rule,
            keyword_gated,
        })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Which rules may match in `b`: those without keywords, and those with one present.
    pub(crate) fn admitted(&self, b: &[u8]) -> Vec<bool> {
        let mut admitted: Vec<bool> = self.rules.iter().map(|r| r.keywords.is_empty()).collect();
        if let Some(ac) = &self.keywords {
            for m in ac.find_overlapping_iter(b) {
                admitted[self.keyword_rule[m.pattern().as_usize()]] = true;
            }
        }
        admitted
    }

    /// Whether any keyword occurs in `b`.
    pub(crate) fn any_keyword(&self, b: &[u8]) -> bool {
        self.keywords.as_ref().is_some_and(|ac| ac.is_match(b))
    }

    /// Every (start, end) secret span of `rule` in `b`.
    pub(crate) fn spans(&self, rule: &Compiled, b: &[u8], mut push: impl FnMut(usize, usize)) {
        for caps in rule.regex.captures_iter(b) {
            let Some(whole) = caps.get(0) else { continue };
            let secret = match rule.secret {
                SecretGroup::Whole => Some(whole),
                SecretGroup::Index(i) => caps.get(i),
                SecretGroup::FirstNonEmpty => caps
                    .iter()
                    .skip(1)
                    .flatten()
                    .find(|m| !m.is_empty())
                    .or(Some(whole)),
            };
            let Some(secret) = secret else { continue };
            if secret.is_empty() {
                continue;
            }
            if let Some(min) = rule.min_entropy
                && entropy(secret.as_bytes()) <= min
            {
                continue;
            }
            if !rule.allowlists.is_empty() {
                let line_start = memchr::memrchr(b'\n', &b[..whole.start()]).map_or(0, |i| i + 1);
                let line_end =
                    memchr::memchr(b'\n', &b[whole.end()..]).map_or(b.len(), |i| whole.end() + i);
                let line = &b[line_start..line_end];
                if rule
                    .allowlists
                    .iter()
                    .any(|a| a.allows(secret.as_bytes(), whole.as_bytes(), line))
                {
                    continue;
                }
            }
            push(secret.start(), secret.end());
        }
    }
}
