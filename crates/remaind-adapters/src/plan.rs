//! The agent's own plan (Claude Code's `TodoWrite` and task tools, Codex's `update_plan`) and
//! the book that remembers which ledger event stands for each of its steps.

use remaind_events::EventId;
use serde_json::{Map, Value, json};

use crate::describe::input_object;

/// Where a step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Pending,
    InProgress,
    Completed,
}

impl Status {
    fn parse(s: Option<&str>) -> Option<Status> {
        match s {
            Some("completed" | "done") => Some(Status::Completed),
            Some("in_progress" | "in-progress" | "active") => Some(Status::InProgress),
            Some("deleted" | "cancelled" | "canceled") => None,
            _ => Some(Status::Pending),
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::InProgress => "in_progress",
            Status::Completed => "completed",
        }
    }
}

/// One step of the plan and the event standing for it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Step {
    /// Identity across updates: the task id, else the step's text.
    pub(crate) key: String,
    pub(crate) text: String,
    pub(crate) status: Status,
    /// The active `next_step` (or proposal) event for a step not yet done.
    pub(crate) event: Option<EventId>,
}

/// The plan as last seen, with the events standing for its open steps. Carried on the
/// ledger as `data.plan` of each plan tool's event, so a later hook process rebuilds it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanBook {
    pub(crate) steps: Vec<Step>,
}

impl PlanBook {
    /// The book stored as `data.plan` on an event, if the event carries one.
    pub fn from_data(data: &Map<String, Value>) -> Option<PlanBook> {
        let steps = data.get("plan")?.as_array()?;
        let steps = steps
            .iter()
            .filter_map(|s| {
                let text = s.get("text")?.as_str()?.to_owned();
                let key = s
                    .get("key")
                    .and_then(Value::as_str)
                    .map_or_else(|| text.clone(), str::to_owned);
                Some(Step {
                    key,
                    text,
                    status: Status::parse(s.get("status").and_then(Value::as_str))?,
                    event: s
                        .get("event")
                        .and_then(Value::as_str)
                        .and_then(|e| e.parse().ok()),
                })
            })
            .collect::<Vec<Step>>();
        // One step per key and per event, whatever the stored data says.
        let mut seen_keys = Vec::new();
        let mut seen_events = Vec::new();
        let steps = steps
            .into_iter()
            .filter(|s| {
                let fresh_key = !seen_keys.contains(&s.key);
                let fresh_event = s.event.is_none_or(|e| !seen_events.contains(&e));
                seen_keys.push(s.key.clone());
                seen_events.extend(s.event);
                fresh_key && fresh_event
            })
            .collect();
        Some(PlanBook { steps })
    }

    /// `data.plan`.
    pub(crate) fn to_value(&self) -> Value {
        Value::Array(
            self.steps
                .iter()
                .map(|s| {
                    let mut v = json!({"text": s.text, "status": s.status.as_str()});
                    if s.key != s.text {
                        v["key"] = s.key.clone().into();
                    }
                    if let Some(e) = s.event {
                        v["event"] = e.to_string().into();
                    }
                    v
                })
                .collect(),
        )
    }
}

/// What a plan tool call says about the plan.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Update {
    /// The whole plan, replacing the previous one (`TodoWrite`, `update_plan`).
    Replace(Vec<(String, String, Status)>),
    /// Steps added or changed; the others stay (`TaskCreate`, `TaskUpdate`).
    Upsert(Vec<(String, String, Option<Status>)>),
}

/// The plan update a tool call makes, if it is a plan tool.
pub(crate) fn update_of(name: &str, input: &Value, output: &Value) -> Option<Update> {
    if !matches!(
        name,
        "TodoWrite" | "update_plan" | "TaskCreate" | "TaskUpdate"
    ) {
        return None;
    }
    let input = input_object(input);
    let field = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    match name {
        "TodoWrite" | "update_plan" => {
            let (list, text_key) = match input.get("todos") {
                Some(Value::Array(a)) => (a, "content"),
                _ => (input.get("plan")?.as_array()?, "step"),
            };
            let mut steps: Vec<(String, String, Status)> = Vec::new();
            for s in list {
                let Some(text) = field(s, text_key).filter(|t| !t.trim().is_empty()) else {
                    continue;
                };
                let Some(status) = Status::parse(s.get("status").and_then(Value::as_str)) else {
                    continue;
                };
                // A step listed twice is one step (its first entry).
                if !steps.iter().any(|(k, _, _)| *k == text) {
                    steps.push((text.clone(), text, status));
                }
            }
            Some(Update::Replace(steps))
        }
        "TaskCreate" => {
            let subject = field(&input, "subject").or_else(|| field(&input, "description"))?;
            let id = task_id(output).unwrap_or_else(|| subject.clone());
            Some(Update::Upsert(vec![(id, subject, Some(Status::Pending))]))
        }
        "TaskUpdate" => {
            let id = field(&input, "taskId").or_else(|| field(&input, "id"))?;
            let status = input.get("status").and_then(Value::as_str);
            // No status: the step stays as it is (pending when new); `deleted` drops it.
            let status = match status {
                None => Some(Status::Pending),
                Some(s) => Status::parse(Some(s)),
            };
            let subject = field(&input, "subject").unwrap_or_default();
            Some(Update::Upsert(vec![(id, subject, status)]))
        }
        _ => None,
    }
}

/// The id a `TaskCreate` response gives the new task.
fn task_id(output: &Value) -> Option<String> {
    let id = output
        .pointer("/task/id")
        .or_else(|| output.get("taskId"))
        .or_else(|| output.get("id"))?;
    match id {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_book_round_trips_through_event_data() {
        let book = PlanBook {
            steps: vec![
                Step {
                    key: "7".into(),
                    text: "Write tests".into(),
                    status: Status::InProgress,
                    event: Some(EventId(12)),
                },
                Step {
                    key: "Ship".into(),
                    text: "Ship".into(),
                    status: Status::Completed,
                    event: None,
                },
            ],
        };
        let mut data = Map::new();
        data.insert("plan".into(), book.to_value());
        assert_eq!(PlanBook::from_data(&data), Some(book));
    }

    #[test]
    fn codex_update_plan_arguments_arrive_as_a_json_string() {
        let args = Value::String(
            r#"{"explanation":"x","plan":[{"step":"Read docs","status":"completed"},{"step":"Draft plan","status":"in_progress"}]}"#.into(),
        );
        let Some(Update::Replace(steps)) = update_of("update_plan", &args, &Value::Null) else {
            panic!("update_plan is a plan tool");
        };
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[1].2, Status::InProgress);
    }
}
