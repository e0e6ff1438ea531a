//! Framing and rollback through the library.

use remaind_resume::Budget;
use remaind_resume::FrameRequest;
use serde_json::json;

use crate::common;

fn read(path: &camino::Utf8Path) -> Option<Vec<u8>> {
    std::fs::read(path).ok()
}

#[test]
fn framing_is_recorded_merged_and_shown_in_the_packet() {
    let (_tmp, ctx) = common::fresh();
    let f = remaind_resume::record_framing(
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
    let f2 = remaind_resume::record_framing(
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
    assert_eq!(remaind_resume::load_framing(&ctx).unwrap(), Some(f2));
    common::append(
        &ctx,
        &[json!({"kind": "user_message", "text": "go", "actor": "user"})],
    );
    let r = remaind_resume::build_packet(&ctx, Budget::Unlimited).unwrap();
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
        let err = remaind_resume::record_framing(&ctx, &req).unwrap_err();
        assert!(err.is_invalid_input());
        assert!(err.to_string().starts_with(field), "{err}");
    }
}

#[test]
fn rollback_restores_every_derived_file_and_can_be_undone() {
    let (_tmp, ctx) = common::fresh();
    common::append(
        &ctx,
        &[json!({"kind": "user_message", "text": "start", "actor": "user"})],
    );
    let events_before = read(&ctx.events_path());
    remaind_resume::record_framing(
        &ctx,
        &FrameRequest {
            model: Some("a".into()),
            ..FrameRequest::default()
        },
    )
    .unwrap();
    remaind_resume::resume(&ctx, Budget::Unlimited).unwrap();
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
    remaind_resume::record_framing(
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
    remaind_resume::resume(&ctx, Budget::Unlimited).unwrap();
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

    let r = remaind_resume::rollback_to(&ctx, t1).unwrap();
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

    let undo = remaind_resume::parse_time(r.undo_to.as_deref().unwrap()).unwrap();
    remaind_resume::rollback_to(&ctx, undo).unwrap();
    let back: Vec<_> = [
        ctx.framing_path(),
        ctx.resume_packet_path(),
        ctx.state_path(),
    ]
    .iter()
    .map(|p| read(p))
    .collect();
    assert_eq!(back, snap2);

    let points = remaind_resume::rollback_points(&ctx).unwrap();
    assert!(points.len() >= 6);
    assert!(points.windows(2).all(|w| w[0].seq < w[1].seq));
    assert!(
        remaind_resume::parse_time("yesterday")
            .unwrap_err()
            .is_invalid_input()
    );
}
