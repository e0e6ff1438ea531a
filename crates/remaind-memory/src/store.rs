//! Memory proposals and `MEMORY.md`, projected from the ledger's memory events.
//!
//! The ledger is the authority: proposing, accepting, rejecting and a person's hand edit of
//! `MEMORY.md` are `note` events whose `data.memory` says what happened. The files under
//! `memory/` are derived from those events and rewritten atomically after each action.

use std::collections::{BTreeMap, HashMap};

use camino::Utf8Path;
use remaind_fs::ContextDir;
use remaind_fs::layout::{
    MEMORY_ARCHIVE_DIR, MEMORY_DIR, MEMORY_FILE_PATH, MEMORY_PROPOSALS_DIR, MEMORY_RENDERED_PATH,
    MEMORY_USES_PATH,
};
use remaind_ledger::{Event, EventId, Kind, Ledger, NewEvent};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::tree::{self, Node, Tree};

/// Longest proposal title, in characters.
const TITLE_CHARS: usize = 120;
/// Longest slug, in bytes.
const SLUG_BYTES: usize = 48;
/// Uses kept per node (the oldest weigh almost nothing).
const USES_KEPT: usize = 32;
/// The namespace of proposal ids (UUID v5 of the title under it).
const PROPOSAL_NAMESPACE: uuid::Uuid =
    uuid::Uuid::from_u128(0x6d65_6d6f_7279_4072_656d_6169_6e64_0001);

/// Where a proposal stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Awaiting review: a file under `memory/proposals/`.
    Proposed,
    /// Accepted: part of `MEMORY.md`.
    Accepted,
    /// Rejected: only in the archive.
    Rejected,
}

/// One memory, as the ledger's events leave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Proposal {
    /// `{slug}--{uuid-v5 of the title}`: the same title is always the same proposal; two
    /// titles with the same slug never share an id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// What to remember.
    pub text: String,
    /// Where it stands.
    pub status: Status,
    /// The events that proposed, accepted or rejected it, oldest first.
    pub events: Vec<EventId>,
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

/// One memory action recorded in the ledger.
#[derive(Debug, Clone)]
struct Action {
    event: EventId,
    ts: String,
    verb: String,
    id: String,
    title: String,
    text: String,
}

fn memory_data(ev: &Event) -> Option<&Map<String, Value>> {
    ev.data.as_ref()?.get("memory")?.as_object()
}

/// The long-term memory of one `.context/` folder.
#[derive(Debug)]
pub struct Memory<'l> {
    ctx: ContextDir,
    ledger: &'l Ledger,
}

