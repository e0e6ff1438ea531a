//! What a resume reads (the state, the handover, the framing, the ledger tail) and the
//! conflicts between the ledger, the state and the handover. Shared by the resume gate and
//! `verify`.

use std::collections::BTreeSet;

use remaind_events::{Event, EventId, Statuses};
use remaind_fs::layout::ACTIVE_DIR;
use remaind_ledger::Ledger;
use remaind_validate::State;

use crate::Error;
use crate::conv::{open_ledger, open_store};
use crate::framing::{self, Framing};
use crate::gate::{Reason, ReasonCode};
use crate::layout::{ContextDir, HANDOVER_FILE, STATE_FILE};

/// Every conflict of the derived files with the ledger, as verify reports them, without
/// building a packet: first the current ledger/state/handover conflicts (the gate's conflict
/// reasons), then every version of state.json and handover.md kept in history that no
/// compaction event recorded (an edited snapshot). Empty when the derived files agree with
/// the ledger.
pub fn derived_conflicts(ctx: &ContextDir) -> Result<Vec<Reason>, Error> {
    let mut found = current_conflicts(ctx)?;
    found.extend(history_conflicts(ctx)?);
    Ok(found)
}

/// Every ledger/state/handover conflict in a context folder (the gate's conflict reasons).
fn current_conflicts(ctx: &ContextDir) -> Result<Vec<Reason>, Error> {
    let ledger = open_ledger(ctx)?;
    let inputs = read_inputs(ctx, &ledger)?;
    let mut reasons = inputs.reasons.clone();
    reasons.extend(conflicts(&ledger, &inputs)?);
    Ok(reasons)
}

/// What a resume reads: the state, the handover, the framing and the tail of the ledger.
pub(crate) struct Inputs {
    pub(crate) head: u64,
    pub(crate) state: Option<State>,
    pub(crate) state_bytes: Option<Vec<u8>>,
    pub(crate) handover: Option<String>,
    pub(crate) framing: Option<Framing>,
    /// Events after `through_seq` (empty when `through_seq` is past the head).
    pub(crate) tail: Vec<Event>,
    pub(crate) statuses: Statuses,
    pub(crate) reasons: Vec<Reason>,
}

pub(crate) fn read_inputs(ctx: &ContextDir, ledger: &Ledger) -> Result<Inputs, Error> {
    let store = open_store(ctx)?;
    // A replica of a shared store first takes the pair another machine's compaction left.
    remaind_compact::take_shared_pair(ledger, &store)?;
    // One read of the pair: never one file of one compaction and one of another; and the
    // ledger read under the same lock, so the compaction event that records the pair is
    // there exactly when the pair is.
    let (mut pair, head) = store
        .read_all_then(&[STATE_FILE, HANDOVER_FILE], |pair| {
            ledger.head().map(|(head, _)| (pair, head))
        })
        .map_err(Error::Atomic)?
        .map_err(Error::Ledger)?;
    let handover = pair
        .pop()
        .flatten()
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    let state_bytes = pair.pop().flatten();
    let framing = framing::load_framing(ctx)?;
    let mut reasons = Vec::new();
    let state = match &state_bytes {
        None => None,
        Some(bytes) => match serde_json::from_slice::<State>(bytes) {
            Ok(s) => Some(s),
            Err(e) => {
                reasons.push(Reason {
                    code: ReasonCode::StateUnreadable,
                    message: format!(
                        "{ACTIVE_DIR}/{STATE_FILE} is not a valid state ({e}); roll it back with `remaind rollback` or compact again"
                    ),
                    events: Vec::new(),
                });
                None
            }
        },
    };
    let through = state.as_ref().map_or(0, |s| s.through_seq);
    let tail = if through < head {
        ledger
            .range(through + 1, usize::MAX, &remaind_events::Filter::default())
            .map_err(Error::Ledger)?
    } else {
        Vec::new()
    };
    let statuses = Statuses::from_events(&tail);
    Ok(Inputs {
        head,
        state,
        state_bytes,
        handover,
        framing,
        tail,
        statuses,
        reasons,
    })
}

