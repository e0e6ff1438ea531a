//! The user's words survive compaction (check 7): on generated conversations of the kinds that
//! break summaries, after the built-in compactor every user message is cited by the state,
//! every standing rule is in the packet verbatim at the default budget, no superseded message
//! is shown as in force, a reference back brings its referent, and who owns what stays whole.

use proptest::prelude::*;
use remaind_events::EventId;
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;
use remaind_resume::{Budget, build_packet};
use remaind_testkit::conversation::Conversation;
use remaind_validate::State;

use crate::common::{compact_builtin, fresh};

fn append(ctx: &ContextDir, conv: &Conversation) {
    let ledger = Ledger::open(ctx.root()).expect("open ledger");
    ledger
        .append(conv.events.clone())
        .expect("append the conversation");
}

/// Append the conversation, compact with the built-in compactor and return the accepted
/// state and the packet at `budget`.
fn compact_and_resume(ctx: &ContextDir, conv: &Conversation, budget: Budget) -> (State, String) {
    append(ctx, conv);
    compact_builtin(ctx);
    let state: State =
        serde_json::from_slice(&std::fs::read(ctx.state_path()).expect("state.json"))
            .expect("a state");
    let packet = build_packet(ctx, budget).expect("resume").packet;
    (state, packet)
}

/// The packet's section of what the user asked that is in force.
fn in_force_section(packet: &str) -> &str {
    let start = packet
        .find("## What the user asked")
        .expect("the packet has the section");
    let rest = &packet[start + 3..];
    let end = rest.find("\n## ").map_or(rest.len(), |i| i + 1);
    &rest[..end]
}

fn cited_by_state(state: &State, id: EventId) -> bool {
    state.user_asked.iter().any(|a| a.events.contains(&id))
        || state.user_settled.iter().any(|s| s.event == id)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn prop_the_users_words_survive_compaction(seed in any::<u64>(), prompts in 12usize..70) {
        let conv = Conversation::generate(seed, prompts);
        let (_tmp, ctx) = fresh();
        let (state, packet) = compact_and_resume(&ctx, &conv, Budget::Configured);
        let expect = &conv.expect;
        for id in &expect.user_messages {
            prop_assert!(cited_by_state(&state, *id), "{id} is not cited by the state");
        }
        let section = in_force_section(&packet);
        for rule in &expect.rules {
            prop_assert!(section.contains(rule.as_str()), "rule {rule:?} not in the packet:\n{section}");
            prop_assert!(state.user_asked.iter().any(|a| a.rule && a.text == *rule));
        }
        for (id, text) in &expect.superseded {
            prop_assert!(!packet.contains(text.as_str()), "superseded {id} {text:?} shown:\n{packet}");
            prop_assert!(state.user_settled.iter().any(|s| s.event == *id));
        }
        for text in &expect.in_force {
            prop_assert!(section.contains(text.as_str()), "{text:?} not in force:\n{section}");
        }
        for text in &expect.referents {
            prop_assert!(section.contains(text.as_str()), "referent {text:?} missing:\n{section}");
        }
        let goal = state.goal.iter().flat_map(|g| g.events.iter());
        for g in goal {
            prop_assert!(!expect.superseded.iter().any(|(id, _)| id == g), "superseded goal {g}");
        }
    }
}

#[test]
fn a_small_budget_keeps_the_rules_and_says_how_many_messages_it_left_out() {
    let conv = Conversation::generate(7, 60);
    let (_tmp, ctx) = fresh();
    let (_, packet) = compact_and_resume(&ctx, &conv, Budget::Tokens(600));
    let section = in_force_section(&packet);
    for rule in &conv.expect.rules {
        assert!(section.contains(rule.as_str()), "{rule:?}:\n{section}");
    }
    assert!(
        section.contains("left out for the budget; `remaind events --kind user_message`"),
        "{section}"
    );
}

#[test]
fn the_packet_says_the_same_before_and_after_a_compaction() {
    let conv = Conversation::generate(11, 30);
    let (_tmp, ctx) = fresh();
    append(&ctx, &conv);
    let before = build_packet(&ctx, Budget::Unlimited)
        .expect("resume")
        .packet;
    compact_builtin(&ctx);
    let after = build_packet(&ctx, Budget::Unlimited)
        .expect("resume")
        .packet;
    let lines = |p: &str| -> Vec<String> {
        in_force_section(p)
            .lines()
            .filter(|l| l.starts_with("- "))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(lines(&before), lines(&after));
}
