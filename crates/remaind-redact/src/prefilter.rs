//! The compiled built-in rules and the one-pass literal prefilter that decides which of them
//! need a closer look.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, OnceLock};

use aho_corasick::{AhoCorasick, AhoCorasickKind, Input, Span, packed};
use regex_automata::meta::Regex;

use crate::literals::*;
use crate::rules::*;

/// Where a literal was found in a text and the rules it admits there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hit {
    /// Which literal, by index in [`LITERALS`].
    pub(crate) literal: usize,
    /// Where it starts.
    pub(crate) at: usize,
    /// Where it ends.
    pub(crate) end: usize,
    pub(crate) rules: RuleSet,
}

/// Inputs this long with their padding, most strings of an event, are lower-cased into a
/// buffer on the stack, longer ones into a buffer kept by the thread.
const SMALL: usize = 256;

/// Inputs shorter than this are searched by the case-insensitive automaton.
const TINY: usize = 20;

/// Tiny inputs searched by the SIMD searcher before the case-insensitive automaton is built.
const TINY_BEFORE_AUTOMATON: usize = 256;

/// Bytes of input lower-cased and searched at once by [`Compiled::candidates`].
const FOLD_CHUNK: usize = 8192;

/// A set of built-in rules, by index in [`NAMES`].
pub(crate) type RuleSet = u64;

/// A built-in rule and its regex, compiled the first time a text needs it: most texts admit
/// no rule at all, and compiling all of them costs a hook's process more than its work.
pub(crate) struct LazyRule {
    pub(crate) rule: BuiltinRule,
    /// The regex and the indices of its secret groups (`s`, `t`, `v`, `u`) in order.
    compiled: OnceLock<(Regex, Vec<usize>)>,
}

impl LazyRule {
    fn new(rule: BuiltinRule) -> LazyRule {
        LazyRule {
            rule,
            compiled: OnceLock::new(),
        }
    }

    fn compiled(&self) -> &(Regex, Vec<usize>) {
        self.compiled.get_or_init(|| {
            // The patterns are constants of this crate and the test suite compiles every one.
            let regex = compile(&self.rule.pattern).expect("built-in redaction rule compiles");
            let names = || {
                regex
                    .group_info()
                    .pattern_names(regex_automata::PatternID::ZERO)
            };
            let groups = ["s", "t", "v", "u"]
                .iter()
                .filter_map(|g| names().position(|n| n == Some(g)))
                .collect();
            (regex, groups)
        })
    }

    /// The rule's regex.
    pub(crate) fn regex(&self) -> &Regex {
        &self.compiled().0
    }

    /// The indices of its secret groups (`s`, `t`, `v`, `u`), in order.
    pub(crate) fn groups(&self) -> &[usize] {
        &self.compiled().1
    }
}

/// The built-in rules (each compiled when first needed), with a literal prefilter.
pub(crate) struct Compiled {
    pub(crate) rules: Vec<LazyRule>,
    /// For each rule, its [`Starts`] at a hit of each literal.
    pub(crate) starts: Vec<Vec<Starts>>,
    /// For each rule, the largest distance its [`Starts`] give, and whether one is
    /// [`Starts::Within`].
    pub(crate) reach: Vec<(usize, bool)>,
    /// Finds [`LITERALS`] in lower-cased text (a SIMD searcher where the CPU has one), in
    /// [`SEARCH_ORDER`]; `None` where it cannot be built, and then `prefilter` is used.
    folded: Option<packed::Searcher>,
    /// For each literal of `folded`, its index in [`LITERALS`].
    folded_literal: Vec<usize>,
    /// The length of the longest literal.
    longest: usize,
    /// Finds [`LITERALS`] ASCII case-insensitively in one pass; built on first use (tiny
    /// inputs, or a CPU without the SIMD searcher).
    prefilter: OnceLock<AhoCorasick>,
    /// Tiny inputs searched so far (see [`TINY_BEFORE_AUTOMATON`]).
    tiny_seen: AtomicUsize,
    /// For each literal, the set of rules it admits.
    literal_rules: Vec<RuleSet>,
    /// The rules `key` admits after `-`, after `i`, after `_` or `.`, and before `=`.
    key_rules: [RuleSet; 4],
    /// The rules a [`Case::Then`] literal admits whatever follows it ([`WORD_END_FREE`]).
    word_end_free: RuleSet,
    /// For each literal, the rules it admits only where a test on its neighbours passes
    /// ([`CONTEXT`]).
    gates: Vec<Vec<(RuleSet, Gate)>>,
}

