//! The repair loop: propose, validate, feed the failures back, and fall back to the
//! built-in compactor when the model cannot get it right.

use std::time::{Duration, Instant};

use remaind_atomic::HistoryStore;
use remaind_compact::{
    Candidate, CompactorInput, Options, Outcome, Proposal, Rejection, Source, candidate_from_value,
};
use remaind_events::EventId;
use remaind_ledger::Ledger;
use remaind_validate::Failure;
use serde_json::{Map, Value, json};

use crate::backend::{self, Answer, CallError, Tokens, excerpt};
use crate::config::{Config, Preset};
use crate::error::{Error, Result};
use crate::prompt;

/// Time kept back from a time limit for the built-in fallback and the writes.
const RESERVE: Duration = Duration::from_secs(3);
/// A round is not started with less time than this left.
const MIN_ROUND: Duration = Duration::from_secs(5);

/// How to run an LLM compaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmOptions {
    /// Which model to ask.
    pub preset: Preset,
    /// Validate and report, but write nothing and append nothing.
    pub dry_run: bool,
    /// Wall-clock budget for all rounds (e.g. a hook's timeout minus a margin). When too
    /// little is left for another round, the built-in candidate is committed instead.
    pub time_limit: Option<Duration>,
}

impl LlmOptions {
    /// Ask `preset`, write the result, no time limit beyond each call's timeout.
    pub fn new(preset: Preset) -> Self {
        LlmOptions {
            preset,
            dry_run: false,
            time_limit: None,
        }
    }
}

/// One model call and its verdict.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Round {
    /// 1 for the first proposal, 2 for the first repair, …
    pub round: u32,
    /// Wall-clock seconds the call and its validation took.
    pub seconds: f64,
    /// Tokens the call spent.
    pub tokens: Tokens,
    /// True when the validator accepted this round's candidate.
    pub accepted: bool,
    /// What the validator rejected (empty when accepted).
    pub failures: Vec<Failure>,
    /// The `validation` (rejected) or `compaction` (accepted) event; `None` on a dry run.
    pub event_id: Option<EventId>,
}

/// What an LLM compaction did.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmOutcome {
    /// The preset asked.
    pub preset: Preset,
    /// The label written as the state's `compactor`, e.g. `llm:claude:haiku`.
    pub label: String,
    /// Every model call, in order.
    pub rounds: Vec<Round>,
    /// True when every round was rejected (or time ran out) and the built-in compactor's
    /// candidate was committed instead.
    pub fell_back: bool,
    /// The commit that ended the compaction (the accepted round, or the built-in one).
    pub outcome: Outcome,
    /// Wall-clock seconds in all.
    pub seconds: f64,
    /// Tokens spent over all rounds.
    pub tokens: Tokens,
}

