//! Memory proposals and `MEMORY.md`, projected from the ledger's memory events.
//!
//! The ledger is the authority: proposing, accepting, rejecting and a person's hand edit of
//! `MEMORY.md` are `note` events whose `data.memory` says what happened. The files under
//! `memory/` are derived from those events and rewritten atomically after each action.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};

use camino::Utf8Path;
use remaind_atomic::{Guard, HistoryPoint, HistoryStore, RestoreSummary, Timestamp};
use remaind_events::{Event, EventId, Kind, NewEvent, Status as EventStatus, Statuses};
use remaind_fs::ContextDir;
use remaind_fs::layout::{
    MEMORY_ARCHIVE_DIR, MEMORY_CONFIG_PATH, MEMORY_DIR, MEMORY_FILE_PATH, MEMORY_LOOPS_DIR,
    MEMORY_PENDING_PATH, MEMORY_PROPOSALS_DIR, MEMORY_RENDERED_PATH, MEMORY_TREE_PATH,
    MEMORY_USES_PATH, THRESHOLDS_PATH,
};
use remaind_ledger::Ledger;
use serde_json::{Map, Value, json};

use crate::cache;
use crate::error::{Error, Result};
use crate::project::{
    Action, EMPTY_MEMORY_MD, Projection, Proposal, Status, mark_contradicted, markers_of, project,
    proposal_file, restore_markers,
};
use crate::tree::{self, Node, TokenizerName, Tree};

/// Longest proposal title, in characters.
const TITLE_CHARS: usize = 120;
/// Longest slug, in bytes.
const SLUG_BYTES: usize = 48;
/// Most proposals one continuity flush makes: it suggests, a person reviews.
pub(crate) const FLUSH_MAX: usize = 16;
/// How many of the newest events are read for node citations.
pub(crate) const CITATION_WINDOW: usize = 1000;
/// How often a render starts again because a person saved `MEMORY.md` meanwhile.
const SYNC_ATTEMPTS: usize = 8;
/// How long, and in what steps, a `MEMORY.md` found empty after a render that was not is
/// given to fill: an editor that saves in place truncates the file, then writes it, and may
/// be paused between the two (a loaded machine stops a thread for milliseconds). A command
/// that read the empty file would record it as the person's edit and, finding it still empty
/// when it puts its render in place, take out the file the editor is about to write into.
const EMPTY_SAVE_STEP: std::time::Duration = std::time::Duration::from_millis(20);
const EMPTY_SAVE_STEPS: u32 = 50;
/// Uses kept per node (the oldest weigh almost nothing).
const USES_KEPT: usize = 32;
/// The namespace of proposal ids (UUID v5 of the title under it).
const PROPOSAL_NAMESPACE: uuid::Uuid =
    uuid::Uuid::from_u128(0x6d65_6d6f_7279_4072_656d_6169_6e64_0001);

/// The namespace of open-loop ids (distinct from proposals', so a loop and a memory with
/// one title never share a name).
const LOOP_NAMESPACE: uuid::Uuid = uuid::Uuid::from_u128(0x6d65_6d6f_7279_4072_656d_6169_6e64_0002);

/// The id of the open loop titled `title`: `{slug}--{uuid-v5}`, like a proposal's.
pub fn loop_id(title: &str) -> String {
    let uuid = uuid::Uuid::new_v5(&LOOP_NAMESPACE, title.as_bytes());
    format!("{}--{uuid}", slug(title))
}

/// The id of the proposal titled `title`.
pub fn proposal_id(title: &str) -> String {
    let uuid = uuid::Uuid::new_v5(&PROPOSAL_NAMESPACE, title.as_bytes());
    format!("{}--{uuid}", slug(title))
}

/// Lower-case ASCII letters and digits of `title`, other runs as one `-`.
pub fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.len() >= SLUG_BYTES {
            break;
        }
    }
    let trimmed = out.trim_end_matches('-');
    if trimmed.is_empty() {
        "memory".to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// The title a `remember` event proposes itself under: its first line, cut to 60
/// characters on a word boundary.
fn remember_title(text: &str) -> String {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let words = first.split_whitespace();
    let mut title = String::new();
    for w in words {
        if title.chars().count() + w.chars().count() + 1 > 60 {
            if title.is_empty() {
                title = w.chars().take(60).collect();
            }
            break;
        }
        if !title.is_empty() {
            title.push(' ');
        }
        title.push_str(w);
    }
    title
}

fn memory_data(ev: &Event) -> Option<&Map<String, Value>> {
    ev.data.as_ref()?.get("memory")?.as_object()
}

/// The path of `rel` (a `memory/…` layout path) inside the memory store.
fn in_store(rel: &str) -> &str {
    rel.strip_prefix(MEMORY_DIR)
        .and_then(|r| r.strip_prefix('/'))
        .unwrap_or(rel)
}

/// One item of a continuity flush: a fact that should outlive the task, and the ledger events
/// it rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlushItem {
    /// The proposal's title (one line).
    pub title: String,
    /// What to remember.
    pub text: String,
    /// The events it rests on; when a newer event supersedes or resolves one, the memory is
    /// shown as no longer current.
    pub cites: Vec<EventId>,
}

impl FlushItem {
    /// An item titled by the first line of `text` (cut to 60 characters on a word
    /// boundary, as a `remember` event is); `None` when `text` has no words.
    pub fn from_text(text: &str, cites: Vec<EventId>) -> Option<FlushItem> {
        let title = remember_title(text);
        (!title.is_empty()).then(|| FlushItem {
            title,
            text: text.trim().to_owned(),
            cites,
        })
    }
}