/// A placeholder, `[REDACTED:<rule>:<12 hex>]`.
// A constant pattern, compiled by every test.
pub(crate) static PLACEHOLDER: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
    regex::bytes::Regex::new(r"(?-u)\[REDACTED:[A-Za-z0-9_]+:[0-9a-f]{12}\]")
        .expect("placeholder pattern compiles")
});

/// A JSON object key naming a secret value (see [`secret_key_name_pattern`]).
// A constant pattern, compiled by every test.
pub(crate) static SECRET_KEY_NAME: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
    regex::bytes::Regex::new(&secret_key_name_pattern()).expect("secret key name pattern compiles")
});

impl Compiled {
    /// The case-insensitive automaton of [`LITERALS`].
    fn prefilter(&self) -> &AhoCorasick {
        self.prefilter.get_or_init(|| {
            // A contiguous NFA: built in microseconds where a DFA takes a millisecond of a
            // hook's life, and it only searches tiny strings.
            AhoCorasick::builder()
                .kind(Some(AhoCorasickKind::ContiguousNFA))
                .ascii_case_insensitive(true)
                .build(LITERALS.iter().map(|(part, _, _)| *part))
                .expect("redaction prefilter builds")
        })
    }

    /// Every rule.
    fn all(&self) -> RuleSet {
        RuleSet::MAX >> (RuleSet::BITS as usize - self.rules.len())
    }

    /// The rules the hit of literal `index` at `at` in `b` admits.
    fn hit_rules(&self, index: usize, b: &[u8], at: usize) -> RuleSet {
        let mut rules = self.literal_rules_at(index, b, at);
        for &(rule, gate) in &self.gates[index] {
            if rules & rule != 0 {
                let after = b.get(at + LITERALS[index].0.len()..).unwrap_or_default();
                if !gate(&b[..at.min(b.len())], after) {
                    rules &= !rule;
                }
            }
        }
        rules
    }

    /// [`hit_rules`](Self::hit_rules) before the [`CONTEXT`] tests.
    fn literal_rules_at(&self, index: usize, b: &[u8], at: usize) -> RuleSet {
        match LITERALS[index].1 {
            Case::Any => self.literal_rules[index],
            Case::Exact(exact) if b.get(at..at + exact.len()) == Some(exact.as_bytes()) => {
                self.literal_rules[index]
            }
            Case::Exact(_) => 0,
            Case::Then(follows) => {
                let rest = b.get(at + LITERALS[index].0.len()..).unwrap_or_default();
                if follows(rest) {
                    self.literal_rules[index]
                } else {
                    self.literal_rules[index] & self.word_end_free
                }
            }
            Case::Key => {
                let [dash, i, underscore, equals] = self.key_rules;
                let before = match at.checked_sub(1).and_then(|p| b.get(p)) {
                    Some(b'-') => dash,
                    Some(b'i' | b'I') => i,
                    Some(b'_' | b'.') => underscore,
                    _ => 0,
                };
                let after = if b.get(at + 3) == Some(&b'=') {
                    equals
                } else {
                    0
                };
                before | after
            }
        }
    }

    /// The set of rules that can match somewhere in `b`.
    ///
    /// Literals only share a start when one is a prefix of another, and those admit the
    /// same rules, so restarting one byte after each hit sees every rule's literal while the
    /// automaton's own prefilter skips through clean text.
    pub(crate) fn candidates(&self, b: &[u8]) -> RuleSet {
        self.scan(b, 0, None)
    }

