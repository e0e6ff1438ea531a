//! The mapping core: signals in, ledger events out, with the plan book kept in step.

use remaind_events::{EventId, Kind, NewEvent, Tool};
use serde_json::{Map, Value};

use crate::describe::{changed_files, describe_tool};
use crate::plan::{self, PlanBook, Status, Step, Update};
use crate::signal::{Record, Signal, Source};
use crate::summary;

/// A prompt longer than this many bytes keeps an excerpt inline (its head and tail, where an
/// instruction around a pasted payload sits) and the whole prompt in an event of its own.
pub const INLINE_PROMPT_BYTES: usize = 4096;
/// Bytes of a long prompt's head kept inline.
const PROMPT_HEAD_BYTES: usize = 3000;
/// Bytes of a long prompt's tail kept inline.
const PROMPT_TAIL_BYTES: usize = 800;

/// Turns [`Record`]s into [`NewEvent`]s, assigning each the id it will get when the batch
/// is appended at `head` (see `remaind_ledger::AppendRequest::built`), so events cite each other.
#[derive(Debug, Clone)]
pub struct Mapper {
    head: u64,
    out: Vec<NewEvent>,
    book: PlanBook,
    /// The latest user instruction: what a turn's end, an answer or a compaction focus cites.
    instruction: Option<EventId>,
}

/// One event being built.
struct Draft {
    ev: NewEvent,
}

impl Draft {
    fn new(kind: Kind, source: &Source, actor: &str, text: impl Into<String>) -> Draft {
        let mut data = Map::new();
        data.insert("origin".into(), source.to_value());
        Draft {
            ev: NewEvent {
                kind: Some(kind),
                text: Some(text.into()),
                actor: Some(actor.to_owned()),
                data: Some(data),
                ..NewEvent::default()
            },
        }
    }

    fn data(mut self, key: &str, v: impl Into<Value>) -> Draft {
        if let Some(d) = self.ev.data.as_mut() {
            d.insert(key.into(), v.into());
        }
        self
    }

    fn importance(mut self, i: u8) -> Draft {
        self.ev.importance = Some(i);
        self
    }

    fn refs(mut self, ids: &[EventId]) -> Draft {
        self.ev.refs = ids.to_vec();
        self
    }
}

impl Mapper {
    /// A mapper whose first event gets id `e{head + 1}`, starting from the plan in `book`.
    pub fn new(head: u64, book: PlanBook) -> Mapper {
        Mapper {
            head,
            out: Vec::new(),
            book,
            instruction: None,
        }
    }

    /// Continue after the user instruction `id` (the ledger's latest `user_message`), which
    /// the end of its turn and the answers given in it cite.
    pub fn after_instruction(mut self, id: Option<EventId>) -> Mapper {
        self.instruction = id;
        self
    }

    /// The ledger head the events not yet taken are to be appended at.
    pub fn head(&self) -> u64 {
        self.head
    }

    /// Drop the events not yet taken and continue at `head` (another writer appended).
    pub fn rebase(&mut self, head: u64) {
        self.out.clear();
        self.head = head;
    }

    /// The plan as the events mapped so far leave it.
    pub fn book(&self) -> &PlanBook {
        &self.book
    }

    /// How many events are waiting to be appended.
    pub fn pending(&self) -> usize {
        self.out.len()
    }

    /// The events mapped so far, to append as one batch at the head given to
    /// [`Mapper::new`]; the mapper then continues after them.
    pub fn take(&mut self) -> Vec<NewEvent> {
        self.head += self.out.len() as u64;
        std::mem::take(&mut self.out)
    }

    fn emit(&mut self, d: Draft) -> EventId {
        self.out.push(d.ev);
        EventId(self.head + self.out.len() as u64)
    }

