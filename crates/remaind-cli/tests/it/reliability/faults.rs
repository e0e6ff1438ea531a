//! Fault injection (feature `failpoints`): an I/O error (EIO, ENOSPC) injected at each hit of
//! each step of an atomic write or an append makes the command exit 1 with a message naming
//! the file, never a panic, and leaves the store byte for byte as it was (a compaction's two
//! files included). A failed fsync is fatal: the action fires once (`1*return`), so a retry
//! would have succeeded and exited 0.

use std::path::Path;

use super::{ok, project, store, text};
use crate::common::remaind_env;

use remaind_atomic::failpoints::{self as atomic, ALL as ATOMIC};
use remaind_fs::failpoints::REPLACE;
use remaind_ledger::FAILPOINTS;

/// The ledger's failpoints in an append (the first two of them).
const APPEND: [&str; 2] = [FAILPOINTS[0], FAILPOINTS[1]];

/// Runs `args` with `spec` injected. `None` when the run got through without reaching the
/// fault (exit 0); otherwise asserts it failed cleanly: exit 1, no panic, a message naming a
/// file, the store byte for byte as before, and `verify` still happy.
fn run_with_fault(ctx: &Path, args: &[&str], spec: &str) -> Option<()> {
    let mut before = store(ctx);
    let r = remaind_env(ctx, args, None, &[("FAILPOINTS", spec)]);
    let msg = text(&r);
    if r.status.code() == Some(0) {
        return None;
    }
    assert_eq!(
        r.status.code(),
        Some(1),
        "`{}` with {spec}: exit {:?}: {msg}",
        args[0],
        r.status
    );
    assert!(!msg.contains("panicked"), "{spec}: {msg}");
    assert!(
        msg.contains(".context/"),
        "{spec}: the message names no file: {msg}"
    );
    let after = store(ctx);
    // A compaction appends its event before it writes the pair (so every reader always sees a
    // pair the ledger recorded): a fault in the write leaves the files as they were and the
    // log one `compaction` line longer, naming a pair that never landed.
    let log = std::path::PathBuf::from("logs/events.jsonl");
    if args[0] == "compact"
        && let (Some(old), Some(new)) = (before.get(&log), after.get(&log))
        && new.starts_with(old)
    {
        let added = String::from_utf8_lossy(&new[old.len()..]).into_owned();
        assert!(
            added.lines().count() <= 1
                && (added.is_empty() || added.contains("\"kind\":\"compaction\"")),
            "{spec}: the log gained more than the compaction event: {added}"
        );
        before.insert(log, new.clone());
        // The head anchor follows the log's one new line.
        let head = std::path::PathBuf::from("logs/events.head");
        if let Some(anchor) = after.get(&head) {
            before.insert(head, anchor.clone());
        }
    }
    let changed: Vec<_> = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(*v))
        .map(|(k, _)| k.display().to_string())
        .chain(
            before
                .keys()
                .filter(|k| !after.contains_key(*k))
                .map(|k| k.display().to_string()),
        )
        .collect();
    assert!(
        changed.is_empty(),
        "`{}` with {spec} changed the store: {changed:?}",
        args[0]
    );
    ok(&remaind_env(ctx, &["verify"], None, &[]));
    Some(())
}

fn check(ctx: &Path, args: &[&str], spec: &str) {
    assert!(
        run_with_fault(ctx, args, spec).is_some(),
        "`{}` with {spec} never reached the fault",
        args[0]
    );
}

/// Injects `err` at each hit of `fp` in turn (`k*off->1*return(err)`: the first `k` pass)
/// until the command gets through without reaching it, running `prepare` before each try.
/// Every injected run must fail cleanly (see [`run_with_fault`]). Returns how many hits the
/// command has.
fn check_every_hit(ctx: &Path, args: &[&str], fp: &str, err: &str, prepare: &dyn Fn()) -> usize {
    for k in 0..16 {
        prepare();
        let spec = match k {
            0 => format!("{fp}=1*return({err})"),
            _ => format!("{fp}={k}*off->1*return({err})"),
        };
        if run_with_fault(ctx, args, &spec).is_none() {
            return k;
        }
    }
    panic!("`{}` hits {fp} more than 16 times", args[0]);
}

#[test]
fn append_errors_leave_the_log_unchanged() {
    let (_t, ctx) = project();
    for fp in APPEND {
        for err in ["eio", "enospc"] {
            check(
                &ctx,
                &["log", "--kind", "note", "--text", "x"],
                &format!("{fp}=1*return({err})"),
            );
        }
    }
}

#[test]
fn atomic_write_errors_leave_the_store_unchanged() {
    let (t, ctx) = project();
    let framing = ctx.join("active/framing.json");
    let elsewhere = t.0.join("framing-linked-elsewhere.json");
    // The snapshot of the replaced version is a hard link when the file is private and linked
    // nowhere else, and a copy otherwise: both paths, every step, every hit.
    for linked_elsewhere in [false, true] {
        let prepare = || {
            let _ = std::fs::remove_file(&elsewhere);
            if linked_elsewhere {
                std::fs::hard_link(&framing, &elsewhere).expect("link elsewhere");
            }
        };
        for fp in ATOMIC {
            for err in ["eio", "enospc"] {
                let hits =
                    check_every_hit(&ctx, &["frame", "--model", "changed"], fp, err, &prepare);
                let expected = match (fp, linked_elsewhere) {
                    // One file: no group journal.
                    (atomic::AFTER_JOURNAL, _) => 0,
                    (atomic::AFTER_LINK, true) => 0,
                    // The copy goes through the same temp-fsync-rename steps.
                    (step, true) if REPLACE.contains(&step) => 2,
                    _ => 1,
                };
                assert_eq!(
                    hits, expected,
                    "{fp} (linked elsewhere: {linked_elsewhere})"
                );
            }
        }
    }
}

#[test]
fn compaction_errors_at_the_state_write_leave_the_store_unchanged() {
    let (_t, ctx) = project();
    let more_work = || {
        ok(&remaind_env(
            &ctx,
            &["log", "--kind", "result", "--text", "more done"],
            None,
            &[],
        ));
    };
    // Two files (state, then handover), so each step is hit twice; a fault at any hit leaves
    // both as they were.
    for fp in ATOMIC {
        let hits = check_every_hit(&ctx, &["compact"], fp, "eio", &more_work);
        // One group journal for the pair.
        let expected = if fp == atomic::AFTER_JOURNAL { 1 } else { 2 };
        assert_eq!(hits, expected, "{fp}");
    }
    for fp in APPEND {
        // The compaction event after both files: its append fails after they were written.
        more_work();
        let r = remaind_env(
            &ctx,
            &["compact"],
            None,
            &[("FAILPOINTS", &format!("{fp}=1*return(eio)"))],
        );
        assert_eq!(r.status.code(), Some(1), "{}", text(&r));
        assert!(!text(&r).contains("panicked"));
    }
}
