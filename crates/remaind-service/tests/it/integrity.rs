//! The integrity report `remaind verify` prints and the viewer shows.

use std::os::unix::fs::PermissionsExt;

use remaind_fs::ContextDir;

fn folder() -> (tempfile::TempDir, ContextDir) {
    crate::common::folder("service")
}

/// A folder as `init` leaves it holds: nothing to report.
#[test]
fn a_new_folder_is_intact() {
    let (_tmp, ctx) = folder();
    let report = remaind_service::integrity(&ctx).expect("integrity");
    assert!(report.is_ok(), "{report:?}");
    assert_eq!(report.first_problem(), None);
}

/// A file another user could change is named with its fix, and only the folder's own
/// problems come before it.
#[test]
fn a_group_writable_file_is_named_with_its_fix() {
    let (_tmp, ctx) = folder();
    let state = ctx.join(remaind_fs::layout::THRESHOLDS_PATH);
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o664)).expect("chmod");
    let report = remaind_service::integrity(&ctx).expect("integrity");
    assert!(report.ledger.is_ok());
    assert_eq!(report.permissions.len(), 1, "{:?}", report.permissions);
    let first = report.first_problem().expect("a problem");
    assert!(
        first.contains("thresholds.json") && first.contains("chmod go-w"),
        "{first}"
    );
}

/// A broken ledger is reported first, and the derived files are not judged against it.
#[test]
fn a_broken_ledger_comes_first() {
    let (_tmp, ctx) = folder();
    let ledger = remaind_ledger::Ledger::open(ctx.root()).expect("open");
    for text in ["first words", "second words"] {
        let ev = remaind_testkit::event(remaind_events::Kind::Note, text);
        ledger
            .append(remaind_ledger::AppendRequest::from(ev))
            .expect("append");
    }
    drop(ledger);
    let log = ctx.join(remaind_fs::layout::LOG_PATH);
    let edited = std::fs::read_to_string(&log)
        .expect("read the log")
        .replace("first words", "forged words");
    std::fs::write(&log, edited).expect("edit the log");
    let report = remaind_service::integrity(&ctx).expect("integrity");
    assert!(!report.ledger.is_ok());
    assert!(report.derived.is_empty() && report.memory_lag.is_none());
    assert!(
        report
            .first_problem()
            .is_some_and(|p| p.contains("problem(s) in all"))
    );
}