    /// Map one record (its payloads move into the events).
    pub fn map(&mut self, rec: Record) {
        let Record { source, signal } = rec;
        let src = &source;
        let agent = src.runtime.actor();
        let turn = self.instruction;
        match signal {
            Signal::Prompt { text } => {
                let id = self.instruction(src, &text, "prompt", &[]);
                self.instruction = Some(id);
            }
            // Typed while the agent worked and read by it mid-turn: the instruction from here.
            Signal::QueuedPrompt { text } => {
                let id = self.instruction(src, &text, "queued", &[]);
                self.instruction = Some(id);
            }
            // A focus for the compaction, shown with the task, never in its place.
            Signal::CompactInstructions { text } => {
                self.emit(
                    Draft::new(Kind::Note, src, "user", text)
                        .data("via", "compact_focus")
                        .importance(1)
                        .refs(&Vec::from_iter(turn)),
                );
            }
            // A Stop before any instruction ends no turn; one without a message (older
            // runtimes send none) still ends the turn it closes.
            Signal::TurnEnd { text } if turn.is_none() && text.trim().is_empty() => {}
            Signal::TurnEnd { text } => {
                let text = if text.trim().is_empty() {
                    "(the turn ended without a final message)".to_owned()
                } else {
                    text
                };
                self.emit(
                    Draft::new(Kind::AssistantMessage, src, agent, text)
                        .data("turn_end", "stop")
                        .refs(&Vec::from_iter(turn)),
                );
            }
            Signal::AssistantText { text } if !text.trim().is_empty() => {
                self.emit(Draft::new(Kind::AssistantMessage, src, agent, text).importance(0));
            }
            Signal::AssistantText { .. } => {}
            Signal::Interrupt => {
                self.emit(
                    Draft::new(Kind::Note, src, "user", "The user interrupted the turn")
                        .data("turn_end", "interrupted")
                        .refs(&Vec::from_iter(turn)),
                );
            }
            Signal::InterruptWentOn => {
                self.emit(
                    Draft::new(
                        Kind::Note,
                        src,
                        "user",
                        "The user interrupted; the turn went on after it",
                    )
                    .data("interrupted", true)
                    .importance(0)
                    .refs(&Vec::from_iter(turn)),
                );
            }
            Signal::RuntimeTrace { via, text } => {
                self.emit(Draft::new(Kind::Trace, src, agent, text).data("via", via));
            }
            Signal::Notification { text } => {
                self.emit(
                    Draft::new(Kind::Note, src, agent, text)
                        .data("via", "notification")
                        .importance(0),
                );
            }
            Signal::LocalCommand { text } => {
                self.emit(Draft::new(Kind::Trace, src, "user", text).data("via", "local_command"));
            }
            Signal::Remember { text } => {
                self.emit(
                    Draft::new(Kind::Remember, src, "user", text)
                        .data("via", "memory_input")
                        .importance(3),
                );
            }
            // Not a ledger event: the caller records it through the framing channel.
            Signal::Framing(_) => {}
            // The subagent's outcome: what the main agent was told, not the turn's end.
            Signal::SubagentEnd { text } if !text.trim().is_empty() => {
                self.emit(
                    Draft::new(Kind::Note, src, "subagent", text)
                        .data("via", "subagent_outcome")
                        .data("subagent", true)
                        .refs(&Vec::from_iter(turn)),
                );
            }
            Signal::SubagentEnd { .. } => {}
            Signal::CompactSummary { text } => self.compact_summary(src, &text),
            Signal::ToolUse {
                name,
                input,
                output,
                failed,
            } => self.tool_use(src, &name, input, output, failed),
        }
    }

    /// A user instruction: verbatim when short; a long one keeps its head and tail inline
    /// and the whole text in a `note` it cites.
    fn instruction(&mut self, src: &Source, text: &str, via: &str, refs: &[EventId]) -> EventId {
        let mut refs = refs.to_vec();
        let inline = if text.len() > INLINE_PROMPT_BYTES {
            let whole = self.emit(
                Draft::new(Kind::Note, src, "user", text.to_owned())
                    .data("whole_prompt", true)
                    .importance(1),
            );
            refs.push(whole);
            excerpt(text, whole)
        } else {
            text.to_owned()
        };
        self.emit(
            Draft::new(Kind::UserMessage, src, "user", inline)
                .data("via", via)
                .refs(&refs),
        )
    }