impl<'l> Memory<'l> {
    /// Opens the memory of `ctx`, whose ledger is `ledger`. A hand edit of `MEMORY.md` since
    /// it was last written is recorded as an event first (never lost) and the files are
    /// brought in line with the ledger; otherwise nothing is written until an action.
    pub fn open(ctx: &ContextDir, ledger: &'l Ledger) -> Result<Memory<'l>> {
        let memory = Memory {
            ctx: ctx.clone(),
            ledger,
        };
        if memory.record_hand_edit()? {
            memory.sync()?;
        }
        Ok(memory)
    }

    fn read(&self, rel: &str) -> Result<Option<Vec<u8>>> {
        let path = self.ctx.join(rel);
        remaind_fs::read_file(&path).map_err(Error::file(&path))
    }

    fn write(&self, rel: &str, bytes: &[u8]) -> Result<()> {
        let path = self.ctx.join(rel);
        let (dir, name) = split(&path);
        remaind_fs::replace_file(dir, name, bytes).map_err(Error::file(&path))
    }

    /// When `MEMORY.md` differs from what was last written, a person edited it: the whole
    /// file goes into the ledger, and later renders start from it.
    fn record_hand_edit(&self) -> Result<bool> {
        let Some(current) = self.read(MEMORY_FILE_PATH)? else {
            return Ok(false);
        };
        let rendered = self.read(MEMORY_RENDERED_PATH)?;
        let hash = remaind_fs::sha256_hex(&current);
        if rendered.as_deref().map(<[u8]>::trim_ascii) == Some(hash.as_bytes()) {
            return Ok(false);
        }
        let text = String::from_utf8(current).map_err(|_| Error::Damaged {
            path: self.ctx.join(MEMORY_FILE_PATH),
            reason: "is not UTF-8; save it as UTF-8 text".to_owned(),
        })?;
        self.append("hand_edit", "", "MEMORY.md", &text, 2)?;
        Ok(true)
    }

    fn append(
        &self,
        verb: &str,
        id: &str,
        title: &str,
        text: &str,
        importance: u8,
    ) -> Result<EventId> {
        let mut data = Map::new();
        data.insert(
            "memory".to_owned(),
            json!({"action": verb, "id": id, "title": title}),
        );
        Ok(self.ledger.append(NewEvent {
            kind: Some(Kind::Note),
            text: Some(text.to_owned()),
            actor: Some("remaind".to_owned()),
            importance: Some(importance),
            data: Some(data),
            ..NewEvent::default()
        })?)
    }

    /// Every memory action in the ledger, oldest first.
    fn actions(&self) -> Result<Vec<Action>> {
        let mut out = Vec::new();
        for ev in self.ledger.iter()? {
            let ev = ev?;
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
                });
                continue;
            }
            if ev.kind != Kind::Note {
                continue;
            }
            let Some(m) = memory_data(&ev) else { continue };
            let field = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
            let text = self.event_text(&ev);
            out.push(Action {
                event: ev.id,
                ts: ev.ts.clone(),
                verb: field("action"),
                id: field("id"),
                title: field("title"),
                text,
            });
        }
        Ok(out)
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
        Ok(project(&self.actions()?).0)
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
        if text.trim().is_empty() {
            return Err(Error::invalid("text", "is empty; say what to remember"));
        }
        let id = proposal_id(title);
        self.append("propose", &id, title, text.trim(), 1)?;
        self.sync()?;
        self.proposal(&id)
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
        self.append(verb, &p.id, &p.title, &p.text, importance)?;
        self.sync()?;
        self.proposal(&p.id)
    }

    /// Rewrites every memory file from the ledger: `MEMORY.md` (from the last hand edit, then
    /// the memories accepted since), one file per proposal under review, one archive file per
    /// accept or reject. Files that match are left alone.
    pub fn sync(&self) -> Result<()> {
        for dir in [MEMORY_DIR, MEMORY_PROPOSALS_DIR, MEMORY_ARCHIVE_DIR] {
            let path = self.ctx.join(dir);
            remaind_fs::ensure_dir(&path, true).map_err(Error::file(&path))?;
        }
        let actions = self.actions()?;
        let (proposals, archive, memory_md) = project(&actions);
        for p in proposals.iter().filter(|p| p.status == Status::Proposed) {
            let rel = format!("{MEMORY_PROPOSALS_DIR}/{}.md", p.id);
            self.write_if_changed(&rel, proposal_file(p).as_bytes())?;
        }
        // Proposals no longer under review leave the folder.
        let dir = self.ctx.join(MEMORY_PROPOSALS_DIR);
        let keep: Vec<String> = proposals
            .iter()
            .filter(|p| p.status == Status::Proposed)
            .map(|p| format!("{}.md", p.id))
            .collect();
        for name in list_dir(&dir)? {
            if name.ends_with(".md") && !keep.contains(&name) {
                remaind_fs::remove_file(&dir, &name).map_err(Error::file(dir.join(&name)))?;
            }
        }
        for (name, body) in &archive {
            self.write_if_changed(&format!("{MEMORY_ARCHIVE_DIR}/{name}"), body.as_bytes())?;
        }
        self.write_if_changed(MEMORY_FILE_PATH, memory_md.as_bytes())?;
        let hash = remaind_fs::sha256_hex(memory_md.as_bytes());
        self.write_if_changed(MEMORY_RENDERED_PATH, format!("{hash}\n").as_bytes())?;
        Ok(())
    }

    fn write_if_changed(&self, rel: &str, bytes: &[u8]) -> Result<()> {
        if self.read(rel)?.as_deref() == Some(bytes) {
            return Ok(());
        }
        self.write(rel, bytes)
    }

    /// The memory tree of `MEMORY.md` and the project's `CLAUDE.md` and `AGENTS.md`, in
    /// document order.
    pub fn nodes(&self) -> Result<Vec<Node>> {
        let mut nodes = Vec::new();
        let memory_rel = format!(
            "{}/{MEMORY_FILE_PATH}",
            self.ctx.root().file_name().unwrap_or(".context")
        );
        // Before the first action there is no file yet: the tree shows what it will hold.
        let memory_md = match self.read(MEMORY_FILE_PATH)? {
            Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            None => project(&self.actions()?).2,
        };
        nodes.extend(tree::compile(&memory_rel, &memory_md));
        if let Some(project) = self.ctx.root().parent() {
            for name in ["CLAUDE.md", "AGENTS.md"] {
                let path = project.join(name);
                // A missing (or unreadable) instruction file is simply not in the tree.
                if let Ok(Some(bytes)) = remaind_fs::read_file(&path) {
                    nodes.extend(tree::compile(name, &String::from_utf8_lossy(&bytes)));
                }
            }
        }
        Ok(nodes)
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

    /// The tree, hottest nodes first, within `budget` tokens of listing (`None`: all).
    pub fn tree(&self, budget: Option<u64>) -> Result<Tree> {
        Ok(tree::select(
            &self.nodes()?,
            &self.uses()?,
            jiff::Timestamp::now(),
            budget,
        ))
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
        let mut uses: BTreeMap<String, Vec<String>> = self
            .uses()?
            .into_iter()
            .map(|(k, v)| (k, v.iter().map(ToString::to_string).collect()))
            .collect();
        let list = uses.entry(node.id.clone()).or_default();
        list.push(jiff::Timestamp::now().to_string());
        let excess = list.len().saturating_sub(USES_KEPT);
        list.drain(..excess);
        let bytes = serde_json::to_vec_pretty(&uses).unwrap_or_default();
        let dir = self.ctx.join(MEMORY_DIR);
        remaind_fs::ensure_dir(&dir, true).map_err(Error::file(&dir))?;
        self.write(MEMORY_USES_PATH, &bytes)?;
        Ok(node)
    }
}

