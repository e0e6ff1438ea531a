//! `prop_rollback_round_trip`: the law of rollback.
//!
//! For any sequence of writes, removals and restores over a few files, (1) restoring to
//! instant T leaves every restored file with exactly the bytes it had at T, (2) restoring to
//! the instant just before any earlier restore brings back exactly the bytes present just
//! before it, and (3) `version_at` agrees with an independent model at every recorded instant.
//! The model is a plain log of (time, file, bytes after), built from the points the store
//! returns; it never asks the store what the past was.

use proptest::prelude::*;
use remaind_atomic::{HistoryPoint, HistoryStore, Timestamp};

use crate::common::{micros_after, micros_before, store};

/// Names chosen to cover nesting, shared folders and characters that history encodes.
const FILES: [&str; 4] = ["state.json", "dir/handover.md", "dir/sub/100%_x", "e_f"];

#[derive(Debug, Clone)]
enum Op {
    Write {
        file: usize,
        bytes: Vec<u8>,
    },
    Remove {
        file: usize,
    },
    /// Restore the files in `mask` to a time picked among the recorded instants.
    Restore {
        mask: u8,
        pick: usize,
        offset: i8,
    },
    /// Restore every file to the instant just before an earlier restore.
    Undo {
        pick: usize,
    },
}

fn op(nfiles: usize) -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..nfiles, prop::collection::vec(0u8..3, 0..4))
            .prop_map(|(file, bytes)| Op::Write { file, bytes }),
        1 => (0..nfiles).prop_map(|file| Op::Remove { file }),
        2 => (1u8..16, any::<usize>(), -1i8..=1)
            .prop_map(|(mask, pick, offset)| Op::Restore { mask, pick, offset }),
        1 => any::<usize>().prop_map(|pick| Op::Undo { pick }),
    ]
}

fn scenario() -> impl Strategy<Value = (usize, Vec<Op>)> {
    (1usize..=4).prop_flat_map(|n| (Just(n), prop::collection::vec(op(n), 1..=12)))
}

type State = Vec<Option<Vec<u8>>>;

struct Model {
    files: Vec<&'static str>,
    /// Every recorded change: (time, file index, bytes after the change).
    log: Vec<(Timestamp, usize, Option<Vec<u8>>)>,
    /// For every restore that changed something: (its first point's time, state before it).
    restores: Vec<(Timestamp, State)>,
}

impl Model {
    fn state_at(&self, t: Timestamp) -> State {
        let mut s = vec![None; self.files.len()];
        for (time, file, bytes) in &self.log {
            if *time <= t {
                s[*file] = bytes.clone();
            }
        }
        s
    }

    fn current(&self) -> State {
        self.state_at(Timestamp::MAX)
    }

    /// Records a point; `first` when it opens a unit (the points of one restore share a time,
    /// every unit is later than the one before).
    fn record(
        &mut self,
        p: &HistoryPoint,
        after: Option<Vec<u8>>,
        first: bool,
    ) -> Result<(), TestCaseError> {
        if let Some((last, _, _)) = self.log.last() {
            if first {
                prop_assert!(p.time() > *last, "units must be strictly later");
            } else {
                prop_assert_eq!(p.time(), *last, "the points of a unit share a time");
            }
        }
        prop_assert_eq!(p.seq(), self.log.len() as u64 + 1);
        let idx = self
            .files
            .iter()
            .position(|f| *f == p.file().as_str())
            .ok_or_else(|| TestCaseError::fail(format!("unknown file {}", p.file())))?;
        self.log.push((p.time(), idx, after));
        Ok(())
    }
}

fn disk(store: &HistoryStore, files: &[&str]) -> Result<State, TestCaseError> {
    files
        .iter()
        .map(|f| {
            store
                .read(f)
                .map_err(|e| TestCaseError::fail(e.to_string()))
        })
        .collect()
}

fn fail(e: remaind_atomic::Error) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

