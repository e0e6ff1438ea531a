//! The token monitor (docs/contract.md#monitor): classify a token count into a band and record band
//! changes as `monitor` events.
//!
//! `monitor --used N` only reads `thresholds.json` and the last few ledger lines, and never
//! loads a tokenizer. Without `--used`, the count is the tokens of the packet a resume would
//! load now (built, not written).

use std::fmt;

use serde::{Deserialize, Serialize};

use remaind_events::{Event, Kind, NewEvent};

use remaind_ledger::LogReader;
use serde_json::Value;

use crate::Error;
use crate::conv::open_ledger;
use crate::layout::ContextDir;
use crate::thresholds::{BandEdges, Thresholds};

/// How full the context window is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Band {
    /// Below the warning edge.
    Normal,
    /// From the warning edge.
    Warning,
    /// From the hard edge.
    Hard,
    /// From the emergency edge.
    Emergency,
}

impl Band {
    /// The wire name, e.g. `warning`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Band::Normal => "normal",
            Band::Warning => "warning",
            Band::Hard => "hard",
            Band::Emergency => "emergency",
        }
    }

    /// Parses a wire name.
    pub(crate) fn parse(s: &str) -> Option<Band> {
        [Band::Normal, Band::Warning, Band::Hard, Band::Emergency]
            .into_iter()
            .find(|b| b.as_str() == s)
    }

    /// What the agent should do in this band.
    pub(crate) fn action(self) -> Action {
        match self {
            Band::Normal => Action::None,
            Band::Warning => Action::CompactSoon,
            Band::Hard => Action::CompactNow,
            Band::Emergency => Action::CompactNowAndResumeMinimal,
        }
    }

    /// Classifies `tokens` used of a `window`: the highest band whose edge
    /// (`fraction × window`) the count reaches. A window of 0 counts as full.
    pub(crate) fn classify(tokens: u64, window: u64, edges: &BandEdges) -> Band {
        let reaches = |fraction: f64| {
            // Compare in integers where possible: tokens ≥ ceil(fraction × window).
            let edge = (fraction * window as f64).ceil();
            tokens as f64 >= edge
        };
        if window == 0 || reaches(edges.emergency) {
            Band::Emergency
        } else if reaches(edges.hard) {
            Band::Hard
        } else if reaches(edges.warning) {
            Band::Warning
        } else {
            Band::Normal
        }
    }
}

impl fmt::Display for Band {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The recommended action for a band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Nothing to do.
    None,
    /// Compact at the next natural pause.
    CompactSoon,
    /// Compact before the next step.
    CompactNow,
    /// Compact now and resume in a fresh context with a minimal packet.
    CompactNowAndResumeMinimal,
}

impl Action {
    /// A short sentence for people (what `Display` writes).
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Action::None => "none",
            Action::CompactSoon => "compact soon",
            Action::CompactNow => "compact now",
            Action::CompactNowAndResumeMinimal => "compact now and resume with a minimal packet",
        }
    }
}

impl fmt::Display for Action {
    /// A short sentence for people, e.g. `compact soon`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// Where the monitor's token count came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenSource {
    /// Reported by the agent (`--used N`).
    Reported,
    /// Counted by Remaind: the tokens of the packet a resume would load now.
    ResumePacket,
}

/// The monitor's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    /// The band.
    pub band: Band,
    /// Tokens used (reported or counted).
    pub tokens: u64,
    /// The context window.
    pub window: u64,
    /// `tokens / window`.
    pub ratio: f64,
    /// The recommended action.
    pub action: Action,
    /// Where `tokens` came from.
    pub source: TokenSource,
    /// The tokenizer used to count (only when counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokenizer: Option<String>,
    /// The band of the previous `monitor` event, if one was found (see [`monitor()`]).
    pub previous_band: Option<Band>,
    /// The `monitor` event appended for a band change, if any.
    pub event: Option<remaind_events::EventId>,
}

/// How far back the monitor looks for the previous `monitor` event (see [`monitor`]).
pub(crate) const BASELINE_LOOKBACK: usize = 512;

/// The band of the latest `monitor` event since the latest `compaction`, looking back at
/// most [`BASELINE_LOOKBACK`] events; `None` when there is none.
///
/// This reads the last lines through a [`LogReader`] (anchor-checked, no redactor, no lock),
/// so that `monitor --used` stays within a few milliseconds; only a band change opens the
/// ledger, to append through it.
///
/// Only `monitor` events of the same `source` count: a reported count and the packet's count
/// measure different things, and alternating them must not flip the band back and forth.
fn baseline(ctx: &ContextDir, source: &str) -> Result<Option<Band>, Error> {
    let log = LogReader::open(ctx.root())?;
    let same_source = |ev: &Event| {
        ev.kind == Kind::Compaction
            || ev.data.as_ref().and_then(|d| d.get("source")) == Some(&Value::from(source))
    };
    let found = log.last_matching(
        &[Kind::Monitor, Kind::Compaction],
        BASELINE_LOOKBACK as u64,
        same_source,
    )?;
    Ok(found
        .filter(|ev| ev.kind == Kind::Monitor)
        .and_then(|ev| ev.data?.get("band")?.as_str().and_then(Band::parse)))
}

