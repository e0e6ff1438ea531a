//! An import beside another writer: batches are built at the head under the ledger's lock,
//! so the other writer's events land between batches, never inside one, and every event an
//! import writes cites only events of the same import.

use std::collections::HashSet;

use remaind_adapters::{Runtime, import};
use remaind_events::{Kind, NewEvent};
use remaind_ledger::Ledger;

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
    // Two files: between them the import reports progress, and a note is appended there
    // through another handle, so some other event surely lands between the import's
    // batches (its pending records are then mapped at the moved head), whatever the
    // thread below manages to append meanwhile.
    // The first file holds more records than one batch (1,024), so a batch is written
    // before the note and records are still pending after it.
    let (first, second) = steps.split_at(1_200);
    let files = [dir.join("a.jsonl"), dir.join("b.jsonl")];
    std::fs::write(&files[0], render(first)).expect("write");
    let second = String::from_utf8(render(second))
        .expect("utf-8")
        .replace("\"uuid\":\"u", "\"uuid\":\"b");
    std::fs::write(&files[1], second).expect("write");
    let importing = ledger(&dir);
    let ctx = dir.join(".context");
    let between = Ledger::open(&ctx).expect("open");
    let mut noted = 0;
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
        let report = import(&importing, Runtime::ClaudeCode, &files, |p| {
            if p.bytes_done < p.bytes_total {
                between
                    .append(NewEvent {
                        kind: Some(Kind::Note),
                        text: Some("other writer between files".to_owned()),
                        ..NewEvent::default()
                    })
                    .expect("append between files");
                noted += 1;
            }
        })
        .expect("import");
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        (report, other.join().expect("other writer"))
    });
    let events: Vec<_> = importing
        .iter()
        .expect("read")
        .collect::<Result<_, _>>()
        .expect("events");
    assert_eq!(noted, 1);
    assert_eq!(events.len() as u64, report.appended + written + noted);
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

/// Two imports of one transcript at once (two processes' handles): every line is appended
/// once. The set of imported lines is checked again under the ledger's lock whenever
/// another writer appended since, so the slower import skips what the faster one wrote.
#[test]
fn two_imports_of_one_transcript_at_once_append_each_line_once() {
    let (_t, dir) = tempdir();
    let steps: Vec<Step> = (0..3_000)
        .map(|i| match i % 3 {
            0 => Step::Plan(vec![(i % 5, 1), ((i + 1) % 5, 0)]),
            1 => Step::Edit(i % 3),
            _ => Step::Prompt(format!("step {i}")),
        })
        .collect();
    let file = dir.join("session.jsonl");
    std::fs::write(&file, render(&steps)).expect("write");
    let _created = ledger(&dir);
    let ctx = dir.join(".context");
    let run = || {
        let handle = Ledger::open(&ctx).expect("open");
        import(
            &handle,
            Runtime::ClaudeCode,
            std::slice::from_ref(&file),
            |_| {},
        )
        .expect("import")
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(run);
        let b = s.spawn(run);
        (a.join().expect("a"), b.join().expect("b"))
    });
    // The transcript lines each ledger's events came from, and how many events came from
    // lines the other import had already written (none may).
    let lines_of = |l: &Ledger| {
        let mut by_line: std::collections::HashMap<String, Vec<u64>> = Default::default();
        for ev in l.iter().expect("iter") {
            let ev = ev.expect("event");
            let line = ev
                .data
                .as_ref()
                .and_then(|d| d.get("origin"))
                .and_then(|o| o.get("line"))
                .and_then(|l| l.as_str())
                .map(str::to_owned);
            if let Some(line) = line {
                by_line.entry(line).or_default().push(ev.seq);
            }
        }
        by_line
    };
    let check = Ledger::open(&ctx).expect("open");
    let together = lines_of(&check);
    // A line's events are one run of consecutive seqs: one import wrote them, once.
    for (line, seqs) in &together {
        assert!(
            seqs.windows(2).all(|w| w[1] == w[0] + 1),
            "line {line} was appended by both imports: {seqs:?}"
        );
    }
    // Alone, one import brings the same lines.
    let (_t2, dir2) = tempdir();
    let alone = ledger(&dir2);
    import(&alone, Runtime::ClaudeCode, &[file], |_| {}).expect("import");
    let single = lines_of(&alone);
    let mut a_lines: Vec<&String> = together.keys().collect();
    let mut b_lines: Vec<&String> = single.keys().collect();
    a_lines.sort();
    b_lines.sort();
    assert_eq!(a_lines, b_lines, "{a:?} {b:?}");
    assert!(check.verify().expect("verify").problems.is_empty());
}