/// The ledger/state/handover conflicts.
pub(crate) fn conflicts(ledger: &Ledger, inp: &Inputs) -> Result<Vec<Reason>, Error> {
    let mut out = Vec::new();
    if let Some(state) = &inp.state {
        state_binding(ledger, inp.head, state, &mut out)?;
        handover_binding(inp, state, &mut out);
    } else if inp.handover.is_some() && inp.state_bytes.is_none() {
        out.push(Reason {
            code: ReasonCode::HandoverBinding,
            message:
                "handover.md exists but state.json does not; the handover is bound to no state"
                    .to_owned(),
            events: Vec::new(),
        });
    }
    if let (Some(state), Some(bytes)) = (&inp.state, &inp.state_bytes) {
        let state_sha = sha256_hex(bytes);
        let handover_sha = inp.handover.as_deref().map(|h| sha256_hex(h.as_bytes()));
        // The compaction that accepted this state comes after its through_seq, so it is in
        // the tail already read: no extra pass over the ledger.
        let recorded = inp.tail.iter().rev().find_map(|ev| {
            accepted_pair(ev)
                .filter(|(through, sha, _)| *through == state.through_seq && *sha == state_sha)
        });
        match recorded {
            None => out.push(Reason {
                code: ReasonCode::NotRecorded,
                message: format!(
                    "state.json (sha256 {state_sha}) is not a state any compaction event recorded for e{}; it was forged or edited — roll back to an accepted version or compact again",
                    state.through_seq
                ),
                events: Vec::new(),
            }),
            Some((_, _, want)) if handover_sha.as_deref() != Some(want.as_str()) => {
                out.push(Reason {
                    code: ReasonCode::NotRecorded,
                    message: format!(
                        "handover.md (sha256 {}) is not the handover its compaction event recorded ({want}); it was forged or edited — roll back or compact again",
                        handover_sha.as_deref().unwrap_or("none")
                    ),
                    events: Vec::new(),
                });
            }
            Some(_) => {}
        }
    }
    missing_citations(inp, &mut out);
    Ok(out)
}

/// The state is bound to this ledger: through a seq it holds, with its chain hash there.
fn state_binding(
    ledger: &Ledger,
    head: u64,
    state: &State,
    out: &mut Vec<Reason>,
) -> Result<(), Error> {
    if state.through_seq > head {
        out.push(Reason {
            code: ReasonCode::ThroughSeqPastHead,
            message: format!(
                "state.json covers through e{} but the ledger ends at e{head}; the state belongs to another ledger — roll it back or compact again",
                state.through_seq
            ),
            events: Vec::new(),
        });
    } else {
        let digest = ledger.digest_at(state.through_seq).map_err(Error::Ledger)?;
        if digest.as_deref() != Some(state.log_digest.as_str()) {
            out.push(Reason {
                code: ReasonCode::DigestMismatch,
                message: format!(
                    "state.json's log_digest {} is not the ledger's chain hash at e{} ({}); the state was made from another log — compact again",
                    state.log_digest,
                    state.through_seq,
                    digest.as_deref().unwrap_or("none")
                ),
                events: (state.through_seq > 0)
                    .then_some(EventId(state.through_seq))
                    .into_iter()
                    .collect(),
            });
        }
    }
    Ok(())
}

/// The handover is bound to this state (its binding line names the state's hash and seq).
fn handover_binding(inp: &Inputs, state: &State, out: &mut Vec<Reason>) {
    match &inp.handover {
        None => out.push(Reason {
            code: ReasonCode::HandoverBinding,
            message: "state.json has no handover.md beside it; compact again or roll back"
                .to_owned(),
            events: Vec::new(),
        }),
        Some(text) => {
            let sha = remaind_hash::sha256_hex(inp.state_bytes.as_deref().unwrap_or(&[]));
            match remaind_validate::parse_binding(text) {
                None => out.push(Reason {
                    code: ReasonCode::HandoverBinding,
                    message: "handover.md has no binding line (`<!-- remaind:handover state_sha256=… through_seq=… -->`); it cannot be tied to state.json".to_owned(),
                    events: Vec::new(),
                }),
                Some(b) if b.state_sha256 != sha || b.through_seq != state.through_seq => {
                    out.push(Reason {
                        code: ReasonCode::HandoverBinding,
                        message: format!(
                            "handover.md is bound to state sha256 {} through e{}, but state.json has sha256 {sha} through e{}; they were not written together",
                            b.state_sha256, b.through_seq, state.through_seq
                        ),
                        events: Vec::new(),
                    });
                }
                Some(_) => {}
            }
        }
    }
}