/// The long-term memory of one `.context/` folder.
#[derive(Debug)]
pub struct Memory<'l> {
    ctx: ContextDir,
    ledger: &'l Ledger,
    /// `memory/`, written atomically with history (so `rollback` covers it).
    store: HistoryStore,
    /// Whether this value wrote `memory/pending` (before its first action's event).
    pending_written: Cell<bool>,
    /// The events this value recorded since the files were last rewritten: a person's edit
    /// found meanwhile was made without them, and is recorded as coming before them.
    unrendered: RefCell<Vec<EventId>>,
}

impl<'l> Memory<'l> {
    /// Opens the memory of `ctx`, whose ledger is `ledger`. A hand edit of `MEMORY.md` since
    /// it was last written is recorded as an event first (never lost) and the files are
    /// brought in line with the ledger; otherwise nothing is written until an action.
    ///
    /// When an earlier command was stopped between recording an action and rewriting the
    /// files (`memory/pending` is there), the files are rewritten from the ledger first.
    ///
    /// Fails, before anything is recorded, when `memory/` or its history is a symlink or
    /// not a folder.
    pub fn open(ctx: &ContextDir, ledger: &'l Ledger) -> Result<Memory<'l>> {
        let memory = Memory::reader(ctx, ledger)?;
        let current = memory.read(MEMORY_FILE_PATH)?;
        if memory.pending()? || memory.unrecorded(current.as_deref())? {
            memory.sync()?;
        }
        Ok(memory)
    }

    /// The memory of `ctx` for looking only (a viewer): unlike [`Memory::open`] it neither
    /// records a hand edit of `MEMORY.md` nor rewrites files that lag the ledger, so what it
    /// shows is the files as they are (check [`lag`](crate::lag) to say so). Only the memory
    /// folder and its history folder are created when missing.
    pub fn open_read_only(ctx: &ContextDir, ledger: &'l Ledger) -> Result<Memory<'l>> {
        Memory::reader(ctx, ledger)
    }

    /// The memory of `ctx`, opened without recording or writing anything.
    fn reader(ctx: &ContextDir, ledger: &'l Ledger) -> Result<Memory<'l>> {
        Ok(Memory {
            ctx: ctx.clone(),
            ledger,
            store: open_store(ctx)?,
            pending_written: Cell::new(false),
            unrendered: RefCell::new(Vec::new()),
        })
    }

    fn pending(&self) -> Result<bool> {
        pending(&self.ctx)
    }

    /// Writes `memory/pending` once, before the first event this value records.
    fn mark_pending(&self) -> Result<()> {
        if !self.pending_written.get() {
            let path = self.ctx.join(MEMORY_PENDING_PATH);
            let (dir, name) = split(&path);
            remaind_fs::replace_file(dir, name, b"").map_err(Error::file(&path))?;
            self.pending_written.set(true);
        }
        Ok(())
    }

    /// Removes `memory/pending`: the files are in line with the ledger.
    fn clear_pending(&self) -> Result<()> {
        let path = self.ctx.join(MEMORY_PENDING_PATH);
        let (dir, name) = split(&path);
        remaind_fs::remove_file(dir, name).map_err(Error::file(&path))?;
        self.pending_written.set(false);
        Ok(())
    }

    fn read(&self, rel: &str) -> Result<Option<Vec<u8>>> {
        self.store
            .read(in_store(rel))
            .map_err(Error::history(self.ctx.join(rel)))
    }

    /// Whether `current` (the bytes of `MEMORY.md`) differs from what was last written: a
    /// person edited it, and the edit is not in the ledger yet.
    fn unrecorded(&self, current: Option<&[u8]>) -> Result<bool> {
        let Some(current) = current else {
            return Ok(false);
        };
        let rendered = self.read(MEMORY_RENDERED_PATH)?;
        let hash = remaind_hash::sha256_hex(current);
        Ok(rendered.as_deref().map(<[u8]>::trim_ascii) != Some(hash.as_bytes()))
    }

    /// Records a person's edit of `MEMORY.md` (`current`, the whole file) as an event, and
    /// returns the file as the ledger keeps it (redacted): later renders start from it, and
    /// history keeps it in place of what was typed.
    fn record_hand_edit(&self, current: Vec<u8>) -> Result<String> {
        let text = String::from_utf8(current).map_err(|_| Error::Damaged {
            path: self.ctx.join(MEMORY_FILE_PATH),
            reason: "is not UTF-8; save it as UTF-8 text".to_owned(),
        })?;
        // The edit happened outside the store: history learns what the file held before it
        // (the last render, when it can be rebuilt), so a rollback to before the edit brings
        // that back.
        let projection = self.projection()?;
        let rendered = self.read(MEMORY_RENDERED_PATH)?;
        let before = &projection.memory_md;
        if rendered.as_deref().map(<[u8]>::trim_ascii)
            == Some(remaind_hash::sha256_hex(before.as_bytes()).as_bytes())
        {
            self.store
                .adopt(in_store(MEMORY_FILE_PATH), Some(before.as_bytes()))
                .map_err(Error::history(self.ctx.join(MEMORY_FILE_PATH)))?;
        }
        // The marker lines Remaind wrote are kept beside the text, so that no redaction rule
        // (a UUID shape, say) can change the ids in them.
        let ids: Vec<&str> = projection.proposals.iter().map(|p| p.id.as_str()).collect();
        let markers: Vec<(usize, String)> = markers_of(&text, &ids)
            .map(|(at, line)| (at, line.to_owned()))
            .collect();
        let mut memory = json!({"action": "hand_edit", "id": "", "title": "MEMORY.md"});
        let unseen = self.unrendered.borrow().clone();
        if !unseen.is_empty() {
            memory["rebase"] = json!(unseen);
        }
        if !markers.is_empty() {
            memory["markers"] = json!(markers.iter().map(|(_, m)| m).collect::<Vec<_>>());
            memory["marker_lines"] = json!(markers.iter().map(|(at, _)| at).collect::<Vec<_>>());
        }
        self.record(memory, &text, &[], 2)?;
        let (redacted, _) = self.ledger.redactor().redact_str(&text);
        Ok(restore_markers(&redacted, &markers))
    }

    fn append(
        &self,
        verb: &str,
        id: &str,
        title: &str,
        text: &str,
        cites: &[EventId],
        importance: u8,
    ) -> Result<EventId> {
        let mut memory = json!({"action": verb, "id": id, "title": title});
        if !cites.is_empty() {
            memory["cites"] = json!(cites);
        }
        self.record(memory, text, cites, importance)
    }

    /// Appends the memory note `data.memory` = `memory` (as Remaind's own event: the ids and
    /// markers in it are bookkeeping no redaction rule changes), after `memory/pending`.
    fn record(
        &self,
        memory: Value,
        text: &str,
        cites: &[EventId],
        importance: u8,
    ) -> Result<EventId> {
        self.mark_pending()?;
        let mut data = Map::new();
        data.insert("memory".to_owned(), memory);
        let id = self.ledger.append(
            remaind_ledger::AppendRequest::from(NewEvent {
                kind: Some(Kind::Note),
                text: Some(text.to_owned()),
                actor: Some("remaind".to_owned()),
                importance: Some(importance),
                refs: cites.to_vec(),
                data: Some(data),
                ..NewEvent::default()
            })
            .system(),
        )?[0];
        self.unrendered.borrow_mut().push(id);
        Ok(id)
    }

    /// Every memory action in the ledger, oldest first, and the status of every event.
    fn actions(&self) -> Result<(Vec<Action>, Statuses)> {
        let mut out = Vec::new();
        let mut statuses = Statuses::new();
        // Hand edits made without some earlier-recorded actions: (edit, those actions).
        let mut rebased: Vec<(EventId, Vec<EventId>)> = Vec::new();
        for ev in self.ledger.iter()? {
            let ev = ev?;
            statuses.observe(&ev);
            if !ev.resolves.is_empty() {
                out.push(Action {
                    event: ev.id,
                    ts: ev.ts.clone(),
                    verb: "closes".to_owned(),
                    id: String::new(),
                    title: String::new(),
                    text: ev.text.clone().unwrap_or_default(),
                    cites: ev.resolves.clone(),
                });
            }
            // A current blocker or next step is an open loop.
            if matches!(ev.kind, Kind::Blocker | Kind::NextStep) {
                let text = self.event_text(&ev);
                let title = remember_title(&text);
                if !title.is_empty() {
                    out.push(Action {
                        event: ev.id,
                        ts: ev.ts.clone(),
                        verb: format!("loop:{}", ev.kind.as_str()),
                        id: loop_id(&title),
                        title,
                        text: text.trim().to_owned(),
                        cites: Vec::new(),
                    });
                }
                continue;
            }
            // A `remember` event proposes itself: its first line is the title.
            if ev.kind == Kind::Remember {
                let text = self.event_text(&ev);
                let title = remember_title(&text);
                if title.is_empty() {
                    continue;
                }
                out.push(Action {
                    event: ev.id,
                    ts: ev.ts.clone(),
                    verb: "propose".to_owned(),
                    id: proposal_id(&title),
                    title,
                    text: text.trim().to_owned(),
                    cites: vec![ev.id],
                });
                continue;
            }
            if ev.kind != Kind::Note {
                continue;
            }
            let Some(m) = memory_data(&ev) else { continue };
            let field = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
            let title = field("title");
            let mut id = field("id");
            // A runtime adapter proposes by title alone: the id follows from it.
            let proposes = matches!(field("action").as_str(), "propose" | "suggest");
            if id.is_empty() && proposes && !title.trim().is_empty() {
                id = proposal_id(title.trim());
            }
            let cites = m
                .get("cites")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|c| c.as_str()?.parse().ok()).collect())
                .unwrap_or_default();
            let mut text = self.event_text(&ev);
            if let (Some(Value::Array(markers)), Some(Value::Array(lines))) =
                (m.get("markers"), m.get("marker_lines"))
            {
                let markers: Vec<(usize, String)> = lines
                    .iter()
                    .zip(markers)
                    .filter_map(|(at, m)| {
                        Some((usize::try_from(at.as_u64()?).ok()?, m.as_str()?.to_owned()))
                    })
                    .collect();
                text = restore_markers(&text, &markers);
            }
            if let Some(Value::Array(unseen)) = m.get("rebase") {
                let unseen = unseen
                    .iter()
                    .filter_map(|e| e.as_str()?.parse().ok())
                    .collect();
                rebased.push((ev.id, unseen));
            }
            out.push(Action {
                event: ev.id,
                ts: ev.ts.clone(),
                verb: field("action"),
                id,
                title: title.trim().to_owned(),
                // A hand edit is the person's file byte for byte.
                text,
                cites,
            });
        }
        // A hand edit saved while a command ran was made on the file before that command's
        // actions: it takes its place before them, so they apply to the edited file.
        for (edit, unseen) in rebased {
            let (Some(from), Some(to)) = (
                out.iter().position(|a| a.event == edit),
                out.iter().position(|a| unseen.contains(&a.event)),
            ) else {
                continue;
            };
            if to < from {
                let action = out.remove(from);
                out.insert(to, action);
            }
        }
        Ok((out, statuses))
    }

    fn projection(&self) -> Result<Projection> {
        let (actions, statuses) = self.actions()?;
        Ok(project(&actions, &|id| statuses.get(id)))
    }

    /// An event's text, read back from the artifact store when it was routed there.
    fn event_text(&self, ev: &Event) -> String {
        let text = ev.text.clone().unwrap_or_default();
        let Some(routed) = ev.artifact.iter().find(|a| a.field == "text") else {
            return text;
        };
        self.ledger
            .artifacts()
            .get(&routed.sha256)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .unwrap_or(text)
    }

    /// Every proposal, in the order first proposed.
    pub fn proposals(&self) -> Result<Vec<Proposal>> {
        Ok(self.projection()?.proposals)
    }

    /// The proposal `id` names: its whole id, or its slug when one proposal has it.
    pub fn proposal(&self, id: &str) -> Result<Proposal> {
        let id = id.trim();
        let mut found: Vec<Proposal> = self
            .proposals()?
            .into_iter()
            .filter(|p| !id.is_empty() && (p.id == id || p.id.starts_with(&format!("{id}--"))))
            .collect();
        match found.len() {
            1 => Ok(found.remove(0)),
            0 => Err(Error::NotFound {
                what: "proposal",
                id: id.to_owned(),
                hint: "`remaind memory list` shows the ids",
            }),
            n => Err(Error::invalid(
                "id",
                format!("`{id}` names {n} proposals; give the whole id"),
            )),
        }
    }

    /// Proposes `text` under `title`. The same title proposes the same memory again (its
    /// text replaced); a rejected or accepted one is back under review.
    pub fn propose(&self, title: &str, text: &str) -> Result<Proposal> {
        self.propose_citing(title, text, &[])
    }

    /// [`Memory::propose`], resting on the ledger events `cites`: when a newer event
    /// supersedes or resolves one of them, the memory is shown as no longer current.
    pub fn propose_citing(&self, title: &str, text: &str, cites: &[EventId]) -> Result<Proposal> {
        let title = self.redacted_title(check_title(title)?);
        if text.trim().is_empty() {
            return Err(Error::invalid("text", "is empty; say what to remember"));
        }
        self.check_cites(cites)?;
        let id = proposal_id(&title);
        self.append("propose", &id, &title, text.trim(), cites, 1)?;
        self.sync()?;
        self.proposal(&id)
    }

    /// `title` as the ledger will keep it: an id is made from the redacted title, so no
    /// secret in a title reaches a file name.
    fn redacted_title(&self, title: &str) -> String {
        self.ledger.redactor().redact_str(title).0.into_owned()
    }

    fn check_cites(&self, cites: &[EventId]) -> Result<()> {
        for &c in cites {
            if self.ledger.get(c.seq())?.is_none() {
                return Err(Error::invalid(
                    "cites",
                    format!("{c} is not in the ledger; cite an event `remaind search` shows"),
                ));
            }
        }
        Ok(())
    }

    /// The continuity flush: suggests each item whose title was never proposed (a memory
    /// already under review, accepted or rejected is left to the person), at most
    /// 16 (`FLUSH_MAX`) per call, and writes their proposal files as one unit. Cheap on any
    /// ledger: what is known is read from the memory files, not from a pass over the
    /// ledger (a suggestion of a known title changes nothing a person decided, so a stale
    /// file only costs an event). Returns the new proposals.
    pub fn flush(&self, items: &[FlushItem]) -> Result<Vec<Proposal>> {
        let archived = list_dir(&self.ctx.join(MEMORY_ARCHIVE_DIR))?;
        let memory_md = self.read(MEMORY_FILE_PATH)?.unwrap_or_default();
        let memory_md = String::from_utf8_lossy(&memory_md);
        let mut added: Vec<Proposal> = Vec::new();
        for item in items {
            if added.len() >= FLUSH_MAX {
                break;
            }
            let Ok(title) = check_title(&item.title) else {
                continue;
            };
            let title = self.redacted_title(title);
            let id = proposal_id(&title);
            let text = item.text.trim();
            let known = added.iter().any(|p| p.id == id)
                || archived.iter().any(|n| n.starts_with(&format!("{id}--")))
                || memory_md.contains(&format!("<!-- {id} "))
                || self
                    .read(&format!("{MEMORY_PROPOSALS_DIR}/{id}.md"))?
                    .is_some();
            if text.is_empty() || known {
                continue;
            }
            let event = self.append("suggest", &id, &title, text, &item.cites, 1)?;
            added.push(Proposal {
                id,
                title,
                text: text.to_owned(),
                status: Status::Proposed,
                events: vec![event],
                cites: item.cites.clone(),
                contradicted_by: None,
            });
        }
        let files: Vec<(String, String)> = added
            .iter()
            .map(|p| {
                let rel = format!("{MEMORY_PROPOSALS_DIR}/{}.md", p.id);
                (in_store(&rel).to_owned(), proposal_file(p))
            })
            .collect();
        if !files.is_empty() {
            let changes: Vec<(&str, Option<&[u8]>)> = files
                .iter()
                .map(|(rel, body)| (rel.as_str(), Some(body.as_bytes())))
                .collect();
            self.store
                .change_all(&changes)
                .map_err(Error::history(self.ctx.join(MEMORY_PROPOSALS_DIR)))?;
        }
        if !added.is_empty() {
            self.clear_pending()?;
        }
        Ok(added)
    }

    /// Replaces the text of proposal `id` (under review or accepted; an accepted one changes
    /// in `MEMORY.md`, where a person's hand edits around it are kept).
    pub fn edit(&self, id: &str, text: &str) -> Result<Proposal> {
        if text.trim().is_empty() {
            return Err(Error::invalid("text", "is empty; say what to remember"));
        }
        let p = self.proposal(id)?;
        if p.status == Status::Rejected {
            return Err(Error::invalid(
                "id",
                format!("`{}` is rejected; propose it again to review it", p.id),
            ));
        }
        if p.text == text.trim() {
            return Ok(p);
        }
        let importance = if p.status == Status::Accepted { 2 } else { 1 };
        self.append("edit", &p.id, &p.title, text.trim(), &[], importance)?;
        self.sync()?;
        self.proposal(&p.id)
    }

    /// Accepts proposal `id` into `MEMORY.md`.
    pub fn accept(&self, id: &str) -> Result<Proposal> {
        self.decide(id, "accept", Status::Accepted)
    }

    /// Rejects proposal `id`: it leaves review for the archive.
    pub fn reject(&self, id: &str) -> Result<Proposal> {
        self.decide(id, "reject", Status::Rejected)
    }

    fn decide(&self, id: &str, verb: &str, to: Status) -> Result<Proposal> {
        let p = self.proposal(id)?;
        if p.status != Status::Proposed {
            return Err(Error::invalid(
                "id",
                format!(
                    "`{}` is {}, not under review; propose it again to review it",
                    p.id,
                    if p.status == Status::Accepted {
                        "accepted"
                    } else {
                        "rejected"
                    }
                ),
            ));
        }
        let importance = if to == Status::Accepted { 2 } else { 1 };
        self.append(verb, &p.id, &p.title, &p.text, &[], importance)?;
        self.sync()?;
        self.proposal(&p.id)
    }

    /// Rewrites every memory file from the ledger: `MEMORY.md` (from the last hand edit, then
    /// the memories accepted since, contradicted ones marked), one file per proposal under
    /// review, one archive file per accept, reject or edit. The changed files are replaced
    /// as one unit with history (all old or all new after a crash; `rollback` covers them);
    /// files that match are left alone.
    ///
    /// A person may save `MEMORY.md` at any moment: an edit not yet in the ledger is recorded
    /// first, and the render replaces the file only if it still holds what was read (else the
    /// new edit is recorded and the render made again), so no edit is ever overwritten.
    pub fn sync(&self) -> Result<()> {
        let mut attempts = 0;
        loop {
            let current = self.read_settled()?;
            let recorded_as = match &current {
                Some(bytes) if self.unrecorded(Some(bytes))? => {
                    Some(self.record_hand_edit(bytes.clone())?)
                }
                _ => None,
            };
            match self.render(current.as_deref(), recorded_as.as_deref()) {
                Err(Error::History {
                    source: remaind_atomic::Error::Changed { .. },
                    ..
                }) if attempts < SYNC_ATTEMPTS => attempts += 1,
                rendered => {
                    rendered?;
                    break;
                }
            }
        }
        self.unrendered.borrow_mut().clear();
        self.clear_pending()
    }

    /// `MEMORY.md` as a person left it: read again while it is empty though the last render
    /// was not (a save in place between its truncation and its write), for at most
    /// [`EMPTY_SAVE_STEPS`] × [`EMPTY_SAVE_STEP`]; a file still empty then was emptied on
    /// purpose.
    fn read_settled(&self) -> Result<Option<Vec<u8>>> {
        let mut current = self.read(MEMORY_FILE_PATH)?;
        for _ in 0..EMPTY_SAVE_STEPS {
            match &current {
                Some(bytes) if bytes.is_empty() && self.unrecorded(Some(bytes))? => {
                    std::thread::sleep(EMPTY_SAVE_STEP);
                    current = self.read(MEMORY_FILE_PATH)?;
                }
                _ => break,
            }
        }
        Ok(current)
    }

    /// Writes the projection of the ledger, if `MEMORY.md` still holds `current`; history
    /// keeps `recorded_as` (the redacted edit) in place of `current` when given.
    fn render(&self, current: Option<&[u8]>, recorded_as: Option<&str>) -> Result<()> {
        let Projection {
            proposals,
            archive,
            memory_md,
            loops,
        } = self.projection()?;
        let mut wanted: Vec<(String, Vec<u8>)> = Vec::new();
        let mut keep = Vec::new();
        for p in proposals.iter().filter(|p| p.status == Status::Proposed) {
            let name = format!("{}.md", p.id);
            wanted.push((
                format!("{MEMORY_PROPOSALS_DIR}/{name}"),
                proposal_file(p).into_bytes(),
            ));
            keep.push(name);
        }
        let mut keep_loops = Vec::new();
        for (name, body) in loops {
            wanted.push((format!("{MEMORY_LOOPS_DIR}/{name}"), body.into_bytes()));
            keep_loops.push(name);
        }
        for (name, body) in archive {
            wanted.push((format!("{MEMORY_ARCHIVE_DIR}/{name}"), body.into_bytes()));
        }
        let hash = remaind_hash::sha256_hex(memory_md.as_bytes());
        wanted.push((MEMORY_FILE_PATH.to_owned(), memory_md.into_bytes()));
        wanted.push((
            MEMORY_RENDERED_PATH.to_owned(),
            format!("{hash}\n").into_bytes(),
        ));
        let mut changes: Vec<(String, Option<&[u8]>)> = Vec::new();
        for (rel, bytes) in &wanted {
            let now = if rel == MEMORY_FILE_PATH {
                current.map(<[u8]>::to_vec)
            } else {
                self.read(rel)?
            };
            if now.as_deref() != Some(bytes.as_slice()) {
                changes.push((in_store(rel).to_owned(), Some(bytes)));
            }
        }
        // Proposals no longer under review and loops no longer open leave their folders.
        for (folder, kept) in [
            (MEMORY_PROPOSALS_DIR, &keep),
            (MEMORY_LOOPS_DIR, &keep_loops),
        ] {
            for name in list_dir(&self.ctx.join(folder))? {
                if name.ends_with(".md") && !kept.contains(&name) {
                    let rel = format!("{folder}/{name}");
                    changes.push((in_store(&rel).to_owned(), None));
                }
            }
        }
        if changes.is_empty() {
            return Ok(());
        }
        let guard = Guard {
            rel: Utf8Path::new(in_store(MEMORY_FILE_PATH)),
            holds: current,
            record_as: recorded_as.map(str::as_bytes),
        };
        self.store
            .change_all_if(&changes, guard)
            .map_err(Error::history(self.ctx.join(MEMORY_DIR)))?;
        Ok(())
    }

    /// The memory tree of `MEMORY.md` and the project's `CLAUDE.md` and `AGENTS.md`, in
    /// document order. Compiled once per version of each file: the compiled tree is kept in
    /// `db/memory_tree` and a file is compiled again only when its bytes change.
    pub fn nodes(&self) -> Result<Vec<Node>> {
        self.compiled(true, self.vocabulary()?)
    }

    /// The nodes; with `texts` false a node read from the cache has an empty `text` (a
    /// listing needs none, and cutting 10 MB of text into nodes is most of its cost).
    fn compiled(&self, texts: bool, vocabulary: TokenizerName) -> Result<Vec<Node>> {
        let mut sources: Vec<(String, String)> = Vec::new();
        let memory_rel = format!(
            "{}/{MEMORY_FILE_PATH}",
            self.ctx.root().file_name().unwrap_or(".context")
        );
        // Before the first action there is no file yet: the tree shows what it will hold.
        let memory_md = match self.read(MEMORY_FILE_PATH)? {
            Some(bytes) => text_of(bytes),
            None => self.projection()?.memory_md,
        };
        sources.push((memory_rel, memory_md));
        let configured = self.tree_paths()?;
        if let Some(project) = self.ctx.root().parent() {
            let names = ["CLAUDE.md", "AGENTS.md"]
                .into_iter()
                .chain(configured.iter().map(String::as_str));
            for name in names {
                // A missing, unreadable or outside instruction file is simply not in the tree.
                if let Some(bytes) = read_inside(project, name) {
                    sources.push((name.to_owned(), text_of(bytes)));
                }
            }
        }
        // The tree is kept on disk and shown to agents: what a rule calls secret is redacted
        // first, as in every event (a person's unrecorded edit of MEMORY.md included).
        let redactor = self.ledger.redactor();
        for (_, text) in &mut sources {
            if let std::borrow::Cow::Owned(redacted) = redactor.redact_str(text).0 {
                *text = redacted;
            }
        }
        let path = self.ctx.join(MEMORY_TREE_PATH);
        // An unreadable or foreign cache is rebuilt, never trusted.
        let mut cached = remaind_fs::read_file(&path)
            .map_err(Error::file(&path))?
            .and_then(|b| cache::parse(&b, vocabulary))
            .unwrap_or_default();
        let mut stale = cached.len() != sources.len();
        let mut sections = Vec::with_capacity(sources.len());
        for (file, text) in &sources {
            let (section, compiled) =
                cache::section_for(file, text, cached.remove(file), texts, vocabulary);
            stale |= compiled;
            sections.push(section);
        }
        if stale {
            let (dir, name) = split(&path);
            remaind_fs::ensure_dir(dir, true).map_err(Error::file(dir))?;
            remaind_fs::replace_file(dir, name, cache::render(&sections, vocabulary).as_bytes())
                .map_err(Error::file(&path))?;
        }
        Ok(sections.into_iter().flat_map(|s| s.nodes).collect())
    }

    fn uses(&self) -> Result<HashMap<String, Vec<jiff::Timestamp>>> {
        let Some(bytes) = self.read(MEMORY_USES_PATH)? else {
            return Ok(HashMap::new());
        };
        let raw: BTreeMap<String, Vec<String>> =
            serde_json::from_slice(&bytes).map_err(|e| Error::Damaged {
                path: self.ctx.join(MEMORY_USES_PATH),
                reason: format!("{e}; delete it to start every node cold"),
            })?;
        Ok(raw
            .into_iter()
            .map(|(id, ts)| (id, ts.iter().filter_map(|t| t.parse().ok()).collect()))
            .collect())
    }

    /// The tokenizer `remaind monitor` counts with (`schemas/thresholds.json`'s
    /// `tokenizer`; `o200k_base` when it names none).
    pub fn vocabulary(&self) -> Result<TokenizerName> {
        let path = self.ctx.join(THRESHOLDS_PATH);
        let Some(bytes) = remaind_fs::read_file(&path).map_err(Error::file(&path))? else {
            return Ok(TokenizerName::default());
        };
        let value: Value = serde_json::from_slice(&bytes).map_err(|e| Error::Config {
            path: path.clone(),
            reason: format!("{e}; `remaind init --force` restores the default"),
        })?;
        match value.get("tokenizer").and_then(Value::as_str) {
            None => Ok(TokenizerName::default()),
            Some(name) => name.parse::<TokenizerName>().map_err(|e| Error::Config {
                path,
                reason: e.to_string(),
            }),
        }
    }

    /// The project files `schemas/memory.json` adds to the tree (`tree_paths`), in order;
    /// none when the file is absent.
    pub fn tree_paths(&self) -> Result<Vec<String>> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Config {
            #[serde(default)]
            tree_paths: Vec<String>,
        }
        let path = self.ctx.join(MEMORY_CONFIG_PATH);
        let Some(bytes) = remaind_fs::read_file(&path).map_err(Error::file(&path))? else {
            return Ok(Vec::new());
        };
        let bad = |reason: String| Error::Config {
            path: path.clone(),
            reason,
        };
        let config: Config = serde_json::from_slice(&bytes).map_err(|e| {
            bad(format!(
                "{e}; expected {{\"tree_paths\": [\"docs/conventions.md\"]}}"
            ))
        })?;
        let mut out: Vec<String> = Vec::new();
        for (i, p) in config.tree_paths.into_iter().enumerate() {
            let rel = camino::Utf8Path::new(&p);
            let escapes = rel.is_absolute()
                || rel
                    .components()
                    .any(|c| !matches!(c, camino::Utf8Component::Normal(_)))
                || p.trim().is_empty();
            if escapes {
                return Err(bad(format!(
                    "tree_paths[{i}] `{p}` must be a path inside the project, relative to it (no `..`, not absolute)"
                )));
            }
            if !["CLAUDE.md", "AGENTS.md"].contains(&p.as_str()) && !out.contains(&p) {
                out.push(p);
            }
        }
        Ok(out)
    }