    fn tool_use(&mut self, src: &Source, name: &str, input: Value, output: Value, failed: bool) {
        let name = if name.trim().is_empty() { "tool" } else { name };
        let agent = src.runtime.actor();
        let update = if failed {
            None
        } else {
            plan::update_of(name, &input, &output)
        };
        let carries_plan = update.is_some();
        let plan_events = match update {
            Some(update) => self.apply_plan(src, update),
            None => Vec::new(),
        };
        let description = describe_tool(name, &input, failed);
        let mut tool =
            Draft::new(Kind::ToolResult, src, agent, description.clone()).refs(&plan_events);
        if carries_plan || (failed && plan::update_of(name, &input, &output).is_some()) {
            tool = tool.data("plan", self.book.to_value());
        }
        if failed {
            tool = tool
                .data("failed", true)
                .data("error", error_excerpt(&failure_text(&output)));
        }
        // Read what the follow-up events need before the payloads move into the event.
        let (files, answers) = if failed {
            (Vec::new(), Vec::new())
        } else if name == "AskUserQuestion" {
            (changed_files(name, &input), answers_of(&output))
        } else {
            (changed_files(name, &input), Vec::new())
        };
        let approved_plan = (!failed && name == "ExitPlanMode")
            .then(|| approved_plan_text(&input))
            .flatten();
        tool.ev.tool = Some(Tool {
            name: name.to_owned(),
            input,
            output,
        });
        let id = self.emit(tool);
        for path in files {
            // What changed, as the call's description says it (the path is the event's text).
            let change = description
                .strip_prefix(path.as_str())
                .and_then(|rest| rest.strip_prefix(": "))
                .unwrap_or(&description)
                .to_owned();
            self.emit(
                Draft::new(Kind::FileChange, src, agent, path.clone())
                    .data("path", path)
                    .data("tool", name)
                    .data("change", change)
                    .refs(&[id]),
            );
        }
        let mut cites = vec![id];
        cites.extend(self.instruction);
        // The user's answer is the user deciding, within the turn it answers: a decision
        // shown with its question, never a new instruction.
        if !answers.is_empty() {
            let text = answers
                .iter()
                .map(|(q, a)| format!("{q} → {a}"))
                .collect::<Vec<_>>()
                .join("\n");
            let questions: Vec<Value> = answers
                .iter()
                .map(|(q, _)| Value::from(q.clone()))
                .collect();
            let d = Draft::new(Kind::Decision, src, "user", text)
                .data("via", "question_answer")
                .data("questions", questions)
                .refs(&cites);
            self.emit(d);
        }
        if let Some(plan) = approved_plan {
            let d = Draft::new(Kind::Decision, src, "user", plan)
                .data("via", "plan_approved")
                .refs(&cites);
            self.emit(d);
        }
    }

    /// Fold a plan update into the book, emitting: `result` events for steps newly done
    /// (resolving their step), `next_step` events for new steps and for a step that became in
    /// progress (superseding its pending event), a `note` resolving dropped steps. The current
    /// step (the first in progress, else the first pending) always ends up with the newest
    /// `next_step` event, so it is the state's next step and the others its open loops.
    fn apply_plan(&mut self, src: &Source, update: Update) -> Vec<EventId> {
        let agent = src.runtime.actor();
        let old = std::mem::take(&mut self.book.steps);
        let find = |key: &str| old.iter().find(|s| s.key == key);
        let mut steps: Vec<(Step, Option<Status>)> = match update {
            Update::Replace(list) => list
                .into_iter()
                .map(|(key, text, status)| {
                    let prior = find(&key);
                    let step = Step {
                        event: prior.and_then(|p| p.event),
                        key,
                        text,
                        status,
                    };
                    (step, prior.map(|p| p.status))
                })
                .collect(),
            Update::Upsert(items) => {
                let mut steps: Vec<(Step, Option<Status>)> =
                    old.iter().map(|s| (s.clone(), Some(s.status))).collect();
                for (key, text, status) in items {
                    let at = steps.iter().position(|(s, _)| s.key == key);
                    match (at, status) {
                        (Some(i), None) => {
                            steps.remove(i);
                        }
                        (Some(i), Some(st)) => {
                            steps[i].0.status = st;
                            if !text.is_empty() {
                                steps[i].0.text = text;
                            }
                        }
                        (None, Some(st)) if !text.is_empty() => steps.push((
                            Step {
                                key,
                                text,
                                status: st,
                                event: None,
                            },
                            None,
                        )),
                        (None, _) => {}
                    }
                }
                steps
            }
        };
        let mut emitted = Vec::new();
        let mut dropped: Vec<EventId> = old
            .iter()
            .filter(|o| !steps.iter().any(|(s, _)| s.key == o.key))
            .filter_map(|o| o.event)
            .collect();
        dropped.sort_unstable();
        dropped.dedup();
        if !dropped.is_empty() {
            let mut d = Draft::new(
                Kind::Note,
                src,
                agent,
                format!("Plan changed: {} open steps dropped", dropped.len()),
            );
            d.ev.resolves = dropped;
            emitted.push(self.emit(d));
        }
        for (step, prior) in &mut steps {
            if step.status == Status::Completed && *prior != Some(Status::Completed) {
                let mut d = Draft::new(Kind::Result, src, agent, format!("Done: {}", step.text));
                d.ev.resolves = step.event.take().into_iter().collect();
                emitted.push(self.emit(d));
            }
        }
        let mut newest_step = None;
        for want in [Status::Pending, Status::InProgress] {
            for (step, prior) in &mut steps {
                let moved = want == Status::InProgress && *prior != Some(Status::InProgress);
                if step.status != want || (step.event.is_some() && !moved) {
                    continue;
                }
                let mut d = Draft::new(Kind::NextStep, src, agent, step.text.clone());
                d.ev.supersedes = step.event.into_iter().collect();
                let id = self.emit(d);
                step.event = Some(id);
                newest_step = Some(id);
                emitted.push(id);
            }
        }
        let current = steps
            .iter_mut()
            .map(|(s, _)| s)
            .filter(|s| s.event.is_some())
            .min_by_key(|s| (s.status != Status::InProgress, s.status != Status::Pending));
        if let (Some(step), Some(newest)) = (current, newest_step)
            && step.event.is_some_and(|e| e < newest)
        {
            let mut d = Draft::new(Kind::NextStep, src, agent, step.text.clone());
            d.ev.supersedes = step.event.into_iter().collect();
            let id = self.emit(d);
            step.event = Some(id);
            emitted.push(id);
        }
        self.book.steps = steps.into_iter().map(|(s, _)| s).collect();
        emitted
    }