    /// [`candidates`](Self::candidates), pushing onto `hits` each hit that admits a rule
    /// (at its place in `b` plus `base`) when given them.
    fn scan(&self, b: &[u8], base: usize, mut hits: Option<&mut Vec<Hit>>) -> RuleSet {
        let all = self.all();
        let Some(folded) = self.folded.as_ref() else {
            return self.candidates_unfolded(b, base, all, hits);
        };
        // The text is lower-cased into a buffer and searched for the lower-cased literals: the
        // same occurrences as an ASCII case-insensitive search, at the speed of a
        // case-sensitive one. The buffer is padded with NUL bytes (which no literal holds) to
        // the searcher's minimum length past any hit, so that it never falls back to its much
        // slower Rabin-Karp search on a short haystack or a short rest after a hit.
        // Below a few dozen bytes (most keys and values of an event) the case-insensitive
        // automaton's scan costs less than setting up the SIMD search; but building it costs
        // more than a short-lived process's few tiny strings, so it is built only once a
        // process has searched [`TINY_BEFORE_AUTOMATON`] of them.
        if b.len() < TINY
            && (self.prefilter.get().is_some()
                || self.tiny_seen.fetch_add(1, Ordering::Relaxed) >= TINY_BEFORE_AUTOMATON)
        {
            return self.candidates_unfolded(b, base, all, hits);
        }
        let pad = folded.minimum_len();
        if b.len() + pad <= SMALL {
            // Most strings of an event: on the stack.
            let mut buf = [0u8; SMALL];
            fold(&mut buf[..b.len()], b);
            return self.search_folded(folded, &buf[..b.len() + pad], b, 0, (base, all), hits);
        }
        // A chunk at a time into a buffer kept by the thread. Consecutive chunks overlap by one
        // byte less than the longest literal, so an occurrence across a chunk boundary is whole
        // in the next.
        thread_local! {
            static BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
        }
        BUF.with(|buf| {
            let Ok(mut buf) = buf.try_borrow_mut() else {
                return self.candidates_unfolded(b, base, all, hits);
            };
            let mut found = 0;
            let mut start = 0;
            loop {
                let end = b.len().min(start + FOLD_CHUNK);
                buf.clear();
                buf.resize(end - start + pad, 0);
                fold(&mut buf[..end - start], &b[start..end]);
                found |=
                    self.search_folded(folded, &buf, b, start, (base, all), hits.as_deref_mut());
                if (found == all && hits.is_none()) || end == b.len() {
                    return found;
                }
                start = end - (self.longest - 1);
            }
        })
    }

    /// The rules admitted by the literals `folded` finds in `hay`, the lower-cased (and
    /// padded) copy of `b[offset..]`; stops once `all` are found. Hits go to `hits` as in
    /// [`scan`](Self::scan) (a hit the chunk before this one held is not pushed again).
    fn search_folded(
        &self,
        folded: &packed::Searcher,
        hay: &[u8],
        b: &[u8],
        offset: usize,
        (base, all): (usize, RuleSet),
        mut hits: Option<&mut Vec<Hit>>,
    ) -> RuleSet {
        let mut found = 0;
        let mut at = 0;
        while let Some(m) = folded.find_in(hay, Span::from(at..hay.len())) {
            let index = self.folded_literal[m.pattern().as_usize()];
            let rules = self.hit_rules(index, b, offset + m.start());
            found |= rules;
            // When hits are kept, every one is wanted, not only the first of each rule.
            if found == all && hits.is_none() {
                return found;
            }
            if let Some(hits) = hits.as_deref_mut() {
                push_hit(hits, index, base + offset + m.start(), m.len(), rules);
            }
            at = m.start() + 1;
        }
        found
    }

