//! A compaction (`remaind compact`, and the PreCompact hook's): the events since the last
//! accepted compaction folded into a new `state.json` and `handover.md` by a compactor that
//! only proposes (the built-in one, a candidate folder, an external command, or an LLM
//! preset with its repair rounds), and the validator that decides.
//!
//! A [`CompactRequest`] is checked when it is made, before any folder is opened;
//! [`compact`] runs it.

use std::time::Duration;

use camino::Utf8PathBuf;
use remaind_compact::{DEFAULT_TIMEOUT, Options, Outcome, Source};
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;
use remaind_llm::{Config, LlmOptions, LlmOutcome, Preset};
use serde::Serialize;

use crate::{Error, Result};

/// Which compactor proposes the candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compactor {
    /// The built-in deterministic compactor.
    Builtin,
    /// A candidate already written: `state.json` and `handover.md` in this folder.
    Dir(Utf8PathBuf),
    /// `sh -c cmd` (docs/compactor-protocol.md), killed with everything it started after
    /// `timeout` (default 120 seconds).
    Command {
        /// The command line.
        cmd: String,
        /// How long it may run.
        timeout: Option<Duration>,
    },
    /// An LLM preset (settings in `.context/schemas/llm.json`), whose rejected candidates go
    /// back to the model with the validator's failures before the built-in candidate is
    /// used instead.
    Llm {
        /// The preset asked.
        preset: Preset,
        /// The model to ask instead of the configured one.
        model: Option<String>,
        /// How long all rounds together may take.
        time_limit: Option<Duration>,
    },
}

/// A compaction checked and ready for [`compact`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactRequest {
    compactor: Compactor,
    dry_run: bool,
}

impl CompactRequest {
    /// A compaction by `compactor`; with `dry_run` the verdict is reached but nothing is
    /// written or appended. An empty command or model name is refused.
    pub fn new(compactor: Compactor, dry_run: bool) -> Result<CompactRequest> {
        match &compactor {
            Compactor::Command { cmd, .. } if cmd.trim().is_empty() => {
                return Err(Error::EmptyCompactor);
            }
            Compactor::Llm {
                model: Some(model), ..
            } if model.trim().is_empty() => return Err(Error::EmptyModel),
            _ => {}
        }
        Ok(CompactRequest { compactor, dry_run })
    }
}

/// What [`compact`] did: the commit's outcome, and with an LLM preset every model round.
/// Serialized as `remaind compact --json` prints it: the verdict alone, or with an LLM
/// preset the verdict with the compactor's label, the rounds, the fallback, the time, the
/// tokens and what was written.
#[derive(Debug, Clone, PartialEq)]
pub enum Compacted {
    /// A compactor that proposed once.
    Once(Outcome),
    /// An LLM preset's rounds and the commit that ended them.
    Llm(LlmOutcome),
}

impl Compacted {
    /// The commit that ended the compaction.
    pub fn outcome(&self) -> &Outcome {
        match self {
            Compacted::Once(outcome) => outcome,
            Compacted::Llm(done) => &done.outcome,
        }
    }
}

/// `remaind compact --llm --json`'s object.
#[derive(Serialize)]
struct LlmReport<'a> {
    verdict: &'a remaind_validate::Verdict,
    compactor: &'a str,
    rounds: &'a [remaind_llm::Round],
    fell_back: bool,
    seconds: f64,
    tokens: &'a remaind_llm::Tokens,
    written: bool,
}

impl Serialize for Compacted {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Compacted::Once(outcome) => outcome.verdict.serialize(serializer),
            Compacted::Llm(done) => LlmReport {
                verdict: &done.outcome.verdict,
                compactor: &done.label,
                rounds: &done.rounds,
                fell_back: done.fell_back,
                seconds: done.seconds,
                tokens: &done.tokens,
                written: done.outcome.written,
            }
            .serialize(serializer),
        }
    }
}

/// Compacts the folder's ledger: the request's compactor proposes, the validator decides.
/// Accepted: both files are written atomically with history and a `compaction` event is
/// appended. Rejected: the files stay byte for byte and a `validation` event records every
/// failed check (a dry run writes and appends nothing either way). A failed model call is
/// an [`Error`] and writes nothing.
pub fn compact(ctx: &ContextDir, request: &CompactRequest) -> Result<Compacted> {
    // The LLM settings are read before the ledger is opened.
    let plan = plan(ctx, request)?;
    let ledger = Ledger::open(ctx.root())?;
    run(ctx, &ledger, plan)
}

/// [`compact`] on a ledger the caller already opened (the PreCompact hook's).
pub(crate) fn compact_on(
    ctx: &ContextDir,
    ledger: &Ledger,
    request: &CompactRequest,
) -> Result<Compacted> {
    run(ctx, ledger, plan(ctx, request)?)
}

/// A request made ready to run.
enum Plan {
    /// One proposal, committed with these options.
    Once(Source, Options),
    /// An LLM preset's rounds, with the folder's settings.
    Llm(Box<Config>, LlmOptions),
}

/// The request as the compaction library takes it; with an LLM preset, the folder's LLM
/// settings with the request's model in place of the configured one.
fn plan(ctx: &ContextDir, request: &CompactRequest) -> Result<Plan> {
    let source = match &request.compactor {
        Compactor::Builtin => Source::Builtin,
        Compactor::Dir(dir) => Source::Dir(dir.clone()),
        Compactor::Command { cmd, timeout } => Source::Command {
            cmd: cmd.clone(),
            timeout: timeout.unwrap_or(DEFAULT_TIMEOUT),
        },
        Compactor::Llm {
            preset,
            model,
            time_limit,
        } => {
            let mut config = Config::load(ctx.root()).map_err(Error::from_llm)?;
            if let Some(model) = model {
                config.set_model(*preset, model.clone());
            }
            let options = LlmOptions {
                preset: *preset,
                dry_run: request.dry_run,
                time_limit: *time_limit,
            };
            return Ok(Plan::Llm(Box::new(config), options));
        }
    };
    let options = Options {
        dry_run: request.dry_run,
        through_seq: None,
    };
    Ok(Plan::Once(source, options))
}

fn run(ctx: &ContextDir, ledger: &Ledger, plan: Plan) -> Result<Compacted> {
    let store = remaind_compact::open_store(ctx.root())?;
    match plan {
        Plan::Once(source, options) => {
            let outcome = remaind_compact::compact(ledger, &store, source, options)?;
            Ok(Compacted::Once(outcome))
        }
        Plan::Llm(config, options) => {
            let done = remaind_llm::compact_llm(ledger, &store, &config, &options)
                .map_err(Error::from_llm)?;
            Ok(Compacted::Llm(done))
        }
    }
}
