//! The commit path: propose, validate, then write (accepted) or record (rejected).

use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};
use jiff::Timestamp;
use remaind_atomic::HistoryStore;
use remaind_events::{Event, EventId, Kind, NewEvent};
use remaind_hash::sha256_hex;
use remaind_ledger::Ledger;
use remaind_validate::{
    Binding, Check, Error as ViewError, EventIter, Failure, LedgerView, Prior, State, Verdict,
};
use serde_json::{Map, Value, json};

use remaind_fs::layout::{ACTIVE_DIR, HANDOVER_FILE, STATE_FILE};

use crate::error::{Error, Result};
use crate::external::{self, CompactorInput, Rejection};
use crate::{Candidate, builtin, handover};

/// Timeout for a compactor command when the caller gives none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// Where the candidate comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The built-in deterministic compactor.
    Builtin,
    /// A candidate folder holding `state.json` and `handover.md`.
    Dir(Utf8PathBuf),
    /// A candidate given in memory (e.g. by an MCP client): a `state.json` document and the
    /// handover text. A state that does not parse is a rejected verdict, as from a folder.
    Given {
        /// The proposed state, as JSON.
        state: serde_json::Value,
        /// The proposed handover.
        handover: String,
    },
    /// An external command speaking the compactor protocol (docs/compactor-protocol.md).
    Command {
        /// Run as `sh -c CMD`.
        cmd: String,
        /// Killed (with everything it started) after this long.
        timeout: Duration,
    },
}

/// How to compact.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Validate and report, but write nothing and append nothing.
    pub dry_run: bool,
    /// Compact through this seq instead of the ledger head.
    pub through_seq: Option<u64>,
}

/// What a compaction did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The validator's verdict (for an unreadable external candidate: a single `schema`
    /// failure whose reason names the file or command and the problem).
    pub verdict: Verdict,
    /// The candidate as validated (bound to its state), when one could be read.
    pub candidate: Option<Candidate>,
    /// True when state.json and handover.md were replaced.
    pub written: bool,
    /// The `compaction` (accepted) or `validation` (rejected) event appended; `None` on a dry
    /// run.
    pub event_id: Option<EventId>,
    /// The seq the candidate covers (its `through_seq`; the requested one when no candidate
    /// could be read).
    pub through_seq: u64,
    /// The number of events after the prior state that were compacted.
    pub tail_events: usize,
    /// The memory proposals the continuity flush made (ids): constraints that held across
    /// this compaction, proposed once each for a person to accept or reject.
    pub memory_proposed: Vec<String>,
    /// The active files this compaction replaced that a person had edited (no compaction
    /// event recorded their bytes): `state.json`, `handover.md`. History keeps them,
    /// quarantined: the compaction event records their SHA-256, so verify knows them and a
    /// rollback still refuses them.
    pub quarantined: Vec<&'static str>,
    /// An accepted candidate that was not written because another compaction built on the
    /// same prior landed first (another process, or another machine of a shared store):
    /// that compaction's event. Its state stands; compacting again builds on it.
    pub lost_to: Option<EventId>,
}

/// Reads a [`Ledger`] for the validator, serving the tail already read from memory.
pub(crate) struct View<'a> {
    pub(crate) ledger: &'a Ledger,
    /// The events after `after`, in order, as read for the compactor.
    pub(crate) tail: &'a [Event],
    pub(crate) after: u64,
}

impl LedgerView for View<'_> {
    fn head(&self) -> Result<u64, ViewError> {
        LedgerView::head(self.ledger)
    }

    fn digest_at(&self, seq: u64) -> Result<Option<String>, ViewError> {
        LedgerView::digest_at(self.ledger, seq)
    }

    fn event(&self, id: EventId) -> Result<Option<Event>, ViewError> {
        self.ledger.event(id)
    }

    fn events_in(&self, after_seq: u64, through_seq: u64) -> EventIter<'_> {
        let tail_end = self.after + self.tail.len() as u64;
        if after_seq == self.after && through_seq <= tail_end {
            let n = usize::try_from(through_seq - after_seq).unwrap_or(usize::MAX);
            return Box::new(self.tail.iter().take(n).cloned().map(Ok));
        }
        self.ledger.events_in(after_seq, through_seq)
    }
}