/// The `MEMORY.md` text a resume packet shows: the file as written (hand edits included),
/// or `None` when there is no file or it holds no memory yet. Read without following a
/// link and without writing anything.
pub fn memory_for_packet(ctx: &ContextDir) -> Result<Option<String>> {
    let path = ctx.join(MEMORY_FILE_PATH);
    let Some(bytes) = remaind_fs::read_file(&path).map_err(Error::file(&path))? else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let empty = project(&[]).2;
    Ok((!text.trim().is_empty() && text != empty).then_some(text))
}

/// Folds the actions into proposals, the archive files (name → body) and `MEMORY.md`.
fn project(actions: &[Action]) -> (Vec<Proposal>, Vec<(String, String)>, String) {
    let mut order: Vec<String> = Vec::new();
    let mut by_id: HashMap<String, Proposal> = HashMap::new();
    let mut archive = Vec::new();
    let mut base: Option<String> = None;
    // Accepted memories since the base, in acceptance order.
    let mut accepted: Vec<String> = Vec::new();
    for a in actions {
        match a.verb.as_str() {
            "hand_edit" => {
                base = Some(a.text.clone());
                accepted.clear();
                for p in by_id.values_mut() {
                    // What the person kept is in the base now.
                    if p.status == Status::Accepted {
                        p.events.push(a.event);
                    }
                }
            }
            "propose" => {
                let p = by_id.entry(a.id.clone()).or_insert_with(|| {
                    order.push(a.id.clone());
                    Proposal {
                        id: a.id.clone(),
                        title: a.title.clone(),
                        text: String::new(),
                        status: Status::Proposed,
                        events: Vec::new(),
                    }
                });
                p.text = a.text.clone();
                p.title = a.title.clone();
                p.status = Status::Proposed;
                p.events.push(a.event);
                accepted.retain(|id| id != &a.id);
            }
            verb @ ("accept" | "reject") => {
                let Some(p) = by_id.get_mut(&a.id) else {
                    continue;
                };
                p.status = if verb == "accept" {
                    Status::Accepted
                } else {
                    Status::Rejected
                };
                p.events.push(a.event);
                if verb == "accept" {
                    accepted.push(a.id.clone());
                }
                archive.push((
                    format!("{}--{}-{verb}.md", p.id, a.event),
                    format!(
                        "---\nid: {}\ntitle: {}\naction: {verb}\nevent: {}\nat: {}\n---\n\n{}\n",
                        p.id,
                        yaml_line(&p.title),
                        a.event,
                        a.ts,
                        p.text
                    ),
                ));
            }
            _ => {}
        }
    }
    let proposals: Vec<Proposal> = order
        .iter()
        .filter_map(|id| by_id.get(id).cloned())
        .collect();
    let mut md = base.unwrap_or_else(|| {
        "# Memory\n\nAccepted memories of this project (remaind memory). Edit freely: a hand \
         edit is recorded in the ledger by the next remaind memory command.\n"
            .to_owned()
    });
    for id in &accepted {
        if let Some(p) = by_id.get(id).filter(|p| p.status == Status::Accepted) {
            if !md.ends_with('\n') {
                md.push('\n');
            }
            let last = p.events.last().map(ToString::to_string).unwrap_or_default();
            md.push_str(&format!(
                "\n## {}\n\n{}\n\n<!-- {} {last} -->\n",
                p.title, p.text, p.id
            ));
        }
    }
    (proposals, archive, md)
}

fn yaml_line(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

fn proposal_file(p: &Proposal) -> String {
    let events: Vec<String> = p.events.iter().map(ToString::to_string).collect();
    format!(
        "---\nid: {}\ntitle: {}\nstatus: proposed\nevents: [{}]\n---\n\n{}\n\n\
         <!-- remaind memory accept {} | remaind memory reject {} -->\n",
        p.id,
        yaml_line(&p.title),
        events.join(", "),
        p.text,
        p.id,
        p.id
    )
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