/// Citations of events the ledger does not hold.
fn missing_citations(inp: &Inputs, out: &mut Vec<Reason>) {
    let head = inp.head;
    let mut missing = BTreeSet::new();
    if let Some(state) = &inp.state {
        for (_, id) in state.current_citations() {
            if id.seq() > head || id.seq() == 0 {
                missing.insert(id);
            }
        }
        for link in state.superseded.iter().chain(&state.resolved) {
            for id in [link.event, link.by] {
                if id.seq() > head || id.seq() == 0 {
                    missing.insert(id);
                }
            }
        }
    }
    if let Some(text) = &inp.handover {
        for id in remaind_validate::citations(text) {
            if id.seq() > head || id.seq() == 0 {
                missing.insert(id);
            }
        }
    }
    if !missing.is_empty() {
        let ids: Vec<EventId> = missing.into_iter().collect();
        out.push(Reason {
            code: ReasonCode::MissingCitation,
            message: format!(
                "the state or handover cites {} event(s) the ledger (head e{head}) does not hold: {}",
                ids.len(),
                join_ids(&ids)
            ),
            events: ids,
        });
    }
}

pub(crate) fn join_ids(ids: &[EventId]) -> String {
    ids.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

use remaind_hash::sha256_hex;

/// `(through_seq, state_sha256, handover_sha256)` of a `compaction` event, the pair it
/// recorded as accepted.
pub(crate) fn accepted_pair(ev: &Event) -> Option<(u64, String, String)> {
    if ev.kind != remaind_events::Kind::Compaction {
        return None;
    }
    let data = ev.data.as_ref()?;
    Some((
        data.get("through_seq")?.as_u64()?,
        data.get("state_sha256")?.as_str()?.to_owned(),
        data.get("handover_sha256")?.as_str()?.to_owned(),
    ))
}

/// Every version of state.json and handover.md kept in history that no compaction event
/// recorded (an edited snapshot), as verify findings. One pass over the ledger's events.
fn history_conflicts(ctx: &ContextDir) -> Result<Vec<Reason>, Error> {
    let ledger = open_ledger(ctx)?;
    let mut states = std::collections::HashSet::new();
    let mut handovers = std::collections::HashSet::new();
    // Edited versions a compaction replaced and recorded: kept in history as evidence,
    // quarantined (a rollback refuses them), reported once by that compaction.
    let mut quarantined = std::collections::HashSet::new();
    for ev in ledger.iter().map_err(Error::Ledger)? {
        let ev = ev.map_err(Error::Ledger)?;
        if let Some((_, s, h)) = accepted_pair(&ev) {
            states.insert(s);
            handovers.insert(h);
            let data = ev.data.as_ref();
            for key in [
                remaind_compact::EDITED_STATE_KEY,
                remaind_compact::EDITED_HANDOVER_KEY,
            ] {
                if let Some(sha) = data.and_then(|d| d.get(key)).and_then(|v| v.as_str()) {
                    quarantined.insert(sha.to_owned());
                }
            }
        }
    }
    let store = open_store(ctx)?;
    let mut out = Vec::new();
    for point in store.list().map_err(Error::Atomic)? {
        let known = match point.file().as_str() {
            STATE_FILE => &states,
            HANDOVER_FILE => &handovers,
            _ => continue,
        };
        if !point.prior_existed() {
            continue;
        }
        let before = point
            .time()
            .checked_sub(jiff::SignedDuration::from_micros(1))
            .unwrap_or(point.time());
        let Some(bytes) = store
            .version_at(point.file(), before)
            .map_err(Error::Atomic)?
        else {
            continue;
        };
        let sha = sha256_hex(&bytes);
        if !known.contains(&sha) && !quarantined.contains(&sha) {
            out.push(Reason {
                code: ReasonCode::NotRecorded,
                message: format!(
                    "history entry {} of {} (sha256 {sha}) is not a version any compaction event recorded; it was edited — a rollback to it is refused. (a compaction that replaces an edited file records it as quarantined, and verify accepts that version; this one was replaced before such a record)",
                    point.seq(),
                    point.file()
                ),
                events: Vec::new(),
            });
        }
    }
    Ok(out)
}
