//! The changes to one file cost one line of the packet: at the newest change, with what it
//! changed and every change's id, and no `data` that repeats the path or says nothing.

use remaind_resume::{Budget, build_packet};
use serde_json::json;

use crate::common::{append, fresh};

#[test]
fn the_changes_to_one_file_are_one_line_saying_what_changed() {
    let (_tmp, ctx) = fresh();
    let path = "/srv/app/src/uploader.rs";
    let edit = |change: &str| {
        json!({"kind": "file_change", "actor": "claude-code", "text": path,
               "data": {"tool": "Edit", "path": path, "change": change}})
    };
    append(
        &ctx,
        &[
            json!({"kind": "user_message", "actor": "user", "text": "Make the uploader retry"}),
            edit("\"fn upload(\" → \"fn upload_once(\" (3 lines)"),
            edit("\"let tries = 3\" → \"let tries = 5\" (1 lines)"),
            json!({"kind": "note", "actor": "assistant", "text": "Checked the retry budget", "data": {}}),
            edit("\"// TODO retry\" → \"for attempt in 0..tries {\" (12 lines)"),
        ],
    );
    let packet = build_packet(&ctx, Budget::Unlimited)
        .expect("resume")
        .packet;
    let lines: Vec<&str> = packet.lines().filter(|l| l.contains(path)).collect();
    assert_eq!(lines.len(), 1, "one line for the file:\n{packet}");
    let line = lines[0];
    assert!(line.starts_with("- [e5] "), "at the newest change: {line}");
    assert!(line.contains("changed 3 times: [e2][e3][e5]"), "{line}");
    assert!(
        line.contains("(\"// TODO retry\" → \"for attempt in 0..tries {\" (12 lines))"),
        "what the newest change did: {line}"
    );
    assert!(
        !packet.contains("data={}"),
        "an empty data object is noise:\n{packet}"
    );
    assert!(
        !line.contains("data="),
        "the path is not repeated as data: {line}"
    );
}
