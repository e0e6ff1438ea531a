//! Deleting or corrupting `db/context.sqlite`, changing its schema version, or appending to
//! (or rewriting) the ledger behind the index's back never yields a stale or wrong answer.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;

use remaind_events::Filter;
use remaind_events::{EventId, Kind};
use remaind_index::{CatchUp, Error, Freshness, Index, SearchOptions};
use remaind_ledger::Ledger;

use crate::common::{self, db_path, filler, log};

/// The ids a search for `word` must return, computed from the ledger alone.
fn expected(ledger: &Ledger, word: &str) -> Vec<EventId> {
    let mut v: Vec<_> = ledger
        .iter()
        .unwrap()
        .map(Result::unwrap)
        .filter(|e| {
            e.text
                .as_deref()
                .is_some_and(|t| t.split_whitespace().any(|w| w == word))
        })
        .map(|e| e.id)
        .collect();
    v.sort();
    v
}

fn found(index: &mut Index<'_>, word: &str) -> Vec<EventId> {
    let mut v: Vec<_> = index
        .search(
            word,
            &SearchOptions {
                limit: 10_000,
                ..SearchOptions::default()
            },
        )
        .unwrap()
        .into_iter()
        .map(|h| h.id)
        .collect();
    v.sort();
    v
}

/// Answers from a fresh `Index` equal the ledger's.
fn assert_right(dir: &camino::Utf8Path, ledger: &Ledger) {
    let mut index = Index::open(dir, ledger).unwrap();
    for word in ["alpha", "golf", "osprey"] {
        assert_eq!(found(&mut index, word), expected(ledger, word), "{word}");
    }
    let all = ledger
        .range(1, usize::MAX, &remaind_events::Filter::default())
        .unwrap();
    assert_eq!(index.range(1, usize::MAX, &Filter::default()).unwrap(), all);
    let f = index.freshness().unwrap();
    assert!(
        !f.stale && f.indexed_seq == f.ledger_head && f.ledger_head == all.len() as u64,
        "{f:?}"
    );
}

fn setup() -> (tempfile::TempDir, camino::Utf8PathBuf, Ledger) {
    let (tmp, dir, ledger) = common::ledger();
    filler(&ledger, 2000);
    log(&ledger, Kind::Decision, "osprey nests on the tower");
    Index::open(&dir, &ledger).unwrap().catch_up().unwrap();
    (tmp, dir, ledger)
}

#[test]
fn a_deleted_index_is_rebuilt() {
    let (_tmp, dir, ledger) = setup();
    std::fs::remove_file(db_path(&dir)).unwrap();
    let mut index = Index::open(&dir, &ledger).unwrap();
    assert_eq!(
        index.freshness().unwrap(),
        Freshness {
            indexed_seq: 0,
            ledger_head: 2001,
            stale: true
        }
    );
    assert!(matches!(index.catch_up().unwrap(), CatchUp::Rebuilt(2001)));
    assert_right(&dir, &ledger);
    // The whole folder too.
    std::fs::remove_dir_all(dir.join("db")).unwrap();
    assert_right(&dir, &ledger);
}

#[test]
fn random_bytes_and_truncation_are_rebuilt() {
    let (_tmp, dir, ledger) = setup();
    let path = db_path(&dir);
    let good = std::fs::read(&path).unwrap();
    assert!(good.len() > 64 * 1024, "{}", good.len());
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut random = |n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect()
    };
    let mut cases: Vec<(String, Vec<u8>)> = vec![
        ("empty".into(), Vec::new()),
        ("random".into(), random(good.len())),
        ("short random".into(), random(100)),
    ];
    for cut in [
        1,
        50,
        100,
        4096,
        4097,
        good.len() / 3,
        good.len() / 2,
        good.len() - 4096,
        good.len() - 1,
    ] {
        cases.push((format!("truncated to {cut}"), good[..cut].to_vec()));
    }
    let mut header = good.clone();
    header[..100].copy_from_slice(&random(100));
    cases.push(("random header".into(), header));
    let mut tail = good.clone();
    let n = tail.len();
    let junk = random(n / 2);
    tail[n / 2..n / 2 + junk.len()].copy_from_slice(&junk);
    cases.push(("random second half".into(), tail));
    for (name, bytes) in cases {
        std::fs::write(&path, &bytes).unwrap();
        let mut index = Index::open(&dir, &ledger).unwrap_or_else(|e| panic!("{name}: {e}"));
        for word in ["alpha", "golf", "osprey"] {
            assert_eq!(
                found(&mut index, word),
                expected(&ledger, word),
                "{name}: {word}"
            );
        }
        drop(index);
        assert_right(&dir, &ledger);
    }
}

