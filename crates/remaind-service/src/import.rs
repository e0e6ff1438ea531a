//! Bringing Claude Code or Codex transcripts into the ledger (`remaind import`): the paths
//! checked, the import (`remaind_adapters::import`: new lines only, what the hooks recorded
//! live matched by content), a run that found nothing of the named runtime refused with
//! what to run instead, and the framing the transcripts state recorded.

use camino::Utf8PathBuf;
use remaind_adapters::{ImportReport, Progress, Runtime};
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;

use crate::{Error, Result};

/// What [`import`] reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOptions {
    /// The runtime that wrote the transcripts (Claude Code or Codex).
    pub runtime: Runtime,
    /// Transcript files or folders; a relative one is under `cwd`.
    pub paths: Vec<Utf8PathBuf>,
    /// The front-end's current directory.
    pub cwd: Utf8PathBuf,
}

/// What [`import`] did.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The import's counts and files.
    pub report: ImportReport,
    /// Why the framing the transcripts state was not recorded, when it was not (never the
    /// import's failure).
    pub framing_error: Option<String>,
}

/// Imports the transcripts under `opts.paths` into the folder's ledger, calling `progress`
/// as the bytes are read. Refused (nothing imported) when a path does not exist, when every
/// transcript found was written by another runtime, or when no line is the named
/// runtime's.
pub fn import(
    ctx: &ContextDir,
    opts: &ImportOptions,
    progress: impl FnMut(Progress),
) -> Result<Imported> {
    let ledger = Ledger::open(ctx.root())?;
    let paths: Vec<Utf8PathBuf> = opts.paths.iter().map(|p| opts.cwd.join(p)).collect();
    if let Some(p) = paths.iter().find(|p| !p.exists()) {
        return Err(Error::NoSuchPath { path: p.clone() });
    }
    let runtime = opts.runtime;
    let report = remaind_adapters::import(&ledger, runtime, &paths, progress)?;
    if report.files.is_empty()
        && let Some((_, first)) = report.other_runtime_files.first()
    {
        return Err(Error::OtherRuntime {
            files: other_runtime_list(&report),
            runtime: *first,
        });
    }
    if report.counts.used == 0 && report.counts.unused > 0 {
        // Nothing of the named runtime: most likely the other runtime's transcript.
        return Err(Error::NotATranscript {
            runtime,
            other: match runtime {
                Runtime::ClaudeCode => Runtime::Codex,
                _ => Runtime::ClaudeCode,
            },
            lines: report.counts.lines,
            files: report.files.len(),
        });
    }
    let framing_error = crate::framing::observe(ctx, &ledger, &report.framing);
    Ok(Imported {
        report,
        framing_error,
    })
}

/// The files another runtime wrote, each with its runtime.
fn other_runtime_list(r: &ImportReport) -> String {
    r.other_runtime_files
        .iter()
        .map(|(f, rt)| format!("{f}: {rt}"))
        .collect::<Vec<_>>()
        .join(", ")
}
