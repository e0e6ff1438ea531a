//! What the user said, carried by the built-in compactor (check 7): every user word stays in
//! force in `user_asked` until a later one replaces it, read without a model.
//!
//! The reading is deliberately plain and conservative: a standing rule (`never`, `always`,
//! `must`, `from now on`, `hard line`, …, anywhere in the message) is flagged so no budget
//! trims it; an override or revert (`instead`, `switch to`, `scrap that`, `go back to`, …)
//! settles the earlier message it replaces (the one sharing most of its words, else the
//! newest plain request when the cue points at "that"); a reference back (`same as before`,
//! `like we said about X`) carries its referent's words beside it. Where the reading cannot
//! tell, both messages stay in force, in order, and the later one wins.

use remaind_events::{Event, EventId};
use remaind_validate::{Asked, Settled, Settlement, is_user_word};

/// A message up to this many characters is carried verbatim.
pub(crate) const VERBATIM_CHARS: usize = 400;
/// How many of the newest plain (non-rule) items stay word for word; older ones are condensed
/// into the first item, which cites them all. Rules are never condensed.
pub(crate) const KEEP_ASKED: usize = 100;
/// The condensed first item of `user_asked` starts with this.
pub(crate) const ASKED_ROLLUP: &str = "Earlier user messages, condensed:";
/// How far back (in in-force items) an override looks for what it replaces.
const OVERRIDE_LOOKBACK: usize = 12;

/// What a message is, as far as plain reading tells.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Reading {
    /// A standing rule.
    pub(crate) rule: bool,
    /// It replaces or reverts something said before.
    pub(crate) overrides: bool,
    /// Its override points at "that" (the newest request) when no words are shared.
    pub(crate) deictic: bool,
    /// It points back to something said before.
    pub(crate) refers_back: bool,
}

/// Read one message.
pub(crate) fn read(text: &str) -> Reading {
    let norm = normalize(text);
    let mut reading = Reading::default();
    for sentence in sentences(&norm) {
        let words: Vec<&str> = sentence.split_whitespace().collect();
        reading.rule |= is_rule(&words);
    }
    let padded = format!(" {} ", norm.replace([',', '.', '!', '?', ';', ':'], " "));
    let has = |cues: &[&str]| cues.iter().any(|c| padded.contains(&format!(" {c} ")));
    reading.deictic = has(DEICTIC_CUES)
        || starts_with_any(
            &norm,
            &[
                "actually",
                "no, use",
                "no, let's",
                "no, do",
                "no, go",
                "no, make",
                "no, switch",
                "no, we",
            ],
        );
    reading.overrides = reading.deictic || has(OVERRIDE_CUES);
    reading.refers_back = has(REFER_BACK_CUES);
    reading
}

const DEICTIC_CUES: &[&str] = &[
    "scrap that",
    "scratch that",
    "forget that",
    "forget it",
    "never mind",
    "nevermind",
    "undo",
    "undo the last change",
    "revert",
    "revert that",
    "roll back",
    "roll that back",
    "go back to",
    "change of plan",
    "on second thought",
    "on second thoughts",
];

const OVERRIDE_CUES: &[&str] = &[
    "instead",
    "switch to",
    "switch back to",
    "go with",
    "going with",
    "lock in",
    "rather than",
    "replace it with",
    "change it to",
    "scrap the",
    "drop the",
    "forget the",
    "forget about",
];

const REFER_BACK_CUES: &[&str] = &[
    "same as before",
    "same way as",
    "same as what",
    "same as we",
    "same as the",
    "same thing as",
    "same rule",
    "as before",
    "like before",
    "like we said",
    "as we said",
    "as i said",
    "what we said",
    "what i said",
    "as discussed",
    "like last time",
    "as agreed",
    "we agreed",
    "as mentioned",
    "as i mentioned",
    "like we discussed",
    "as we discussed",
];

/// Words that, right before a rule word, make it a statement rather than an instruction
/// ("it never works", "I don't know").
const NOT_A_RULE_AFTER: &[&str] = &[
    "i", "it", "that", "this", "which", "he", "she", "they", "there", "who", "i've", "it's",
    "that's", "i'm", "i'd", "what", "if",
];