    /// Every use of every node: the recorded openings and matches, and each citation (a
    /// node id written in the text of one of the last [`CITATION_WINDOW`] events, at that
    /// event's time).
    fn heat(&self) -> Result<HashMap<String, Vec<jiff::Timestamp>>> {
        let mut uses = self.uses()?;
        let (head, _) = self.ledger.head()?;
        let from = head.saturating_sub(CITATION_WINDOW as u64) + 1;
        for ev in self
            .ledger
            .range(from, CITATION_WINDOW, &remaind_events::Filter::default())?
        {
            let Some(text) = ev.text.as_deref() else {
                continue;
            };
            let Ok(at) = ev.ts.parse::<jiff::Timestamp>() else {
                continue;
            };
            for id in node_ids_in(text) {
                uses.entry(id.to_owned()).or_default().push(at);
            }
        }
        Ok(uses)
    }

    /// The tree, hottest nodes first, within `budget` tokens of listing (`None`: all).
    pub fn tree(&self, budget: Option<u64>) -> Result<Tree> {
        // Read once: it decides both the cached counts and the listing's.
        let vocabulary = self.vocabulary()?;
        Ok(tree::select_with(
            &self.compiled(false, vocabulary)?,
            &self.heat()?,
            jiff::Timestamp::now(),
            budget,
            vocabulary,
        ))
    }

