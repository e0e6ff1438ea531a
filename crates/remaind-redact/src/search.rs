//! Searching the built-in rules where the prefilter's hits admit them: anchored tries and
//! their widening, the second pass's reuse of the first pass's hits, and merging the spans
//! found into disjoint replacements. The [`Redactor`](crate::Redactor) decides what to
//! search and writes the placeholders.

use std::sync::LazyLock;

use regex_automata::meta::Regex;
use regex_automata::util::captures::Captures;
use regex_automata::{Anchored, Input};

use crate::literals::Starts;
use crate::prefilter::{BUILTIN, Hit, PLACEHOLDER, RuleSet};
use crate::redactor::Applied;
use crate::rules::{
    BuiltinRule, Check, Groups, NAMES, Secret, assignment_secret, assignment_value, names_a_key_id,
};

/// The start of every placeholder.
static PLACEHOLDER_START: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new(b"[REDACTED:"));

/// A byte range to replace and the index of the rule (built-ins first, then user rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Span {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) rule: usize,
}

/// Push onto `candidates` the spans of the built-in rules in `admitted`, each searched near
/// the `hits` that admit it (everywhere when `None`). Bracket-free rules are searched only
/// between `placeholders` when `between` is set (unset for tests).
pub(crate) fn builtin_spans(
    b: &[u8],
    placeholders: &[(usize, usize)],
    admitted: RuleSet,
    hits: Option<&[Hit]>,
    between: bool,
    candidates: &mut Vec<Span>,
) {
    let builtin = &*BUILTIN;
    // Admitted rules only, in order (most strings admit none).
    let mut rest = admitted;
    while rest != 0 {
        let index = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let Some(lazy) = builtin.rules.get(index) else {
            break;
        };
        let (rule, regex, groups) = (&lazy.rule, lazy.regex(), lazy.groups());
        let mut admitting = Admitting {
            hits,
            rule: 1 << index,
            starts: &builtin.starts[index],
            reach: builtin.reach[index],
        };
        // A match of a bracket-free rule is inside a placeholder (and dropped below) or
        // outside all of them: only the text between them is searched, as text of its own,
        // which looks the same to the rule at its ends (`[` and `]` are no word bytes).
        if between && rule.bracket_free && !placeholders.is_empty() {
            let mut from = 0;
            for &(start, end) in placeholders {
                rule_spans(
                    (rule, regex, groups),
                    &mut admitting,
                    &b[from..start],
                    from,
                    index,
                    candidates,
                );
                from = end;
            }
            rule_spans(
                (rule, regex, groups),
                &mut admitting,
                &b[from..],
                from,
                index,
                candidates,
            );
        } else {
            rule_spans(
                (rule, regex, groups),
                &mut admitting,
                b,
                0,
                index,
                candidates,
            );
        }
    }
}

/// What a pass of redaction knows of the text the pass before it wrote.
pub(crate) struct Known {
    /// Its placeholders, sorted and disjoint.
    pub(crate) placeholders: Vec<(usize, usize)>,
    /// The prefilter's hits in it, or more, when the pass before could tell them.
    pub(crate) hits: Option<Vec<Hit>>,
}

/// Which built-in rules a search tries, and where.
pub(crate) enum Admit {
    /// Those the prefilter admits, near its hits.
    Scan,
    /// Those these hits admit, near them: the prefilter's hits of the text, or more.
    Hits(Vec<Hit>),
    /// These, everywhere.
    #[cfg(test)]
    All(RuleSet),
}

/// The prefilter's hits in `b`, outside built-in placeholders.
pub(crate) fn scan_hits(b: &[u8], placeholders: &[(usize, usize)]) -> Vec<Hit> {
    let mut hits = Vec::new();
    BUILTIN.hits_outside(b, placeholders, &mut hits);
    hits
}

/// Whether every hit of `scanned` is in `known`, admitting at least the same rules.
pub(crate) fn hits_cover(known: &[Hit], scanned: &[Hit]) -> bool {
    scanned.iter().all(|s| {
        known
            .iter()
            .any(|k| k.at == s.at && k.rules & s.rules == s.rules)
    })
}

/// The hits of a text that lie outside `spans`, moved to their place once each span is
/// replaced by its placeholder (`applied`, in order): the hits a scan of the result would
/// find, admitting the same rules or more. Every literal outside a placeholder there was one
/// here (no literal holds `[` or `]`), and the neighbours its test reads are the same bytes,
/// or fewer where a placeholder now cuts the text, which never lets a test pass that failed.
///
/// `None` where that does not hold: a span of a user rule (its placeholder is text to the
/// prefilter, and its name may hold a literal), or one that cut into a placeholder of the
/// text (what is left of it is text now).
pub(crate) fn moved_hits(
    hits: &[Hit],
    spans: &[Span],
    applied: &[Applied],
    placeholders: &[(usize, usize)],
) -> Option<Vec<Hit>> {
    let cuts = |span: &Span| {
        placeholders.iter().any(|&(start, end)| {
            start < span.end && span.start < end && !(span.start <= start && end <= span.end)
        })
    };
    if spans
        .iter()
        .any(|span| span.rule >= NAMES.len() || cuts(span))
    {
        return None;
    }
    let mut moved = Vec::with_capacity(hits.len());
    let mut next = spans.iter().zip(applied).peekable();
    // How far the text before the hit moved.
    let mut shift = 0isize;
    for hit in hits {
        while let Some((span, applied)) = next.next_if(|(span, _)| span.end <= hit.at) {
            shift += applied.placeholder.len() as isize - (span.end - span.start) as isize;
        }
        if next.peek().is_some_and(|(span, _)| span.start < hit.end) {
            continue;
        }
        moved.push(Hit {
            literal: hit.literal,
            at: hit.at.checked_add_signed(shift)?,
            end: hit.end.checked_add_signed(shift)?,
            rules: hit.rules,
        });
    }
    Some(moved)
}