fn ledger_err(ledger: &Ledger, action: &'static str, e: remaind_ledger::Error) -> Error {
    Error::Ledger {
        path: ledger.log_path().to_owned(),
        action,
        source: Box::new(e),
    }
}

fn store_err(
    store: &HistoryStore,
    file: &str,
    action: &'static str,
    e: remaind_atomic::Error,
) -> Error {
    Error::Store {
        path: store.root().join(file),
        action,
        source: Box::new(e),
    }
}

/// Read the prior accepted state from `active/state.json` (`None` when absent).
pub fn read_prior(store: &HistoryStore) -> Result<Option<State>> {
    Ok(read_prior_files(store)?.map(|files| files.state))
}

/// On a replica of a shared store (docs/fleet.md): when the last `compaction` event in the
/// ledger records a state other than the one in `active/`, and the folder's state is missing
/// or one an earlier compaction recorded (it is behind, not edited by hand), take the pair the
/// store holds (committed with that event in one transaction by the machine that compacted),
/// checked against the hashes the event records, and write it through `store` as one unit.
/// Returns whether it did. A plain folder, a state already current, a state edited by hand
/// (left to the checks every reader makes, as on a plain folder), a pair this folder held
/// before a rollback replaced it (the rollback stands until another compaction lands), or a
/// store whose pair is not that event's (it moved on meanwhile: the next call takes it) leaves
/// `active/` alone.
pub fn take_shared_pair(ledger: &Ledger, store: &HistoryStore) -> Result<bool> {
    if ledger.store_project().is_none() {
        return Ok(false);
    }
    let read_err = |e| ledger_err(ledger, "cannot find the last compaction", e);
    let (head, _) = ledger.head().map_err(read_err)?;
    let Some(last) = ledger
        .last_matching(&[Kind::Compaction], head, |_| true)
        .map_err(read_err)?
    else {
        return Ok(false);
    };
    let (Some(state_sha), Some(handover_sha)) = (
        recorded(&last, "state_sha256"),
        recorded(&last, "handover_sha256"),
    ) else {
        return Ok(false);
    };
    let local = store
        .read(STATE_FILE)
        .map_err(|e| store_err(store, STATE_FILE, "cannot read", e))?
        .map(|bytes| sha256_hex(&bytes));
    if let Some(local) = &local {
        if *local == state_sha {
            return Ok(false);
        }
        let known = ledger
            .last_matching(&[Kind::Compaction], head, |e| {
                recorded(e, "state_sha256").as_ref() == Some(local)
            })
            .map_err(read_err)?;
        if known.is_none() {
            return Ok(false);
        }
    }
    if held_before(store, &state_sha)? {
        // This folder had that pair and a rollback replaced it: the rollback stands.
        return Ok(false);
    }
    let mut pair = Vec::with_capacity(2);
    for (file, sha) in [(STATE_FILE, &state_sha), (HANDOVER_FILE, &handover_sha)] {
        let shared = ledger
            .shared_file(&format!("{ACTIVE_DIR}/{file}"))
            .map_err(|e| ledger_err(ledger, "cannot read the shared derived files", e))?;
        match shared {
            Some(bytes) if sha256_hex(&bytes) == *sha => pair.push(bytes),
            _ => return Ok(false),
        }
    }
    store
        .write_all(&[(STATE_FILE, &pair[0][..]), (HANDOVER_FILE, &pair[1][..])])
        .map_err(|e| store_err(store, STATE_FILE, "cannot write the shared pair to", e))?;
    Ok(true)
}

