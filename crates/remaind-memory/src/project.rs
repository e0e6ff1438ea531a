//! The projection: memory actions from the ledger folded into proposals, archive files and
//! `MEMORY.md`, and the marking of memories a newer ledger fact contradicts.

use std::collections::HashMap;

use remaind_events::{EventId, Status as EventStatus};
use serde::Serialize;

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
    /// The events that proposed, edited, accepted or rejected it, oldest first.
    pub events: Vec<EventId>,
    /// The ledger events it rests on (a `remember` event, a constraint that held across
    /// compactions, a runtime summary); empty for a memory a person wrote.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cites: Vec<EventId>,
    /// The newer ledger event that superseded or resolved one of `cites`: the memory is no
    /// longer current and is shown as such.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contradicted_by: Option<EventId>,
}

/// One memory action recorded in the ledger.
#[derive(Debug, Clone)]
pub(crate) struct Action {
    pub(crate) event: EventId,
    pub(crate) ts: String,
    pub(crate) verb: String,
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) text: String,
    pub(crate) cites: Vec<EventId>,
}

/// What the actions leave.
pub(crate) struct Projection {
    pub(crate) proposals: Vec<Proposal>,
    /// Archive file name → body, one per accept, reject or edit.
    pub(crate) archive: Vec<(String, String)>,
    pub(crate) memory_md: String,
    /// Open-loop file name → body, one per open loop title.
    pub(crate) loops: Vec<(String, String)>,
}

/// The events of one open-loop title.
struct Loop {
    id: String,
    title: String,
    kind: String,
    text: String,
    events: Vec<(EventId, String)>,
}

/// The `MEMORY.md` of a folder with no accepted memory yet.
pub(crate) const EMPTY_MEMORY_MD: &str = "# Memory\n\nAccepted memories of this project (remaind memory). Edit freely: a hand \
     edit is recorded in the ledger by the next remaind memory command.\n";

/// What a contradicted memory's heading ends with.
const NOT_CURRENT: &str = " (no longer current)";

/// Folds `actions` (oldest first) into proposals, the archive and `MEMORY.md`; `status`
/// tells whether a cited event still stands.
pub(crate) fn project(actions: &[Action], status: &dyn Fn(EventId) -> EventStatus) -> Projection {
    let mut fold = Fold::default();
    for a in actions {
        if let Some(kind) = a.verb.strip_prefix("loop:") {
            fold.loop_action(kind, a);
            continue;
        }
        match a.verb.as_str() {
            "closes" => {
                fold.closers
                    .insert(a.event, (a.ts.clone(), first_line(&a.text)));
            }
            "hand_edit" => fold.hand_edit(a),
            // A suggestion (a runtime's summary) proposes, or refreshes a proposal still
            // under review; a memory a person already decided on is left alone.
            "suggest"
                if fold
                    .by_id
                    .get(&a.id)
                    .is_some_and(|p| p.status != Status::Proposed) => {}
            "propose" | "suggest" => fold.propose(a),
            "edit" => fold.edit(a),
            verb @ ("accept" | "reject") => fold.decide(verb, a),
            _ => {}
        }
    }
    fold.finish(status)
}

/// The projection so far, action by action.
#[derive(Default)]
struct Fold {
    /// Proposal ids in the order first proposed.
    order: Vec<String>,
    by_id: HashMap<String, Proposal>,
    archive: Vec<(String, String)>,
    /// The last hand edit of MEMORY.md, if any.
    base: Option<String>,
    /// Accepted memories rendered after the base, in acceptance order.
    accepted: Vec<String>,
    loops: Vec<Loop>,
    loop_at: HashMap<String, usize>,
    /// The events that resolve others: when, and what they said.
    closers: HashMap<EventId, (String, String)>,
}

impl Fold {
    fn loop_action(&mut self, kind: &str, a: &Action) {
        let loops = &mut self.loops;
        let i = *self.loop_at.entry(a.id.clone()).or_insert_with(|| {
            loops.push(Loop {
                id: a.id.clone(),
                title: a.title.clone(),
                kind: kind.to_owned(),
                text: String::new(),
                events: Vec::new(),
            });
            loops.len() - 1
        });
        let l = &mut self.loops[i];
        l.text = a.text.clone();
        l.kind = kind.to_owned();
        l.events.push((a.event, a.ts.clone()));
    }

