//! Runtime framing (`active/framing.json`): under what conditions the next run happens —
//! workspace root, shell, OS, date and time zone, model and settings.
//!
//! Framing is a separate channel from memory: compaction never reads or writes it, and every
//! resume packet shows it in a section of its own. It is written through the history store,
//! so it can be rolled back like every derived file.

use std::collections::BTreeMap;

use camino::Utf8Path;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::conv::open_store;
use crate::layout::{ContextDir, FRAMING_FILE};

/// The content of `framing.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Framing {
    /// Format version, always 1.
    pub v: u32,
    /// RFC 3339 UTC time the framing was recorded.
    pub recorded_at: String,
    /// The workspace root the agent works in.
    pub workspace_root: String,
    /// The shell family commands run in (`bash`, `zsh`, `sh`, `pwsh`, …).
    pub shell: String,
    /// The operating system and architecture, e.g. `linux x86_64`.
    pub os: String,
    /// The date the run believes it is (`YYYY-MM-DD`, in `time_zone`).
    pub date: String,
    /// The IANA time zone, e.g. `Europe/Paris`, or `UTC`.
    pub time_zone: String,
    /// The model in force, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Further execution settings (`thinking=high`, `sandbox=read-only`, …).
    #[serde(default)]
    pub settings: BTreeMap<String, String>,
}

/// What `remaind frame` was given; every field left `None` is auto-detected (or, for the
/// model and settings, carried over from the previous framing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameRequest {
    /// The workspace root (default: the folder holding `.context/`).
    pub workspace_root: Option<String>,
    /// The shell family (default: the basename of `$SHELL`, else `sh`).
    pub shell: Option<String>,
    /// The OS (default: this machine's OS and architecture).
    pub os: Option<String>,
    /// The date, `YYYY-MM-DD` (default: today in `time_zone`).
    pub date: Option<String>,
    /// The time zone (default: the system's, else `UTC`).
    pub time_zone: Option<String>,
    /// The model (default: `$REMAIND_MODEL`, else the previous framing's).
    pub model: Option<String>,
    /// Settings to set, `key=value`; an empty value removes the key. Merged over the previous
    /// framing's settings.
    pub settings: Vec<(String, String)>,
    /// Record the time as this instead of now (for reproducible fixtures).
    pub recorded_at: Option<jiff::Timestamp>,
}

/// What a runtime stated in a hook payload or a transcript (its workspace, model and
/// settings); every other field is auto-detected.
impl From<&remaind_adapters::Framing> for FrameRequest {
    fn from(stated: &remaind_adapters::Framing) -> Self {
        FrameRequest {
            workspace_root: stated.workspace.clone(),
            model: stated.model.clone(),
            settings: stated
                .settings
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            ..FrameRequest::default()
        }
    }
}

#[expect(
    clippy::disallowed_methods,
    reason = "the framing describes the agent's environment (SHELL, REMAIND_MODEL, TZDIR); to move to the front-ends with FrameRequest"
)]
fn detect_shell() -> String {
    std::env::var("SHELL")
        .ok()
        .and_then(|s| {
            Utf8Path::new(&s)
                .file_name()
                .map(str::to_owned)
                .filter(|n| !n.is_empty())
        })
        .unwrap_or_else(|| {
            if cfg!(windows) {
                "pwsh".to_owned()
            } else {
                "sh".to_owned()
            }
        })
}

fn detect_time_zone() -> jiff::tz::TimeZone {
    jiff::tz::TimeZone::try_system().unwrap_or(jiff::tz::TimeZone::UTC)
}

fn check_date(date: &str) -> Result<(), Error> {
    date.parse::<jiff::civil::Date>()
        .map(|_| ())
        .map_err(|e| Error::InvalidInput {
            field: "--date".to_owned(),
            message: format!("`{date}` is not a date `YYYY-MM-DD`: {e}"),
        })
}