/// Whether `state.json` in `store` ever held the bytes hashing to `sha` before a later change
/// replaced them (each history point keeps the version it replaced).
fn held_before(store: &HistoryStore, sha: &str) -> Result<bool> {
    let read_err = |e| store_err(store, STATE_FILE, "cannot read the history of", e);
    for point in store.list().map_err(read_err)? {
        if point.file() != STATE_FILE || !point.prior_existed() {
            continue;
        }
        let just_before = point
            .time()
            .checked_sub(jiff::SignedDuration::from_micros(1))
            .unwrap_or(point.time());
        let prior = store
            .version_at(STATE_FILE, just_before)
            .map_err(read_err)?;
        if prior.is_some_and(|bytes| sha256_hex(&bytes) == sha) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A hash a `compaction` event's data records (`state_sha256`, `handover_sha256`).
fn recorded(event: &Event, key: &str) -> Option<String> {
    event
        .data
        .as_ref()
        .and_then(|d| d.get(key))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The prior pair and the seq of the last `compaction` event, read under the store's shared
/// lock, so the event that recorded the pair is there exactly when the pair is. A compaction
/// built on them lands only if no other compaction landed after that event.
fn read_prior_and_last(ledger: &Ledger, store: &HistoryStore) -> Result<(Option<PriorFiles>, u64)> {
    let (pair, last) = store
        .read_all_then(&[STATE_FILE, HANDOVER_FILE], |pair| {
            let last = ledger
                .head()
                .and_then(|(head, _)| ledger.last_matching(&[Kind::Compaction], head, |_| true));
            (pair, last)
        })
        .map_err(|e| store_err(store, STATE_FILE, "cannot read", e))?;
    let last = last.map_err(|e| ledger_err(ledger, "cannot find the last compaction", e))?;
    Ok((prior_from_pair(store, pair)?, last.map_or(0, |e| e.seq)))
}

/// The prior accepted state, the bytes it was read from, and the handover stored beside it.
struct PriorFiles {
    state: State,
    state_bytes: Vec<u8>,
    handover: Option<String>,
}

fn read_prior_files(store: &HistoryStore) -> Result<Option<PriorFiles>> {
    // One read of the pair: never one file of one compaction and one of another.
    let pair = store
        .read_all(&[STATE_FILE, HANDOVER_FILE])
        .map_err(|e| store_err(store, STATE_FILE, "cannot read", e))?;
    prior_from_pair(store, pair)
}

fn prior_from_pair(
    store: &HistoryStore,
    mut pair: Vec<Option<Vec<u8>>>,
) -> Result<Option<PriorFiles>> {
    let handover_bytes = pair.pop().flatten();
    let Some(state_bytes) = pair.pop().flatten() else {
        return Ok(None);
    };
    let state = serde_json::from_slice(&state_bytes).map_err(|e| Error::CorruptState {
        path: store.root().join(STATE_FILE),
        reason: e.to_string(),
    })?;
    // The handover only spares the validator reads (when bound to this state); an unreadable
    // one is simply not used.
    let handover = handover_bytes.and_then(|bytes| String::from_utf8(bytes).ok());
    Ok(Some(PriorFiles {
        state,
        state_bytes,
        handover,
    }))
}

/// Propose a candidate from `source`, validate it against `ledger` and the prior accepted
/// state in `store`, and commit the result.
///
/// - Accepted: a `compaction` event is appended, then `state.json` and `handover.md` are
///   written through `store` as one unit (each with a history point) (event data: `through_seq`,
///   `state_sha256`, `handover_sha256`, `compactor`, `tail_events` and section `counts`).
/// - Rejected: the derived files are left byte for byte and a `validation` event is appended
///   (data: `through_seq`, `compactor`, `failed_checks` and every failure with its event ids
///   and reason).
/// - Dry run: nothing is written or appended either way.
///
/// The `compaction` event is appended first, then the two files are replaced as one unit
/// ([`HistoryStore::write_all`]): every reader sees both old or both new, whatever the crash,
/// the disk or the concurrency, and always a pair a compaction event recorded; an I/O error
/// leaves both as they were. Their history points share one instant, so no rollback point
/// splits them.
///
/// Errors are for usage problems (`through_seq` past the head or behind the prior state) and
/// I/O; a bad candidate of any kind is a rejected verdict.
pub fn compact(
    ledger: &Ledger,
    store: &HistoryStore,
    source: Source,
    opts: Options,
) -> Result<Outcome> {
    match source {
        Source::Builtin => commit(ledger, store, Producer::Builtin, opts),
        Source::Dir(dir) => {
            let proposal = Proposal::new(format!("candidate:{dir}"));
            compact_with(ledger, store, proposal, |_| external::from_dir(&dir), opts)
        }
        Source::Given { state, handover } => {
            let proposal = Proposal::new("candidate:given");
            let propose = |_: &CompactorInput| external::from_value(state, handover);
            compact_with(ledger, store, proposal, propose, opts)
        }
        Source::Command { cmd, timeout } => {
            let (redacted, _) = ledger.redactor().redact_str(&cmd);
            let proposal = Proposal::new(format!("command:{redacted}"));
            let propose = |input: &CompactorInput| external::from_command(&cmd, input, timeout);
            compact_with(ledger, store, proposal, propose, opts)
        }
    }
}

/// Who proposes a candidate through [`compact_with`], and what its bookkeeping event says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Proposal {
    /// Written into the candidate's `compactor` field and the event's `compactor`
    /// (e.g. `llm:claude:haiku`); redacted by the ledger when appended.
    pub label: String,
    /// Extra fields merged into the `compaction` or `validation` event's `data` (e.g. the
    /// repair round and the tokens spent); the commit path's own fields win on a clash.
    pub data: Map<String, Value>,
}

impl Proposal {
    /// A proposal labelled `label`, with no extra event data.
    pub fn new(label: impl Into<String>) -> Self {
        Proposal {
            label: label.into(),
            data: Map::new(),
        }
    }
}

/// [`compact`] with a candidate produced by `propose`, which receives the compaction input
/// (the prior state, the events after it up to `through_seq`, the chain hash) exactly as an
/// external compactor command reads it on stdin.
///
/// A [`Rejection`] from `propose` is a rejected verdict with one `schema` failure, recorded
/// like any other. The candidate's `compactor` is set to `proposal.label` and its handover's
/// binding line rewritten, as for any external candidate.
pub fn compact_with<F>(
    ledger: &Ledger,
    store: &HistoryStore,
    proposal: Proposal,
    propose: F,
    opts: Options,
) -> Result<Outcome>
where
    F: FnOnce(&CompactorInput) -> std::result::Result<Candidate, Rejection>,
{
    commit(
        ledger,
        store,
        Producer::External {
            proposal,
            propose: Box::new(propose),
        },
        opts,
    )
}

type Propose<'a> =
    Box<dyn FnOnce(&CompactorInput) -> std::result::Result<Candidate, Rejection> + 'a>;

enum Producer<'a> {
    Builtin,
    External {
        proposal: Proposal,
        propose: Propose<'a>,
    },
}

fn commit(
    ledger: &Ledger,
    store: &HistoryStore,
    producer: Producer<'_>,
    opts: Options,
) -> Result<Outcome> {
    // A replica first catches up with the shared store (other machines' events and
    // compactions), then takes the pair the last compaction left there.
    ledger
        .sync(Duration::ZERO)
        .map_err(|e| ledger_err(ledger, "cannot catch up with the shared store", e))?;
    take_shared_pair(ledger, store)?;
    let (prior_files, built_on) = read_prior_and_last(ledger, store)?;
    let prior = prior_files.as_ref().map(|f| &f.state);
    let Tail {
        after,
        through,
        events: tail,
        log_digest,
    } = read_tail(ledger, store, prior, opts.through_seq)?;
    let builtin = matches!(producer, Producer::Builtin);
    let (label, extra, proposed) = match producer {
        Producer::Builtin => {
            let lookup = |id: EventId| ledger.get(id.seq()).ok().flatten();
            let cand = builtin::fold_and_render(
                prior,
                &tail,
                lookup,
                through,
                &log_digest,
                Timestamp::now(),
            );
            (builtin::BUILTIN_LABEL.to_owned(), Map::new(), Ok(cand))
        }
        Producer::External { proposal, propose } => {
            let input = CompactorInput::new(prior, &tail, through, &log_digest);
            (proposal.label, proposal.data, propose(&input))
        }
    };
    let mut state_bytes: Option<(Vec<u8>, String)> = None;
    let (verdict, candidate) = match proposed {
        Ok(mut cand) => {
            if !builtin {
                cand.state.compactor = label.clone();
                // A candidate is outside text like an event: it is redacted before it is
                // validated, so no secret it carries reaches state.json, handover.md or history.
                redact_candidate(ledger, &mut cand);
            }
            let view = View {
                ledger,
                tail: &tail,
                after,
            };
            let (verdict, bytes) = check_candidate(&view, prior_files.as_ref(), &mut cand)?;
            state_bytes = Some(bytes);
            (verdict, Some(cand))
        }
        Err(rejection) if rejection.cannot_run => {
            return Err(Error::CompactorCannotRun {
                reason: rejection.reason,
            });
        }
        Err(rejection) => (unreadable(&rejection), None),
    };
    // An external candidate says itself which prefix it covers.
    let through = candidate.as_ref().map_or(through, |c| c.state.through_seq);
    let mut outcome = Outcome {
        verdict,
        candidate,
        written: false,
        event_id: None,
        through_seq: through,
        tail_events: tail.len(),
        memory_proposed: Vec::new(),
        quarantined: Vec::new(),
        lost_to: None,
    };
    if opts.dry_run {
        return Ok(outcome);
    }
    let accepted = outcome.verdict.accepted;
    match (outcome.candidate.take(), state_bytes) {
        (Some(cand), Some(bytes)) if accepted => {
            let written = Accepted {
                cand: &cand,
                state_bytes: bytes,
                extra: &extra,
                tail_events: tail.len(),
                built_on,
            };
            record_accepted(ledger, store, prior_files.as_ref(), written, &mut outcome)?;
            outcome.candidate = Some(cand);
        }
        (cand, _) => {
            outcome.candidate = cand;
            let mut event = validation_event(&outcome.verdict, through, &label);
            merge_data(&mut event, &extra);
            outcome.event_id = Some(
                ledger
                    .append(remaind_ledger::AppendRequest::from(event).system())
                    .map_err(|e| ledger_err(ledger, "cannot append the validation event", e))?[0],
            );
        }
    }
    Ok(outcome)
}

/// The part of the ledger a compaction covers: after the prior's `through_seq` up to the
/// requested one (the head by default), and the chain hash there.
struct Tail {
    after: u64,
    through: u64,
    events: Vec<Event>,
    log_digest: String,
}

fn read_tail(
    ledger: &Ledger,
    store: &HistoryStore,
    prior: Option<&State>,
    through_seq: Option<u64>,
) -> Result<Tail> {
    let (head, _) = ledger
        .head()
        .map_err(|e| ledger_err(ledger, "cannot read the head", e))?;
    let after = prior.map_or(0, |p| p.through_seq);
    let through = through_seq.unwrap_or(head);
    if through > head {
        return Err(Error::InvalidInput {
            field: "through_seq",
            reason: format!("{through} is past the ledger head {head}; give a seq up to {head}"),
        });
    }
    if through < after {
        return Err(Error::InvalidInput {
            field: "through_seq",
            reason: format!(
                "{through} is behind the prior accepted state's through_seq {after}; give a seq from {after} to {head}"
            ),
        });
    }
    if after > head {
        return Err(Error::CorruptState {
            path: store.root().join(STATE_FILE),
            reason: format!("its through_seq {after} is past the ledger head {head}"),
        });
    }
    let limit = usize::try_from(through - after).unwrap_or(usize::MAX);
    let tail = ledger
        .range(after + 1, limit, &remaind_events::Filter::default())
        .map_err(|e| ledger_err(ledger, "cannot read events", e))?;
    let log_digest = ledger
        .digest_at(through)
        .map_err(|e| ledger_err(ledger, "cannot read the chain hash", e))?
        .ok_or_else(|| Error::InvalidInput {
            field: "through_seq",
            reason: format!("seq {through} is not in the ledger"),
        })?;

    Ok(Tail {
        after,
        through,
        events: tail,
        log_digest,
    })
}

/// Validates a candidate and binds its handover to the state's bytes. Returns the verdict and
/// the canonical state bytes with their SHA-256.
fn check_candidate(
    view: &View<'_>,
    prior_files: Option<&PriorFiles>,
    cand: &mut Candidate,
) -> Result<(Verdict, (Vec<u8>, String))> {
    // The checks ignore the binding line, so the handover body is validated while the
    // state bytes written on acceptance are serialized and hashed (once) beside it.
    let body = handover::body_after_binding(&cand.handover);
    let state = &cand.state;
    let (serialized, verdict) = std::thread::scope(|scope| {
        let serializing = scope.spawn(|| {
            let bytes = state.to_canonical_bytes();
            let sha = sha256_hex(&bytes);
            (bytes, sha)
        });
        let prior = prior_files.map(|f| match &f.handover {
            Some(handover) => Prior::with_handover(&f.state, &f.state_bytes, handover),
            None => Prior::new(&f.state),
        });
        let verdict = remaind_validate::validate_typed(view, prior.as_ref(), state, &body);
        let serialized = serializing
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (serialized, verdict)
    });
    let verdict = verdict.map_err(|e| Error::Ledger {
        path: view.ledger.log_path().to_owned(),
        action: "cannot validate against",
        source: Box::new(e),
    })?;
    let (bytes, state_sha256) = serialized;
    let binding = Binding {
        state_sha256,
        through_seq: cand.state.through_seq,
    };
    cand.handover = handover::bind_to(&binding, &body);
    Ok((verdict, (bytes, binding.state_sha256)))
}

/// An accepted candidate about to be recorded and written.
struct Accepted<'c> {
    cand: &'c Candidate,
    /// The canonical state bytes and their SHA-256.
    state_bytes: (Vec<u8>, String),
    /// What the compactor added to the event's data.
    extra: &'c Map<String, Value>,
    tail_events: usize,
    /// The seq of the last `compaction` event when the prior pair was read (0 for none).
    built_on: u64,
}