/// Whether a sentence (lowercase words) states a standing rule.
fn is_rule(words: &[&str]) -> bool {
    let joined = format!(" {} ", words.join(" "));
    const PHRASES: &[&str] = &[
        " from now on ",
        " no longer ",
        " hard line ",
        " going forward ",
        " make sure ",
        " at all times ",
        " under no circumstances ",
        " not allowed ",
        " is forbidden ",
        " every time ",
        " the rule is ",
        " as a rule ",
    ];
    if PHRASES.iter().any(|p| joined.contains(p)) {
        return true;
    }
    words.iter().enumerate().any(|(i, w)| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
        let prev = i.checked_sub(1).map(|j| words[j]);
        let statement = prev.is_some_and(|p| NOT_A_RULE_AFTER.contains(&p));
        match w {
            "never" | "always" | "must" | "mustn't" | "don't" | "dont" | "avoid" => !statement,
            "not" => {
                prev == Some("do")
                    && !words
                        .get(i.wrapping_sub(2))
                        .is_some_and(|p| NOT_A_RULE_AFTER.contains(p))
            }
            "only" => {
                i == 0
                    || prev == Some("please")
                    || words.get(i + 1).is_some_and(|n| {
                        matches!(
                            *n,
                            "use" | "ever" | "touch" | "change" | "edit" | "run" | "allow"
                        )
                    })
            }
            _ => false,
        }
    })
}

/// Lowercase, curly apostrophes made straight, whitespace collapsed.
fn normalize(text: &str) -> String {
    let lower = text.to_lowercase().replace(['\u{2019}', '\u{2018}'], "'");
    lower.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn starts_with_any(norm: &str, prefixes: &[&str]) -> bool {
    prefixes.iter().any(|p| norm.starts_with(p))
}

/// Sentences: split after `.`, `!` or `?` followed by a space, and at line breaks.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        let end_mark = matches!(b, b'.' | b'!' | b'?')
            && bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace());
        if end_mark || *b == b'\n' {
            let s = text[start..=i].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = i + 1;
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// A sentence that binds a person to a task ("Ana owns the billing export").
fn binds_person(sentence: &str) -> bool {
    const VERBS: &[&str] = &[
        "owns",
        "handles",
        "leads",
        "takes",
        "will",
        "is",
        "does",
        "gets",
        "runs",
        "manages",
        "maintains",
        "reviews",
        "covers",
        "has",
    ];
    let words: Vec<&str> = sentence.split_whitespace().collect();
    words.windows(2).enumerate().any(|(i, w)| {
        let name = w[0].trim_matches(|c: char| !c.is_alphanumeric());
        let capitalized = name.chars().next().is_some_and(char::is_uppercase)
            && name.chars().skip(1).all(char::is_lowercase)
            && name.len() > 1;
        let verb = w[1]
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        capitalized
            && (i > 0 || name != "I")
            && VERBS.contains(&verb.as_str())
            && !matches!(
                name,
                "It" | "This"
                    | "That"
                    | "There"
                    | "What"
                    | "Which"
                    | "He"
                    | "She"
                    | "They"
                    | "We"
                    | "You"
            )
    })
}

/// The text an item carries for a message: verbatim up to [`VERBATIM_CHARS`]; a longer one
/// by its first sentences plus every sentence stating a rule or binding a person to a task,
/// then `(full text: eN)`.
pub(crate) fn carried_text(text: &str, id: EventId) -> String {
    let (flat, framed) = match request_part(text) {
        Some(request) => (request, true),
        None => (text.trim(), false),
    };
    if flat.chars().count() <= VERBATIM_CHARS {
        return if framed {
            format!("{flat} (full text: {id})")
        } else {
            flat.to_owned()
        };
    }
    const HEAD_CHARS: usize = 240;
    let mut out = String::new();
    for (i, s) in sentences(flat).iter().enumerate() {
        let lower = normalize(s);
        let words: Vec<&str> = lower.split_whitespace().collect();
        let head = out.chars().count() < HEAD_CHARS && i < 3;
        if head || is_rule(&words) || binds_person(s) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&clip(s, 600));
        } else if !out.ends_with('…') {
            out.push_str(" …");
        }
        if out.chars().count() > 2000 {
            break;
        }
    }
    format!("{} (full text: {id})", out.trim_end())
}

