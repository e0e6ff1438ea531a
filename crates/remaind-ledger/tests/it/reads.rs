//! Positional reads agree with a full scan.

use remaind_events::{Event, Kind, Status, Statuses};

use remaind_events::Filter;
use remaind_ledger::{Ledger, LogReader};

use crate::common::{self, event};

const KINDS: [Kind; 6] = [
    Kind::Note,
    Kind::Decision,
    Kind::Trace,
    Kind::UserMessage,
    Kind::NextStep,
    Kind::Result,
];

fn build() -> (tempfile::TempDir, Ledger, Vec<Event>) {
    let (tmp, dir) = common::context();
    // Keep long texts inline, so some lines are longer than the readers' 64 KiB chunk.
    std::fs::create_dir_all(dir.join("schemas")).expect("mkdir");
    std::fs::write(
        dir.join("schemas/thresholds.json"),
        r#"{"artifact_threshold_bytes": 1000000}"#,
    )
    .expect("thresholds");
    let ledger = Ledger::open(&dir).expect("open");
    let mut batch = Vec::new();
    for i in 0..300u64 {
        let kind = KINDS[(i * 7 % 6) as usize];
        // Lines of very different lengths, some longer than the read chunk.
        let len = if i % 50 == 0 {
            70_000
        } else {
            (i * 37 % 900) as usize
        };
        batch.push(event(kind, &format!("{i}:{}", "z".repeat(len))));
    }
    ledger.append(batch).expect("batch");
    let all: Vec<Event> = ledger
        .iter()
        .expect("iter")
        .collect::<Result<_, _>>()
        .expect("scan");
    (tmp, ledger, all)
}

#[test]
fn positional_reads_agree_with_a_full_scan() {
    let (_tmp, ledger, all) = build();
    assert_eq!(all.len(), 300);
    assert_eq!(ledger.head().expect("head").0, 300);
    for seq in [1u64, 2, 3, 49, 50, 51, 150, 299, 300] {
        assert_eq!(
            ledger.get(seq).expect("get").as_ref(),
            Some(&all[seq as usize - 1]),
            "get {seq}"
        );
    }
    assert_eq!(ledger.get(0).expect("get"), None);
    assert_eq!(ledger.get(301).expect("get"), None);
    for (from, limit) in [
        (1u64, 10usize),
        (0, 3),
        (45, 20),
        (295, 50),
        (300, 1),
        (301, 5),
        (7, 0),
    ] {
        let expect: Vec<Event> = all
            .iter()
            .filter(|e| e.seq >= from)
            .take(limit)
            .cloned()
            .collect();
        assert_eq!(
            ledger
                .range(from, limit, &remaind_events::Filter::default())
                .expect("range"),
            expect,
            "range {from} {limit}"
        );
    }
    for (before, limit) in [
        (1u64, 5usize),
        (2, 5),
        (51, 10),
        (301, 4),
        (1000, 2),
        (150, 1000),
    ] {
        let below: Vec<&Event> = all.iter().filter(|e| e.seq < before).collect();
        let expect: Vec<Event> = below[below.len().saturating_sub(limit)..]
            .iter()
            .map(|e| (*e).clone())
            .collect();
        assert_eq!(
            ledger
                .before(before, limit, &remaind_events::Filter::default())
                .expect("before"),
            expect,
            "before {before} {limit}"
        );
    }
    let filters = [
        Filter {
            kinds: vec![Kind::Decision],
            min_importance: None,
        },
        Filter {
            kinds: vec![],
            min_importance: Some(2),
        },
        Filter {
            kinds: vec![Kind::Trace, Kind::NextStep],
            min_importance: Some(1),
        },
    ];
    for f in &filters {
        let matching: Vec<Event> = all.iter().filter(|e| f.matches(e)).cloned().collect();
        assert_eq!(
            ledger.range(20, 7, f).expect("range"),
            matching
                .iter()
                .filter(|e| e.seq >= 20)
                .take(7)
                .cloned()
                .collect::<Vec<_>>()
        );
        let below: Vec<Event> = matching.iter().filter(|e| e.seq < 200).cloned().collect();
        assert_eq!(
            ledger.before(200, 9, f).expect("before"),
            below[below.len().saturating_sub(9)..].to_vec()
        );
    }
}

