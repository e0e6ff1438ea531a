//! Runtime adapters: what Claude Code and Codex say (hook payloads, transcript lines) mapped
//! to ledger events that carry what matters for a resume.
//!
//! This layer owns the runtimes' formats and one mapping core shared by both: a user's
//! prompt, `/compact` instructions and answers to the agent's questions become
//! `user_message`s (a long prompt keeps its instruction inline); the agent's own plan
//! (`TodoWrite`, the task tools, Codex's `update_plan`) becomes `next_step`s, `result`s and
//! the links that supersede and resolve them as statuses change; a compaction summary is
//! recorded and its pending tasks, current work and next step become proposals citing it;
//! tool calls are described in one line (the payload stays whole on the event, in artifacts
//! when large). Every event carries `data.origin` (runtime, hook or transcript line id and
//! time). It appends through the ledger only and knows nothing of state, compaction, resume
//! or the CLI.
//!
//! Cursor's, Gemini CLI's and OpenCode's hooks are translated ([`runtimes::translate`]) into
//! the Claude Code events and fields the same core reads; [`install`] merges each runtime's
//! hook recipe (the files under `examples/`) into its settings file and takes it out again.
//!
//! ```
//! use remaind_adapters::{Runtime, import};
//! use remaind_ledger::Ledger;
//!
//! let tmp = tempfile::tempdir().unwrap();
//! let dir = camino::Utf8Path::from_path(tmp.path()).unwrap().join(".context");
//! Ledger::create(&dir)?;
//! let ledger = Ledger::open(&dir)?;
//! let rollout = dir.with_file_name("rollout.jsonl");
//! std::fs::write(&rollout, concat!(
//!     r#"{"type":"session_meta","payload":{"id":"s1"}}"#, "\n",
//!     r#"{"timestamp":"2025-12-28T12:21:44Z","type":"event_msg","payload":{"type":"user_message","message":"Plan the migration"}}"#, "\n",
//! )).unwrap();
//! let report = import(&ledger, Runtime::Codex, &[rollout.clone()], |_| {})?;
//! assert_eq!(report.appended, 1);
//! let again = import(&ledger, Runtime::Codex, &[rollout], |_| {})?;
//! assert_eq!((again.appended, again.already_imported), (0, 1));
//! # Ok::<(), remaind_adapters::Error>(())
//! ```

pub mod claude_code;
pub mod codex;
mod describe;
mod error;
mod follow;
mod hooks;
mod import;
pub mod install;
mod map;
mod plan;
mod repair;
pub mod runtimes;
mod seen;
mod signal;
mod summary;
mod transcript;

pub use describe::describe_tool;
pub use error::{Error, Result};
pub use follow::{Followed, MAX_LINE_BYTES, WINDOW_BYTES, follow_transcript};
pub use hooks::{
    HookEvent, InjectionLimit, detect_runtime, hook_framing, hook_records, record, replay_payloads,
    session_start_output,
};
pub use import::{ImportReport, Progress, import, transcript_files};
pub use map::{INLINE_PROMPT_BYTES, Mapper};
pub use plan::PlanBook;
pub use repair::repair_json_text;
pub use signal::{Framing, Record, Runtime, Signal, Source};
pub use transcript::{LineCounts, LineOutcome, read_transcript};
