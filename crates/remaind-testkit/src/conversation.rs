//! Generated conversations of the kinds that break summaries, with what a resumed agent must
//! still know after them: a rule stated once among many filler turns, chains of overrides
//! (A, then B, then C) and reverts, people with their own tasks, references back to earlier
//! requests, sessions of 50 prompts and more.
//!
//! Each prompt is a `user_message` followed by the agent's reply ending the turn (a Stop), as
//! the hooks and `import` record a session. [`Conversation::expect`] says what must hold.

use remaind_events::{EventId, Kind, NewEvent};
use serde_json::json;

/// What a conversation established, by the ids its events get in a fresh ledger (a prompt at
/// position `i` of [`Conversation::events`] is `e{i+1}`).
#[derive(Debug, Clone, Default)]
pub struct Expect {
    /// Every user message.
    pub user_messages: Vec<EventId>,
    /// Standing rules, verbatim: each must stay in force and be quoted whole.
    pub rules: Vec<String>,
    /// Messages a later one replaced: never shown as in force.
    pub superseded: Vec<(EventId, String)>,
    /// The last word of each override chain (and lines binding people to tasks): in force.
    pub in_force: Vec<String>,
    /// Texts a reference back points at: they must reach the packet.
    pub referents: Vec<String>,
}

/// A generated conversation.
#[derive(Debug, Clone)]
pub struct Conversation {
    /// The events to append, in order.
    pub events: Vec<NewEvent>,
    /// What must hold after them.
    pub expect: Expect,
}

/// A tiny deterministic generator (xorshift64*), so a seed names a conversation.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const FILLER: &[&str] = &[
    "Can you look at the parser module next?",
    "Show me what the logger prints on startup.",
    "Why is the tokenizer test slow?",
    "ok continue",
    "Run the formatter over the tree.",
    "What does the renderer do with empty input?",
    "Add a doc comment to the config loader.",
    "Rename the helper in the scheduler to something clearer.",
    "Check the warnings in the build output.",
    "Tidy up the imports in the widget code.",
];

const RULES: &[&str] = &[
    "Never put API keys in the source — hard line.",
    "From now on run clippy before every commit.",
    "Always keep the public HTTP API backwards compatible.",
    "Don't touch the vendored protobuf files.",
    "The integration tests must stay green on every push.",
    "Only use the standard library for the hashing code.",
];

/// Topics of override chains: (topic words, three choices).
const CHAINS: &[(&str, [&str; 3])] = &[
    ("message queue", ["RabbitMQ", "Kafka", "NATS"]),
    ("session store", ["Postgres", "Redis", "SQLite"]),
    ("chart library", ["Recharts", "Chartjs", "Plotly"]),
    ("deploy target", ["Heroku", "Fly", "Render"]),
];

const PEOPLE: &[(&str, &str, &str, &str)] = &[
    ("Ana", "the billing export", "Ben", "the audit log"),
    ("Chloe", "the onboarding emails", "Dev", "the rate limiter"),
    ("Eve", "the search ranking", "Femi", "the mobile build"),
];

const REFERENTS: &[(&str, &str)] = &[
    (
        "dashboard",
        "On the dashboard, show amounts in euros with two decimals.",
    ),
    (
        "invoices page",
        "For the invoices page, sort newest first and page by fifty.",
    ),
];

impl Conversation {
    /// A conversation of about `prompts` prompts (at least 12) from `seed`.
    pub fn generate(seed: u64, prompts: usize) -> Conversation {
        let mut rng = Rng(seed | 1);
        let mut plan: Vec<Said> = Vec::new();
        let rule = RULES[rng.below(RULES.len())];
        let (topic, choices) = CHAINS[rng.below(CHAINS.len())];
        let (a, task_a, b, task_b) = PEOPLE[rng.below(PEOPLE.len())];
        let (place, referent) = REFERENTS[rng.below(REFERENTS.len())];
        plan.push(Said::Plain(
            "Build the customer portal; start with the data model.".into(),
        ));
        plan.push(Said::Referent(referent.into()));
        plan.push(Said::Rule(rule.into()));
        plan.push(Said::Chain(format!("Use {} for the {topic}.", choices[0])));
        plan.push(Said::Chain(format!(
            "Actually, switch to {} for the {topic} instead.",
            choices[1]
        )));
        let revert = rng.below(2) == 0;
        plan.push(Said::Chain(format!(
            "Scrap that, lock in {} for the {topic}.",
            choices[2]
        )));
        if revert {
            plan.push(Said::Chain(format!(
                "Go back to {} for the {topic}.",
                choices[0]
            )));
        }
        plan.push(Said::People(format!(
            "{a} owns {task_a}, {b} owns {task_b}."
        )));
        plan.push(Said::Refer(format!(
            "Treat the settings page the same way as what we said about the {place}."
        )));
        // Filler around the load-bearing messages, which keep their order.
        let mut said: Vec<Said> = Vec::new();
        let filler = prompts.max(12).saturating_sub(plan.len());
        let mut slots: Vec<usize> = (0..filler).map(|_| rng.below(plan.len() + 1)).collect();
        slots.sort_unstable();
        let mut slot = slots.into_iter().peekable();
        for (i, s) in plan.into_iter().enumerate() {
            while slot.peek().is_some_and(|k| *k <= i) {
                slot.next();
                said.push(Said::Plain(rng.pick(FILLER).into()));
            }
            said.push(s);
        }
        for _ in slot {
            said.push(Said::Plain(rng.pick(FILLER).into()));
        }
        Conversation::from_said(&said)
    }

    fn from_said(said: &[Said]) -> Conversation {
        let mut events = Vec::new();
        let mut expect = Expect::default();
        let mut chain: Vec<(EventId, String)> = Vec::new();
        for (turn, s) in said.iter().enumerate() {
            let id = EventId(events.len() as u64 + 1);
            let text = s.text().to_owned();
            events.push(user_message(&text));
            expect.user_messages.push(id);
            match s {
                Said::Rule(t) => expect.rules.push(t.clone()),
                Said::Chain(t) => chain.push((id, t.clone())),
                Said::People(t) => expect.in_force.push(t.clone()),
                Said::Referent(t) => expect.referents.push(t.clone()),
                Said::Plain(_) | Said::Refer(_) => {}
            }
            events.push(reply(id, turn));
        }
        if let Some((_, last)) = chain.pop() {
            expect.in_force.push(last);
        }
        expect.superseded = chain;
        Conversation { events, expect }
    }
}

/// One prompt of a generated conversation, by what it does.
enum Said {
    Plain(String),
    Rule(String),
    Chain(String),
    People(String),
    Referent(String),
    Refer(String),
}

impl Said {
    fn text(&self) -> &str {
        match self {
            Said::Plain(t)
            | Said::Rule(t)
            | Said::Chain(t)
            | Said::People(t)
            | Said::Referent(t)
            | Said::Refer(t) => t,
        }
    }
}

fn user_message(text: &str) -> NewEvent {
    NewEvent {
        kind: Some(Kind::UserMessage),
        text: Some(text.to_owned()),
        actor: Some("user".into()),
        data: Some(
            json!({"via": "prompt"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        ),
        ..NewEvent::default()
    }
}

fn reply(instruction: EventId, turn: usize) -> NewEvent {
    NewEvent {
        kind: Some(Kind::AssistantMessage),
        text: Some(format!("Done with step {turn}; the build passes.")),
        actor: Some("claude-code".into()),
        refs: vec![instruction],
        data: Some(
            json!({"turn_end": "stop"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        ),
        ..NewEvent::default()
    }
}