#[test]
fn status_and_statuses_agree() {
    let (_tmp, _dir, ledger) = common::ledger();
    ledger.append(event(Kind::Decision, "use A")).expect("e1");
    ledger.append(event(Kind::NextStep, "do X")).expect("e2");
    ledger
        .append(event(Kind::Blocker, "stuck on Y"))
        .expect("e3");
    let mut c = event(Kind::Correction, "use B, not A");
    c.supersedes = vec!["e1".parse().expect("id")];
    ledger.append(c).expect("e4");
    let mut r = event(Kind::Result, "did X");
    r.resolves = vec!["e2".parse().expect("id"), "e3".parse().expect("id")];
    ledger.append(r).expect("e5");
    let mut s = event(Kind::Correction, "Y was not a blocker");
    s.supersedes = vec!["e3".parse().expect("id")];
    ledger.append(s).expect("e6");
    let expect = [
        (
            1,
            Status::Superseded {
                by: "e4".parse().expect("id"),
            },
        ),
        (
            2,
            Status::Resolved {
                by: "e5".parse().expect("id"),
            },
        ),
        (
            3,
            Status::Superseded {
                by: "e6".parse().expect("id"),
            },
        ),
        (4, Status::Current),
        (5, Status::Current),
        (6, Status::Current),
    ];
    let events: Vec<Event> = ledger
        .iter()
        .expect("iter")
        .map(|e| e.expect("event"))
        .collect();
    let all = Statuses::from_events(&events);
    let events: Vec<Event> = ledger
        .iter()
        .expect("iter")
        .collect::<Result<_, _>>()
        .expect("scan");
    let built = Statuses::from_events(&events);
    for (seq, status) in expect {
        let id = remaind_events::EventId(seq);
        assert_eq!(ledger.status(id).expect("status"), Some(status), "e{seq}");
        assert_eq!(all.get(id), status);
        assert_eq!(built.get(id), status);
    }
    assert_eq!(
        ledger.status(remaind_events::EventId(7)).expect("status"),
        None
    );
    assert_eq!(all.superseded().len(), 2);
    assert_eq!(all.resolved().len(), 1);
}

/// A batch written in several vectored writes (more than a megabyte and more lines than one
/// write takes slices) lands whole and in order: every line reads back as appended, and the
/// chain verifies.
#[test]
fn a_batch_of_many_chunks_is_written_whole_and_in_order() {
    let (_tmp, dir, ledger) = common::ledger();
    ledger
        .append(common::event(Kind::Note, "before"))
        .expect("append");
    let texts: Vec<String> = (0..2_500)
        .map(|i| format!("line {i}: {}", "x".repeat(i % 7 * 300)))
        .collect();
    let ids = ledger
        .append(
            texts
                .iter()
                .map(|t| common::event(Kind::Note, t))
                .collect::<Vec<_>>(),
        )
        .expect("batch");
    assert_eq!(ids.len(), texts.len());
    assert!(common::log_bytes(&dir).len() > 2 << 20);
    for (id, text) in ids.iter().zip(&texts) {
        let ev = ledger.get(id.seq()).expect("read").expect("event");
        assert_eq!(ev.text.as_deref(), Some(text.as_str()));
    }
    ledger.verify().expect("the chain verifies");
    let after = ledger
        .append(common::event(Kind::Note, "after"))
        .expect("append")[0];
    assert_eq!(after.seq(), 2 + texts.len() as u64);
}