    fn hand_edit(&mut self, a: &Action) {
        self.base = Some(a.text.clone());
        self.accepted.clear();
        for p in self.by_id.values_mut() {
            // What the person kept is in the base now, as they wrote it.
            if p.status == Status::Accepted {
                p.events.push(a.event);
                if let Some(body) = section_body(&a.text, &p.id) {
                    p.text = body;
                }
            }
        }
    }

    fn propose(&mut self, a: &Action) {
        let order = &mut self.order;
        let p = self.by_id.entry(a.id.clone()).or_insert_with(|| {
            order.push(a.id.clone());
            Proposal {
                id: a.id.clone(),
                title: a.title.clone(),
                text: String::new(),
                status: Status::Proposed,
                events: Vec::new(),
                cites: Vec::new(),
                contradicted_by: None,
            }
        });
        p.text = a.text.clone();
        p.title = a.title.clone();
        p.cites = a.cites.clone();
        p.status = Status::Proposed;
        p.events.push(a.event);
        self.accepted.retain(|id| id != &a.id);
    }

    fn edit(&mut self, a: &Action) {
        let Some(p) = self.by_id.get_mut(&a.id) else {
            return;
        };
        if p.status == Status::Rejected {
            return;
        }
        p.text = a.text.clone();
        p.events.push(a.event);
        self.archive.push(archive_entry(p, "edit", a));
        if p.status == Status::Accepted && !self.accepted.contains(&a.id) {
            // Accepted before the last hand edit: its section is in the base.
            let replaced = self
                .base
                .as_deref()
                .and_then(|b| replace_section(b, &p.id, &section(p)));
            match replaced {
                Some(b) => self.base = Some(b),
                None => self.accepted.push(a.id.clone()),
            }
        }
    }

    fn decide(&mut self, verb: &str, a: &Action) {
        let Some(p) = self.by_id.get_mut(&a.id) else {
            return;
        };
        p.status = if verb == "accept" {
            Status::Accepted
        } else {
            Status::Rejected
        };
        p.events.push(a.event);
        if verb == "accept" {
            self.accepted.push(a.id.clone());
        }
        self.archive.push(archive_entry(p, verb, a));
    }

    fn finish(mut self, status: &dyn Fn(EventId) -> EventStatus) -> Projection {
        let mut proposals: Vec<Proposal> = self
            .order
            .iter()
            .filter_map(|id| self.by_id.get(id).cloned())
            .collect();
        for p in &mut proposals {
            p.contradicted_by = p.cites.iter().find_map(|&c| by_of(status(c)));
        }
        let mut md = self
            .base
            .take()
            .unwrap_or_else(|| EMPTY_MEMORY_MD.to_owned());
        for id in &self.accepted {
            if let Some(p) = self.by_id.get(id).filter(|p| p.status == Status::Accepted) {
                if !md.ends_with('\n') {
                    md.push('\n');
                }
                md.push('\n');
                md.push_str(&section(p));
            }
        }
        let memory_md = mark_contradicted(&md, &mut |id| Some(status(id)));
        let loops = self.loop_files(status);
        Projection {
            proposals,
            archive: self.archive,
            memory_md,
            loops,
        }
    }

    /// One file per loop still open; a resolved loop leaves its file for the archive, a
    /// superseded one was replaced.
    fn loop_files(&mut self, status: &dyn Fn(EventId) -> EventStatus) -> Vec<(String, String)> {
        let mut files = Vec::new();
        for l in &self.loops {
            let open: Vec<EventId> = l
                .events
                .iter()
                .map(|(e, _)| *e)
                .filter(|e| status(*e) == EventStatus::Current)
                .collect();
            if !open.is_empty() {
                files.push((format!("{}.md", l.id), loop_file(l, &open)));
            }
            for (e, _) in &l.events {
                if let EventStatus::Resolved { by } = status(*e) {
                    let (at, said) = self.closers.get(&by).cloned().unwrap_or_default();
                    self.archive.push((
                        format!("{}--{by}-resolve.md", l.id),
                        format!(
                            "---\nid: {}\ntitle: {}\naction: resolve\nloop: {e}\nevent: {by}\nat: {at}\n---\n\n{}\n\nResolved by {by}: {}\n",
                            l.id,
                            yaml_line(&l.title),
                            l.text,
                            said
                        ),
                    ));
                }
            }
        }
        files
    }
}