    /// The runtime's compaction summary: recorded whole; its pending tasks, current work and
    /// next step become proposals citing it. They rank below the ledger: with a step of the
    /// agent's own plan in progress, the summary's next step is an open loop, not the next
    /// step; and the next plan update drops them all.
    fn compact_summary(&mut self, src: &Source, text: &str) {
        let agent = src.runtime.actor();
        let parts = summary::parse(text);
        let summary_id = self.emit(
            Draft::new(Kind::Note, src, agent, text.to_owned()).data("compact_summary", true),
        );
        let in_progress = self
            .book
            .steps
            .iter()
            .any(|s| s.status == Status::InProgress && s.event.is_some());
        let mut proposals = Vec::new();
        for task in &parts.pending {
            proposals.push((
                format!("Pending (from the compaction summary): {task}"),
                false,
            ));
        }
        if let Some(work) = &parts.current {
            proposals.push((
                format!("Current work (from the compaction summary): {work}"),
                false,
            ));
        }
        if let Some(next) = &parts.next {
            proposals.push((next.clone(), !in_progress));
        }
        for (n, (text, as_step)) in proposals.into_iter().enumerate() {
            let kind = if as_step { Kind::NextStep } else { Kind::Note };
            let d = Draft::new(kind, src, agent, text.clone())
                .data("proposal", "compact_summary")
                .importance(2)
                .refs(&[summary_id]);
            let id = self.emit(d);
            self.book.steps.push(Step {
                key: format!("summary:{summary_id}:{n}"),
                text,
                status: Status::Pending,
                event: Some(id),
            });
        }
        // What should outlive the task becomes a long-term memory suggestion for a person to
        // accept: one per durable section and session (a later summary refreshes it while it
        // is under review; a decided one is left alone).
        let session = src.session.as_deref().map_or(String::new(), |s| {
            format!(" (session {})", s.chars().take(8).collect::<String>())
        });
        for (name, body) in &parts.durable {
            let title = format!("{name}{session}");
            let memory = serde_json::json!({
                "action": "suggest",
                "title": title,
                "cites": [summary_id],
                "source": "runtime_summary",
            });
            let d = Draft::new(Kind::Note, src, agent, body.clone())
                .data("memory", memory)
                .refs(&[summary_id]);
            self.emit(d);
        }
        if !parts.is_empty() {
            let d = Draft::new(Kind::Trace, src, agent, "Plan after the compaction summary")
                .data("plan", self.book.to_value())
                .refs(&[summary_id]);
            self.emit(d);
        }
    }
}