/// Compact with `options.preset`: ask the model, validate, send the failures back for up to
/// `config.max_rounds` calls in all, and commit the first accepted candidate, or else the
/// built-in compactor's, so a compaction never ends with less than the deterministic state.
///
/// Every rejected round appends a `validation` event (data: the failures plus `llm`: preset,
/// model, round, seconds, tokens); the accepted one appends the `compaction` event. The
/// prompt and the model's answer are redacted with the ledger's rules before they are sent
/// or used. A missing CLI or key, an unreachable endpoint, a timeout, an HTTP error or an
/// answer that is not JSON is an [`Error`]; nothing derived is written then, and no event is
/// appended for the failed call.
pub fn compact_llm(
    ledger: &Ledger,
    store: &HistoryStore,
    config: &Config,
    options: &LlmOptions,
) -> Result<LlmOutcome> {
    let started = Instant::now();
    let preset = options.preset;
    backend::preflight(config, preset).map_err(|e| call_error(preset, 1, e))?;
    let model = config.model(preset).map(str::to_owned);
    // The label names the model as configured, through the project's rules.
    let label = match &model {
        Some(m) => format!("llm:{preset}:{m}"),
        None => format!("llm:{preset}"),
    };
    let label = ledger.redactor().redact_str(&label).0.into_owned();
    // Every round compacts the same prefix: the events appended meanwhile (this loop's own
    // `validation` events included) wait for the next compaction.
    let (head, _) = ledger.head()?;
    let prior_through = remaind_compact::read_prior(store)?.map_or(0, |p| p.through_seq);
    let mut rounds: Vec<Round> = Vec::new();
    let mut tokens = Tokens::default();
    // The last rejected candidate as the model wrote it (redacted), with its failures.
    let mut rejected: Option<(Value, Vec<Failure>)> = None;
    for round in 1..=config.max_rounds {
        if head == prior_through {
            break; // nothing new: the model has nothing to read
        }
        let Some(timeout) = round_timeout(config, options, started) else {
            break;
        };
        let round_started = Instant::now();
        let mut asked: Option<std::result::Result<(Answer, Value), CallError>> = None;
        let call = Call {
            config,
            preset,
            timeout,
        };
        let judged = remaind_compact::compact_with(
            ledger,
            store,
            Proposal::new(label.clone()),
            |input: &CompactorInput| ask_model(ledger, &call, rejected.as_ref(), input, &mut asked),
            Options {
                dry_run: true,
                through_seq: Some(head),
            },
        )?;
        let (answer, value) = match asked {
            Some(Ok(pair)) => pair,
            Some(Err(e)) => return Err(call_error(preset, round, e)),
            None => return Err(unprepared(preset, round)),
        };
        tokens += answer.tokens;
        // Record the verdict through the same commit path: this run writes (accepted) or
        // appends the `validation` event (rejected), with the round's figures beside it.
        let seconds = round_started.elapsed().as_secs_f64();
        let data = round_data(
            preset,
            model.as_deref(),
            round,
            config.max_rounds,
            seconds,
            answer.tokens,
        );
        let outcome = if options.dry_run {
            judged
        } else {
            let proposal = Proposal {
                label: label.clone(),
                data,
            };
            record_verdict(ledger, store, proposal, judged, head)?
        };
        let accepted = outcome.verdict.accepted;
        rounds.push(Round {
            round,
            seconds,
            tokens: answer.tokens,
            accepted,
            failures: outcome.verdict.failures.clone(),
            event_id: outcome.event_id,
        });
        if accepted {
            return Ok(LlmOutcome {
                preset,
                label,
                rounds,
                fell_back: false,
                outcome,
                seconds: started.elapsed().as_secs_f64(),
                tokens,
            });
        }
        rejected = Some((value, outcome.verdict.failures));
    }
    // No round was accepted (or there was nothing new): the built-in compactor's candidate.
    let outcome = remaind_compact::compact(
        ledger,
        store,
        Source::Builtin,
        Options {
            dry_run: options.dry_run,
            through_seq: Some(head),
        },
    )?;
    Ok(LlmOutcome {
        preset,
        label,
        fell_back: head != prior_through,
        rounds,
        outcome,
        seconds: started.elapsed().as_secs_f64(),
        tokens,
    })
}

/// A round whose compactor was never called: the input could not be prepared.
fn unprepared(preset: Preset, round: u32) -> Error {
    Error::Model {
        preset: preset.as_str(),
        round,
        reason: "the compaction input could not be prepared".to_owned(),
    }
}

/// The time a round may take: the preset's timeout, within what is left of the caller's
/// limit; `None` when too little is left for another round.
fn round_timeout(config: &Config, options: &LlmOptions, started: Instant) -> Option<Duration> {
    let timeout = config.timeout(options.preset);
    let Some(limit) = options.time_limit else {
        return Some(timeout);
    };
    let left = limit
        .saturating_sub(started.elapsed())
        .saturating_sub(RESERVE);
    (left >= MIN_ROUND).then(|| timeout.min(left))
}

/// How one round calls the model.
struct Call<'c> {
    config: &'c Config,
    preset: Preset,
    timeout: Duration,
}