/// The placeholders in `b` that a redactor could have written, sorted and disjoint: exactly
/// `[REDACTED:<name>:<12 lowercase hex>]` with a name `known` accepts (a rule's). Anything
/// else in brackets (`[REDACTED:ghp_…:0123456789ab]`, a secret dressed as a placeholder) is
/// text, searched like any other. Most text has none, which one substring search tells.
pub(crate) fn find_placeholders(b: &[u8], known: impl Fn(&[u8]) -> bool) -> Vec<(usize, usize)> {
    if PLACEHOLDER_START.find(b).is_none() {
        return Vec::new();
    }
    PLACEHOLDER
        .find_iter(b)
        .filter(|m| known(placeholder_name(m.as_bytes())))
        .map(|m| (m.start(), m.end()))
        .collect()
}

/// The rule name in a placeholder-shaped `placeholder` (`github_token` in
/// `[REDACTED:github_token:0123456789ab]`).
pub(crate) fn placeholder_name(placeholder: &[u8]) -> &[u8] {
    placeholder
        .get("[REDACTED:".len()..placeholder.len().saturating_sub(":0123456789ab]".len()))
        .unwrap_or_default()
}

/// Where in a text a built-in rule can match: where the prefilter's hits that admit it say.
struct Admitting<'a> {
    /// The hits of the text, sorted; `None` to search all of it.
    hits: Option<&'a [Hit]>,
    /// The rule's bit.
    rule: RuleSet,
    /// Where its matches start, relative to a hit of each literal.
    starts: &'a [Starts],
    /// The largest distance `starts` gives, and whether to search from the first admitting
    /// hit less it rather than at each place.
    reach: (usize, bool),
}

/// Where a search for a built-in rule starts, and whether a match must start right there.
#[derive(Clone, Copy)]
struct SearchFrom {
    at: usize,
    anchored: bool,
}

impl Admitting<'_> {
    /// Where to search next, given that no match starts before `at` (which never goes
    /// back between calls); `None` when no admitting hit is left (every match starts where
    /// one says).
    fn next(&mut self, at: usize) -> Option<SearchFrom> {
        let Some(hits) = self.hits else {
            return Some(SearchFrom {
                at,
                anchored: false,
            });
        };
        // A hit before `at` says nothing about a match at or after it.
        let passed = hits.iter().take_while(|hit| hit.at < at).count();
        let hits = &hits[passed..];
        self.hits = Some(hits);
        let mut admitting = hits.iter().filter(|hit| hit.rules & self.rule != 0);
        let (far, within) = self.reach;
        if within {
            return admitting.next().map(|hit| SearchFrom {
                at: hit.at.saturating_sub(far).max(at),
                anchored: false,
            });
        }
        // The nearest place at or after `at`. Hits are sorted: one past the nearest found
        // by more than the largest distance cannot give a nearer one.
        let mut nearest: Option<usize> = None;
        for hit in admitting {
            if nearest.is_some_and(|n| hit.at > n + far) {
                break;
            }
            let Starts::At(distances) = self.starts[hit.literal] else {
                continue;
            };
            for &distance in distances {
                if let Some(start) = hit.at.checked_sub(distance)
                    && start >= at
                    && nearest.is_none_or(|n| start < n)
                {
                    nearest = Some(start);
                }
            }
        }
        nearest.map(|at| SearchFrom { at, anchored: true })
    }

    /// Searches from the first admitting hit less the largest distance from now on, rather
    /// than at each place.
    fn widen(&mut self) {
        self.reach.1 = true;
    }
}

/// Anchored searches at hits that found nothing, after which a rule is searched from a
/// place instead: each one can scan to the end of the text (`tokenA…tokenA…`, every hit
/// followed by the same run of letters), so their number must not grow with the text's.
const MISSES_BEFORE_WIDENING: usize = 8;