/// Markers after which a runtime's message holds what the user typed, the rest being the
/// editor context the runtime wrapped around it (Codex in an IDE: open tabs, active file).
const REQUEST_MARKERS: &[&str] = &["## My request for Codex:"];

/// What the user typed in a message a runtime wrapped in editor context, if it is one.
pub(crate) fn request_part(text: &str) -> Option<&str> {
    REQUEST_MARKERS.iter().find_map(|m| {
        let at = text.rfind(m)?;
        let request = text[at + m.len()..].trim();
        (!request.is_empty()).then_some(request)
    })
}

fn clip(s: &str, chars: usize) -> String {
    match s.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_owned(),
    }
}

/// The content words of a text, lightly stemmed, for telling what two messages share.
fn topic(text: &str) -> Vec<String> {
    const STOP: &[&str] = &[
        "the", "and", "for", "that", "this", "with", "you", "your", "are", "was", "but", "not",
        "can", "use", "let", "lets", "let's", "now", "then", "have", "has", "just", "also", "into",
        "from", "what", "when", "will", "would", "should", "could", "please", "make", "sure",
        "instead", "switch", "back", "about", "said", "same", "before", "like", "there", "them",
        "they", "its", "it's", "all", "any", "one", "our", "out", "get", "how", "way", "don't",
        "never", "always", "must", "only", "want", "need", "it", "is", "to", "of",
    ];
    let norm = normalize(text);
    let mut out: Vec<String> = norm
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| w.len() >= 3 && !STOP.contains(w))
        .map(stem)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn stem(word: &str) -> String {
    for suffix in ["ing", "ed", "es", "s"] {
        if let Some(base) = word.strip_suffix(suffix)
            && base.len() >= 3
        {
            return base.to_owned();
        }
    }
    word.to_owned()
}

fn shared(a: &[String], b: &[String]) -> usize {
    a.iter().filter(|w| b.binary_search(w).is_ok()).count()
}

/// The words after "about", "for", "on" or "with" in a reference back: what it points at.
fn referent_words(text: &str) -> Vec<String> {
    let norm = normalize(text);
    for marker in [" about ", " for ", " regarding ", " on ", " with "] {
        if let Some(at) = norm.rfind(marker) {
            return topic(&norm[at + marker.len()..]);
        }
    }
    Vec::new()
}

/// The fold of user words into `user_asked` and `user_settled`.
pub struct UserWords<'s> {
    asked: &'s mut Vec<Asked>,
    settled: &'s mut Vec<Settled>,
}

impl<'s> UserWords<'s> {
    /// Fold into these two sections of a state.
    pub fn new(asked: &'s mut Vec<Asked>, settled: &'s mut Vec<Settled>) -> Self {
        UserWords { asked, settled }
    }

    /// An event the ledger records as superseding `target`: a carried user word leaves the
    /// items in force. Returns whether it was carried.
    pub fn superseded(&mut self, target: EventId, by: EventId) -> bool {
        self.settle(target, by, Settlement::Superseded)
    }

    /// An event the ledger records as resolving `target`.
    pub fn resolved(&mut self, target: EventId, by: EventId) -> bool {
        self.settle(target, by, Settlement::Fulfilled)
    }

    fn settle(&mut self, target: EventId, by: EventId, how: Settlement) -> bool {
        let Some(at) = self
            .asked
            .iter()
            .position(|a| a.events.len() == 1 && a.events[0] == target)
        else {
            return false;
        };
        self.asked.remove(at);
        self.settled.push(Settled {
            event: target,
            by,
            how,
        });
        true
    }