    /// The nodes whose text holds every word of `query` (ignoring case), hottest first,
    /// within `budget` tokens of listing. A match is a use: every node listed warms.
    pub fn tree_matching(&self, query: &str, budget: Option<u64>) -> Result<Tree> {
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        if words.is_empty() {
            return Err(Error::invalid("query", "is empty; give a word to look for"));
        }
        let vocabulary = self.vocabulary()?;
        let matched: Vec<Node> = self
            .compiled(true, vocabulary)?
            .into_iter()
            .filter(|n| {
                let text = n.text.to_lowercase();
                words.iter().all(|w| text.contains(w.as_str()))
            })
            .collect();
        let now = jiff::Timestamp::now();
        let tree = tree::select_with(&matched, &self.heat()?, now, budget, vocabulary);
        let listed: Vec<String> = tree.nodes.iter().map(|n| n.id.clone()).collect();
        self.warm(&listed)?;
        Ok(tree)
    }

    /// Node `id` in full. Opening a node is a use: it warms.
    pub fn get(&self, id: &str) -> Result<Node> {
        let node = self
            .nodes()?
            .into_iter()
            .find(|n| n.id == id)
            .ok_or_else(|| Error::NotFound {
                what: "node",
                id: id.to_owned(),
                hint: "`remaind memory tree` lists the node ids",
            })?;
        self.warm(std::slice::from_ref(&node.id))?;
        Ok(node)
    }