/// Records the accepted pair in a `compaction` event, then writes it.
fn record_accepted(
    ledger: &Ledger,
    store: &HistoryStore,
    prior_files: Option<&PriorFiles>,
    accepted: Accepted<'_>,
    outcome: &mut Outcome,
) -> Result<()> {
    let Accepted {
        cand,
        state_bytes: (state_bytes, state_sha256),
        extra,
        tail_events,
        built_on,
    } = accepted;
    let prior = prior_files.map(|f| &f.state);
    // The continuity flush comes before the compaction: what held across it is in
    // visible memory proposals, not only in a summary.
    outcome.memory_proposed = continuity_flush(ledger, prior, &cand.state)?;
    // The event that records the new pair comes first: at every instant, for every
    // reader and after any crash, the pair in place is one the ledger recorded (the
    // old one until the unit below lands, the new one after). If the files then
    // cannot be written, they stay as they were and the event names a pair that
    // never landed, which no reader takes for the current one.
    let mut event = compaction_event(&cand.state, &state_sha256, &cand.handover, tail_events);
    merge_data(&mut event, extra);
    let edited = edited_files(ledger, prior_files)?;
    outcome.quarantined = edited.iter().map(|(file, _)| *file).collect();
    let edited: Map<String, Value> = edited
        .into_iter()
        .map(|(file, sha)| {
            let key = if file == STATE_FILE {
                EDITED_STATE_KEY
            } else {
                EDITED_HANDOVER_KEY
            };
            (key.to_owned(), Value::String(sha))
        })
        .collect();
    merge_data(&mut event, &edited);
    // Of two compactions built on the same prior (two processes, or two machines sharing a
    // store), exactly one lands; on a replica the pair commits to the shared store with it.
    let state_path = format!("{ACTIVE_DIR}/{STATE_FILE}");
    let handover_path = format!("{ACTIVE_DIR}/{HANDOVER_FILE}");
    let shared: [(&str, &[u8]); 2] = [
        (&state_path, &state_bytes),
        (&handover_path, cand.handover.as_bytes()),
    ];
    let request = remaind_ledger::AppendRequest::from(event).system().unless(
        &[Kind::Compaction],
        built_on,
        &shared,
    );
    let id = match ledger.append(request) {
        Ok(ids) => ids[0],
        // Another process or machine compacted the same prior first: its state stands, and
        // losing that race is not a failure (nothing of this candidate was written).
        Err(remaind_ledger::Error::Raced { seq, .. }) => {
            outcome.lost_to = Some(EventId(seq));
            return Ok(());
        }
        Err(e) => return Err(ledger_err(ledger, "cannot append the compaction event", e)),
    };
    outcome.event_id = Some(id);
    store
        .write_all(&[
            (STATE_FILE, &state_bytes[..]),
            (HANDOVER_FILE, cand.handover.as_bytes()),
        ])
        .map_err(|e| Error::Store {
            path: store.root().to_owned(),
            action: "cannot write state.json and handover.md in",
            source: Box::new(e),
        })?;
    outcome.written = true;
    Ok(())
}