fn first_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_owned()
}

/// An open loop, as its file under `memory/loops/`.
fn loop_file(l: &Loop, open: &[EventId]) -> String {
    let events: Vec<String> = open.iter().map(ToString::to_string).collect();
    let last = events.last().cloned().unwrap_or_default();
    format!(
        "---\nid: {}\ntitle: {}\nkind: {}\nevents: [{}]\n---\n\n{}\n\n\
         <!-- remaind loops resolve {last} --text 'what closed it' -->\n",
        l.id,
        yaml_line(&l.title),
        l.kind,
        events.join(", "),
        l.text,
    )
}

fn by_of(s: EventStatus) -> Option<EventId> {
    match s {
        EventStatus::Current => None,
        EventStatus::Superseded { by } | EventStatus::Resolved { by } => Some(by),
    }
}

fn archive_entry(p: &Proposal, verb: &str, a: &Action) -> (String, String) {
    (
        format!("{}--{}-{verb}.md", p.id, a.event),
        format!(
            "---\nid: {}\ntitle: {}\naction: {verb}\nevent: {}\nat: {}\n---\n\n{}\n",
            p.id,
            yaml_line(&p.title),
            a.event,
            a.ts,
            p.text
        ),
    )
}

/// A memory's section of `MEMORY.md`; its last line names the proposal, the last event that
/// touched it and the events it cites (how a contradicted memory is found again).
fn section(p: &Proposal) -> String {
    let last = p.events.last().map(ToString::to_string).unwrap_or_default();
    let cites = if p.cites.is_empty() {
        String::new()
    } else {
        let ids: Vec<String> = p.cites.iter().map(ToString::to_string).collect();
        format!(" cites {}", ids.join(" "))
    };
    format!(
        "## {}\n\n{}\n\n<!-- {} {last}{cites} -->\n",
        p.title, p.text, p.id
    )
}

/// The text of proposal `id`'s section in `md` (between its `## ` heading and its marker
/// line, trimmed); `None` when no section carries its marker or the section is empty.
fn section_body(md: &str, id: &str) -> Option<String> {
    let lines: Vec<&str> = md.split_inclusive('\n').collect();
    let marker = format!("<!-- {id} ");
    let end = lines.iter().position(|l| l.starts_with(&marker))?;
    let start = lines[..end].iter().rposition(|l| l.starts_with("## "))?;
    let body = lines[start + 1..end].concat();
    let body = body.trim();
    (!body.is_empty()).then(|| body.to_owned())
}