/// One round's model call, as the compactor of a dry run: the prompt (a repair prompt with the
/// failures after a rejection), redacted before it is sent, and the answer parsed and
/// redacted. `asked` keeps what the model said, or why the call failed.
fn ask_model(
    ledger: &Ledger,
    call: &Call<'_>,
    rejected: Option<&(Value, Vec<Failure>)>,
    input: &CompactorInput,
    asked: &mut Option<std::result::Result<(Answer, Value), CallError>>,
) -> std::result::Result<Candidate, Rejection> {
    let Call {
        config,
        preset,
        timeout,
    } = *call;
    let text = match rejected {
        None => prompt::build(input),
        Some((value, failures)) => prompt::build_repair(input, value, failures),
    };
    let text = ledger.redactor().redact_str(&text).0.into_owned();
    let answer = match backend::ask(config, preset, &text, timeout) {
        Ok(answer) => answer,
        Err(e) => {
            // A failing CLI or endpoint may quote the model's or server's output:
            // it reaches stderr only through the project's rules.
            let redact = |t: String| ledger.redactor().redact_str(&t).0.into_owned();
            *asked = Some(Err(match e {
                CallError::Failed(reason) => CallError::Failed(redact(reason)),
                CallError::Setting { setting, reason } => CallError::Setting {
                    setting,
                    reason: redact(reason),
                },
            }));
            return Err(Rejection::new("the model gave no answer"));
        }
    };
    let mut value = match parse_answer(&answer.text) {
        Ok(value) => value,
        Err(reason) => {
            let reason = ledger.redactor().redact_str(&reason).0.into_owned();
            *asked = Some(Err(CallError::Failed(reason)));
            return Err(Rejection::new("the model's answer is not JSON"));
        }
    };
    ledger.redactor().redact_json(&mut value);
    let candidate = candidate_from_value(value.clone());
    *asked = Some(Ok((answer, value)));
    candidate
}

/// Records a round's verdict through the same commit path as any compaction: the judged
/// candidate is written (accepted) or its `validation` event appended (rejected), with the
/// round's figures in `proposal`.
fn record_verdict(
    ledger: &Ledger,
    store: &HistoryStore,
    proposal: Proposal,
    judged: remaind_compact::Outcome,
    head: u64,
) -> Result<remaind_compact::Outcome> {
    let candidate = judged.candidate.clone();
    Ok(remaind_compact::compact_with(
        ledger,
        store,
        proposal,
        |_: &CompactorInput| replay(candidate, &judged),
        Options {
            dry_run: false,
            through_seq: Some(head),
        },
    )?)
}

/// The candidate judged in the dry run, handed back for the committing run (a candidate
/// that could not be read is rejected again with the same reason).
fn replay(
    candidate: Option<Candidate>,
    judged: &Outcome,
) -> std::result::Result<Candidate, Rejection> {
    candidate.ok_or_else(|| {
        let reason = judged
            .verdict
            .failures
            .first()
            .map_or_else(String::new, |f| f.reason.clone());
        Rejection::new(reason)
    })
}

fn round_data(
    preset: Preset,
    model: Option<&str>,
    round: u32,
    max_rounds: u32,
    seconds: f64,
    tokens: Tokens,
) -> Map<String, Value> {
    let mut data = Map::new();
    data.insert(
        "llm".to_owned(),
        json!({
            "preset": preset.as_str(),
            "model": model,
            "round": round,
            "max_rounds": max_rounds,
            "seconds": (seconds * 1000.0).round() / 1000.0,
            "input_tokens": tokens.input,
            "output_tokens": tokens.output,
        }),
    );
    data
}

fn call_error(preset: Preset, round: u32, e: CallError) -> Error {
    match e {
        CallError::Setting { setting, reason } => Error::Setting { setting, reason },
        CallError::Failed(reason) => Error::Model {
            preset: preset.as_str(),
            round,
            reason,
        },
    }
}

/// The JSON object in a model's answer: the whole answer, or the inside of a ```json fence,
/// or from the first `{` to the last `}` (models like to add a sentence around it).
fn parse_answer(text: &str) -> std::result::Result<Value, String> {
    let trimmed = text.trim();
    let unfenced = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|rest| rest.trim_end().strip_suffix("```"))
        .unwrap_or(trimmed)
        .trim();
    let first = serde_json::from_str::<Value>(unfenced);
    let value = match first {
        Ok(v) => v,
        Err(e) => match (unfenced.find('{'), unfenced.rfind('}')) {
            (Some(a), Some(b)) if a < b => {
                serde_json::from_str::<Value>(&unfenced[a..=b]).map_err(|_| not_json(&e, text))?
            }
            _ => return Err(not_json(&e, text)),
        },
    };
    if !value.is_object() {
        return Err(format!(
            "the answer is JSON but not an object {{\"state\": …, \"handover\": \"…\"}}: {}",
            excerpt(text)
        ));
    }
    Ok(value)
}

fn not_json(e: &serde_json::Error, text: &str) -> String {
    format!(
        "the answer is not JSON ({e}); expected {{\"state\": …, \"handover\": \"…\"}}; it \
         begins: {}",
        excerpt(text)
    )
}
