//! The folder's index rebuilt from the ledger.

use camino::Utf8PathBuf;
use remaind_events::Kind;
use remaind_fs::ContextDir;
use remaind_ledger::{AppendRequest, Ledger};
use remaind_service::reindex;

/// Every event is indexed again, with the progress reported up to the total, and the
/// index file is where the folder keeps it.
#[test]
fn the_index_is_rebuilt_from_every_event() {
    let tmp = remaind_testkit::scratch_dir("service-reindex");
    let root = Utf8PathBuf::from_path_buf(tmp.path().join(".context")).expect("a UTF-8 path");
    let ctx = ContextDir::new(root);
    remaind_resume::init(&ctx, false).expect("init");
    let ledger = Ledger::open(ctx.root()).expect("open");
    for text in ["one", "two", "three"] {
        let ev = remaind_testkit::event(Kind::Note, text);
        ledger.append(AppendRequest::from(ev)).expect("append");
    }
    drop(ledger);
    let mut last = (0, 0);
    let done = reindex(&ctx, &mut |d, t| last = (d, t)).expect("reindex");
    assert_eq!(done.events, 3);
    assert_eq!(last, (3, 3));
    assert!(done.path.starts_with(ctx.root()), "{}", done.path);
    assert!(done.path.is_file());
}
