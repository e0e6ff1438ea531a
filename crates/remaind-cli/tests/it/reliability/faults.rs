//! Fault injection (feature `failpoints`): an I/O error (EIO, ENOSPC) injected at each step
//! of an atomic write or an append makes the command exit 1 with a message naming the file,
//! never a panic, and leaves the store byte for byte as it was. A failed fsync is fatal:
//! the action fires once (`1*return`), so a retry would have succeeded and exited 0.

use std::path::Path;

use super::{ok, project, remaind_env, store, text};

const ATOMIC: &[&str] = &[
    "atomic.after-snapshot",
    "atomic.after-temp-write",
    "atomic.after-fsync",
    "atomic.after-rename",
];
const APPEND: &[&str] = &["ledger.after-write", "ledger.after-fsync"];

fn check(ctx: &Path, args: &[&str], spec: &str) {
    let before = store(ctx);
    let r = remaind_env(ctx, args, None, &[("FAILPOINTS", spec)]);
    let msg = text(&r);
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
    let (_t, ctx) = project();
    for fp in ATOMIC {
        // Pass 1: the history snapshot; pass 2: the target itself.
        let passes: &[&str] = if *fp == "atomic.after-snapshot" {
            &[""]
        } else {
            &["", "1*off->"]
        };
        for pass in passes {
            for err in ["eio", "enospc"] {
                check(
                    &ctx,
                    &["frame", "--model", "changed"],
                    &format!("{fp}={pass}1*return({err})"),
                );
            }
        }
    }
}

#[test]
fn compaction_errors_at_the_state_write_leave_the_store_unchanged() {
    let (_t, ctx) = project();
    ok(&remaind_env(
        &ctx,
        &["log", "--kind", "result", "--text", "more done"],
        None,
        &[],
    ));
    for fp in ATOMIC {
        let passes: &[&str] = if *fp == "atomic.after-snapshot" {
            &[""]
        } else {
            &["", "1*off->"]
        };
        for pass in passes {
            check(&ctx, &["compact"], &format!("{fp}={pass}1*return(eio)"));
        }
    }
    for fp in APPEND {
        // The compaction event after both files: its append fails after they were written.
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
