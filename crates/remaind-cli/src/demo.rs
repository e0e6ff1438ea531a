//! `remaind demo`: a scripted coding-agent session driven through every layer.
//!
//! [`run`] initializes a fresh `.context/` folder and plays a realistic session from the
//! embedded files under `assets/demo/` (user instructions, tool calls, a 32 KB test log that
//! is routed to `artifacts/`, an `.env` dump whose AWS key pair and OpenAI key get redacted,
//! decisions, a correction superseding a decision, a blocker and its resolution, a
//! remember-instruction, file changes, results and next steps). Along the way it monitors,
//! compacts twice through the validator (accepted), proposes a deliberately bad candidate (the
//! accepted state with the latest instruction paraphrased and a decision dropped: rejected,
//! derived files unchanged), logs a newer instruction after the compaction, resumes (the
//! packet takes that instruction from the ledger), rolls the second compaction back (the
//! derived files get the exact bytes they had before it), verifies the ledger and searches
//! every file under `.context/` for the planted secrets.
//!
//! Each step is reported to a callback as a [`Step`] as it happens; nothing is printed here.
//! Whatever did not behave as designed is listed in [`Report::problems`] (the CLI exits 1 when
//! it is not empty).

use std::collections::HashMap;
use std::fs;
use std::io;
use std::os::unix::fs::DirBuilderExt;

use camino::{Utf8Path, Utf8PathBuf};
use remaind_events::{Event, EventId, Kind, NewEvent};
use remaind_ledger::{AppendRequest, Ledger};
use remaind_validate::{Failure, State};
use serde::Serialize;
use serde_json::Value;

use remaind_atomic::HistoryStore;
use remaind_fs::ContextDir;
use remaind_fs::layout::{CONTEXT_DIR_NAME, HANDOVER_FILE, STATE_FILE};
use remaind_resume::{Band, Budget, Error, FrameRequest, InstructionSource, Resume};

/// The session up to the first compaction, one caller event per line (see [`run`]).
pub(crate) const SESSION_1: &str = include_str!("../assets/demo/session-1.jsonl");
/// The work between the first and the second compaction.
pub(crate) const SESSION_2: &str = include_str!("../assets/demo/session-2.jsonl");
/// The user instruction logged after the compaction.
pub(crate) const AFTER_COMPACTION: &str = include_str!("../assets/demo/after-compaction.jsonl");
/// How the bad candidate is made from the accepted state.
pub(crate) const BAD_CANDIDATE: &str = include_str!("../assets/demo/bad-candidate.json");
/// The large tool output the session routes to `artifacts/`.
pub(crate) const TEST_LOG: &[u8] = include_bytes!("../assets/demo/cargo-test.log");

pub(crate) use crate::demo_secrets::PLANTED_SECRETS;

/// The token count the demo's agent reports to the monitor, to cross the hard band.
pub(crate) const REPORTED_TOKENS: u64 = 164_000;

/// The name of the bad candidate's folder, next to `.context/` in the demo folder.
pub(crate) const BAD_CANDIDATE_DIR: &str = "bad-candidate";

/// What a step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Action {
    /// The folder was created.
    Init,
    /// The runtime framing was recorded.
    Frame,
    /// An event was appended.
    Log,
    /// The monitor classified the token use.
    Monitor,
    /// A compaction was accepted.
    Compact,
    /// A candidate was rejected by the validator.
    Reject,
    /// A memory was proposed and accepted into MEMORY.md.
    Memory,
    /// The resume packet was built and the gate decided.
    Resume,
    /// Derived files were rolled back.
    Rollback,
    /// The ledger was verified.
    Verify,
    /// Every file under `.context/` was searched for the planted secrets.
    Secrets,
}

impl Action {
    /// The command this step corresponds to, e.g. `log`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Action::Init => "init",
            Action::Frame => "frame",
            Action::Log => "log",
            Action::Monitor => "monitor",
            Action::Compact => "compact",
            Action::Reject => "compact",
            Action::Memory => "memory",
            Action::Resume => "resume",
            Action::Rollback => "rollback",
            Action::Verify => "verify",
            Action::Secrets => "secrets",
        }
    }
}