    /// [`candidates`](Self::candidates) of the text around `placeholders` (sorted, disjoint
    /// `[REDACTED:<rule>:<hex>]` spans of `b`) whose rule is a built-in one.
    ///
    /// No literal holds `[` or `]`, so every occurrence of one is inside such a placeholder or
    /// outside all of them. One inside can only start a match whose secret is inside it too:
    /// a built-in rule name holds no `=`, `-`, space or `://`, and what follows it (`:`, twelve
    /// hex digits, `]`) ends every value a key word leads to (`]` ends them, and no rule wants
    /// a value of twelve bytes or fewer right after a `:` that isn't stopped there), so that
    /// match would be dropped as inside a placeholder anyway. A user rule's name could be a
    /// key word a rule reads past `]` (`authorization`), so its placeholders are searched.
    ///
    /// Also pushes onto `hits`, in order, each hit there that admits a rule.
    pub(crate) fn hits_outside(
        &self,
        b: &[u8],
        placeholders: &[(usize, usize)],
        hits: &mut Vec<Hit>,
    ) -> RuleSet {
        let mut found = 0;
        let mut at = 0;
        for &(start, end) in placeholders {
            if !is_builtin_placeholder(&b[start..end]) {
                continue;
            }
            found |= self.scan(&b[at..start], at, Some(hits));
            at = end;
        }
        found | self.scan(&b[at..], at, Some(hits))
    }

    /// Each hit in all of `b` that admits a rule, in order.
    pub(crate) fn hits(&self, b: &[u8]) -> Vec<Hit> {
        let mut hits = Vec::new();
        self.scan(b, 0, Some(&mut hits));
        hits
    }

    /// [`scan`](Self::scan) with the case-insensitive automaton.
    fn candidates_unfolded(
        &self,
        b: &[u8],
        base: usize,
        all: RuleSet,
        mut hits: Option<&mut Vec<Hit>>,
    ) -> RuleSet {
        let mut found = 0;
        let mut at = 0;
        while at < b.len() {
            let Some(m) = self.prefilter().find(Input::new(b).range(at..)) else {
                break;
            };
            let index = m.pattern().as_usize();
            let rules = self.hit_rules(index, b, m.start());
            found |= rules;
            if found == all && hits.is_none() {
                break;
            }
            if let Some(hits) = hits.as_deref_mut() {
                push_hit(hits, index, base + m.start(), m.len(), rules);
            }
            at = m.start() + 1;
        }
        found
    }
}

/// Compiles a pattern to match bytes, as `regex::bytes::Regex` does.
pub(crate) fn compile(pattern: &str) -> Result<Regex, Box<regex_automata::meta::BuildError>> {
    Regex::builder()
        .syntax(regex_automata::util::syntax::Config::new().utf8(false))
        .configure(Regex::config().utf8_empty(false))
        .build(pattern)
        .map_err(Box::new)
}

/// Whether `placeholder`, a `[REDACTED:<rule>:<hex>]` span, names a built-in rule.
pub(crate) fn is_builtin_placeholder(placeholder: &[u8]) -> bool {
    let name = crate::search::placeholder_name(placeholder);
    NAMES.iter().any(|n| n.as_bytes() == name)
}

/// Pushes a hit that admits rules, unless it is one already pushed (chunks overlap).
fn push_hit(hits: &mut Vec<Hit>, literal: usize, at: usize, len: usize, rules: RuleSet) {
    if rules != 0 && hits.last().is_none_or(|last| last.at < at) {
        hits.push(Hit {
            literal,
            at,
            end: at + len,
            rules,
        });
    }
}

/// Writes `src` lower-cased (ASCII) into `dst`, branch-free so that it vectorizes.
pub(crate) fn fold(dst: &mut [u8], src: &[u8]) {
    for (d, &c) in dst.iter_mut().zip(src) {
        *d = c | (u8::from(c.wrapping_sub(b'A') < 26) << 5);
    }
}

