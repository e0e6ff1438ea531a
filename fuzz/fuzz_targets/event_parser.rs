//! The event parser: arbitrary bytes as caller JSON Lines (`log --stdin`), as one caller
//! event (`log --json-event`), and as stored lines (the validator's reader and the ledger's
//! own open-and-recover path). Nothing may panic; a batch is all or nothing.
#![no_main]

use std::sync::Mutex;

use camino::Utf8PathBuf;
use libfuzzer_sys::fuzz_target;
use remaind_ledger::Ledger;

/// A ledger in RAM when possible, replaced every so many inputs so it stays small.
struct Scratch {
    _tmp: std::path::PathBuf,
    dir: Utf8PathBuf,
    ledger: Ledger,
    uses: u32,
}

fn scratch() -> Scratch {
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        std::path::PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let tmp = base.join(format!("remaind-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let dir = Utf8PathBuf::from_path_buf(tmp.join(".context")).expect("utf-8 temp path");
    std::fs::create_dir_all(&dir).expect("mkdir");
    Ledger::create(&dir).expect("create ledger");
    let ledger = Ledger::open(&dir).expect("open ledger");
    Scratch {
        _tmp: tmp,
        dir,
        ledger,
        uses: 0,
    }
}

static SCRATCH: Mutex<Option<Scratch>> = Mutex::new(None);

fuzz_target!(|data: &[u8]| {
    let _ = remaind_ledger::parse_json_lines(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = remaind_ledger::parse_new_event(text);
        let _ = remaind_validate::MemoryLedger::from_jsonl(text);
    }

    let mut guard = SCRATCH.lock().unwrap_or_else(|p| p.into_inner());
    if guard.as_ref().is_none_or(|s| s.uses >= 500) {
        *guard = Some(scratch());
    }
    let Some(s) = guard.as_mut() else { return };
    s.uses += 1;

    // The append path: all or nothing.
    let (before, _) = s.ledger.head().expect("head");
    match s.ledger.append(remaind_ledger::AppendRequest::json_lines(data)) {
        Ok(ids) => {
            let (after, _) = s.ledger.head().expect("head");
            assert_eq!(
                after,
                before + ids.len() as u64,
                "acknowledged ids all landed"
            );
        }
        Err(_) => {
            let (after, _) = s.ledger.head().expect("head");
            assert_eq!(after, before, "a rejected batch wrote nothing");
        }
    }

    // The stored-line path: the same bytes as a whole log, opened (torn-tail recovery) and
    // verified. Findings are fine; panics are not.
    let probe = s.dir.parent().expect("parent").join("probe");
    let _ = std::fs::remove_dir_all(&probe);
    std::fs::create_dir_all(&probe).expect("mkdir probe");
    let probe = probe.join(".context");
    std::fs::create_dir_all(&probe).expect("mkdir probe/.context");
    Ledger::create(&probe).expect("create probe");
    std::fs::write(probe.join(remaind_fs::layout::LOG_PATH), data).expect("write log");
    if let Ok(ledger) = Ledger::open(&probe) {
        let _ = ledger.verify();
        let _ = ledger.statuses();
    }
});