/// One step of the demo, reported as it happens.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Step {
    /// What kind of step.
    pub(crate) action: Action,
    /// True when the step behaved as designed.
    pub(crate) ok: bool,
    /// One readable line saying what happened.
    pub(crate) summary: String,
    /// The event this step appended, if one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) event: Option<EventId>,
}

/// The rejected candidate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Rejected {
    /// The `validation` event recording the rejection.
    pub(crate) event: Option<EventId>,
    /// Every failed check with its events.
    pub(crate) failures: Vec<Failure>,
    /// True when state.json and handover.md kept their bytes.
    pub(crate) derived_unchanged: bool,
}

/// The rollback of the second compaction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct RolledBack {
    /// The instant rolled back to.
    pub(crate) to: String,
    /// The derived files that changed.
    pub(crate) changed: Vec<String>,
    /// The instant the demo rolled forward to again, undoing the rollback.
    pub(crate) undo_to: Option<String>,
    /// True when state.json and handover.md had the bytes they had before the compaction,
    /// and the undo brought back the compaction's own bytes.
    pub(crate) restored_equal: bool,
}

/// What the demo did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Report {
    /// The demo folder (holds `.context/` and the bad candidate).
    pub(crate) workspace: Utf8PathBuf,
    /// The `.context/` folder.
    pub(crate) context: Utf8PathBuf,
    /// Every step, in order.
    pub(crate) steps: Vec<Step>,
    /// The rejected candidate.
    pub(crate) rejected: Rejected,
    /// The resume (its packet and the gate's verdict).
    pub(crate) resume: Resume,
    /// The rollback.
    pub(crate) rollback: RolledBack,
    /// Files under `.context/` searched for the planted secrets.
    pub(crate) files_searched: u64,
    /// Expectations that did not hold; empty when everything behaved as designed.
    pub(crate) problems: Vec<String>,
}

/// Creates a fresh, empty folder under the system's temporary folder (0700) for the demo.
pub(crate) fn fresh_dir() -> Result<Utf8PathBuf, Error> {
    let base = std::env::temp_dir();
    let base = Utf8PathBuf::from_path_buf(base).map_err(|p| Error::InvalidInput {
        field: "TMPDIR".to_owned(),
        message: format!("{} is not valid UTF-8; pass --dir", p.display()),
    })?;
    let stamp = jiff::Timestamp::now().strftime("%Y%m%d-%H%M%S").to_string();
    let pid = std::process::id();
    for n in 0..1000u32 {
        let path = base.join(format!("remaind-demo-{stamp}-{pid}-{n}"));
        match fs::DirBuilder::new().mode(0o700).create(&path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io_error("cannot create", path, e)),
        }
    }
    Err(io_error(
        "cannot create a demo folder in",
        base,
        io::Error::new(io::ErrorKind::AlreadyExists, "no free demo folder name"),
    ))
}

/// Runs the demo in `workspace` (created if missing; it must not already hold a `.context/`
/// or a bad candidate), reporting each step to `on_step` as it happens.
pub(crate) fn run(workspace: &Utf8Path, on_step: &mut dyn FnMut(&Step)) -> Result<Report, Error> {
    let ctx = ContextDir::new(workspace.join(CONTEXT_DIR_NAME));
    let cand_dir = workspace.join(BAD_CANDIDATE_DIR);
    for taken in [ctx.root(), cand_dir.as_path()] {
        if fs::symlink_metadata(taken).is_ok() {
            return Err(Error::InvalidInput {
                field: "--dir".to_owned(),
                message: format!(
                    "{taken} already exists; the demo only writes into a folder without .context/ and {BAD_CANDIDATE_DIR}/ (omit --dir for a fresh temporary folder)"
                ),
            });
        }
    }
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(workspace)
        .map_err(|e| io_error("cannot create", workspace, e))?;
    let demo = Demo {
        ctx,
        workspace: workspace.to_owned(),
        labels: HashMap::new(),
        steps: Vec::new(),
        problems: Vec::new(),
        on_step,
    };
    demo.play()
}

struct Demo<'a> {
    ctx: ContextDir,
    workspace: Utf8PathBuf,
    labels: HashMap<String, EventId>,
    steps: Vec<Step>,
    problems: Vec<String>,
    on_step: &'a mut dyn FnMut(&Step),
}

