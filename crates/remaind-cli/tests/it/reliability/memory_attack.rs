//! Long-term memory under attack (issue 30, the memory items): no user rule changes an id
//! Remaind wrote, no secret or outside file reaches the tree cache or history, a person's
//! edit saved mid-command is recorded, and files stopped mid-action catch up with the ledger.

use std::path::Path;

use super::{ok, remaind, tmp};

fn init(root: &Path) -> std::path::PathBuf {
    let ctx = root.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    ctx
}

/// Every file under `dir` whose bytes hold `needle` (symlinks not followed).
fn files_holding(dir: &Path, needle: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let ty = e.file_type().expect("type");
            if ty.is_dir() {
                stack.push(e.path());
            } else if ty.is_file()
                && String::from_utf8_lossy(&std::fs::read(e.path()).expect("read")).contains(needle)
            {
                out.push(e.path());
            }
        }
    }
    out
}

/// The id `memory propose` printed (the first word of its first line).
fn propose(ctx: &Path, title: &str, text: &str) -> String {
    let out = ok(&remaind(
        ctx,
        &["memory", "propose", "--title", title, text],
        None,
    ));
    out.split_whitespace().next().expect("an id").to_owned()
}

#[test]
fn item_1_a_uuid_shaped_rule_never_changes_a_memory_id_or_marker() {
    let t = tmp();
    let ctx = init(&t.0);
    std::fs::write(
        ctx.join("schemas/redaction.json"),
        r#"{"rules": [{"name": "uuid_key", "pattern": "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"}]}"#,
    )
    .expect("rules");
    let id = propose(
        &ctx,
        "Test command",
        "Run `cargo xtask ci` before every push.",
    );
    ok(&remaind(&ctx, &["memory", "accept", &id], None));
    let md = std::fs::read_to_string(ctx.join("memory/MEMORY.md")).expect("MEMORY.md");
    assert!(md.contains(&format!("<!-- {id} ")), "{md}");
    // A hand edit carries the markers through the ledger untouched.
    std::fs::write(
        ctx.join("memory/MEMORY.md"),
        md.replace("every push", "every push and tag"),
    )
    .expect("edit");
    let shown = ok(&remaind(&ctx, &["memory", "show", &id], None));
    assert!(shown.contains("every push and tag"), "{shown}");
    let md = std::fs::read_to_string(ctx.join("memory/MEMORY.md")).expect("MEMORY.md");
    assert!(md.contains(&format!("<!-- {id} ")), "{md}");
    assert!(!md.contains("REDACTED"), "{md}");
    ok(&remaind(&ctx, &["verify"], None));
    // The rule still redacts a user's UUID-shaped key.
    let key = "3f2b8c1e-9a4d-4e7f-8b6a-1c2d3e4f5a6b";
    ok(&remaind(
        &ctx,
        &["log", "--kind", "note", "--text", &format!("key {key}")],
        None,
    ));
    assert!(files_holding(&ctx, key).is_empty());
}

#[test]
fn item_2_the_memory_tree_caches_no_secret_and_reads_no_outside_file() {
    let t = tmp();
    let ctx = init(&t.0);
    let secret = "hunter2 with spaces!";
    std::fs::write(
        t.0.join("CLAUDE.md"),
        format!("# Setup\n\nThe staging database: password = \"{secret}\"\n"),
    )
    .expect("CLAUDE.md");
    // A committed link to a folder outside the project, listed in tree_paths.
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("passwd"), "root:x:0:0:OUTSIDE-MARKER\n").expect("passwd");
    std::fs::create_dir(t.0.join("docs")).expect("docs");
    std::os::unix::fs::symlink(outside.path(), t.0.join("docs/etc")).expect("link");
    // A link inside the project is an instruction file like any other.
    std::fs::write(
        t.0.join("conventions.md"),
        "# Conventions\n\nTabs, never spaces.\n",
    )
    .expect("conventions");
    std::os::unix::fs::symlink("conventions.md", t.0.join("AGENTS.md")).expect("link");
    std::fs::write(
        ctx.join("schemas/memory.json"),
        r#"{"tree_paths": ["docs/etc/passwd"]}"#,
    )
    .expect("memory.json");
    let tree = ok(&remaind(&ctx, &["memory", "tree"], None));
    assert!(!tree.contains(secret), "{tree}");
    assert!(tree.contains("REDACTED"), "{tree}");
    assert!(!tree.contains("OUTSIDE-MARKER"), "{tree}");
    assert!(tree.contains("Tabs, never spaces."), "{tree}");
    assert!(
        files_holding(&ctx, "hunter2").is_empty(),
        "the secret reached {:?}",
        files_holding(&ctx, "hunter2")
    );
    assert!(files_holding(&ctx, "OUTSIDE-MARKER").is_empty());
    // `<!-- id eN -->` markers are bookkeeping, not nodes.
    let id = propose(&ctx, "Port", "The API listens on 8080.");
    ok(&remaind(&ctx, &["memory", "accept", &id], None));
    let tree = ok(&remaind(&ctx, &["memory", "tree"], None));
    assert!(!tree.contains("<!--"), "{tree}");
}