/// The head and tail of a long prompt around a pointer to the event holding all of it.
fn excerpt(text: &str, whole: EventId) -> String {
    let head_end = floor_boundary(text, PROMPT_HEAD_BYTES);
    let head_end = text[..head_end]
        .rfind('\n')
        .filter(|&i| i > head_end / 2)
        .unwrap_or(head_end);
    let tail_start = ceil_boundary(text, text.len() - PROMPT_TAIL_BYTES);
    let tail_start = text[tail_start..]
        .find('\n')
        .map(|i| tail_start + i + 1)
        .filter(|&i| i < text.len())
        .unwrap_or(tail_start);
    let elided = tail_start - head_end;
    format!(
        "{}\n[… {elided} bytes of this prompt elided; the whole prompt is event {whole} …]\n{}",
        text[..head_end].trim_end(),
        text[tail_start..].trim_start()
    )
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Bytes of a failure's text kept in `data.error` (its head and its tail, where a test run's
/// summary sits); the whole output stays on the event's `tool.output`.
const ERROR_HEAD_BYTES: usize = 1500;
/// Bytes of a failure's tail kept in `data.error`.
const ERROR_TAIL_BYTES: usize = 1000;

/// The text of a failed tool's output: the error a hook payload names, else the output's
/// text (a Codex output string holding JSON is read through).
pub(crate) fn failure_text(output: &Value) -> String {
    match output {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => failure_text(&v),
            _ => s.clone(),
        },
        Value::Object(m) => ["error", "stderr", "output", "content", "stdout"]
            .iter()
            .filter_map(|k| m.get(*k))
            .map(failure_text)
            .find(|t| !t.trim().is_empty())
            .unwrap_or_else(|| output.to_string()),
        Value::Array(parts) => parts
            .iter()
            .map(|p| p.get("text").map_or_else(|| failure_text(p), failure_text))
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A failure's text as `data.error` keeps it: whole when short, else its head and tail.
fn error_excerpt(text: &str) -> String {
    let text = text.trim();
    if text.len() <= ERROR_HEAD_BYTES + ERROR_TAIL_BYTES {
        return text.to_owned();
    }
    let head = floor_boundary(text, ERROR_HEAD_BYTES);
    let tail = ceil_boundary(text, text.len() - ERROR_TAIL_BYTES);
    format!(
        "{}\n[… {} bytes …]\n{}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
}

/// Characters of an approved plan kept in its decision's text (the tool call holds all of it).
const PLAN_CHARS: usize = 1500;

/// The decision text of an approved `ExitPlanMode` plan: the plan (its head) and the file
/// it was written to, when the input names one.
fn approved_plan_text(input: &Value) -> Option<String> {
    let plan = input.get("plan").and_then(Value::as_str).map(str::trim);
    let file = ["planFilePath", "plan_file_path", "file_path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str));
    let mut text = String::from("Plan approved");
    if let Some(file) = file {
        text.push_str(&format!(" ({file})"));
    }
    match plan.filter(|p| !p.is_empty()) {
        Some(p) => {
            let head: String = p.chars().take(PLAN_CHARS).collect();
            let more = if head.len() < p.len() { "\n…" } else { "" };
            text.push_str(&format!(":\n{head}{more}"));
        }
        None if file.is_none() => return None,
        None => {}
    }
    Some(text)
}

/// The (question, answer) pairs of an `AskUserQuestion` call: the response's `answers`
/// object, else the `"question"="answer"` pairs of its text.
fn answers_of(output: &Value) -> Vec<(String, String)> {
    if let Some(map) = output.get("answers").and_then(Value::as_object) {
        return map
            .iter()
            .filter_map(|(q, a)| {
                let a = match a {
                    Value::String(s) => s.clone(),
                    Value::Array(xs) => xs
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", "),
                    _ => return None,
                };
                Some((q.clone(), a))
            })
            .filter(|(_, a)| !a.trim().is_empty())
            .collect();
    }
    let text = match output {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    quoted_pairs(&text)
}

/// `"a"="b"` pairs in `text`.
fn quoted_pairs(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('"') {
        let after = &rest[start + 1..];
        let Some(qend) = after.find("\"=\"") else {
            break;
        };
        let q = &after[..qend];
        let after_a = &after[qend + 3..];
        let Some(aend) = after_a.find('"') else {
            break;
        };
        out.push((q.to_owned(), after_a[..aend].to_owned()));
        rest = &after_a[aend + 1..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal::Runtime;
    use serde_json::json;

    fn rec(signal: Signal) -> Record {
        Record {
            source: Source::new(Runtime::ClaudeCode),
            signal,
        }
    }

    fn todo(list: &[(&str, &str)]) -> Record {
        let todos: Vec<Value> = list
            .iter()
            .map(|(c, s)| json!({"content": c, "status": s, "activeForm": c}))
            .collect();
        rec(Signal::ToolUse {
            name: "TodoWrite".into(),
            input: json!({ "todos": todos }),
            output: json!({}),
            failed: false,
        })
    }

    fn kinds(events: &[NewEvent]) -> Vec<(Kind, String)> {
        events
            .iter()
            .map(|e| (e.kind.unwrap(), e.text.clone().unwrap_or_default()))
            .collect()
    }

    #[test]
    fn todo_updates_become_steps_results_and_supersessions() {
        let mut m = Mapper::new(10, PlanBook::default());
        m.map(todo(&[("A", "in_progress"), ("B", "pending")]));
        let first = m.take();
        assert_eq!(
            kinds(&first)[..3],
            [
                (Kind::NextStep, "B".into()),
                (Kind::NextStep, "A".into()),
                (
                    Kind::ToolResult,
                    "Plan: 0 done, 1 in progress, 1 pending".into()
                ),
            ]
        );
        // e11 = B, e12 = A, e13 = the tool result.
        m.map(todo(&[
            ("A", "completed"),
            ("B", "in_progress"),
            ("C", "pending"),
        ]));
        let second = m.take();
        let k = kinds(&second);
        assert_eq!(k[0], (Kind::Result, "Done: A".into()));
        assert_eq!(second[0].resolves, [EventId(12)]);
        assert_eq!(k[1], (Kind::NextStep, "C".into()));
        assert_eq!(k[2], (Kind::NextStep, "B".into()));
        assert_eq!(second[2].supersedes, [EventId(11)]);
        // A replaced list drops what is no longer in it.
        m.map(todo(&[("D", "pending")]));
        let third = m.take();
        assert_eq!(third[0].kind, Some(Kind::Note));
        assert_eq!(third[0].resolves.len(), 2);
    }

    #[test]
    fn a_step_listed_twice_is_one_step() {
        // Found by prop_import_twice_appends_nothing: a list repeating a step made a
        // `resolves` list name one event twice, which the ledger refuses.
        let mut m = Mapper::new(0, PlanBook::default());
        m.map(todo(&[("A", "in_progress")]));
        m.take();
        m.map(todo(&[("A", "completed"), ("A", "pending")]));
        let out = m.take();
        assert_eq!(out[0].resolves, [EventId(1)]);
        assert_eq!(kinds(&out).len(), 2, "{:?}", kinds(&out));
        m.map(todo(&[("B", "pending"), ("B", "pending")]));
        let out = m.take();
        assert!(out.iter().all(|e| e.resolves.len() <= 1));
    }

    #[test]
    fn a_long_prompt_keeps_its_instruction_inline_and_the_whole_in_a_note() {
        let prompt = format!(
            "Fix the failing CI job below\n{}\nthanks",
            "log line\n".repeat(3000)
        );
        let mut m = Mapper::new(0, PlanBook::default());
        m.map(rec(Signal::Prompt {
            text: prompt.clone(),
        }));
        let out = m.take();
        assert_eq!(out[0].text.as_deref(), Some(prompt.as_str()));
        let inline = out[1].text.as_deref().unwrap();
        assert!(
            inline.starts_with("Fix the failing CI job below\n"),
            "{inline}"
        );
        assert!(inline.ends_with("thanks"), "{inline}");
        assert!(inline.contains("event e1"), "{inline}");
        assert!(inline.len() < INLINE_PROMPT_BYTES + 200);
        assert_eq!(out[1].refs, [EventId(1)]);
    }

    #[test]
    fn question_answers_are_user_decisions_citing_the_question_and_the_turn() {
        let mut m = Mapper::new(0, PlanBook::default());
        m.map(rec(Signal::Prompt {
            text: "Ship the exporter".into(),
        }));
        m.map(rec(Signal::ToolUse {
            name: "AskUserQuestion".into(),
            input: json!({"questions": [{"question": "Is main clean?", "options": []}]}),
            output: json!({"answers": {"Is main clean?": "main was clean; fix the issues"}}),
            failed: false,
        }));
        let out = m.take();
        assert_eq!(out[2].kind, Some(Kind::Decision));
        assert_eq!(out[2].actor.as_deref(), Some("user"));
        assert_eq!(
            out[2].text.as_deref(),
            Some("Is main clean? → main was clean; fix the issues")
        );
        assert_eq!(out[2].refs, [EventId(2), EventId(1)]);
        assert_eq!(
            quoted_pairs(r#"User has answered your questions: "Q1"="yes", "Q2"="no". You can now"#),
            [
                ("Q1".to_owned(), "yes".to_owned()),
                ("Q2".to_owned(), "no".to_owned())
            ]
        );
    }
}