impl Demo<'_> {
    fn step(&mut self, action: Action, ok: bool, event: Option<EventId>, summary: String) {
        if !ok {
            self.problems.push(summary.clone());
        }
        let step = Step {
            action,
            ok,
            summary,
            event,
        };
        (self.on_step)(&step);
        self.steps.push(step);
    }

    fn play(mut self) -> Result<Report, Error> {
        let ctx = self.ctx.clone();
        self.init_and_frame()?;
        let ledger = Ledger::open(ctx.root())?;
        self.log_lines(&ledger, SESSION_1, "session-1.jsonl")?;

        let reading = remaind_resume::monitor(&ctx, None, None)?;
        self.step(
            Action::Monitor,
            reading.band == Band::Normal,
            reading.event,
            format!(
                "{} of {} tokens ({:.1} %) counted with {} in what a resume would load: {}, keep working",
                reading.tokens,
                reading.window,
                reading.ratio * 100.0,
                reading.tokenizer.as_deref().unwrap_or("the tokenizer"),
                reading.band,
            ),
        );

        let store = HistoryStore::open(ctx.active_dir())?;
        self.compact_builtin(&ledger, &store)?;
        let before_state = read_derived(&store, STATE_FILE)?;
        let before_handover = read_derived(&store, HANDOVER_FILE)?;

        self.log_lines(&ledger, SESSION_2, "session-2.jsonl")?;
        let reading = remaind_resume::monitor(&ctx, Some(REPORTED_TOKENS), None)?;
        self.step(
            Action::Monitor,
            reading.band == Band::Hard && reading.event.is_some(),
            reading.event,
            format!(
                "the agent reports {} of {} tokens ({:.1} %): {} (was {}), {}",
                reading.tokens,
                reading.window,
                reading.ratio * 100.0,
                reading.band,
                reading.previous_band.unwrap_or(Band::Normal),
                reading.action
            ),
        );

        self.compact_builtin(&ledger, &store)?;
        let rejected = self.bad_candidate(&ledger, &store)?;

        self.log_lines(&ledger, AFTER_COMPACTION, "after-compaction.jsonl")?;
        self.memory(&ledger)?;
        // Roll back and undo before the resume, so the packet the demo prints is the one the
        // folder holds when it ends.
        let rollback = self.rollback(&store, &before_state, &before_handover)?;
        let resume = self.resume()?;

        self.verify(&ledger)?;
        let files_searched = self.secrets()?;

        Ok(Report {
            workspace: self.workspace,
            context: ctx.root().to_owned(),
            steps: self.steps,
            rejected,
            resume,
            rollback,
            files_searched,
            problems: self.problems,
        })
    }

    /// The folder made, and the runtime's framing recorded.
    fn init_and_frame(&mut self) -> Result<(), Error> {
        let ctx = self.ctx.clone();
        let init = remaind_resume::init(&ctx, false)?;
        self.step(
        Action::Init,
        true,
        None,
        format!(
            "created {} (contract, schemas, thresholds, redaction rules, tools.yaml, empty ledger)",
            init.root
        ),
    );

        let framing = remaind_resume::record_framing(
            &ctx,
            &FrameRequest {
                workspace_root: Some(self.workspace.to_string()),
                model: Some("demo-agent".to_owned()),
                settings: vec![("sandbox".to_owned(), "workspace-write".to_owned())],
                ..FrameRequest::default()
            },
        )?;
        self.step(
            Action::Frame,
            true,
            None,
            format!(
                "runtime framing: {} on {}, {} shell, {} {}, model {}",
                framing.workspace_root,
                framing.os,
                framing.shell,
                framing.date,
                framing.time_zone,
                framing.model.as_deref().unwrap_or("unknown")
            ),
        );

        Ok(())
    }

    /// The ledger's own check of its chain and artifacts.
    fn verify(&mut self, ledger: &Ledger) -> Result<(), Error> {
        let report = ledger.verify().map_err(Error::Ledger)?;
        let summary = if report.is_ok() {
            format!(
                "hash chain of {} lines intact, {} artifact(s) match their SHA-256",
                report.lines, report.artifacts_checked
            )
        } else {
            format!(
                "{} problem(s); first: {}",
                report.problem_count,
                report
                    .problems
                    .first()
                    .map(ToString::to_string)
                    .unwrap_or_default()
            )
        };
        self.step(Action::Verify, report.is_ok(), None, summary);
        Ok(())
    }

    /// A search of every file under `.context/` for the planted secrets; returns how many
    /// files were searched.
    fn secrets(&mut self) -> Result<u64, Error> {
        let (files_searched, found) = search_secrets(self.ctx.root())?;
        let summary = if found.is_empty() {
            format!(
                "none of the {} planted secrets appears in any of the {files_searched} files under .context/",
                PLANTED_SECRETS.len()
            )
        } else {
            format!("planted secret bytes found in: {}", found.join(", "))
        };
        self.step(Action::Secrets, found.is_empty(), None, summary);
        Ok(files_searched)
    }

    /// Appends the caller events of one embedded JSON Lines file, one by one as an agent
    /// would. `"@": "name"` labels an event; `"@name"` in `refs`, `supersedes` or `resolves`
    /// names a labelled event; `"@output": "cargo-test.log"` attaches the embedded test log as
    /// the tool's raw output.
    fn log_lines(&mut self, ledger: &Ledger, text: &str, origin: &str) -> Result<(), Error> {
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let (label, req) = self
                .parse_line(line)
                .map_err(|message| Error::InvalidInput {
                    field: format!("assets/demo/{origin} line {}", n + 1),
                    message,
                })?;
            let id = ledger.append(req).map_err(Error::Ledger)?[0];
            if let Some(label) = label {
                self.labels.insert(label, id);
            }
            let event = ledger
                .get(id.seq())
                .map_err(Error::Ledger)?
                .ok_or_else(|| Error::InvalidInput {
                    field: "demo".to_owned(),
                    message: format!("{id} was appended but cannot be read back"),
                })?;
            let routed = !line.contains("\"@output\"") || !event.artifact.is_empty();
            let redacted =
                !PLANTED_SECRETS.iter().any(|s| line.contains(s)) || !event.redactions.is_empty();
            let ok = routed && redacted;
            self.step(Action::Log, ok, Some(id), describe_event(&event));
        }
        Ok(())
    }

    fn parse_line(&self, line: &str) -> Result<(Option<String>, AppendRequest<'static>), String> {
        let mut value: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let obj = value
            .as_object_mut()
            .ok_or_else(|| "expected a JSON object".to_owned())?;
        let label = match obj.remove("@") {
            Some(Value::String(s)) => Some(s),
            None => None,
            Some(_) => return Err("`@` must be a string".to_owned()),
        };
        let output_bytes = match obj.remove("@output") {
            Some(Value::String(s)) if s == "cargo-test.log" => Some(TEST_LOG.to_vec()),
            Some(other) => return Err(format!("unknown `@output` {other}")),
            None => None,
        };
        for field in ["refs", "supersedes", "resolves"] {
            if let Some(Value::Array(ids)) = obj.get_mut(field) {
                for id in ids.iter_mut() {
                    if let Some(name) = id.as_str().and_then(|s| s.strip_prefix('@')) {
                        let resolved = self
                            .labels
                            .get(name)
                            .ok_or_else(|| format!("`{field}` names unknown label `@{name}`"))?;
                        *id = Value::String(resolved.to_string());
                    }
                }
            }
        }
        let event: NewEvent = serde_json::from_value(value).map_err(|e| e.to_string())?;
        Ok((label, AppendRequest::with_output(event, output_bytes)))
    }

    fn label(&self, name: &str) -> Result<EventId, Error> {
        let name = name.strip_prefix('@').unwrap_or(name);
        self.labels
            .get(name)
            .copied()
            .ok_or_else(|| Error::InvalidInput {
                field: "assets/demo/bad-candidate.json".to_owned(),
                message: format!("names unknown label `@{name}`"),
            })
    }

    fn compact_builtin(
        &mut self,
        ledger: &Ledger,
        store: &remaind_atomic::HistoryStore,
    ) -> Result<(), Error> {
        let outcome = remaind_compact::compact(
            ledger,
            store,
            remaind_compact::Source::Builtin,
            remaind_compact::Options::default(),
        )
        .map_err(|e| compact_err(&self.ctx, e))?;
        let verdict = &outcome.verdict;
        let summary = if verdict.accepted {
            let counts = outcome
                .candidate
                .as_ref()
                .map(|c| {
                    format!(
                        "{} completed, {} decisions, {} files, {} superseded",
                        c.state.completed_work.len(),
                        c.state.decisions.len(),
                        c.state.files_changed.len(),
                        c.state.superseded.len()
                    )
                })
                .unwrap_or_default();
            format!(
                "built-in compactor through e{}: accepted (schema, binding and the seven checks passed; {counts}); state.json and handover.md written",
                outcome.through_seq,
            )
        } else {
            format!(
                "built-in compactor through e{}: rejected: {}",
                outcome.through_seq,
                failures_line(&verdict.failures)
            )
        };
        self.step(
            Action::Compact,
            verdict.accepted && outcome.written,
            outcome.event_id,
            summary,
        );
        Ok(())
    }

    /// Proposes the accepted state with the latest instruction paraphrased and a decision
    /// dropped, as a candidate folder next to `.context/`.
    fn bad_candidate(
        &mut self,
        ledger: &Ledger,
        store: &remaind_atomic::HistoryStore,
    ) -> Result<Rejected, Error> {
        let spec: Value = serde_json::from_str(BAD_CANDIDATE).map_err(|e| Error::InvalidInput {
            field: "assets/demo/bad-candidate.json".to_owned(),
            message: e.to_string(),
        })?;
        let paraphrase = spec["paraphrase"].as_str().unwrap_or_default().to_owned();
        let dropped = self.label(spec["drop_decision"].as_str().unwrap_or_default())?;

        let state_bytes = read_derived(store, STATE_FILE)?;
        let handover_bytes = read_derived(store, HANDOVER_FILE)?;
        let mut state: State =
            serde_json::from_slice(&state_bytes).map_err(|e| Error::InvalidInput {
                field: self.ctx.state_path().to_string(),
                message: format!("not a valid state: {e}"),
            })?;
        let handover = String::from_utf8_lossy(&handover_bytes).into_owned();
        let mut handover = remaind_compact::strip_binding(&handover).to_owned();
        if let Some(ins) = state.latest_user_instruction.as_mut() {
            handover = handover.replace(&ins.text, &paraphrase);
            ins.text.clone_from(&paraphrase);
        }
        state
            .decisions
            .retain(|item| !item.events.contains(&dropped));
        let cite = format!("[{dropped}]");
        handover = handover
            .lines()
            .filter(|l| !l.contains(&cite))
            .map(|l| format!("{l}\n"))
            .collect();

        let dir = self.workspace.join(BAD_CANDIDATE_DIR);
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(|e| io_error("cannot create", &dir, e))?;
        for (name, bytes) in [
            ("state.json", state.to_canonical_bytes()),
            ("handover.md", handover.into_bytes()),
        ] {
            let path = dir.join(name);
            fs::write(&path, bytes).map_err(|e| io_error("cannot write", path, e))?;
        }

        let outcome = remaind_compact::compact(
            ledger,
            store,
            remaind_compact::Source::Dir(dir.clone()),
            remaind_compact::Options::default(),
        )
        .map_err(|e| compact_err(&self.ctx, e))?;
        let derived_unchanged = read_derived(store, STATE_FILE)? == state_bytes
            && read_derived(store, HANDOVER_FILE)? == handover_bytes;
        let failures = outcome.verdict.failures.clone();
        let ok = !outcome.verdict.accepted && !outcome.written && derived_unchanged;
        let summary = format!(
            "candidate {BAD_CANDIDATE_DIR}/ (instruction paraphrased, {dropped} dropped): rejected (exit 3): {}; state.json and handover.md {}",
            failures_line(&failures),
            if derived_unchanged {
                "unchanged byte for byte"
            } else {
                "CHANGED"
            }
        );
        self.step(Action::Reject, ok, outcome.event_id, summary);
        Ok(Rejected {
            event: outcome.event_id,
            failures,
            derived_unchanged,
        })
    }

    /// What the session learned that should outlive the task becomes a reviewed memory.
    fn memory(&mut self, ledger: &Ledger) -> Result<(), Error> {
        let memory = remaind_memory::Memory::open(&self.ctx, ledger).map_err(Error::Memory)?;
        let proposal = memory
            .propose(
                "Retries in the uploader",
                "Uploads retry with exponential backoff and full jitter (200 ms to 5 s, \
                 UPLOAD_MAX_TRIES tries); never retry a 4xx.",
            )
            .map_err(Error::Memory)?;
        let accepted = memory.accept(&proposal.id).map_err(Error::Memory)?;
        let event = accepted.events.last().copied();
        self.step(
            Action::Memory,
            accepted.status == remaind_memory::Status::Accepted,
            event,
            format!(
                "memory `{}` proposed and accepted into .context/memory/MEMORY.md (events {})",
                accepted.title,
                accepted
                    .events
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
        Ok(())
    }

    fn resume(&mut self) -> Result<Resume, Error> {
        let resume = remaind_resume::resume(&self.ctx, Budget::Configured)?;
        let newest = self.label("ask4")?;
        let from_ledger = resume
            .latest_instruction
            .as_ref()
            .is_some_and(|i| i.event == newest && i.source == InstructionSource::Ledger);
        let ok = resume.gate.proceed && from_ledger;
        let instruction = match &resume.latest_instruction {
            Some(i) => format!(
                "latest instruction {} taken from the {} (the state covers through e{})",
                i.event,
                match i.source {
                    InstructionSource::Ledger => "ledger",
                    InstructionSource::State => "state",
                },
                resume.through_seq.unwrap_or(0)
            ),
            None => "no latest instruction".to_owned(),
        };
        let gate = if resume.gate.proceed {
            format!(
                "gate: continue (exit 0, confidence {:.2})",
                resume.gate.confidence.score
            )
        } else {
            let reasons: Vec<String> = resume
                .gate
                .reasons
                .iter()
                .map(|r| r.code.to_string())
                .collect();
            format!("gate: interrupt (exit 4): {}", reasons.join(", "))
        };
        self.step(
            Action::Resume,
            ok,
            None,
            format!(
                "packet of {} tokens written to active/resume_packet.md; {instruction}; {gate}",
                resume.tokens
            ),
        );
        Ok(resume)
    }

    /// Rolls the derived files back to just before the second compaction wrote state.json,
    /// then undoes that rollback: both ways must give the exact bytes.
    fn rollback(
        &mut self,
        store: &remaind_atomic::HistoryStore,
        before_state: &[u8],
        before_handover: &[u8],
    ) -> Result<RolledBack, Error> {
        let points = remaind_resume::rollback_points(&self.ctx)?;
        let last_state_write = points
            .iter()
            .rev()
            .find(|p| p.file == STATE_FILE)
            .ok_or_else(|| Error::InvalidInput {
                field: "rollback".to_owned(),
                message: "no history point for state.json".to_owned(),
            })?;
        // A point's time is the instant of its write; the version from before it is the one
        // as of a microsecond earlier.
        let written = remaind_resume::parse_time(&last_state_write.time)?;
        let to = written
            .checked_sub(jiff::SignedDuration::from_micros(1))
            .unwrap_or(written);
        let after_state = read_derived(store, STATE_FILE)?;
        let after_handover = read_derived(store, HANDOVER_FILE)?;
        let done = remaind_resume::rollback_to(&self.ctx, to)?;
        let restored_equal = read_derived(store, STATE_FILE)? == before_state
            && read_derived(store, HANDOVER_FILE)? == before_handover;
        let undone_equal = match &done.undo_to {
            Some(undo) => {
                remaind_resume::rollback_to(&self.ctx, remaind_resume::parse_time(undo)?)?;
                read_derived(store, STATE_FILE)? == after_state
                    && read_derived(store, HANDOVER_FILE)? == after_handover
            }
            None => false,
        };
        let summary = format!(
            "--to {} (just before the second compaction): restored {}; state.json and handover.md {}; undone with --to {}: {}",
            done.to,
            if done.changed.is_empty() {
                "nothing".to_owned()
            } else {
                done.changed.join(", ")
            },
            if restored_equal {
                "equal byte for byte to before the compaction"
            } else {
                "DIFFER from before the compaction"
            },
            done.undo_to.as_deref().unwrap_or("-"),
            if undone_equal {
                "back to the second compaction's bytes"
            } else {
                "NOT back to the second compaction's bytes"
            },
        );
        let restored_equal = restored_equal && undone_equal;
        self.step(Action::Rollback, restored_equal, None, summary);
        Ok(RolledBack {
            to: done.to,
            changed: done.changed,
            undo_to: done.undo_to,
            restored_equal,
        })
    }
}

fn compact_err(ctx: &ContextDir, e: remaind_compact::Error) -> Error {
    if e.is_invalid_input() {
        Error::InvalidInput {
            field: "compact".to_owned(),
            message: e.to_string(),
        }
    } else {
        io_error("cannot compact into", ctx.active_dir(), io::Error::other(e))
    }
}

/// An I/O error on `path` while doing `action`, as the lifecycle layer reports one.
fn io_error(action: &'static str, path: impl Into<Utf8PathBuf>, source: io::Error) -> Error {
    Error::Io {
        action,
        path: path.into(),
        source,
    }
}

fn read_derived(store: &remaind_atomic::HistoryStore, file: &str) -> Result<Vec<u8>, Error> {
    Ok(store.read(file).map_err(Error::Atomic)?.unwrap_or_default())
}

fn failures_line(failures: &[Failure]) -> String {
    let mut merged: Vec<(&str, Vec<EventId>)> = Vec::new();
    for f in failures {
        let name = f.check.as_str();
        let idx = match merged.iter().position(|(n, _)| *n == name) {
            Some(i) => i,
            None => {
                merged.push((name, Vec::new()));
                merged.len() - 1
            }
        };
        for id in &f.events {
            if !merged[idx].1.contains(id) {
                merged[idx].1.push(*id);
            }
        }
    }
    let parts: Vec<String> = merged
        .into_iter()
        .map(|(name, events)| {
            if events.is_empty() {
                name.to_owned()
            } else {
                format!("{name} [{}]", ids(&events))
            }
        })
        .collect();
    parts.join(", ")
}

/// One line for a logged event: id, kind, what it says, and what the ledger did to it.
fn describe_event(ev: &Event) -> String {
    let mut text = ev.text.clone().unwrap_or_default();
    if text.chars().count() > 72 {
        text = text.chars().take(71).collect::<String>() + "…";
    }
    let mut line = format!("{:<4} {:<17} {text}", ev.id.to_string(), ev.kind.as_str());
    if !ev.supersedes.is_empty() {
        line.push_str(&format!(" (supersedes {})", ids(&ev.supersedes)));
    }
    if !ev.resolves.is_empty() {
        line.push_str(&format!(" (resolves {})", ids(&ev.resolves)));
    }
    if ev.kind == Kind::Remember {
        line.push_str(" (importance 3)");
    }
    for a in &ev.artifact {
        line.push_str(&format!(
            " [{} bytes of {} routed to {}]",
            a.bytes, a.field, a.path
        ));
    }
    if !ev.redactions.is_empty() {
        let mut rules: Vec<&str> = ev.redactions.iter().map(|r| r.rule.as_str()).collect();
        rules.sort_unstable();
        rules.dedup();
        line.push_str(&format!(
            " [{} secret(s) redacted: {}]",
            ev.redactions.len(),
            rules.join(", ")
        ));
    }
    line
}

fn ids(list: &[EventId]) -> String {
    list.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Searches every regular file under `root` (symlinks not followed) for the planted secrets;
/// returns the number of files searched and the relative paths holding one.
fn search_secrets(root: &Utf8Path) -> Result<(u64, Vec<String>), Error> {
    let mut searched = 0;
    let mut found = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        let entries = fs::read_dir(&dir).map_err(|e| io_error("cannot list", &dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io_error("cannot list", &dir, e))?;
            let path = dir.join(entry.file_name().to_string_lossy().as_ref());
            let kind = entry
                .file_type()
                .map_err(|e| io_error("cannot inspect", &path, e))?;
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                let bytes = fs::read(&path).map_err(|e| io_error("cannot read", &path, e))?;
                searched += 1;
                if PLANTED_SECRETS
                    .iter()
                    .any(|s| memfind(&bytes, s.as_bytes()))
                {
                    found.push(
                        path.strip_prefix(root)
                            .map(ToString::to_string)
                            .unwrap_or_else(|_| path.to_string()),
                    );
                }
            }
        }
    }
    found.sort();
    Ok((searched, found))
}

fn memfind(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}