/// The compaction event's record of an edited `state.json` it replaced (its SHA-256).
pub const EDITED_STATE_KEY: &str = "edited_state_sha256";
/// The compaction event's record of an edited `handover.md` it replaced (its SHA-256).
pub const EDITED_HANDOVER_KEY: &str = "edited_handover_sha256";

/// The active files about to be replaced whose bytes no recent compaction event recorded
/// (a person edited them), with their SHA-256: `("state.json" | "handover.md", sha)`.
fn edited_files(
    ledger: &Ledger,
    prior: Option<&PriorFiles>,
) -> Result<Vec<(&'static str, String)>> {
    let Some(prior) = prior else {
        return Ok(Vec::new());
    };
    let state = sha256_hex(&prior.state_bytes);
    let handover = prior.handover.as_deref().map(|h| sha256_hex(h.as_bytes()));
    let compactions = remaind_events::Filter {
        kinds: vec![Kind::Compaction],
        ..Default::default()
    };
    // The pair in place is normally the newest compaction's; after a rollback, an older one.
    let recorded = ledger
        .before(u64::MAX, 64, &compactions)
        .map_err(|e| ledger_err(ledger, "cannot read the compaction events", e))?;
    let known = |key: &str, sha: &str| {
        recorded.iter().any(|ev| {
            ev.data
                .as_ref()
                .and_then(|d| d.get(key))
                .and_then(Value::as_str)
                == Some(sha)
        })
    };
    let mut out = Vec::new();
    if !known("state_sha256", &state) {
        out.push((STATE_FILE, state));
    }
    if let Some(handover) = handover
        && !known("handover_sha256", &handover)
    {
        out.push((HANDOVER_FILE, handover));
    }
    Ok(out)
}