fn restore(
    store: &HistoryStore,
    model: &mut Model,
    chosen: &[usize],
    to: Timestamp,
) -> Result<(), TestCaseError> {
    let before = model.current();
    let names: Vec<&str> = chosen.iter().map(|&i| model.files[i]).collect();
    let summary = store.restore_to(&names, to).map_err(fail)?;
    let wanted = model.state_at(to);
    for (n, p) in summary.points.iter().enumerate() {
        let idx = model.files.iter().position(|f| *f == p.file().as_str());
        let idx = idx.ok_or_else(|| TestCaseError::fail("unknown file in summary"))?;
        prop_assert_eq!(p.prior_existed(), before[idx].is_some());
        model.record(p, wanted[idx].clone(), n == 0)?;
    }
    let mut expected = before.clone();
    for &i in chosen {
        expected[i] = wanted[i].clone();
    }
    prop_assert_eq!(
        disk(store, &model.files)?,
        expected.clone(),
        "restore to {}",
        to
    );
    let changed: Vec<&str> = chosen
        .iter()
        .filter(|&&i| before[i] != expected[i])
        .map(|&i| model.files[i])
        .collect();
    let reported: Vec<&str> = summary.changed.iter().map(|p| p.as_str()).collect();
    prop_assert_eq!(reported, changed);
    if let Some(first) = summary.first_point() {
        let undo = summary
            .undo_to()
            .ok_or_else(|| TestCaseError::fail("no undo time"))?;
        prop_assert_eq!(undo, micros_before(first.time()));
        model.restores.push((first.time(), before));
    }
    Ok(())
}

fn run(nfiles: usize, ops: &[Op]) -> Result<(), TestCaseError> {
    let (_tmp, store) = store();
    let mut model = Model {
        files: FILES[..nfiles].to_vec(),
        log: Vec::new(),
        restores: Vec::new(),
    };
    for op in ops {
        match op {
            Op::Write { file, bytes } => {
                let before = model.current();
                let p = store.write(model.files[*file], bytes).map_err(fail)?;
                prop_assert_eq!(p.prior_existed(), before[*file].is_some());
                model.record(&p, Some(bytes.clone()), true)?;
            }
            Op::Remove { file } => {
                let before = model.current();
                let p = store.remove(model.files[*file]).map_err(fail)?;
                prop_assert_eq!(p.is_some(), before[*file].is_some());
                if let Some(p) = p {
                    model.record(&p, None, true)?;
                }
            }
            Op::Restore { mask, pick, offset } => {
                let chosen: Vec<usize> = (0..nfiles).filter(|i| mask & (1 << i) != 0).collect();
                let chosen = if chosen.is_empty() { vec![0] } else { chosen };
                // Any recorded instant, or just before the first one (everything absent).
                let to = if model.log.is_empty() {
                    micros_before(Timestamp::now())
                } else {
                    let k = pick % (model.log.len() + 1);
                    match model.log.get(k) {
                        Some((t, _, _)) => match offset {
                            -1 => micros_before(*t),
                            0 => *t,
                            _ => micros_after(*t),
                        },
                        None => micros_before(model.log[0].0),
                    }
                };
                restore(&store, &mut model, &chosen, to)?;
            }
            Op::Undo { pick } => {
                if model.restores.is_empty() {
                    continue;
                }
                let (first, before) = model.restores[pick % model.restores.len()].clone();
                let all: Vec<usize> = (0..nfiles).collect();
                restore(&store, &mut model, &all, micros_before(first))?;
                prop_assert_eq!(
                    disk(&store, &model.files)?,
                    before,
                    "undo of restore at {}",
                    first
                );
            }
        }
        prop_assert_eq!(disk(&store, &model.files)?, model.current());
    }

    // History agrees with the model at, and one microsecond either side of, every point.
    let points = store.list().map_err(fail)?;
    prop_assert_eq!(points.len(), model.log.len());
    for (p, (t, _, _)) in points.iter().zip(&model.log) {
        prop_assert_eq!(p.time(), *t);
    }
    for (t, _, _) in &model.log {
        for at in [micros_before(*t), *t, micros_after(*t)] {
            let want = model.state_at(at);
            for (i, f) in model.files.iter().enumerate() {
                prop_assert_eq!(
                    &store.version_at(f, at).map_err(fail)?,
                    &want[i],
                    "{} at {}",
                    f,
                    at
                );
            }
        }
    }
    Ok(())
}

proptest! {
    // At least 1,000 cases in CI (issue 2); `cargo xtask prop --cases N` overrides.
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(1000),
    ))]

    #[test]
    fn prop_rollback_round_trip((nfiles, ops) in scenario()) {
        run(nfiles, &ops)?;
    }
}