    /// Take one event: a user word becomes an item in force, and what it overrides is
    /// settled. Returns the messages it superseded.
    pub fn observe(&mut self, ev: &Event) -> Vec<EventId> {
        if !is_user_word(ev) {
            return Vec::new();
        }
        let text = ev.text.as_deref().unwrap_or_default();
        if text.trim().is_empty() || self.asked.iter().any(|a| a.events.contains(&ev.id)) {
            return Vec::new();
        }
        let typed = request_part(text).unwrap_or(text);
        let reading = read(typed);
        let mine = topic(typed);
        let mut superseded = Vec::new();
        if reading.overrides
            && let Some(target) = self.replaced_by(&mine, reading)
        {
            superseded.push(target);
            self.settle(target, ev.id, Settlement::Superseded);
        }
        let mut item = Asked {
            text: carried_text(text, ev.id),
            events: vec![ev.id],
            rule: reading.rule,
            refs: Vec::new(),
        };
        if reading.refers_back
            && let Some((id, said)) = self.referent(typed)
        {
            item.refs.push(id);
            item.text = format!(
                "{} (refers back to {id}: \"{}\")",
                item.text,
                clip(&said, 300)
            );
        }
        self.asked.push(item);
        superseded
    }

    /// The in-force item an override replaces: among the newest few, the one sharing most of
    /// its words; else, further back, one sharing at least two (a chain of overrides with
    /// many prompts between its steps); with none shared, the newest plain request when the
    /// cue points at "that". A rule is replaced only by a rule sharing two words with it.
    fn replaced_by(&self, mine: &[String], reading: Reading) -> Option<EventId> {
        let in_force = self
            .asked
            .iter()
            .rev()
            .filter(|a| a.events.len() == 1 && !a.text.starts_with(ASKED_ROLLUP));
        let mut best: Option<(usize, EventId)> = None;
        let mut further: Option<(usize, EventId)> = None;
        let mut newest_plain = None;
        for (age, a) in in_force.enumerate() {
            if !a.rule && newest_plain.is_none() {
                newest_plain = Some(a.events[0]);
            }
            let n = shared(mine, &topic(&a.text));
            let recent = age < OVERRIDE_LOOKBACK;
            // One shared word is enough only for a short override ("switch to Redis for
            // the cache") among the newest few; a long message shares a word with almost
            // anything.
            let enough = if a.rule {
                reading.rule && n >= 2
            } else {
                n >= 2 || (recent && n == 1 && mine.len() <= 3)
            };
            let slot = if recent { &mut best } else { &mut further };
            if enough && slot.is_none_or(|(b, _)| n > b) {
                *slot = Some((n, a.events[0]));
            }
        }
        best.or(further)
            .map(|(_, id)| id)
            .or(newest_plain.filter(|_| reading.deictic))
    }

    /// What a reference back points at: the in-force item sharing most of the words after
    /// "about …", else the newest rule, else the newest item.
    fn referent(&self, text: &str) -> Option<(EventId, String)> {
        let wanted = referent_words(text);
        let items = self.asked.iter().rev().filter(|a| a.events.len() == 1);
        let mut best: Option<(usize, &Asked)> = None;
        for a in items.clone() {
            let n = shared(&wanted, &topic(&a.text));
            if n > 0 && best.is_none_or(|(b, _)| n > b) {
                best = Some((n, a));
            }
        }
        let chosen = best
            .map(|(_, a)| a)
            .or_else(|| items.clone().find(|a| a.rule))
            .or_else(|| items.clone().next())?;
        Some((chosen.events[0], chosen.text.clone()))
    }