/// The continuity flush of an accepted compaction: every constraint of the new state that
/// the prior state already held (an event of it in both) is proposed as a long-term memory,
/// citing those events, unless that title was proposed before. Returns the new proposals.
fn continuity_flush(ledger: &Ledger, prior: Option<&State>, next: &State) -> Result<Vec<String>> {
    let Some(prior) = prior else {
        return Ok(Vec::new());
    };
    let held: Vec<remaind_memory::FlushItem> = next
        .constraints
        .iter()
        .filter_map(|item| {
            let cites: Vec<EventId> = item
                .events
                .iter()
                .filter(|e| prior.constraints.iter().any(|p| p.events.contains(e)))
                .copied()
                .collect();
            if cites.is_empty() {
                return None;
            }
            remaind_memory::FlushItem::from_text(&item.text, cites)
        })
        .collect();
    if held.is_empty() {
        return Ok(Vec::new());
    }
    let ctx = remaind_fs::ContextDir::new(ledger.context_dir().to_owned());
    let flushed = remaind_memory::Memory::open(&ctx, ledger)
        .and_then(|m| m.flush(&held))
        .map_err(|e| Error::Memory(Box::new(e)))?;
    Ok(flushed.into_iter().map(|p| p.id).collect())
}

/// Runs every string of an external candidate through the project's redactor.
fn redact_candidate(ledger: &Ledger, cand: &mut Candidate) {
    let redactor = ledger.redactor();
    if let Ok(mut value) = serde_json::to_value(&cand.state)
        && !redactor.redact_json(&mut value).is_empty()
        && let Ok(state) = serde_json::from_value(value)
    {
        cand.state = state;
    }
    if let std::borrow::Cow::Owned(text) = redactor.redact_str(&cand.handover).0 {
        cand.handover = text;
    }
}