impl Framing {
    /// Builds the framing a request describes, filling gaps from the environment and the
    /// previous framing.
    #[expect(
        clippy::disallowed_methods,
        reason = "the framing describes the agent's environment (SHELL, REMAIND_MODEL, TZDIR); to move to the front-ends with FrameRequest"
    )]
    pub(crate) fn from_request(
        ctx: &ContextDir,
        req: &FrameRequest,
        previous: Option<&Framing>,
    ) -> Result<Framing, Error> {
        let now = req.recorded_at.unwrap_or_else(jiff::Timestamp::now);
        let (time_zone_name, tz) = match &req.time_zone {
            Some(name) => {
                let tz = jiff::tz::TimeZone::get(name).map_err(|e| Error::InvalidInput {
                    field: "--time-zone".to_owned(),
                    message: format!("`{name}` is not a known IANA time zone: {e}"),
                })?;
                (name.clone(), tz)
            }
            None => {
                let tz = detect_time_zone();
                let name = tz.iana_name().unwrap_or("UTC").to_owned();
                (name, tz)
            }
        };
        let date = match &req.date {
            Some(d) => {
                check_date(d)?;
                d.clone()
            }
            None => now.to_zoned(tz).date().to_string(),
        };
        let workspace_root = req.workspace_root.clone().unwrap_or_else(|| {
            ctx.root()
                .parent()
                .map(|p| p.to_string())
                .unwrap_or_else(|| ctx.root().to_string())
        });
        let model = req
            .model
            .clone()
            .or_else(|| {
                std::env::var("REMAIND_MODEL")
                    .ok()
                    .filter(|m| !m.is_empty())
            })
            .or_else(|| previous.and_then(|p| p.model.clone()));
        let mut settings = previous.map(|p| p.settings.clone()).unwrap_or_default();
        for (k, v) in &req.settings {
            if v.is_empty() {
                settings.remove(k);
            } else {
                settings.insert(k.clone(), v.clone());
            }
        }
        Ok(Framing {
            v: 1,
            recorded_at: remaind_atomic::format_time(now),
            workspace_root,
            shell: req.shell.clone().unwrap_or_else(detect_shell),
            os: req
                .os
                .clone()
                .unwrap_or_else(|| format!("{} {}", std::env::consts::OS, std::env::consts::ARCH)),
            date,
            time_zone: time_zone_name,
            model,
            settings,
        })
    }

    /// The bytes stored in `framing.json`: pretty JSON and a newline.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }

    /// The framing as a Markdown list, as shown in the resume packet (what `Display` writes).
    pub(crate) fn to_markdown(&self) -> String {
        let mut out = String::new();
        let mut line = |k: &str, v: &str| {
            // Values come from the caller and the environment: kept on their line.
            out.push_str("- ");
            out.push_str(&crate::inert::one_line(k));
            out.push_str(": ");
            out.push_str(&crate::inert::one_line(v));
            out.push('\n');
        };
        line("workspace root", &self.workspace_root);
        line("shell", &self.shell);
        line("os", &self.os);
        line("date", &self.date);
        line("time zone", &self.time_zone);
        line("model", self.model.as_deref().unwrap_or("(not recorded)"));
        for (k, v) in &self.settings {
            line(&format!("setting {k}"), v);
        }
        line("recorded at", &self.recorded_at);
        out
    }
}

impl std::fmt::Display for Framing {
    /// The framing as a Markdown list, as shown in the resume packet.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_markdown())
    }
}

/// Reads `active/framing.json`, if there is one.
pub fn load_framing(ctx: &ContextDir) -> Result<Option<Framing>, Error> {
    let store = open_store(ctx)?;
    let Some(bytes) = store.read(FRAMING_FILE).map_err(Error::Atomic)? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| Error::InvalidInput {
            field: ctx.framing_path().to_string(),
            message: format!("not a valid framing file: {e}; run `remaind frame` to rewrite it"),
        })
}

/// Records the framing a request describes into `active/framing.json` (atomically, with
/// history) and returns it. An unreadable previous framing is replaced, not merged.
pub fn record_framing(ctx: &ContextDir, req: &FrameRequest) -> Result<Framing, Error> {
    let previous = load_framing(ctx).ok().flatten();
    let framing = Framing::from_request(ctx, req, previous.as_ref())?;
    // Every string reaches a file only through the project's redactor, like an event.
    let framing = redacted(ctx, &framing)?;
    let store = open_store(ctx)?;
    store
        .write(FRAMING_FILE, &framing.to_bytes())
        .map_err(Error::Atomic)?;
    Ok(framing)
}