/// Classifies the context's token use and records a band change.
///
/// `used` is the count the agent reports; without it, the tokens of the packet a resume would
/// load now (within the configured resume budget, as `resume` builds it) are counted with the
/// configured tokenizer. `window` overrides the
/// configured window. The band is compared with the *baseline*: the band of the latest
/// `monitor` event since the latest `compaction` (a compaction starts a fresh context), looking
/// back at most 512 events, else `normal`. When they differ, a `monitor`
/// event records the new band. `monitor --used` reads only `thresholds.json` and the last
/// ledger lines; it never loads a tokenizer.
pub fn monitor(ctx: &ContextDir, used: Option<u64>, window: Option<u64>) -> Result<Reading, Error> {
    let thresholds = Thresholds::load(&ctx.thresholds_path())?;
    let window = window.unwrap_or(thresholds.context_window);
    if window == 0 {
        return Err(Error::InvalidInput {
            field: "--window".to_owned(),
            message: "must be a positive number of tokens".to_owned(),
        });
    }
    let (tokens, source, tokenizer) = match used {
        Some(n) => (n, TokenSource::Reported, None),
        None => {
            let built = crate::packet::build_packet(ctx, crate::packet::Budget::Configured)?;
            (
                built.tokens,
                TokenSource::ResumePacket,
                Some(built.tokenizer),
            )
        }
    };
    let band = Band::classify(tokens, window, &thresholds.bands);
    let ratio = tokens as f64 / window as f64;
    let source_name = match source {
        TokenSource::Reported => "reported",
        TokenSource::ResumePacket => "resume_packet",
    };
    let previous_band = baseline(ctx, source_name)?;
    let mut event = None;
    if band != previous_band.unwrap_or(Band::Normal) {
        let ledger = open_ledger(ctx)?;
        let mut data = serde_json::Map::new();
        data.insert("band".into(), band.as_str().into());
        data.insert(
            "previous_band".into(),
            previous_band.unwrap_or(Band::Normal).as_str().into(),
        );
        data.insert("tokens".into(), tokens.into());
        data.insert("window".into(), window.into());
        data.insert(
            "ratio".into(),
            ((ratio * 10_000.0).round() / 10_000.0).into(),
        );
        data.insert("action".into(), band.action().describe().into());
        data.insert("source".into(), source_name.into());
        let new = NewEvent {
            kind: Some(Kind::Monitor),
            text: Some(format!(
                "context band {} -> {}: {tokens} of {window} tokens ({:.1} %); {}",
                previous_band.unwrap_or(Band::Normal),
                band,
                ratio * 100.0,
                band.action().describe()
            )),
            actor: Some("remaind".to_owned()),
            data: Some(data),
            ..NewEvent::default()
        };
        event = Some(
            ledger
                .append(remaind_ledger::AppendRequest::from(new).system())
                .map_err(Error::Ledger)?[0],
        );
    }
    Ok(Reading {
        band,
        tokens,
        window,
        ratio,
        action: band.action(),
        source,
        tokenizer,
        previous_band,
        event,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_are_inclusive() {
        let e = BandEdges::default();
        assert_eq!(Band::classify(0, 200_000, &e), Band::Normal);
        assert_eq!(Band::classify(119_999, 200_000, &e), Band::Normal);
        assert_eq!(Band::classify(120_000, 200_000, &e), Band::Warning);
        assert_eq!(Band::classify(159_999, 200_000, &e), Band::Warning);
        assert_eq!(Band::classify(160_000, 200_000, &e), Band::Hard);
        assert_eq!(Band::classify(189_999, 200_000, &e), Band::Hard);
        assert_eq!(Band::classify(190_000, 200_000, &e), Band::Emergency);
        assert_eq!(Band::classify(500_000, 200_000, &e), Band::Emergency);
        assert_eq!(Band::classify(0, 0, &e), Band::Emergency);
        // Non-integral edges round up: 0.6 × 10 = 6, 0.6 × 7 = 4.2 → 5.
        assert_eq!(Band::classify(4, 7, &e), Band::Normal);
        assert_eq!(Band::classify(5, 7, &e), Band::Warning);
    }

    #[test]
    fn actions_follow_bands() {
        assert_eq!(Band::Normal.action(), Action::None);
        assert_eq!(Band::Warning.action(), Action::CompactSoon);
        assert_eq!(Band::Hard.action(), Action::CompactNow);
        assert_eq!(Band::Emergency.action(), Action::CompactNowAndResumeMinimal);
        for b in ["normal", "warning", "hard", "emergency"] {
            assert_eq!(Band::parse(b).map(Band::as_str), Some(b));
        }
    }
}