#[test]
fn corruption_after_open_is_rebuilt_on_read() {
    let (_tmp, dir, ledger) = setup();
    let path = db_path(&dir);
    let mut index = Index::open(&dir, &ledger).unwrap();
    assert_eq!(index.catch_up().unwrap(), CatchUp::Fresh);
    // Zero every page after the first two behind the open connection's back.
    let mut bytes = std::fs::read(&path).unwrap();
    for b in &mut bytes[8192..] {
        *b = 0;
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .write_all(&bytes)
        .unwrap();
    for word in ["alpha", "osprey"] {
        assert_eq!(found(&mut index, word), expected(&ledger, word), "{word}");
    }
}

#[test]
fn appends_behind_the_index_are_seen() {
    let (_tmp, dir, ledger) = setup();
    let mut index = Index::open(&dir, &ledger).unwrap();
    assert_eq!(found(&mut index, "osprey").len(), 1);
    // Another process (another handle) appends.
    let other = Ledger::open(&dir).unwrap();
    let new = log(&other, Kind::Note, "osprey returns with a fish");
    assert_eq!(
        index.freshness().unwrap(),
        Freshness {
            indexed_seq: 2001,
            ledger_head: 2002,
            stale: true
        }
    );
    assert_eq!(found(&mut index, "osprey"), expected(&ledger, "osprey"));
    assert!(found(&mut index, "osprey").contains(&new));
    assert_eq!(
        index.range(2002, 5, &Filter::default()).unwrap(),
        other
            .range(2002, 5, &remaind_events::Filter::default())
            .unwrap()
    );
    filler(&other, 500);
    assert_eq!(index.catch_up().unwrap(), CatchUp::Indexed(500));
    assert_right(&dir, &ledger);
}

#[test]
fn a_kept_handle_follows_an_index_another_process_rebuilt() {
    let (_tmp, dir, ledger) = setup();
    let mut kept = Index::open(&dir, &ledger).unwrap();
    assert_eq!(found(&mut kept, "osprey").len(), 1);
    let handle = kept.detach();
    // Another process rebuilds the index (a new file renamed over the old) and appends.
    let other = Ledger::open(&dir).unwrap();
    Index::open(&dir, &other)
        .unwrap()
        .rebuild(&mut |_, _| {})
        .unwrap();
    let new = log(&other, Kind::Note, "osprey returns with a fish");
    let mut again = handle.attach(&dir, &ledger).unwrap();
    assert!(found(&mut again, "osprey").contains(&new));
    // The catch-up went into the file at the index's path, not an orphaned one.
    let fresh = Index::open(&dir, &ledger).unwrap().freshness().unwrap();
    assert!(!fresh.stale && fresh.indexed_seq == 2002, "{fresh:?}");
    // A handle still reading the live file keeps its connection and stays right.
    let mut reused = again.detach().attach(&dir, &ledger).unwrap();
    log(&other, Kind::Note, "osprey leaves again");
    assert_eq!(found(&mut reused, "osprey"), expected(&ledger, "osprey"));
    assert_right(&dir, &ledger);
}

#[test]
fn a_rewritten_ledger_is_rebuilt() {
    let (_tmp, dir, ledger) = setup();
    drop(ledger);
    // Replace the ledger with a different one of the same length, and with a shorter one.
    for n in [2001, 10] {
        let log_path = dir.join(remaind_fs::layout::LOG_PATH);
        std::fs::write(&log_path, b"").unwrap();
        // A new ledger, not a tampered one: its head anchor goes too.
        let _ = std::fs::remove_file(dir.join(remaind_fs::layout::HEAD_PATH));
        let ledger = Ledger::open(&dir).unwrap();
        for i in 0..n {
            log(
                &ledger,
                Kind::Note,
                if i % 2 == 0 {
                    "golf course"
                } else {
                    "osprey again"
                },
            );
        }
        let mut index = Index::open(&dir, &ledger).unwrap();
        assert!(index.freshness().unwrap().stale);
        assert!(matches!(index.catch_up().unwrap(), CatchUp::Rebuilt(_)));
        drop(index);
        assert_right(&dir, &ledger);
    }
}

#[test]
fn another_schema_version_is_rebuilt() {
    let (_tmp, dir, ledger) = setup();
    let conn = rusqlite_conn(&dir);
    conn.execute(
        "UPDATE meta SET value = 999 WHERE key = 'schema_version'",
        [],
    )
    .unwrap();
    drop(conn);
    let mut index = Index::open(&dir, &ledger).unwrap();
    assert!(index.freshness().unwrap().stale);
    assert!(matches!(index.catch_up().unwrap(), CatchUp::Rebuilt(2001)));
    drop(index);
    // A wrong recorded hash is a mismatch with the ledger.
    let conn = rusqlite_conn(&dir);
    conn.execute("UPDATE meta SET value = 'feed' WHERE key = 'last_hash'", [])
        .unwrap();
    drop(conn);
    let mut index = Index::open(&dir, &ledger).unwrap();
    assert!(matches!(index.catch_up().unwrap(), CatchUp::Rebuilt(2001)));
    drop(index);
    assert_right(&dir, &ledger);
}

fn rusqlite_conn(dir: &camino::Utf8Path) -> rusqlite::Connection {
    rusqlite::Connection::open(db_path(dir)).unwrap()
}

#[test]
fn permissions_symlinks_progress_and_freshness() {
    let (_tmp, dir, ledger) = common::ledger();
    let mut index = Index::open(&dir, &ledger).unwrap();
    assert_eq!(index.catch_up().unwrap(), CatchUp::Rebuilt(0));
    assert!(
        index
            .search("anything", &SearchOptions::default())
            .unwrap()
            .is_empty()
    );
    filler(&ledger, 20_000);
    let mut calls = Vec::new();
    assert_eq!(
        index
            .rebuild(&mut |done, total| calls.push((done, total)))
            .unwrap(),
        20_000
    );
    assert_eq!(calls.first(), Some(&(0, 20_000)));
    assert_eq!(calls.last(), Some(&(20_000, 20_000)));
    assert!(
        calls.len() > 2 && calls.windows(2).all(|w| w[0].0 <= w[1].0),
        "{calls:?}"
    );
    assert_eq!(
        index.freshness().unwrap(),
        Freshness {
            indexed_seq: 20_000,
            ledger_head: 20_000,
            stale: false
        }
    );
    drop(index);
    let mode = |p: &camino::Utf8Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir.join("db")), 0o700);
    assert_eq!(mode(&db_path(&dir)), 0o600);
    let leftovers: Vec<_> = dir
        .join("db")
        .read_dir_utf8()
        .unwrap()
        .map(|e| e.unwrap().file_name().to_owned())
        .collect();
    assert_eq!(leftovers, vec!["context.sqlite".to_owned()]);

    // A symlinked index file or db/ folder is refused.
    let elsewhere = dir.parent().unwrap().join("elsewhere.sqlite");
    std::fs::rename(db_path(&dir), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, db_path(&dir)).unwrap();
    assert!(matches!(
        Index::open(&dir, &ledger).unwrap_err(),
        Error::Unsafe { .. }
    ));
    std::fs::remove_file(db_path(&dir)).unwrap();
    std::fs::remove_dir(dir.join("db")).unwrap();
    let outside = dir.parent().unwrap().join("outside-db");
    std::fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("db")).unwrap();
    let err = Index::open(&dir, &ledger).unwrap_err();
    assert!(
        matches!(err, Error::Unsafe { .. }) && !err.is_invalid_input(),
        "{err}"
    );
    assert!(std::fs::read_dir(&outside).unwrap().next().is_none());
}
