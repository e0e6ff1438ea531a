//! `remaind memory`: propose, review and read memory from the command line.

use std::path::Path;

use serde_json::Value;

use crate::common::{ok, remaind, tmp};

fn init(dir: &Path) -> std::path::PathBuf {
    let ctx = dir.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    ctx
}

fn json(out: &str) -> Value {
    serde_json::from_str(out.trim()).expect("one JSON object")
}

#[test]
fn a_memory_is_proposed_accepted_and_read_back_from_the_tree() {
    let t = tmp();
    let ctx = init(&t.0);
    std::fs::write(
        t.0.join("CLAUDE.md"),
        "# Build\n\nRun `cargo xtask ci` before every push.\n",
    )
    .expect("write CLAUDE.md");
    let p = json(&ok(&remaind(
        &ctx,
        &[
            "memory",
            "propose",
            "--title",
            "Staging region",
            "Deploy staging to eu-west-1 only.",
            "--json",
        ],
        None,
    )));
    let id = p["id"].as_str().expect("id").to_owned();
    assert!(id.starts_with("staging-region--"), "{id}");
    assert_eq!(p["status"], "proposed");
    assert!(ctx.join(format!("memory/proposals/{id}.md")).is_file());
    let accepted = json(&ok(&remaind(
        &ctx,
        &["memory", "accept", &id, "--json"],
        None,
    )));
    assert_eq!(accepted["status"], "accepted");
    assert!(!ctx.join(format!("memory/proposals/{id}.md")).exists());
    let md = std::fs::read_to_string(ctx.join("memory/MEMORY.md")).expect("MEMORY.md");
    assert!(md.contains("## Staging region") && md.contains("eu-west-1 only"));
    let list = ok(&remaind(&ctx, &["memory", "list"], None));
    assert!(list.contains("[accepted] Staging region"), "{list}");

    let tree = json(&ok(&remaind(
        &ctx,
        &["memory", "tree", "--budget", "2000", "--json"],
        None,
    )));
    let nodes = tree["nodes"].as_array().expect("nodes");
    let build = nodes
        .iter()
        .find(|n| n["file"] == "CLAUDE.md" && n["node_type"] == "text")
        .expect("CLAUDE.md's paragraph");
    let node_id = build["id"].as_str().expect("node id");
    let got = ok(&remaind(&ctx, &["memory", "get", node_id], None));
    assert_eq!(got.trim(), "Run `cargo xtask ci` before every push.");
    // Opened, it is now the hottest.
    let listing = ok(&remaind(
        &ctx,
        &["memory", "tree", "--budget", "2000"],
        None,
    ));
    assert!(listing.starts_with(node_id), "{listing}");
    // A query lists only the nodes holding its words, and a match warms them too.
    let matched = json(&ok(&remaind(
        &ctx,
        &["memory", "tree", "--query", "EU-WEST-1 staging", "--json"],
        None,
    )));
    let hits = matched["nodes"].as_array().expect("nodes");
    assert_eq!(hits.len(), 1, "{matched}");
    assert!(
        hits[0]["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("MEMORY.md"))
    );
    assert!(
        hits[0]["temperature"].as_f64() == Some(0.0),
        "warmed after listing"
    );
    let again = json(&ok(&remaind(
        &ctx,
        &["memory", "tree", "--query", "eu-west-1", "--json"],
        None,
    )));
    assert!(
        again["nodes"][0]["temperature"].as_f64() > Some(0.9),
        "{again}"
    );
    // Edit the accepted memory: MEMORY.md changes in place.
    let edited = json(&ok(&remaind(
        &ctx,
        &[
            "memory",
            "edit",
            &id,
            "Deploy staging to eu-central-1.",
            "--json",
        ],
        None,
    )));
    assert_eq!(edited["status"], "accepted");
    let md = std::fs::read_to_string(ctx.join("memory/MEMORY.md")).expect("MEMORY.md");
    assert!(
        md.contains("eu-central-1") && !md.contains("eu-west-1"),
        "{md}"
    );
}

#[test]
fn bad_memory_input_exits_2_and_writes_nothing() {
    let t = tmp();
    let ctx = init(&t.0);
    let log_before = std::fs::read(ctx.join("logs/events.jsonl")).expect("log");
    for args in [
        &["memory", "propose", "--title", "", "text"][..],
        &["memory", "propose", "--title", "T", "   "],
        &["memory", "accept", "no-such--proposal"],
        &["memory", "get", "000000000000"],
        &["memory", "tree", "--budget", "0"],
        &["memory", "tree", "--query", "  "],
        &["memory", "edit", "no-such--proposal", "text"],
        &[
            "memory", "propose", "--title", "T", "text", "--cites", "e999",
        ],
        &[
            "memory", "propose", "--title", "T", "text", "--cites", "nine",
        ],
    ] {
        let out = remaind(&ctx, args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.is_empty(), "{args:?} says why");
    }
    assert_eq!(
        std::fs::read(ctx.join("logs/events.jsonl")).expect("log"),
        log_before
    );
    assert!(!ctx.join("memory/MEMORY.md").exists());
}

#[test]
fn a_hand_edit_of_memory_md_is_recorded_by_the_next_command() {
    let t = tmp();
    let ctx = init(&t.0);
    let p = json(&ok(&remaind(
        &ctx,
        &[
            "memory",
            "propose",
            "--title",
            "Owner",
            "Storage owns it.",
            "--json",
        ],
        None,
    )));
    ok(&remaind(
        &ctx,
        &["memory", "accept", p["id"].as_str().expect("id")],
        None,
    ));
    let path = ctx.join("memory/MEMORY.md");
    let edited = format!(
        "{}\nThe staging database is reset every Monday.\n",
        std::fs::read_to_string(&path).expect("read")
    );
    std::fs::write(&path, &edited).expect("hand edit");
    ok(&remaind(&ctx, &["memory", "list"], None));
    assert_eq!(std::fs::read_to_string(&path).expect("read"), edited);
    let events = ok(&remaind(&ctx, &["events", "--json"], None));
    assert!(
        events
            .lines()
            .any(|l| l.contains("\"hand_edit\"") && l.contains("reset every Monday")),
        "{events}"
    );
}

#[test]
fn open_loops_are_listed_and_resolved_from_the_cli() {
    let t = tmp();
    let ctx = init(&t.0);
    ok(&remaind(
        &ctx,
        &[
            "log",
            "--kind",
            "blocker",
            "--text",
            "CI runner lacks S3 credentials",
        ],
        None,
    ));
    ok(&remaind(
        &ctx,
        &[
            "log",
            "--kind",
            "next_step",
            "--text",
            "Write the importer tests",
        ],
        None,
    ));
    let list = ok(&remaind(&ctx, &["loops", "list"], None));
    assert!(list.contains("[e1]") && list.contains("[e2]"), "{list}");
    let loop_files = |ctx: &std::path::Path| -> usize {
        std::fs::read_dir(ctx.join("memory/loops")).map_or(0, |d| d.count())
    };
    assert_eq!(loop_files(&ctx), 2, "one file per open loop");
    let out = json(&ok(&remaind(
        &ctx,
        &[
            "loops",
            "resolve",
            "e1",
            "--text",
            "OPS-142 closed",
            "--json",
        ],
        None,
    )));
    assert_eq!(out["resolves"], "e1");
    assert_eq!(loop_files(&ctx), 1, "the resolved loop's file left");
    let archived: Vec<String> = std::fs::read_dir(ctx.join("memory/archive"))
        .expect("archive")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    assert!(
        archived.len() == 1 && archived[0].ends_with("--e3-resolve.md"),
        "{archived:?}"
    );
    let list = ok(&remaind(&ctx, &["loops", "list", "--json"], None));
    assert!(
        !list.contains("\"e1\"") && list.contains("\"e2\""),
        "{list}"
    );
    // Resolving it again, or something that is not a loop, is refused with nothing written.
    for id in ["e1", "e3", "x"] {
        let out = remaind(&ctx, &["loops", "resolve", id, "--text", "again"], None);
        assert_eq!(out.status.code(), Some(2), "{id}");
    }
    let events = ok(&remaind(&ctx, &["events", "--json"], None));
    assert_eq!(events.lines().count(), 3);
}