/// Records the framing a runtime stated (a hook payload, a transcript) over the previous
/// one, only when it changes what `framing.json` says (the time of recording aside): a hook
/// fired on every tool call writes nothing while the conditions stay the same. `ledger` is
/// the project's, open already; its redactor cleans every value. `Ok(None)`: unchanged.
pub fn observe_framing(
    ctx: &ContextDir,
    ledger: &remaind_ledger::Ledger,
    req: &FrameRequest,
) -> Result<Option<Framing>, Error> {
    let previous = load_framing(ctx).ok().flatten();
    // The common case, on every hook: nothing stated is new and the day is the same. Said
    // without detecting the machine's shell and time zone or redacting the whole framing.
    if let Some(p) = &previous
        && already_says(p, req, ledger)
    {
        return Ok(None);
    }
    let mut req = req.clone();
    // What the runtime did not state stays as it was.
    if req.workspace_root.is_none() {
        req.workspace_root = previous.as_ref().map(|p| p.workspace_root.clone());
    }
    let framing = Framing::from_request(ctx, &req, previous.as_ref())?;
    let framing = redacted_with(ledger, &framing)?;
    let unchanged = previous.as_ref().is_some_and(|p| {
        *p == Framing {
            recorded_at: p.recorded_at.clone(),
            ..framing.clone()
        }
    });
    if unchanged {
        return Ok(None);
    }
    let store = open_store(ctx)?;
    store
        .write(FRAMING_FILE, &framing.to_bytes())
        .map_err(Error::Atomic)?;
    Ok(Some(framing))
}

/// Whether `previous` already holds everything `req` states (its values redacted as they
/// would be stored) and its date is still today in its time zone. Only a request that names
/// no shell, OS, date or time zone (what a runtime states) can be answered so.
#[expect(
    clippy::disallowed_methods,
    reason = "the framing describes the agent's environment (SHELL, REMAIND_MODEL, TZDIR); to move to the front-ends with FrameRequest"
)]
fn already_says(previous: &Framing, req: &FrameRequest, ledger: &remaind_ledger::Ledger) -> bool {
    if req.shell.is_some() || req.os.is_some() || req.date.is_some() || req.time_zone.is_some() {
        return false;
    }
    let clean = |v: &str| ledger.redactor().redact_str(v).0.into_owned();
    let model = req.model.clone().or_else(|| {
        std::env::var("REMAIND_MODEL")
            .ok()
            .filter(|m| !m.is_empty())
    });
    let same_model = model.is_none_or(|m| previous.model.as_deref() == Some(clean(&m).as_str()));
    let same_root = req
        .workspace_root
        .as_deref()
        .is_none_or(|w| previous.workspace_root == clean(w));
    let same_settings = req
        .settings
        .iter()
        .all(|(k, v)| match previous.settings.get(k) {
            None => v.is_empty(),
            Some(old) => !v.is_empty() && *old == clean(v),
        });
    let today = zone_named(&previous.time_zone)
        .map(|tz| jiff::Timestamp::now().to_zoned(tz).date().to_string());
    same_model && same_root && same_settings && today.is_some_and(|d| d == previous.date)
}

/// The time zone `name`, read from its own zoneinfo file: jiff's database first lists every
/// zone of the machine (a walk of `/usr/share/zoneinfo`, most of a hook's time), which one
/// known name does not need. Falls back to the database for a name not found so.
#[expect(
    clippy::disallowed_methods,
    reason = "the framing describes the agent's environment (SHELL, REMAIND_MODEL, TZDIR); to move to the front-ends with FrameRequest"
)]
fn zone_named(name: &str) -> Option<jiff::tz::TimeZone> {
    if matches!(name, "UTC" | "Etc/UTC") {
        return Some(jiff::tz::TimeZone::UTC);
    }
    let plain = !name.is_empty()
        && !name.starts_with('/')
        && name
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..");
    if plain {
        let dir = std::env::var_os("TZDIR").map_or_else(
            || std::path::PathBuf::from("/usr/share/zoneinfo"),
            Into::into,
        );
        if let Some(tz) = std::fs::read(dir.join(name))
            .ok()
            .and_then(|bytes| jiff::tz::TimeZone::tzif(name, &bytes).ok())
        {
            return Some(tz);
        }
    }
    jiff::tz::TimeZone::get(name).ok()
}

/// `framing` with every string (model, settings, paths) through the project's redactor.
fn redacted(ctx: &ContextDir, framing: &Framing) -> Result<Framing, Error> {
    let ledger = crate::conv::open_ledger(ctx)?;
    redacted_with(&ledger, framing)
}

fn redacted_with(ledger: &remaind_ledger::Ledger, framing: &Framing) -> Result<Framing, Error> {
    let invalid = |e: serde_json::Error| Error::InvalidInput {
        field: "framing".to_owned(),
        message: format!("cannot be redacted: {e}"),
    };
    let mut value = serde_json::to_value(framing).map_err(invalid)?;
    ledger.redactor().redact_json(&mut value);
    serde_json::from_value(value).map_err(invalid)
}