    /// Records a use of each node in `ids` now. Uses are local (they only order the tree),
    /// so `uses.json` is replaced atomically but kept out of history.
    fn warm(&self, ids: &[String]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut uses: BTreeMap<String, Vec<String>> = self
            .uses()?
            .into_iter()
            .map(|(k, v)| (k, v.iter().map(ToString::to_string).collect()))
            .collect();
        let now = jiff::Timestamp::now().to_string();
        for id in ids {
            let list = uses.entry(id.clone()).or_default();
            list.push(now.clone());
            let excess = list.len().saturating_sub(USES_KEPT);
            list.drain(..excess);
        }
        let bytes = serde_json::to_vec_pretty(&uses).unwrap_or_default();
        let path = self.ctx.join(MEMORY_USES_PATH);
        let (dir, name) = split(&path);
        remaind_fs::replace_file(dir, name, &bytes).map_err(Error::file(&path))
    }
}

/// The bytes of the project file `rel` (a path inside `project`), read only when its real
/// path (links resolved) is inside the project too: a committed link to `/etc` or a home
/// folder never brings an outside file into the tree. `None` when missing or outside.
fn read_inside(project: &Utf8Path, rel: &str) -> Option<Vec<u8>> {
    let root = project.canonicalize_utf8().ok()?;
    let real = project.join(rel).canonicalize_utf8().ok()?;
    if !real.starts_with(&root) || real == root {
        return None;
    }
    remaind_fs::read_file(&real).ok().flatten()
}

