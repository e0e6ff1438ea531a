//! Framing and rollback through the library.

use remaind_resume::framing::{self, FrameRequest};
use remaind_resume::packet::{self, Budget};
use remaind_resume::rollback;
use serde_json::json;

use crate::common;

fn read(path: &camino::Utf8Path) -> Option<Vec<u8>> {
    std::fs::read(path).ok()
}

#[test]
fn framing_is_recorded_merged_and_shown_in_the_packet() {
    let (_tmp, ctx) = common::fresh();
    let f = framing::record(
        &ctx,
        &FrameRequest {
            model: Some("gpt-5".into()),
            time_zone: Some("Asia/Tokyo".into()),
            settings: vec![
                ("thinking".into(), "high".into()),
                ("sandbox".into(), "ro".into()),
            ],
            ..FrameRequest::default()
        },
    )
    .unwrap();
    assert_eq!(f.time_zone, "Asia/Tokyo");
    assert_eq!(f.workspace_root, ctx.root().parent().unwrap().as_str());
    let f2 = framing::record(
        &ctx,
        &FrameRequest {
            settings: vec![("sandbox".into(), String::new())],
            date: Some("2030-01-02".into()),
            ..FrameRequest::default()
        },
    )
    .unwrap();
    assert_eq!(f2.model.as_deref(), Some("gpt-5"), "the model carries over");
    assert_eq!(f2.settings.len(), 1, "an empty value removes a setting");
    assert_eq!(f2.date, "2030-01-02");
    assert_eq!(framing::load(&ctx).unwrap(), Some(f2));
    common::append(
        &ctx,
        &[json!({"kind": "user_message", "text": "go", "actor": "user"})],
    );
    let r = packet::build(&ctx, Budget::Unlimited).unwrap();
    assert!(r.packet.contains("## Runtime framing"));
    assert!(r.packet.contains("- setting thinking: high"));
    assert!(r.packet.contains("- date: 2030-01-02"));

    for (req, field) in [
        (
            FrameRequest {
                date: Some("2030-13-01".into()),
                ..FrameRequest::default()
            },
            "--date",
        ),
        (
            FrameRequest {
                time_zone: Some("Mars/Olympus".into()),
                ..FrameRequest::default()
            },
            "--time-zone",
        ),
    ] {
        let err = framing::record(&ctx, &req).unwrap_err();
        assert!(err.is_invalid_input());
        assert!(err.to_string().starts_with(field), "{err}");
    }
    assert!(framing::parse_setting("novalue").is_err());
    assert_eq!(
        framing::parse_setting("a=b=c").unwrap(),
        ("a".to_owned(), "b=c".to_owned())
    );
}

#[test]
fn rollback_restores_every_derived_file_and_can_be_undone() {
    let (_tmp, ctx) = common::fresh();
    common::append(
        &ctx,
        &[json!({"kind": "user_message", "text": "start", "actor": "user"})],
    );
    let events_before = read(&ctx.events_path());
    framing::record(
        &ctx,
        &FrameRequest {
            model: Some("a".into()),
            ..FrameRequest::default()
        },
    )
    .unwrap();
    packet::resume(&ctx, Budget::Unlimited).unwrap();
    let t1 = jiff::Timestamp::now();
    let snap1: Vec<_> = [
        ctx.framing_path(),
        ctx.resume_packet_path(),
        ctx.state_path(),
    ]
    .iter()
    .map(|p| read(p))
    .collect();
    std::thread::sleep(std::time::Duration::from_millis(2));
    framing::record(
        &ctx,
        &FrameRequest {
            model: Some("b".into()),
            ..FrameRequest::default()
        },
    )
    .unwrap();
    common::append(
        &ctx,
        &[json!({"kind": "user_message", "text": "more", "actor": "user"})],
    );
    packet::resume(&ctx, Budget::Unlimited).unwrap();
    let events_mid = read(&ctx.events_path());
    let snap2: Vec<_> = [
        ctx.framing_path(),
        ctx.resume_packet_path(),
        ctx.state_path(),
    ]
    .iter()
    .map(|p| read(p))
    .collect();
    assert_ne!(snap1, snap2);

    let r = rollback::rollback_to(&ctx, t1).unwrap();
    assert_eq!(r.changed, ["framing.json", "resume_packet.md"]);
    let now: Vec<_> = [
        ctx.framing_path(),
        ctx.resume_packet_path(),
        ctx.state_path(),
    ]
    .iter()
    .map(|p| read(p))
    .collect();
    assert_eq!(now, snap1);
    assert_eq!(
        read(&ctx.events_path()),
        events_mid,
        "the ledger is never touched"
    );
    assert_ne!(events_before, events_mid);

    let undo = rollback::parse_time(r.undo_to.as_deref().unwrap()).unwrap();
    rollback::rollback_to(&ctx, undo).unwrap();
    let back: Vec<_> = [
        ctx.framing_path(),
        ctx.resume_packet_path(),
        ctx.state_path(),
    ]
    .iter()
    .map(|p| read(p))
    .collect();
    assert_eq!(back, snap2);

    let points = rollback::list(&ctx).unwrap();
    assert!(points.len() >= 6);
    assert!(points.windows(2).all(|w| w[0].seq < w[1].seq));
    assert!(
        rollback::parse_time("yesterday")
            .unwrap_err()
            .is_invalid_input()
    );
}
