//! An import beside another writer: batches are built at the head under the ledger's lock,
//! so the other writer's events land between batches, never inside one, and every event an
//! import writes cites only events of the same import.

use std::collections::HashSet;

use remaind_adapters::{Runtime, import};
use remaind_ledger::{Kind, Ledger, NewEvent};

use crate::prop_import::{Step, ledger, render, tempdir};

#[test]
fn an_import_beside_another_writer_cites_only_its_own_events() {
    let (_t, dir) = tempdir();
    // Enough records for several batches: tool calls that cite each other (plans, edits).
    let steps: Vec<Step> = (0..1_500)
        .map(|i| match i % 3 {
            0 => Step::Plan(vec![(i % 5, 1), ((i + 1) % 5, 0)]),
            1 => Step::Edit(i % 3),
            _ => Step::Prompt(format!("step {i}")),
        })
        .collect();
    let file = dir.join("session.jsonl");
    std::fs::write(&file, render(&steps)).expect("write");
    let importing = ledger(&dir);
    let ctx = dir.join(".context");
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (report, written) = std::thread::scope(|s| {
        let other = s.spawn(|| {
            let ledger = Ledger::open(&ctx).expect("open");
            let mut n = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) || n < 20 {
                ledger
                    .append(NewEvent {
                        kind: Some(Kind::Note),
                        text: Some(format!("other writer {n}")),
                        ..NewEvent::default()
                    })
                    .expect("append beside the import");
                n += 1;
            }
            n
        });
        let report = import(&importing, Runtime::ClaudeCode, &[file], |_| {}).expect("import");
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        (report, other.join().expect("other writer"))
    });
    let events: Vec<_> = importing
        .iter()
        .expect("read")
        .collect::<Result<_, _>>()
        .expect("events");
    assert_eq!(events.len() as u64, report.appended + written);
    assert!(report.appended > 2_000, "{}", report.appended);
    importing.verify().expect("the chain verifies");
    let imported: HashSet<u64> = events
        .iter()
        .filter(|e| {
            e.text
                .as_deref()
                .is_none_or(|t| !t.starts_with("other writer"))
        })
        .map(|e| e.id.seq())
        .collect();
    // The other writer's events landed between the import's batches.
    let (first, last) = (
        imported.iter().min().copied().unwrap_or(0),
        imported.iter().max().copied().unwrap_or(0),
    );
    assert!(
        (first..last).any(|seq| !imported.contains(&seq)),
        "no event of the other writer between the import's first and last"
    );
    let mut cited = 0;
    for e in &events {
        if imported.contains(&e.id.seq()) {
            for r in e.refs.iter().chain(&e.supersedes).chain(&e.resolves) {
                assert!(
                    imported.contains(&r.seq()),
                    "{} cites {r}, not the import's",
                    e.id
                );
                cited += 1;
            }
        }
    }
    assert!(cited > 1_000, "{cited}");
}
