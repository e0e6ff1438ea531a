//! The prompt: the compactor protocol's rules, the compaction input, and on a repair round
//! the rejected candidate with the validator's failures.

use remaind_compact::CompactorInput;
use remaind_validate::Failure;
use serde_json::Value;

/// The rules of docs/compactor-protocol.md, in the words a model can act on.
pub const RULES: &str = r###"You maintain the working memory of a coding agent. Below is the prior state (or null) and the
events since it, as JSON. Produce the next state and a handover, as ONE JSON object
{"state": {...}, "handover": "..."} and nothing else: no prose, no code fence.

A mechanical validator checks your answer against the event log and rejects it if any rule
below is broken. Cite events by id ("e12"). Only cite ids that appear in the input or that
prior_state already cites.

Rules for "state" (every item is {"text": one short sentence, "events": ["eN", ...]}):
- "v" is 1. Copy "through_seq" and "log_digest" from the input unchanged. "compactor" is any
  name. "generated_at" is the current UTC time in RFC 3339, e.g. "2026-01-01T00:00:00Z".
- Sections: goal, completed_work, decisions, constraints, blockers, remember, files_changed,
  open_loops (lists of items), latest_user_instruction, user_asked, next_step, superseded,
  resolved, user_settled.
- The user's words are load-bearing. EVERY user_message (and every decision whose actor is
  "user", such as a question's answer) must be accounted for, in order (a later one wins):
  either carried in user_asked as {"text": what the user said (verbatim when short; a long
  one by its first sentences, every rule and every "X owns Y" line kept whole, then
  "(full text: eN)"), "events": [its id], "rule": true for a standing rule (never, always,
  don't, must, only, from now on, hard line, ...)}, or listed in user_settled as {"event": its
  id, "by": a LATER event, "how": "superseded"} when a later user message replaced it
  ("switch to", "instead", "scrap that", "go back to") or {"event", "by": a later turn end or
  result, "how": "fulfilled"} when that did what it asked. Keep every prior_state user_asked
  item unless you settle it that way. A message that points back ("same as what we said about
  X") adds "refs": [the earlier id] and says what it points to.
- Start from prior_state. Drop only items whose events are superseded (a later event lists
  them in "supersedes") or, outside completed_work and files_changed, resolved ("resolves").
- result -> completed_work; file_change -> files_changed (resolved ones stay there too);
  decision and correction -> decisions; constraint -> constraints; blocker -> blockers until
  resolved; remember and every other importance-3 event -> remember; any other importance-2
  event -> open_loops. Never drop an item prior_state has in completed_work or files_changed.
- Facts that only appear in prose (an assistant_message, a user_message, a tool_result: "I'll
  keep the CSV format", "the migration is done, next I'll wire the CLI") are worth keeping:
  add them as items in the fitting section, citing the event(s) they come from. Never cite a
  bookkeeping event (compaction, validation, recovery, monitor), a superseded event or a
  resolved one (except in completed_work and files_changed).
- latest_user_instruction = {"event": id, "text": text} of the LAST user_message, the text
  copied byte for byte. Never paraphrase or shorten it.
- next_step = {"text", "events"} of the latest next_step event nothing resolved or
  superseded and no turn end follows; if there is none, {"text": "Continue with the latest
  user instruction", "events": [id of the last user_message]}. Other active next steps ->
  open_loops. A turn ends at an event whose data.turn_end is "stop" or "interrupted": when
  one follows the last user_message, the user's turn ended, next_step is null, and the steps
  from before it go to open_loops as "Pending before the turn ended (may already be done):
  ..."; put a "stop" end's text in completed_work as "Turn outcome: ...", citing it.
- superseded = [{"event": old, "by": new}] for every event a later event supersedes;
  resolved = [{"event": old, "by": new}] likewise for "resolves". Keep prior_state's links.
- goal = the first user message as an item (or prior_state's goal).

Rules for "handover" (Markdown a person reads in a minute, short lines):
"# Handover", then "## " sections in this order: Latest user instruction, What the user
asked (one line per user_asked item, rules first, with its citation), Next step, Must
remember, Decisions, Completed work, Constraints, Blockers, Open loops, Files changed, Goal,
Superseded. Under "Latest user instruction": a line "[eN]", then the instruction verbatim (in
a ``` fence if a line of it starts with # or ```). Elsewhere one "- " line per state item,
ending in its citations like "[e4] [e7]"; "- (none)" for an empty section. Every
importance-3 event that is current must be cited outside Superseded. Cite superseded or
resolved events only under "Superseded", as "- old text [e2] (superseded by [e4])"."###;

/// The prompt for round 1: the rules, then the compaction input.
pub fn build(input: &CompactorInput) -> String {
    let mut prompt = String::with_capacity(RULES.len() + 4096);
    prompt.push_str(RULES);
    prompt.push_str("\n\nInput:\n");
    prompt.push_str(&input_json(input));
    prompt.push('\n');
    prompt
}

/// The prompt for a repair round: the round-1 prompt, the rejected candidate, and every
/// failure with its check, the events it names and the reason.
pub fn build_repair(input: &CompactorInput, rejected: &Value, failures: &[Failure]) -> String {
    let mut prompt = build(input);
    prompt
        .push_str("\nYour previous answer was REJECTED by the validator. Your previous answer:\n");
    prompt.push_str(&serde_json::to_string(rejected).unwrap_or_default());
    prompt.push_str("\n\nThe validator's failures (check [events]: reason):\n");
    for f in failures {
        let ids: Vec<String> = f.events.iter().map(ToString::to_string).collect();
        if ids.is_empty() {
            prompt.push_str(&format!("- {}: {}\n", f.check.as_str(), f.reason));
        } else {
            prompt.push_str(&format!(
                "- {} [{}]: {}\n",
                f.check.as_str(),
                ids.join(", "),
                f.reason
            ));
        }
    }
    prompt.push_str(
        "\nFix every failure and keep everything else that was right. Answer with the complete \
         corrected JSON object {\"state\": {...}, \"handover\": \"...\"} and nothing else.\n",
    );
    prompt
}

/// The input as compact JSON, one event per line so a model (and a reviewer) can scan it.
/// Events are as stored minus `v` and `prev`, with long tool and data strings cut.
fn input_json(input: &CompactorInput) -> String {
    let mut out = String::from("{\n");
    out.push_str(&format!("\"protocol\": {},\n", input.protocol));
    out.push_str(&format!("\"prior_state\": {},\n", json(&input.prior_state)));
    out.push_str("\"events\": [\n");
    for (i, event) in input.events.iter().enumerate() {
        // The chain fields are for the ledger, not the model: leaving them out saves ~40
        // tokens an event.
        let mut value = serde_json::to_value(event).unwrap_or(Value::Null);
        if let Some(fields) = value.as_object_mut() {
            fields.remove("v");
            fields.remove("prev");
            for key in ["tool", "data"] {
                if let Some(v) = fields.get_mut(key) {
                    shorten(v, event.seq);
                }
            }
        }
        out.push_str(&json(&value));
        out.push_str(if i + 1 < input.events.len() {
            ",\n"
        } else {
            "\n"
        });
    }
    out.push_str("],\n");
    out.push_str(&format!("\"through_seq\": {},\n", input.through_seq));
    out.push_str(&format!("\"log_digest\": {}\n", json(&input.log_digest)));
    out.push('}');
    out
}

/// Longest string of a tool call or an event's data shown to the model, in characters. The
/// gist is what a summary needs; texts (the latest instruction above all) are never cut.
pub const MAX_FIELD_CHARS: usize = 1500;

/// Cut every string in `value` longer than [`MAX_FIELD_CHARS`], saying where the rest is.
fn shorten(value: &mut Value, seq: u64) {
    match value {
        Value::String(s) if s.chars().count() > MAX_FIELD_CHARS => {
            let total = s.len();
            let cut: String = s.chars().take(MAX_FIELD_CHARS).collect();
            *s = format!(
                "{cut}… [cut: {total} bytes in all; `remaind events --from {seq} --limit 1 --json`]"
            );
        }
        Value::Array(items) => items.iter_mut().for_each(|v| shorten(v, seq)),
        Value::Object(map) => map.values_mut().for_each(|v| shorten(v, seq)),
        _ => {}
    }
}

/// Plain data (states, events, strings) as JSON; serializing them cannot fail.
fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned())
}
