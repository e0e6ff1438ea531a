//! Concurrent appends: 8 writers, 2,000 events each, leave 16,000 lines with gapless seq and
//! a valid chain. On a shared store (the suite's second run) each writer appends 250: every
//! append is a database transaction under the project's lock there, and 2,000 of them
//! interleave the writers as thoroughly as 16,000 at a tenth of the time.

use std::sync::Arc;

use remaind_events::Kind;

use remaind_ledger::Ledger;

use crate::common::{self, event};

#[test]
fn eight_threads_append_sixteen_thousand_events() {
    let per_writer: usize = if remaind_testkit::on_store() {
        250
    } else {
        2000
    };
    let (_tmp, dir) = common::context();
    // Four threads with a handle each (file lock), four sharing one handle (in-process mutex).
    let shared = Arc::new(Ledger::open(&dir).expect("open"));
    let handles: Vec<_> = (0..8)
        .map(|t| {
            let dir = dir.clone();
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || {
                let own = (t % 2 == 0).then(|| Ledger::open(&dir).expect("open"));
                let ledger = own.as_ref().unwrap_or(&shared);
                let mut ids = Vec::with_capacity(per_writer);
                while ids.len() < per_writer {
                    let i = ids.len();
                    if i % (per_writer / 4) == per_writer / 4 - 3 {
                        // Some small batches in between: their ids are consecutive.
                        let batch: Vec<_> = (0..3)
                            .map(|k| event(Kind::Trace, &format!("t{t} b{i}.{k}")))
                            .collect();
                        let got = ledger.append(batch).expect("batch");
                        assert!(got.windows(2).all(|w| w[1].seq() == w[0].seq() + 1));
                        ids.extend(got);
                    } else {
                        ids.push(
                            ledger
                                .append(event(Kind::Note, &format!("thread {t} event {i}")))
                                .expect("append")[0],
                        );
                    }
                }
                ids
            })
        })
        .collect();
    let mut all: Vec<u64> = Vec::new();
    for h in handles {
        let ids = h.join().expect("thread");
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "a writer's ids increase"
        );
        all.extend(ids.iter().map(|id| id.seq()));
    }
    let expected_lines = 8 * per_writer as u64;
    let report = shared.verify().expect("verify");
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(report.lines, expected_lines);
    let log = common::log_bytes(&dir);
    assert_eq!(
        log.iter().filter(|&&b| b == b'\n').count() as u64,
        expected_lines
    );
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 8 * per_writer, "every append got its own id");
    assert_eq!(shared.head().expect("head").0, expected_lines);
}