/// Add `extra` to the event's data, keeping the commit path's own fields.
fn merge_data(event: &mut NewEvent, extra: &Map<String, Value>) {
    if extra.is_empty() {
        return;
    }
    let data = event.data.get_or_insert_with(Map::new);
    for (key, value) in extra {
        if !data.contains_key(key) {
            data.insert(key.clone(), value.clone());
        }
    }
}

/// The verdict for a candidate that could not be read: one `schema` failure.
fn unreadable(rejection: &Rejection) -> Verdict {
    Verdict {
        accepted: false,
        checks_run: vec![Check::Schema],
        failures: vec![Failure {
            check: Check::Schema,
            events: Vec::new(),
            reason: rejection.reason.clone(),
        }],
    }
}

fn object(value: Value) -> Option<Map<String, Value>> {
    match value {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

fn compaction_event(
    state: &State,
    state_sha256: &str,
    handover: &str,
    tail_events: usize,
) -> NewEvent {
    let counts = json!({
        "goal": state.goal.len(),
        "completed_work": state.completed_work.len(),
        "decisions": state.decisions.len(),
        "constraints": state.constraints.len(),
        "blockers": state.blockers.len(),
        "remember": state.remember.len(),
        "files_changed": state.files_changed.len(),
        "open_loops": state.open_loops.len(),
        "superseded": state.superseded.len(),
        "resolved": state.resolved.len(),
    });
    NewEvent {
        kind: Some(Kind::Compaction),
        text: Some(format!(
            "compaction accepted through e{} ({})",
            state.through_seq, state.compactor
        )),
        actor: Some("remaind".to_owned()),
        data: object(json!({
            "through_seq": state.through_seq,
            "state_sha256": state_sha256,
            "handover_sha256": sha256_hex(handover.as_bytes()),
            "compactor": state.compactor,
            "tail_events": tail_events,
            "counts": counts,
        })),
        ..NewEvent::default()
    }
}

fn validation_event(verdict: &Verdict, through: u64, compactor: &str) -> NewEvent {
    let failed: Vec<&str> = verdict
        .failed_checks()
        .into_iter()
        .map(Check::as_str)
        .collect();
    let failures: Vec<Value> = verdict
        .failures
        .iter()
        .map(|f| {
            json!({
                "check": f.check.as_str(),
                "events": f.events.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "reason": f.reason,
            })
        })
        .collect();
    NewEvent {
        kind: Some(Kind::Validation),
        text: Some(format!(
            "compaction rejected through e{through} ({compactor}): failed {}",
            failed.join(", ")
        )),
        actor: Some("remaind".to_owned()),
        data: object(json!({
            "through_seq": through,
            "compactor": compactor,
            "failed_checks": failed,
            "failures": failures,
        })),
        ..NewEvent::default()
    }
}

/// Open the ledger of a `.context/` folder, for [`compact`] and its callers.
pub fn open_ledger(context_dir: &Utf8Path) -> Result<Ledger> {
    Ledger::open(context_dir).map_err(|e| Error::Ledger {
        path: context_dir.to_owned(),
        action: "cannot open the ledger",
        source: Box::new(e),
    })
}

/// Open the store of a `.context/` folder's `active/` directory.
pub fn open_store(context_dir: &Utf8Path) -> Result<HistoryStore> {
    let root = context_dir.join(remaind_fs::layout::ACTIVE_DIR);
    HistoryStore::open(&root).map_err(|e| Error::Store {
        path: root,
        action: "cannot open",
        source: Box::new(e),
    })
}