    /// Keep the newest [`KEEP_ASKED`] plain items word for word and fold older plain items
    /// into one first item citing every message they carried; rules stay whole.
    pub(crate) fn condense(&mut self) {
        let plain = |a: &Asked| !a.rule && !a.text.starts_with(ASKED_ROLLUP);
        let count = self.asked.iter().filter(|a| plain(a)).count();
        if count <= KEEP_ASKED {
            return;
        }
        let mut fold = count - KEEP_ASKED;
        let mut events: Vec<EventId> = Vec::new();
        let mut kept = Vec::with_capacity(self.asked.len());
        for a in self.asked.drain(..) {
            if a.text.starts_with(ASKED_ROLLUP) {
                events.extend(a.events);
            } else if fold > 0 && plain(&a) {
                fold -= 1;
                events.extend(a.events);
            } else {
                kept.push(a);
            }
        }
        events.sort_unstable();
        events.dedup();
        let (first, last) = (events[0], events[events.len() - 1]);
        kept.insert(
            0,
            Asked {
                text: format!(
                    "{ASKED_ROLLUP} {} earlier messages ({first} to {last}); `remaind events \
                     --kind user_message` shows each",
                    events.len()
                ),
                events,
                rule: false,
                refs: Vec::new(),
            },
        );
        *self.asked = kept;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_read_in_any_position() {
        for rule in [
            "never put API keys in the source — hard line",
            "Also, from now on run clippy before every commit",
            "ok. Don't touch the migrations folder",
            "The tests must stay green",
            "only use the public API",
            "We no longer support Python 2",
        ] {
            assert!(read(rule).rule, "{rule}");
        }
        for plain in [
            "I don't know why it fails",
            "it never worked on CI",
            "Add a retry loop to the uploader",
        ] {
            assert!(!read(plain).rule, "{plain}");
        }
    }

    #[test]
    fn overrides_and_references_are_read() {
        assert!(read("scrap that, use SQLite").deictic);
        assert!(read("Switch to Redis for the cache").overrides);
        assert!(read("go back to the version that reads an existing file").overrides);
        assert!(read("treat it the same way as what we said about the dashboard").refers_back);
        assert!(!read("Add tests for the parser").overrides);
        assert!(!read("No teams or leads are loading into the pane now").overrides);
    }

    #[test]
    fn an_override_finds_its_step_past_many_prompts_instead_of_settling_the_newest() {
        let mut asked = Vec::new();
        let mut settled = Vec::new();
        let mut words = UserWords::new(&mut asked, &mut settled);
        words.observe(&user_message(1, "Use Heroku for the deploy target."));
        let filler = OVERRIDE_LOOKBACK as u64 + 3;
        for id in 2..2 + filler {
            words.observe(&user_message(id, "Tidy up the imports in the widget code."));
        }
        let lock_in = user_message(
            2 + filler,
            "Scrap that, lock in Render for the deploy target.",
        );
        assert_eq!(words.observe(&lock_in), vec![EventId(1)]);
    }

    fn user_message(seq: u64, text: &str) -> Event {
        Event {
            v: 1,
            seq,
            id: EventId(seq),
            ts: "2026-01-01T00:00:00Z".into(),
            prev: String::new(),
            kind: remaind_events::Kind::UserMessage,
            importance: 1,
            actor: Some("user".into()),
            text: Some(text.into()),
            data: None,
            refs: Vec::new(),
            supersedes: Vec::new(),
            resolves: Vec::new(),
            tool: None,
            artifact: Vec::new(),
            redactions: Vec::new(),
        }
    }

    #[test]
    fn a_long_message_keeps_its_head_its_rules_and_who_owns_what() {
        let filler = "This part explains the background in some detail. ".repeat(12);
        let text = format!(
            "Build the export page. {filler}Ana owns the billing export. {filler}Never log card numbers."
        );
        let carried = carried_text(&text, EventId(9));
        assert!(carried.starts_with("Build the export page."));
        assert!(carried.contains("Ana owns the billing export."));
        assert!(carried.contains("Never log card numbers."));
        assert!(carried.ends_with("(full text: e9)"));
    }

    #[test]
    fn editor_context_a_runtime_wrapped_around_the_request_is_left_to_the_full_text() {
        let text = "# Context from my IDE setup:\n\n## Open tabs:\n- a.ts: a.ts\n\n## My request for Codex:\nnever push to main";
        assert_eq!(
            carried_text(text, EventId(4)),
            "never push to main (full text: e4)"
        );
        assert!(read(request_part(text).unwrap_or(text)).rule);
    }
}