/// `bytes` as text without a copy when they are UTF-8 (invalid bytes become U+FFFD).
fn text_of(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The 12-hex-digit words of `text` (what node ids look like).
fn node_ids_in(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| {
            w.len() == 12
                && w.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
}

fn check_title(title: &str) -> Result<&str> {
    let title = title.trim();
    if title.is_empty() {
        return Err(Error::invalid("title", "is empty; give a short title"));
    }
    if title.chars().count() > TITLE_CHARS || title.contains('\n') {
        return Err(Error::invalid(
            "title",
            format!("must be one line of at most {TITLE_CHARS} characters"),
        ));
    }
    Ok(title)
}

fn open_store(ctx: &ContextDir) -> Result<HistoryStore> {
    let dir = ctx.join(MEMORY_DIR);
    HistoryStore::open(&dir).map_err(Error::history(dir))
}

/// The `MEMORY.md` text a resume packet shows: the file as written (hand edits included),
/// with every memory whose cited event `status` reports superseded or resolved marked as no
/// longer current; `None` when there is no file or it holds no memory yet. When an action
/// was recorded but the files were not rewritten after it (a command was stopped), the text
/// comes from the ledger instead. Reads without following a link and writes nothing.
pub fn memory_for_packet(
    ctx: &ContextDir,
    ledger: &Ledger,
    status: &mut dyn FnMut(EventId) -> Option<EventStatus>,
) -> Result<Option<String>> {
    let dir = ctx.join(MEMORY_DIR);
    if !remaind_fs::ensure_dir(&dir, false).map_err(Error::file(&dir))? {
        return Ok(None);
    }
    // The store is opened only to read the ledger's view of a lagging MEMORY.md: a resume
    // otherwise reads one file.
    let text = if pending(ctx)? {
        Memory::reader(ctx, ledger)?.projection()?.memory_md
    } else {
        let path = ctx.join(MEMORY_FILE_PATH);
        let Some(bytes) = remaind_fs::read_file(&path).map_err(Error::file(&path))? else {
            return Ok(None);
        };
        String::from_utf8_lossy(&bytes).into_owned()
    };
    if text.trim().is_empty() || text == EMPTY_MEMORY_MD {
        return Ok(None);
    }
    Ok(Some(mark_contradicted(&text, status)))
}

/// Why the memory files lag the ledger, if they do: an action was recorded and the files
/// were not rewritten after it (a command was stopped between the two; `memory/pending` is
/// there). `None` when they are in line or there is no `memory/` folder. A rollback of the
/// memory files is not a lag: they are what the person restored. Writes nothing; any
/// `remaind memory` command brings the files in line.
pub fn lag(ctx: &ContextDir) -> Result<Option<String>> {
    let dir = ctx.join(MEMORY_DIR);
    if !remaind_fs::ensure_dir(&dir, false).map_err(Error::file(&dir))? {
        return Ok(None);
    }
    Ok(pending(ctx)?.then(|| {
        "a memory action was recorded in the ledger but the memory files were not rewritten \
         after it (the command was stopped)"
            .to_owned()
    }))
}

/// Whether `memory/pending` is there: an action was recorded and the files may lag it.
fn pending(ctx: &ContextDir) -> Result<bool> {
    let path = ctx.join(MEMORY_PENDING_PATH);
    Ok(remaind_fs::read_file(&path)
        .map_err(Error::file(&path))?
        .is_some())
}

/// Every history point of the memory files (`memory/…`, oldest first); empty when there is
/// no `memory/` folder yet.
pub fn history(ctx: &ContextDir) -> Result<Vec<HistoryPoint>> {
    let dir = ctx.join(MEMORY_DIR);
    if !remaind_fs::ensure_dir(&dir, false).map_err(Error::file(&dir))? {
        return Ok(Vec::new());
    }
    open_store(ctx)?.list().map_err(Error::history(dir))
}

/// Restores every memory file that history knows to its version as of `to` (removed if it
/// did not exist then), as one unit, keeping the current versions in history so the restore
/// can be undone ([`RestoreSummary::undo_to`]). `None` when there is no `memory/` folder.
pub fn restore_to(ctx: &ContextDir, to: Timestamp) -> Result<Option<RestoreSummary>> {
    let dir = ctx.join(MEMORY_DIR);
    if !remaind_fs::ensure_dir(&dir, false).map_err(Error::file(&dir))? {
        return Ok(None);
    }
    let store = open_store(ctx)?;
    let files = store.tracked().map_err(Error::history(dir.clone()))?;
    store
        .restore_to(files, to)
        .map(Some)
        .map_err(Error::history(dir))
}

fn split(path: &Utf8Path) -> (&Utf8Path, &str) {
    (
        path.parent().unwrap_or(Utf8Path::new(".")),
        path.file_name().unwrap_or(""),
    )
}

/// The names in `dir`, tolerating entries that vanish while it is read.
fn list_dir(dir: &Utf8Path) -> Result<Vec<String>> {
    let entries = match dir.read_dir_utf8() {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(Error::File {
                path: dir.to_owned(),
                source: remaind_fs::Error::Io {
                    path: dir.to_owned(),
                    action: "cannot list",
                    source: e,
                },
            });
        }
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok().map(|e| e.file_name().to_owned()))
        .collect();
    names.sort();
    Ok(names)
}