#[test]
fn item_14_a_secret_typed_into_memory_md_reaches_no_file_history_included() {
    let t = tmp();
    let ctx = init(&t.0);
    let id = propose(&ctx, "Port", "The API listens on 8080.");
    ok(&remaind(&ctx, &["memory", "accept", &id], None));
    let md = std::fs::read_to_string(ctx.join("memory/MEMORY.md")).expect("MEMORY.md");
    let secret = "m{{h}o)p${e]nob(ody[is-here";
    std::fs::write(
        ctx.join("memory/MEMORY.md"),
        format!("{md}\nStaging: db_pass: {secret}\n"),
    )
    .expect("edit");
    ok(&remaind(&ctx, &["memory", "list"], None));
    assert!(
        files_holding(&ctx, "nob(ody").is_empty(),
        "the typed secret is kept in {:?}",
        files_holding(&ctx, "nob(ody")
    );
    // A rollback to every point of memory's history brings back no secret either.
    let list = ok(&remaind(&ctx, &["rollback", "--list"], None));
    for time in list.lines().filter_map(|l| l.split_whitespace().next()) {
        if time.starts_with("20") {
            ok(&remaind(&ctx, &["rollback", "--to", time], None));
            assert!(
                files_holding(&ctx, "nob(ody").is_empty(),
                "after --to {time}"
            );
        }
    }
    ok(&remaind(&ctx, &["verify"], None));
}

/// A folder with one memory accepted and one proposed: the folder, the proposal's id, the path
/// of `MEMORY.md` and what it holds.
fn one_accepted_one_proposed(
    root: &Path,
) -> (std::path::PathBuf, String, std::path::PathBuf, String) {
    let ctx = init(root);
    let id = propose(&ctx, "Port", "The API listens on 8080.");
    let other = propose(&ctx, "Style", "Tabs.");
    ok(&remaind(&ctx, &["memory", "accept", &id], None));
    let path = ctx.join("memory/MEMORY.md");
    let md = std::fs::read_to_string(&path).expect("MEMORY.md");
    (ctx, other, path, md)
}

/// A person saves `MEMORY.md` while `memory accept` is between reading it and rewriting it
/// (held there by a sleep at the append's fsync, or after the history store's last check
/// just before the rename): the edit is recorded, never overwritten.
#[cfg(feature = "failpoints")]
#[test]
fn item_6_an_edit_saved_while_a_memory_command_runs_is_recorded() {
    for failpoint in [
        "ledger.after-fsync=sleep(1500)",
        "atomic.before-place=sleep(1500)",
    ] {
        an_edit_saved_at_a_failpoint_is_recorded(failpoint);
    }
}

#[cfg(feature = "failpoints")]
fn an_edit_saved_at_a_failpoint_is_recorded(failpoint: &str) {
    let t = tmp();
    let (ctx, other, path, md) = one_accepted_one_proposed(&t.0);
    let edited = format!("{md}\nSaved mid-command by a person.\n");
    let editor = {
        let (path, edited) = (path.clone(), edited.clone());
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(700));
            std::fs::write(path, edited).expect("save");
        })
    };
    let r = crate::common::remaind_env(
        &ctx,
        &["memory", "accept", &other],
        None,
        &[("FAILPOINTS", failpoint)],
    );
    editor.join().expect("editor");
    ok(&r);
    let md = std::fs::read_to_string(&path).expect("MEMORY.md");
    assert!(
        md.contains("Saved mid-command by a person."),
        "{failpoint}: {md}"
    );
    assert!(md.contains("## Style"), "{md}");
    let events = ok(&remaind(&ctx, &["events", "--json"], None));
    assert!(
        events.contains("Saved mid-command by a person."),
        "{events}"
    );
    ok(&remaind(&ctx, &["verify"], None));
}