pub(crate) static BUILTIN: LazyLock<Compiled> = LazyLock::new(|| {
    let rules: Vec<LazyRule> = builtin_rules().into_iter().map(LazyRule::new).collect();
    let parts = || LITERALS.iter().map(|(part, _, _)| *part);
    // More than the 64 literals the searcher's heuristic admits: see `SEARCH_ORDER`.
    let folded = packed::Config::new()
        .match_kind(packed::MatchKind::LeftmostFirst)
        .heuristic_pattern_limits(false)
        .builder()
        .extend(SEARCH_ORDER)
        .build();
    let folded_literal = SEARCH_ORDER
        .iter()
        .map(|literal| parts().position(|part| part == *literal).unwrap_or(0))
        .collect();
    let longest = parts().map(str::len).max().unwrap_or(1);
    let set = |names: &[&str]| {
        names
            .iter()
            .filter_map(|name| NAMES.iter().position(|n| n == name))
            .fold(0, |set: RuleSet, i| set | (1 << i))
    };
    let literal_rules = LITERALS.iter().map(|(_, _, names)| set(names)).collect();
    let key_rules = [
        set(KEY_AFTER_DASH),
        set(KEY_AFTER_I),
        set(KEY_AFTER_UNDERSCORE),
        set(KEY_BEFORE_EQUALS),
    ];
    let word_end_free = set(WORD_END_FREE);
    let gates = LITERALS
        .iter()
        .map(|(literal, _, _)| {
            CONTEXT
                .iter()
                .filter(|(l, _, _)| l == literal)
                .map(|&(_, rule, gate)| (set(&[rule]), gate))
                .collect()
        })
        .collect();
    debug_assert!(rules.iter().map(|r| r.rule.name).eq(NAMES.iter().copied()));
    Compiled {
        starts: NAMES
            .iter()
            .map(|name| parts().map(|literal| starts(name, literal)).collect())
            .collect(),
        reach: NAMES
            .iter()
            .enumerate()
            .map(|(rule, name)| {
                LITERALS
                    .iter()
                    .filter(|(_, _, rules)| rules.contains(name))
                    .fold((0, false), |(far, within), (literal, _, _)| {
                        match starts(NAMES[rule], literal) {
                            Starts::At(distances) => (
                                far.max(distances.iter().copied().max().unwrap_or(0)),
                                within,
                            ),
                            Starts::Within(reach) => (far.max(reach), true),
                        }
                    })
            })
            .collect(),
        rules,
        folded,
        folded_literal,
        longest,
        prefilter: OnceLock::new(),
        tiny_seen: AtomicUsize::new(0),
        literal_rules,
        key_rules,
        word_end_free,
        gates,
    }
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_lower_case_searchable_and_cover_every_rule() {
        assert!(LITERALS.len() <= 128, "the SIMD searcher takes at most 128");
        assert!(NAMES.len() <= RuleSet::BITS as usize);
        for (part, case, rules) in LITERALS {
            assert!(part.len() >= 3, "{part}: at least three bytes");
            assert_eq!(*part, part.to_ascii_lowercase());
            if let Case::Exact(exact) = case {
                assert_eq!(exact.to_ascii_lowercase(), *part);
            }
            for rule in *rules {
                assert!(NAMES.contains(rule), "{rule}");
            }
        }
        for name in NAMES {
            assert!(
                LITERALS.iter().any(|(_, _, rules)| rules.contains(name)),
                "{name} has no literal"
            );
        }
        assert!(BUILTIN.folded.is_some(), "the folded searcher builds");
    }

    /// The lower-cased chunked search admits every rule the case-insensitive automaton does,
    /// whatever the case and wherever a literal falls relative to chunk boundaries.
    #[test]
    fn folded_prefilter_admits_what_the_case_insensitive_automaton_does() {
        let c = &*BUILTIN;
        let all = c.all();
        let mut next = crate::test_rng(0x2545_f491_4f6c_dd1du64);
        for (literal, case, _) in LITERALS {
            for len in [
                0usize,
                1,
                5,
                100,
                FOLD_CHUNK - 20,
                FOLD_CHUNK + 30,
                3 * FOLD_CHUNK,
            ] {
                for _ in 0..4 {
                    let mut text: Vec<u8> = (0..len)
                        .map(|_| b"the ledger Index, config\n\x00\xc3\xa9-_"[next() as usize % 30])
                        .collect();
                    let at = if len == 0 {
                        0
                    } else {
                        next() as usize % (len + 1)
                    };
                    // Around chunk boundaries, too.
                    let at = match next() % 3 {
                        0 if len > FOLD_CHUNK => FOLD_CHUNK - 1 - (next() as usize % literal.len()),
                        1 if len > 2 * FOLD_CHUNK => 2 * FOLD_CHUNK - 12 - (next() as usize % 3),
                        _ => at,
                    };
                    let mut cased: Vec<u8> = match case {
                        Case::Exact(exact) => exact.bytes().collect(),
                        Case::Any | Case::Key | Case::Then(_) => literal
                            .bytes()
                            .map(|b| {
                                if next().is_multiple_of(2) {
                                    b.to_ascii_uppercase()
                                } else {
                                    b.to_ascii_lowercase()
                                }
                            })
                            .collect(),
                    };
                    match case {
                        // As in `api-key`.
                        Case::Key => cased.insert(0, b'-'),
                        // As in `token=`, `secret=`, `://u:p@`, the rest of a Discord
                        // bot token, a Mailchimp key's data centre, an Artifactory token.
                        Case::Then(follows) => cased.extend_from_slice(
                            [
                                &b"=@"[..],
                                b"5ODc2NTQzMjEwOTg3NjU0.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
                                b"7 ",
                                b"er ",
                                b"=AP7Hq2Lm9Xk",
                            ]
                            .into_iter()
                            .find(|rest| follows(rest))
                            .unwrap_or_default(),
                        ),
                        Case::Any | Case::Exact(_) => {}
                    }
                    let at = at.min(text.len());
                    text.splice(at..at, cased);
                    let got = c.candidates(&text);
                    let want = c.candidates_unfolded(&text, 0, all, None);
                    assert_eq!(got & want, want, "{literal} at {at} of {len}");
                    assert_ne!(got, 0, "{literal} at {at} of {len}");
                }
            }
        }
    }

    /// The corpus' lines and texts built from the key words and forms of the context
    /// rules, in every case.
    fn texts() -> Vec<String> {
        let mut texts: Vec<String> = [
            include_str!("../../../fixtures/redact/corpus/secrets.jsonl"),
            include_str!("../../../fixtures/redact/corpus/agent-output.tsv"),
        ]
        .iter()
        .flat_map(|corpus| corpus.lines().map(str::to_owned))
        .collect();
        let pieces: &[&str] = &[
            "api_key",
            "API.KEY",
            "api-Key",
            "ApiKey",
            "_KEY",
            "-key",
            "x-api-key",
            "X-Goog-Api-Key",
            "ocp-apim-subscription-key",
            "--api-key",
            "--apikey",
            "AccountKey",
            "SharedAccessKey",
            "bedrock-api-key-",
            "ABSK",
            "token",
            "PRIVATE KEY",
            "key",
            "=",
            ": ",
            " ",
            "\"",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8vT2mK9pAbCdEfGh",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8vT2mK9pAbCdEfGhwJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8vT2mK9pAbCdEfGhwJalr",
            "S3cr3t!x",
            // The neighbours the `CONTEXT` tests read.
            "aws_session_",
            "AWS-Security",
            "x-amz-security-",
            "SessionToken",
            "aws_secret",
            "AWS.Secret",
            "secret_access_key",
            "SecretAccessKey",
            "secret",
            " --token ",
            " --auth-token=",
            " --access-token ",
            " --api-key=",
            " --apikey ",
            " --secret ",
            " --client-secret=",
            " --password=",
            " --passwd ",
            "X-Auth-Token",
            "private-token",
            "\t",
            "\\\"",
            "'",
            "\t:",
            ":",
            "--",
            "-",
            // What the longest reaches span: escapes, then the longest fixed text before a
            // literal.
            "\\u0041",
            "%20",
            "\\n",
            "proxy-authorization: ",
            "Ocp-Apim-Subscription-Key: ",
            " --client-secret=",
            " --proxy-user ",
            "x-amz-security-token=",
            "SharedAccessKey=",
            "bedrock-api-key-",
            "github_pat_",
            "sk_live_",
            "doo_v1_",
            "AKIA",
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            // Comparisons: operators on either side of an identifier, quoted subscripts.
            " == ",
            "===",
            "!=",
            "%3D%3D",
            "%21=",
            "\"]",
            "$",
            "password",
            "config.",
        ];
        let mut next = crate::test_rng(0x9e37_79b9_7f4a_7c15u64);
        for _ in 0..20_000 {
            let n = 1 + next() as usize % 6;
            texts.push(
                (0..n)
                    .map(|_| pieces[next() as usize % pieces.len()])
                    .collect(),
            );
        }
        texts
    }

    /// Every text a rule's regex matches admits the rule.
    #[test]
    fn every_match_admits_its_rule() {
        let c = &*BUILTIN;
        let texts = texts();
        let mut matched = 0;
        for text in &texts {
            let admitted = c.candidates(text.as_bytes());
            // The ledger's pre-pass searches the JSON text of a string, not the string.
            let json = serde_json::to_string(text).unwrap_or_default();
            let admitted_json = if json.contains("\\u") {
                RuleSet::MAX
            } else {
                c.candidates(json.as_bytes())
            };
            for (index, lazy) in c.rules.iter().enumerate() {
                let (rule, regex) = (&lazy.rule, lazy.regex());
                if regex.is_match(text.as_bytes()) {
                    assert_ne!(admitted & (1 << index), 0, "{}: {text:?}", rule.name);
                    assert_ne!(admitted_json & (1 << index), 0, "{}: {json}", rule.name);
                    matched += 1;
                }
            }
        }
        assert!(matched > 3_000, "{matched}");
    }

    /// Every match of a rule, wherever a search for it starts, starts where the hits that
    /// admit the rule say ([`Starts`]): what `rule_spans` relies on to search only there.
    #[test]
    fn every_match_starts_where_its_admitting_hits_say() {
        let c = &*BUILTIN;
        let mut checked = 0;
        for text in texts() {
            let b = text.as_bytes();
            let hits = c.hits(b);
            for (index, lazy) in c.rules.iter().enumerate() {
                let (rule, regex) = (&lazy.rule, lazy.regex());
                let admitting = || hits.iter().filter(|hit| hit.rules & (1 << index) != 0);
                // Every distinct leftmost match a search from some place finds.
                let mut at = 0;
                while let Some(m) = regex.find(regex_automata::Input::new(b).range(at..)) {
                    let start = m.start();
                    let said = admitting().any(|hit| match c.starts[index][hit.literal] {
                        Starts::At(distances) => distances
                            .iter()
                            .any(|&d| hit.at.checked_sub(d) == Some(start)),
                        Starts::Within(reach) => start <= hit.at && hit.at <= start + reach,
                    });
                    assert!(
                        said,
                        "{}: {:?} at {start} in {text:?}",
                        rule.name,
                        String::from_utf8_lossy(&b[m.range()]),
                    );
                    checked += 1;
                    at = start + 1;
                }
            }
        }
        assert!(checked > 5_000, "{checked}");
    }

    #[test]
    fn context_tests_narrow_rules_their_literal_admits() {
        for (literal, rule, _) in CONTEXT {
            let entry = LITERALS.iter().find(|(l, _, _)| l == literal);
            assert!(
                entry.is_some_and(|(_, _, rules)| rules.contains(rule)),
                "{literal} does not admit {rule}"
            );
        }
        let c = &*BUILTIN;
        let bit = |name: &str| 1 << NAMES.iter().position(|n| *n == name).unwrap_or(0);
        // Prose and code with the words but none of the forms.
        for text in [
            "the token budget ran out",
            "let token = next_token();",
            "rotate the secret weekly",
            "api key rotation",
            "if (count == 3) { secret_count = 2; }",
        ] {
            let admitted = c.candidates(text.as_bytes());
            for rule in [
                AWS_SESSION_TOKEN,
                COMMAND_LINE,
                AWS_SECRET_ACCESS_KEY,
                API_KEY_HEADER,
                COMPARISON,
            ] {
                assert_eq!(admitted & bit(rule), 0, "{rule}: {text}");
            }
        }
    }

    /// The places the SIMD searcher checks in `text` (lower-cased) when given `order`: where
    /// each of the first bytes of some literal of a bucket (the shortest literal's length,
    /// at most four) has both its halves among those of the bucket's literals at that byte.
    /// Buckets as the searcher makes them: literal `i` in bucket `15 - i % 16`, unless one
    /// before it has the same low halves, whose bucket it joins.
    fn places_checked(order: &[&str], text: &[u8]) -> usize {
        let width = order.iter().map(|l| l.len()).min().unwrap_or(1).min(4);
        let mut buckets: Vec<Vec<&[u8]>> = vec![Vec::new(); 16];
        let mut by_low_halves: Vec<(Vec<u8>, usize)> = Vec::new();
        for (i, literal) in order.iter().enumerate() {
            let low: Vec<u8> = literal.as_bytes()[..width].iter().map(|b| b & 15).collect();
            let bucket = match by_low_halves.iter().find(|(l, _)| *l == low) {
                Some(&(_, bucket)) => bucket,
                None => {
                    by_low_halves.push((low, 15 - i % 16));
                    15 - i % 16
                }
            };
            buckets[bucket].push(literal.as_bytes());
        }
        let takes = |bucket: &[&[u8]], j: usize, c: u8| {
            bucket.iter().any(|l| l[j] & 15 == c & 15) && bucket.iter().any(|l| l[j] >> 4 == c >> 4)
        };
        let text = text.to_ascii_lowercase();
        text.windows(width)
            .map(|w| {
                buckets
                    .iter()
                    .filter(|b| !b.is_empty() && (0..width).all(|j| takes(b, j, w[j])))
                    .count()
            })
            .sum()
    }

    #[test]
    fn search_order_holds_every_literal_once() {
        let mut order = SEARCH_ORDER.to_vec();
        order.sort_unstable();
        let mut literals: Vec<&str> = LITERALS.iter().map(|(l, _, _)| *l).collect();
        literals.sort_unstable();
        assert_eq!(
            order, literals,
            "SEARCH_ORDER must list the literals of LITERALS once each; put a new one where \
             `search_order_checks_few_places` stays lowest (in a bucket of literals sharing \
             its bytes' halves: entries 16 apart share a bucket)"
        );
    }

    /// On text the order was not tuned on (another real session and ordinary agent output),
    /// the searcher checks at most a quarter of the places it does in the table's order.
    #[test]
    fn search_order_checks_few_places() {
        let table: Vec<&str> = LITERALS.iter().map(|(l, _, _)| *l).collect();
        for text in [
            &include_bytes!("../../../fixtures/transcripts/claude-code-5c0375b4.jsonl")[..],
            include_bytes!("../../../fixtures/redact/corpus/agent-output.tsv"),
        ] {
            let tuned = places_checked(SEARCH_ORDER, text);
            let plain = places_checked(&table, text);
            assert!(
                tuned * 4 <= plain,
                "{tuned} places checked, {plain} in table order"
            );
        }
    }

    /// A key word admits `secret_comparison` next to an equality operator on either side of
    /// its identifier, whatever ends the word (`token)`, which admits no assignment rule).
    #[test]
    fn comparisons_are_admitted_by_their_operator() {
        let c = &*BUILTIN;
        let bit = 1 << NAMES.iter().position(|n| *n == COMPARISON).unwrap_or(0);
        for text in [
            "if (password == \"x\")",
            "if (\"x\" === token)",
            "if (\"x\" !== this.config.secret) return",
            "if (\"x\" == api_key)",
            "if (\"x\" == apiKey)",
            "credentials != 'x'",
            "data[\"token\"] == \"x\"",
            "[[ \"$DB_PASSWORD\" == \"x\" ]]",
            "password%20%3D%3D%20%22x%22",
            "\\\"x\\\"\\t==\\ttoken",
        ] {
            assert_ne!(c.candidates(text.as_bytes()) & bit, 0, "{text}");
        }
    }

    #[test]
    fn exact_literals_need_their_case() {
        let c = &*BUILTIN;
        let sendgrid = 1 << NAMES.iter().position(|n| *n == SENDGRID).unwrap_or(0);
        assert_eq!(c.candidates(b"let m = msg.content;") & sendgrid, 0);
        assert_ne!(c.candidates(b"SG.abc") & sendgrid, 0);
    }
}