/// The marker lines of `md` that name one of `ids`, with their line numbers (from 0): what a
/// hand edit's event keeps beside its text, so no redaction rule can change them.
pub(crate) fn markers_of<'a>(
    md: &'a str,
    ids: &[&str],
) -> impl Iterator<Item = (usize, &'a str)> + 'a {
    let ids: Vec<String> = ids.iter().map(|id| format!("<!-- {id} ")).collect();
    md.lines().enumerate().filter(move |(_, line)| {
        line.ends_with(" -->") && ids.iter().any(|m| line.starts_with(m.as_str()))
    })
}

/// `text` with the line at each of `markers`' numbers put back to its marker (when redaction
/// changed it; a line that is no longer a comment is left alone).
pub(crate) fn restore_markers(text: &str, markers: &[(usize, String)]) -> String {
    if markers.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let body = line.strip_suffix('\n').unwrap_or(line);
        match markers.iter().find(|(at, _)| *at == i) {
            Some((_, marker)) if body.starts_with("<!-- ") && body.ends_with("-->") => {
                out.push_str(marker);
                if line.ends_with('\n') {
                    out.push('\n');
                }
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// `md` with the section of proposal `id` (from its `## ` heading to its marker line)
/// replaced by `new`; `None` when no section carries its marker.
fn replace_section(md: &str, id: &str, new: &str) -> Option<String> {
    let lines: Vec<&str> = md.split_inclusive('\n').collect();
    let marker = format!("<!-- {id} ");
    let end = lines.iter().position(|l| l.starts_with(&marker))?;
    let start = lines[..end].iter().rposition(|l| l.starts_with("## "))?;
    let mut out: String = lines[..start].concat();
    out.push_str(new);
    out.push_str(&lines[end + 1..].concat());
    Some(out)
}

/// `md` with every memory whose marker cites an event that is no longer current (per
/// `status`; `None`: unknown, left alone) marked as such: its heading says so and a quoted
/// line names the newer event. Idempotent: a marked section is left as it is.
pub(crate) fn mark_contradicted(
    md: &str,
    status: &mut dyn FnMut(EventId) -> Option<EventStatus>,
) -> String {
    let lines: Vec<&str> = md.split_inclusive('\n').collect();
    let mut out = String::with_capacity(md.len());
    let mut heading: Option<usize> = None;
    // Where each marked heading's note goes: (line index, note).
    let mut notes: HashMap<usize, String> = HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("## ") {
            heading = Some(i);
            continue;
        }
        let Some(h) = heading else { continue };
        let Some(cites) = marker_cites(line) else {
            continue;
        };
        heading = None;
        if lines[h].trim_end().ends_with(NOT_CURRENT) {
            continue;
        }
        for cite in cites {
            let Some(s) = status(cite) else { continue };
            let Some(by) = by_of(s) else { continue };
            let how = match s {
                EventStatus::Resolved { .. } => "resolved",
                _ => "superseded",
            };
            notes.insert(
                h,
                format!(
                    "> Not current: {by} {how} {cite}, which this memory rests on. Kept for the \
                     record; the ledger's newer fact wins.\n"
                ),
            );
            break;
        }
    }
    for (i, line) in lines.iter().enumerate() {
        match notes.get(&i) {
            Some(note) => {
                out.push_str(line.trim_end());
                out.push_str(NOT_CURRENT);
                out.push_str("\n\n");
                out.push_str(note);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// The cited events of a marker line `<!-- id eN cites eA eB -->`.
fn marker_cites(line: &str) -> Option<Vec<EventId>> {
    let inner = line
        .trim_end()
        .strip_prefix("<!-- ")?
        .strip_suffix(" -->")?;
    let (_, cites) = inner.split_once(" cites ")?;
    Some(
        cites
            .split_whitespace()
            .filter_map(|c| c.parse().ok())
            .collect(),
    )
}

pub(crate) fn yaml_line(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// A proposal under review, as its file under `memory/proposals/`.
pub(crate) fn proposal_file(p: &Proposal) -> String {
    let events: Vec<String> = p.events.iter().map(ToString::to_string).collect();
    let cites: Vec<String> = p.cites.iter().map(ToString::to_string).collect();
    let cites = if cites.is_empty() {
        String::new()
    } else {
        format!("cites: [{}]\n", cites.join(", "))
    };
    format!(
        "---\nid: {}\ntitle: {}\nstatus: proposed\nevents: [{}]\n{cites}---\n\n{}\n\n\
         <!-- remaind memory accept {} | remaind memory reject {} -->\n",
        p.id,
        yaml_line(&p.title),
        events.join(", "),
        p.text,
        p.id,
        p.id
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u64) -> EventId {
        format!("e{n}").parse().expect("id")
    }

    #[test]
    fn a_contradicted_section_is_marked_once_and_others_are_left_alone() {
        let md = "# Memory\n\n## Port\n\nThe API listens on 8080.\n\n<!-- port--x e3 cites e2 -->\n\n## Style\n\nTabs.\n\n<!-- style--y e5 -->\n";
        let mut status = |c: EventId| {
            Some(if c == id(2) {
                EventStatus::Superseded { by: id(9) }
            } else {
                EventStatus::Current
            })
        };
        let once = mark_contradicted(md, &mut status);
        assert!(once.contains("## Port (no longer current)\n\n> Not current: e9 superseded e2"));
        assert!(once.contains("## Style\n\nTabs."));
        assert_eq!(mark_contradicted(&once, &mut status), once);
    }

    #[test]
    fn a_section_is_replaced_from_its_heading_to_its_marker() {
        let md = "# Memory\n\nkept by hand\n\n## Old\n\nold text\n\n<!-- old--x e3 -->\n\nafter\n";
        let out = replace_section(md, "old--x", "## Old\n\nnew text\n\n<!-- old--x e7 -->\n")
            .expect("found");
        assert_eq!(
            out,
            "# Memory\n\nkept by hand\n\n## Old\n\nnew text\n\n<!-- old--x e7 -->\n\nafter\n"
        );
        assert!(replace_section(md, "gone--z", "x").is_none());
    }
}
