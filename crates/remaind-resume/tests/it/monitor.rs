//! The monitor: band edges, band changes recorded once, counting without `--used`.

use remaind_events::Kind;

use remaind_ledger::Ledger;
use remaind_resume::{Action, Band, TokenSource, monitor};
use serde_json::json;

use crate::common;

fn monitor_events(ctx: &remaind_fs::ContextDir) -> Vec<(String, String)> {
    let ledger = Ledger::open(ctx.root()).unwrap();
    ledger
        .iter()
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.kind == Kind::Monitor)
        .map(|e| {
            let d = e.data.unwrap();
            (
                d["previous_band"].as_str().unwrap().to_owned(),
                d["band"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn band_edges_with_the_default_window() {
    let (_tmp, ctx) = common::fresh();
    for (used, band, action) in [
        (0, Band::Normal, Action::None),
        (119_999, Band::Normal, Action::None),
        (120_000, Band::Warning, Action::CompactSoon),
        (159_999, Band::Warning, Action::CompactSoon),
        (160_000, Band::Hard, Action::CompactNow),
        (189_999, Band::Hard, Action::CompactNow),
        (190_000, Band::Emergency, Action::CompactNowAndResumeMinimal),
        (400_000, Band::Emergency, Action::CompactNowAndResumeMinimal),
    ] {
        let r = monitor(&ctx, Some(used), None).unwrap();
        assert_eq!((r.band, r.action), (band, action), "used {used}");
        assert_eq!(r.window, 200_000);
        assert_eq!(r.source, TokenSource::Reported);
        assert!(r.tokenizer.is_none());
    }
}

#[test]
fn window_override_and_configured_edges() {
    let (_tmp, ctx) = common::fresh();
    let r = monitor(&ctx, Some(64_000), Some(100_000)).unwrap();
    assert_eq!(r.band, Band::Warning);
    assert!((r.ratio - 0.64).abs() < 1e-9);
    std::fs::write(
        ctx.thresholds_path(),
        r#"{"context_window": 1000, "bands": {"warning": 0.5, "hard": 0.7, "emergency": 0.9}}"#,
    )
    .unwrap();
    assert_eq!(monitor(&ctx, Some(499), None).unwrap().band, Band::Normal);
    assert_eq!(monitor(&ctx, Some(500), None).unwrap().band, Band::Warning);
    assert_eq!(monitor(&ctx, Some(700), None).unwrap().band, Band::Hard);
    assert_eq!(
        monitor(&ctx, Some(900), None).unwrap().band,
        Band::Emergency
    );
    std::fs::write(ctx.thresholds_path(), r#"{"bands": {"warning": 2}}"#).unwrap();
    let err = monitor(&ctx, Some(1), None).unwrap_err();
    assert!(err.is_invalid_input());
    assert!(err.to_string().contains("bands.warning"), "{err}");
}

#[test]
fn only_band_changes_are_recorded() {
    let (_tmp, ctx) = common::fresh();
    assert!(monitor(&ctx, Some(10), None).unwrap().event.is_none());
    let r = monitor(&ctx, Some(130_000), None).unwrap();
    assert!(r.event.is_some());
    assert_eq!(r.previous_band, None);
    let r = monitor(&ctx, Some(140_000), None).unwrap();
    assert!(r.event.is_none());
    assert_eq!(r.previous_band, Some(Band::Warning));
    assert!(monitor(&ctx, Some(170_000), None).unwrap().event.is_some());
    assert!(monitor(&ctx, Some(5), None).unwrap().event.is_some());
    assert!(monitor(&ctx, Some(6), None).unwrap().event.is_none());
    assert_eq!(
        monitor_events(&ctx),
        [
            ("normal".to_owned(), "warning".to_owned()),
            ("warning".to_owned(), "hard".to_owned()),
            ("hard".to_owned(), "normal".to_owned()),
        ]
    );
}

#[test]
fn a_compaction_resets_the_baseline() {
    let (_tmp, ctx) = common::fresh();
    assert!(monitor(&ctx, Some(170_000), None).unwrap().event.is_some());
    common::append(
        &ctx,
        &[json!({"kind": "compaction", "text": "accepted", "actor": "remaind"})],
    );
    let r = monitor(&ctx, Some(170_000), None).unwrap();
    assert_eq!(r.previous_band, None);
    assert!(r.event.is_some());
}

#[test]
fn without_used_the_resume_packet_is_counted() {
    let (_tmp, ctx) = common::fresh();
    common::append(
        &ctx,
        &[
            json!({"kind": "user_message", "text": "Summarize the logs.", "actor": "user"}),
            json!({"kind": "note", "text": "word ".repeat(2000)}),
        ],
    );
    let r = monitor(&ctx, None, Some(10_000)).unwrap();
    assert_eq!(r.source, TokenSource::ResumePacket);
    assert_eq!(r.tokenizer.as_deref(), Some("o200k_base"));
    assert!(r.tokens > 2000 && r.tokens < 3000, "{}", r.tokens);
    assert_eq!(r.band, Band::Normal);
    let counted = r.tokens;
    let r = monitor(&ctx, None, Some(counted)).unwrap();
    assert_eq!(
        r.tokens, counted,
        "monitor events are not part of the packet"
    );
    assert_eq!(r.band, Band::Emergency);
    assert!(r.event.is_some());
    assert_eq!(monitor(&ctx, None, Some(counted)).unwrap().tokens, counted);
}

#[test]
fn the_baseline_looks_back_a_bounded_window_and_skips_a_torn_tail() {
    let (_tmp, ctx) = common::fresh();
    assert!(monitor(&ctx, Some(130_000), None).unwrap().event.is_some());
    // A long note pushes the monitor event across several 64 KiB blocks, still within reach.
    let notes: Vec<_> = (0..300)
        .map(|i| json!({"kind": "note", "text": format!("{i} {}", "x".repeat(400))}))
        .collect();
    common::append(&ctx, &notes);
    let r = monitor(&ctx, Some(130_000), None).unwrap();
    assert_eq!(r.previous_band, Some(Band::Warning));
    assert!(r.event.is_none());
    // Past the look-back window the baseline is unknown and the band is recorded again.
    common::append(&ctx, &notes);
    let r = monitor(&ctx, Some(130_000), None).unwrap();
    assert_eq!(r.previous_band, None);
    assert!(r.event.is_some());
    // A torn last line is not an event: the baseline is still found before it.
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(ctx.events_path())
        .unwrap();
    f.write_all(br#"{"v":1,"seq":99999,"kind":"monitor""#)
        .unwrap();
    let r = monitor(&ctx, Some(130_000), None).unwrap();
    assert_eq!(r.previous_band, Some(Band::Warning));
    assert!(r.event.is_none());
}