/// An editor that saves `MEMORY.md` in place truncates it, then writes it; paused between the
/// two (a loaded machine stops a thread for milliseconds), it leaves an empty file for a while.
/// A memory command that starts then waits for the save instead of taking the empty file for
/// the person's edit and putting its render in place of the file the editor then writes into.
#[test]
fn item_6_a_save_in_place_paused_after_its_truncation_is_kept() {
    use std::io::Write as _;
    let t = tmp();
    let (ctx, other, path, md) = one_accepted_one_proposed(&t.0);
    let edited = format!("{md}\nSaved in place by a person.\n");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&path)
        .expect("open to save");
    let editor = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(400));
        file.write_all(edited.as_bytes()).expect("save");
    });
    ok(&remaind(&ctx, &["memory", "accept", &other], None));
    editor.join().expect("editor");
    ok(&remaind(&ctx, &["memory", "list"], None));
    let md = std::fs::read_to_string(&path).expect("MEMORY.md");
    assert!(md.contains("Saved in place by a person."), "{md}");
    assert!(md.contains("## Style"), "{md}");
    let events = ok(&remaind(&ctx, &["events", "--json"], None));
    assert!(events.contains("Saved in place by a person."), "{events}");
}

/// A person saves `MEMORY.md` at any instant of 40 `memory accept` runs (no failpoint: the
/// save lands wherever the machine puts it): every save is in `MEMORY.md` afterwards, never
/// overwritten by the render, and the ledger holds it.
#[test]
fn item_6_an_edit_saved_at_any_instant_of_a_memory_command_is_never_overwritten() {
    let t = tmp();
    let ctx = init(&t.0);
    let path = ctx.join("memory/MEMORY.md");
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for round in 0..40 {
        let id = propose(
            &ctx,
            &format!("Rule {round}"),
            &format!("Rule number {round}."),
        );
        let md = std::fs::read_to_string(&path).unwrap_or_default();
        let line = format!("Saved by a person in round {round}.");
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = std::time::Duration::from_micros(seed % 60_000);
        let editor = {
            let (path, edited) = (path.clone(), format!("{md}\n{line}\n"));
            std::thread::spawn(move || {
                std::thread::sleep(delay);
                std::fs::write(path, edited).expect("save");
            })
        };
        ok(&remaind(&ctx, &["memory", "accept", &id], None));
        editor.join().expect("editor");
        // The next command records a save that landed after this one finished.
        ok(&remaind(&ctx, &["memory", "list"], None));
        let now = std::fs::read_to_string(&path).expect("MEMORY.md");
        assert!(
            now.contains(&line),
            "round {round} (save after {delay:?}) lost: {now}"
        );
    }
    let events = ok(&remaind(
        &ctx,
        &["events", "--json", "--limit", "1000"],
        None,
    ));
    for round in 0..40 {
        assert!(
            events.contains(&format!("Saved by a person in round {round}.")),
            "round {round}"
        );
    }
}

/// `memory accept` stopped after its event is durable and before the files are rewritten
/// (a panic there, as a kill): verify names the lag, the packet already shows the
/// memory, and the next memory command brings the files in line.
#[cfg(feature = "failpoints")]
#[test]
fn item_7_memory_files_stopped_behind_the_ledger_catch_up() {
    let t = tmp();
    let ctx = init(&t.0);
    ok(&remaind(
        &ctx,
        &["log", "--kind", "user_message", "--text", "Ship it"],
        None,
    ));
    let id = propose(&ctx, "Port", "The API listens on 8080.");
    let r = crate::common::remaind_env(
        &ctx,
        &["memory", "accept", &id],
        None,
        &[("FAILPOINTS", "ledger.after-fsync=1*panic")],
    );
    assert_ne!(r.status.code(), Some(0), "{}", super::text(&r));
    let md = std::fs::read_to_string(ctx.join("memory/MEMORY.md")).unwrap_or_default();
    assert!(!md.contains("8080"), "the stop left the file behind: {md}");
    let v = remaind(&ctx, &["verify"], None);
    assert_eq!(v.status.code(), Some(1), "{}", super::text(&v));
    assert!(super::text(&v).contains("memory"), "{}", super::text(&v));
    let packet = ok(&remaind(&ctx, &["resume", "--budget", "100000"], None));
    assert!(packet.contains("The API listens on 8080."), "{packet}");
    let listed = ok(&remaind(&ctx, &["memory", "list"], None));
    assert!(listed.contains("[accepted]"), "{listed}");
    let md = std::fs::read_to_string(ctx.join("memory/MEMORY.md")).expect("MEMORY.md");
    assert!(md.contains("The API listens on 8080."), "{md}");
    ok(&remaind(&ctx, &["verify"], None));
}