/// Pushes onto `candidates` the spans built-in rule `index` accepts in `b`, which starts at
/// `offset` in the text.
fn rule_spans(
    (rule, regex, groups): (&BuiltinRule, &Regex, &[usize]),
    admitting: &mut Admitting<'_>,
    b: &[u8],
    offset: usize,
    index: usize,
    candidates: &mut Vec<Span>,
) {
    // Most admitted rules do not match at all. A rule read from capture groups and searched
    // from a place rather than at one asks the cheapest question first, with no capture
    // slots to fill; the others start with a plain search, which answers it as fast (a
    // no-match scans the same bytes) and, on a match, does not scan them twice.
    let captures_first = matches!(rule.secret, Secret::Groups)
        && !matches!(rule.check, Check::Assignment)
        && admitting.reach.1;
    if captures_first && !regex.is_match(b) {
        return;
    }
    let mut caps = None;
    let mut misses = 0;
    // A rejected candidate may hide one that starts inside it (`X="password: hunter2"` first
    // offers `password:` as the value of `X`): search again from its secret.
    let mut at = 0;
    while at <= b.len() {
        let Some(from) = admitting.next(offset + at) else {
            break;
        };
        let start = from.at - offset;
        if start > b.len() {
            break;
        }
        let anchored = if from.anchored {
            Anchored::Yes
        } else {
            Anchored::No
        };
        let input = Input::new(b).range(start..).anchored(anchored);
        let Some(found) = next_candidate(rule, regex, groups, &input, &mut caps) else {
            if from.anchored {
                misses += 1;
                if misses == MISSES_BEFORE_WIDENING {
                    admitting.widen();
                }
                at = start + 1;
                continue;
            }
            break;
        };
        match found.accepted {
            Some((secret_start, secret_end)) if secret_end > secret_start => {
                candidates.push(Span {
                    start: offset + secret_start,
                    end: offset + secret_end,
                    rule: index,
                });
                at = found.whole.1.max(secret_end).max(start + 1);
            }
            _ if found.secret_start > start && found.secret_start > found.whole.0 => {
                at = found.secret_start;
            }
            _ => at = found.whole.0.max(start) + 1,
        }
    }
}

/// A match of a built-in rule and what its check made of it.
struct Candidate {
    /// The whole match.
    whole: (usize, usize),
    /// Where its secret group starts (the match's start when it has none).
    secret_start: usize,
    /// The secret's span if the check accepted it.
    accepted: Option<(usize, usize)>,
}

/// The leftmost match of a built-in rule in `input` (at its start, when anchored), checked.
/// `caps` holds the capture slots once a search has needed them.
///
/// Most rules' secret is the match, or the match after a leading escape (see
/// [`Secret`]): those are found without capture groups, whose search (after the forward and
/// reverse DFA searches that find the match) costs more than finding it. A `key = value` assignment (`generic_secret`, the most frequent match by far, since
/// ordinary configuration and placeholders match it) is found without capture groups, which
/// cost three times the search: its groups are read off the match by
/// [`assignment_value`] when that can, by the regex otherwise.
fn next_candidate(
    rule: &BuiltinRule,
    regex: &Regex,
    groups: &[usize],
    input: &Input<'_>,
    caps: &mut Option<Captures>,
) -> Option<Candidate> {
    let b = input.haystack();
    if !matches!(rule.secret, Secret::Groups) {
        let whole = regex.search(input)?;
        if let Some((start, end)) = rule.secret.span(whole.start(), &b[whole.range()])
            && let Some(accepted) = rule.check.accept_secret(&b[start..end], start)
        {
            return Some(Candidate {
                whole: (whole.start(), whole.end()),
                secret_start: start,
                accepted,
            });
        }
    }
    if matches!(rule.check, Check::Assignment) {
        let whole = regex.search(input)?;
        if let Some((value, kind)) = assignment_value(b, whole.start(), whole.end()) {
            let accepted = if names_a_key_id(&b[whole.start()..value]) {
                None
            } else {
                assignment_secret(b, (value, whole.end()), kind)
            };
            return Some(Candidate {
                whole: (whole.start(), whole.end()),
                secret_start: value,
                accepted,
            });
        }
    }
    let caps = caps.get_or_insert_with(|| regex.create_captures());
    regex.search_captures(input, caps);
    let whole = caps.get_match()?;
    let secret = groups
        .iter()
        .find_map(|&g| caps.get_group(g))
        .unwrap_or(whole.span());
    Some(Candidate {
        whole: (whole.start(), whole.end()),
        secret_start: secret.start,
        accepted: rule
            .check
            .accept(&Groups { hay: b, caps }, (secret.start, secret.end)),
    })
}

/// Sorts candidates leftmost first, longest first, most specific first, and folds overlapping
/// ones into the span taken first (extending it when they reach further).
pub(crate) fn merge(mut candidates: Vec<Span>) -> Vec<Span> {
    candidates.sort_by(|a, b| {
        a.start
            .cmp(&b.start)
            .then(b.end.cmp(&a.end))
            .then(a.rule.cmp(&b.rule))
    });
    let mut out: Vec<Span> = Vec::with_capacity(candidates.len());
    for c in candidates {
        match out.last_mut() {
            Some(last) if c.start < last.end => last.end = last.end.max(c.end),
            _ => out.push(c),
        }
    }
    out
}
