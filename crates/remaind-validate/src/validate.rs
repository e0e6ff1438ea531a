//! `validate`: the structural checks, then docs/contract.md's six checks, incrementally from the
//! prior accepted state.
//!
//! Soundness of the incremental walk: the prior state was accepted, so everything the checks
//! required up to its `through_seq` is cited by it, and its `superseded`/`resolved` lists are
//! complete up to there. The required sets at the candidate's `through_seq` are therefore the
//! prior's citations that are still required plus the qualifying events in the tail
//! `(prior.through_seq, through_seq]`; nothing before the tail is scanned, and a prior
//! citation is read by id only when the candidate does not keep it in place (prior.rs).

use remaind_events::EventId;
use serde::Deserialize;
use serde_json::Value;

use crate::checks::check_all;
use crate::handover::Handover;
use crate::prior::Prior;
use crate::schema::{check_state_schema, surely_valid};
use crate::state::State;
use crate::verdict::{Check, Failure, Verdict};
use remaind_events::{Error, LedgerView};

/// Validate a candidate `{state, handover}` against the ledger and the prior accepted state.
///
/// Runs the structural checks first: [`Check::Schema`] (the state matches
/// `state.schema.json`, each failure naming the JSON pointer; the handover is well-formed) and
/// [`Check::Binding`] (`through_seq` within the ledger and not behind the prior; `log_digest`
/// is the chain hash at `through_seq`). A schema failure, or a `through_seq` out of range,
/// stops there, since the content checks would be meaningless; otherwise all six checks of
/// docs/contract.md run and every failure is listed, each with the offending event ids.
///
/// `prior` must be the compaction the ledger's owner last accepted (or `None` for the first
/// one): the walk is incremental and trusts it. Cost: the events after `prior.through_seq`,
/// plus a read of each event the prior cites that the candidate does not also cite, in the
/// same sections and in a current handover section; a [`Prior::with_handover`] spares most
/// of those reads. A caller holding a typed [`State`] uses [`validate_typed`], which gives
/// the same verdict without building a JSON tree.
///
/// Errors only when the view cannot read the ledger; findings are never errors.
///
/// ```
/// use remaind_validate::{Check, MemoryLedger, validate};
/// use serde_json::json;
///
/// let ledger = MemoryLedger::new();
/// let state = json!({
///     "v": 1, "through_seq": 0, "log_digest": "0".repeat(64),
///     "generated_at": "2026-11-21T21:00:00Z", "compactor": "builtin",
///     "goal": [], "latest_user_instruction": null, "completed_work": [], "decisions": [],
///     "constraints": [], "blockers": [], "remember": [], "files_changed": [],
///     "open_loops": [], "next_step": null, "superseded": []
/// });
/// let verdict = validate(&ledger, None, &state, "# Handover\n").expect("memory never fails");
/// // Well-formed and bound to the empty ledger, but nothing says what to do next.
/// assert_eq!(verdict.failed_checks(), vec![Check::NextStepGrounded]);
///
/// // A schema failure names the field by JSON pointer and stops before the content checks.
/// let verdict = validate(&ledger, None, &json!({"v": 2}), "").expect("memory never fails");
/// assert_eq!(verdict.checks_run, vec![Check::Schema]);
/// assert!(verdict.failures.iter().any(|f| f.reason.starts_with("/v: 1 was expected")));
/// ```
pub fn validate(
    view: &dyn LedgerView,
    prior: Option<&Prior<'_>>,
    candidate_state: &Value,
    candidate_handover: &str,
) -> Result<Verdict, Error> {
    let mut report = Report::default();
    report.checks_run.push(Check::Schema);
    let schema_failures = check_state_schema(candidate_state);
    let state = if schema_failures.is_empty() {
        match State::deserialize(candidate_state) {
            Ok(state) => Some(state),
            Err(e) => {
                report.fail(
                    Check::Schema,
                    Vec::new(),
                    format!("/: {e}; fix this field to match state.schema.json"),
                );
                None
            }
        }
    } else {
        report.failures.extend(schema_failures);
        None
    };
    finish(view, prior, state.as_ref(), candidate_handover, report)
}

/// [`validate`] for a candidate already deserialized into a [`State`]: the same verdict,
/// without a JSON tree unless the state may break one of the schema's value rules (then the
/// schema check runs on its JSON form and names each failing field).
pub fn validate_typed(
    view: &dyn LedgerView,
    prior: Option<&Prior<'_>>,
    candidate_state: &State,
    candidate_handover: &str,
) -> Result<Verdict, Error> {
    if surely_valid(candidate_state) {
        let mut report = Report::default();
        report.checks_run.push(Check::Schema);
        return finish(
            view,
            prior,
            Some(candidate_state),
            candidate_handover,
            report,
        );
    }
    let value = serde_json::to_value(candidate_state).map_err(|e| Error::InvalidEvent {
        seq: candidate_state.through_seq,
        reason: format!("the candidate state does not serialize: {e}"),
    })?;
    validate(view, prior, &value, candidate_handover)
}

/// The handover's well-formedness, then (with a schema-valid state) binding and the six checks.
fn finish(
    view: &dyn LedgerView,
    prior: Option<&Prior<'_>>,
    state: Option<&State>,
    candidate_handover: &str,
    mut report: Report,
) -> Result<Verdict, Error> {
    let handover = Handover::parse(candidate_handover);
    for problem in &handover.problems {
        report.fail(Check::Schema, Vec::new(), format!("handover.md: {problem}"));
    }
    match state {
        Some(state) if report.failures.is_empty() => {
            check_all(view, prior, state, &handover, &mut report)?;
        }
        _ => {}
    }
    Ok(report.finish())
}

#[derive(Default)]
pub(crate) struct Report {
    pub(crate) checks_run: Vec<Check>,
    failures: Vec<Failure>,
}

impl Report {
    pub(crate) fn fail(&mut self, check: Check, mut events: Vec<EventId>, reason: String) {
        events.sort();
        events.dedup();
        self.failures.push(Failure {
            check,
            events,
            reason,
        });
    }

    fn finish(mut self) -> Verdict {
        // Stable: failures of one check keep the order they were found in.
        self.failures.sort_by_key(|f| f.check);
        Verdict {
            accepted: self.failures.is_empty(),
            checks_run: self.checks_run,
            failures: self.failures,
        }
    }
}