/// `LogReader::last_matching` finds the newest event of those kinds within the window, as a full scan finds
/// it, whatever the text of the lines it passes (a text imitating a kind changes nothing).
#[test]
fn last_matching_agrees_with_a_full_scan() {
    let (_tmp, dir) = common::context();
    let ledger = Ledger::open(&dir).expect("open");
    ledger
        .append(event(Kind::UserMessage, "the first instruction"))
        .expect("append");
    let second = ledger
        .append(event(Kind::UserMessage, "the second instruction"))
        .expect("append")[0];
    for i in 0..40 {
        ledger
            .append(event(
                Kind::Note,
                &format!(r#"note {i} quoting ,"kind":"user_message" and "kind":"decision""#),
            ))
            .expect("append");
    }
    let reader = LogReader::open(ledger.context_dir()).expect("open a reader");
    let found = reader
        .last_matching(&[Kind::UserMessage], 1000, |_| true)
        .expect("read")
        .expect("found");
    assert_eq!(found.id, second);
    assert_eq!(found.text.as_deref(), Some("the second instruction"));
    // The window counts lines back from the head: 40 notes hide it from a window of 40.
    assert!(
        reader
            .last_matching(&[Kind::UserMessage], 40, |_| true)
            .expect("read")
            .is_none()
    );
    assert_eq!(
        reader
            .last_matching(&[Kind::Decision, Kind::UserMessage], 41, |_| true)
            .expect("read")
            .map(|e| e.id),
        Some(second)
    );
    assert!(
        reader
            .last_matching(&[Kind::Decision], u64::MAX, |_| true)
            .expect("read")
            .is_none()
    );
}

/// The read-only reader sees what the ledger sees: the same head, the same newest event of a
/// kind that a predicate accepts, and nothing of a torn last line.
#[test]
fn a_log_reader_agrees_with_the_ledger() {
    let (_tmp, ledger, all) = build();
    let dir = ledger.context_dir().to_owned();
    let reader = LogReader::open(&dir).expect("open a reader");
    assert_eq!(reader.head().expect("head"), ledger.head().expect("head"));
    let newest_even = all
        .iter()
        .rev()
        .find(|e| e.kind == Kind::Decision && e.id.seq() % 2 == 0)
        .expect("an even decision");
    let found = reader
        .last_matching(&[Kind::Decision], 1000, |e| e.id.seq() % 2 == 0)
        .expect("read")
        .expect("found");
    assert_eq!(&found, newest_even);
    // A torn line after the head is not an event to a reader.
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .open(ledger.log_path())
        .expect("open the log");
    std::io::Write::write_all(&mut log, br#"{"seq":301,"kind":"decision""#).expect("tear");
    let reader = LogReader::open(&dir).expect("a torn tail is not tampering");
    assert_eq!(reader.head().expect("head").0, 300);
}

/// The raw lines from an offset are the stored lines from there on, and an offset inside a
/// line gives no reader (the caller's record of the log is stale).
#[test]
fn raw_lines_start_only_at_a_line_start() {
    let (_tmp, ledger, _all) = build();
    let bytes = std::fs::read(ledger.log_path()).expect("read the log");
    let second = bytes.iter().position(|&b| b == b'\n').expect("a line") as u64 + 1;
    let mut lines = ledger
        .raw_lines(second)
        .expect("read")
        .expect("a line start");
    let line = lines.next().expect("line 2").expect("read");
    assert_eq!(
        ledger.get(2).expect("get"),
        Some(serde_json::from_slice(&line).expect("event"))
    );
    let mut n = 1;
    let mut end = second + line.len() as u64 + 1;
    for read in lines {
        n += 1;
        end += read.expect("read").len() as u64 + 1;
    }
    assert_eq!(n, 299);
    assert_eq!(end, bytes.len() as u64, "the last line ends the log");
    assert!(ledger.raw_lines(second + 1).expect("read").is_none());
    assert!(
        ledger
            .raw_lines(bytes.len() as u64 + 1)
            .expect("read")
            .is_none()
    );
    let mut at_end = ledger
        .raw_lines(bytes.len() as u64)
        .expect("read")
        .expect("the end");
    assert!(at_end.next().is_none());
}
