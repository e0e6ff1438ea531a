//! Search at scale (issue 28): latency of one-word, five-word natural and phrase queries on
//! the big generated ledger, measured in process on a warm index (p50 and p99 over every run
//! of every query of a class); and what the wider index costs against the narrow one it
//! replaced (event text, tool name and artifact excerpts only), index size and catch-up of
//! 5,000 appended events, each binary on its own copy of the same ledger in the same run.
//!
//! The narrow index is the one of commit c7778fd (the last before the ranked, wider search),
//! run as its release binary: `REMAIND_NARROW_BIN`, by default `bench-base/remaind-narrow`
//! under the target folder. Without it those rows say how to build it and the rest still runs.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use camino::Utf8Path;
use remaind_index::{Index, SearchOptions, Syntax};
use remaind_ledger::Ledger;

use crate::bench::{Measurement, median_time};
use crate::bench_index::{Vocab, binary, json_lines};
use crate::rng::Rng;

/// Single words, common to rare (the generator's Zipf head, its tail and a path part).
pub(crate) const ONE_WORD: [&str; 12] = [
    "error", "test", "file", "sqlite", "ledger", "timeout", "rollback", "flaky", "webhook", "zstd",
    "bm25", "handover",
];
/// Questions of five words as a person asks them: stop words included.
pub(crate) const NATURAL: [&str; 10] = [
    "why did the deploy fail",
    "what broke the ledger append",
    "which cache did we choose",
    "how was the timeout fixed",
    "why is compaction handover slow",
    "did the flaky webhook retry",
    "where does the parser panic",
    "what changed in schema migration",
    "when did staging tests fail",
    "who decided the token budget",
];
/// Quoted phrases, some the generator plants in decisions and blockers.
pub(crate) const PHRASES: [&str; 8] = [
    "\"hash chain\"",
    "\"torn tail\"",
    "\"exit code 3\"",
    "\"resume gate\"",
    "\"token budget\"",
    "\"atomic rename\"",
    "\"rate limit\"",
    "\"cargo test\"",
];

/// The commit whose index the wider one replaced.
const NARROW_COMMIT: &str = "c7778fd";
/// Events appended per catch-up round.
const APPEND: usize = 5_000;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The `q`-quantile of sorted `times`, in ms.
fn quantile(times: &[Duration], q: f64) -> f64 {
    if times.is_empty() {
        return f64::NAN;
    }
    let i = ((times.len() - 1) as f64 * q).round() as usize;
    ms(times[i.min(times.len() - 1)])
}

/// The raw FTS5 form of a query: its words as alternatives (a phrase as it is), ranked by
/// BM25 alone: what the plain query's parsing and reranking add to.
fn raw(query: &str) -> String {
    if query.starts_with('"') {
        return query.to_owned();
    }
    query
        .split_whitespace()
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(" OR ")
}

/// Every run of every query of a class, one warm-up each first; sorted.
fn timings(
    index: &mut Index<'_>,
    queries: &[&str],
    runs: usize,
    syntax: Syntax,
) -> Result<Vec<Duration>, String> {
    let opts = SearchOptions {
        syntax,
        ..SearchOptions::default()
    };
    let mut times = Vec::with_capacity(queries.len() * runs);
    for q in queries {
        let q = match syntax {
            Syntax::Plain => (*q).to_owned(),
            Syntax::Fts5 => raw(q),
        };
        index.search(&q, &opts).map_err(|e| format!("{q}: {e}"))?;
        for _ in 0..runs {
            let start = Instant::now();
            let hits = index.search(&q, &opts).map_err(|e| format!("{q}: {e}"))?;
            times.push(start.elapsed());
            std::hint::black_box(hits);
        }
    }
    times.sort();
    Ok(times)
}

/// p50 and p99 of the three query classes on the indexed `dir`, each against the same
/// queries as raw FTS5 (BM25 alone) in the same run.
pub(crate) fn latency(
    dir: &Utf8Path,
    ledger: &Ledger,
    size_note: &str,
) -> Result<Vec<Measurement>, String> {
    let mut index = Index::open(dir, ledger).map_err(|e| e.to_string())?;
    let runs = 9;
    let mut out = Vec::new();
    for (class, queries) in [
        ("one word", &ONE_WORD[..]),
        ("five-word natural", &NATURAL[..]),
        ("phrase", &PHRASES[..]),
    ] {
        let ours = timings(&mut index, queries, runs, Syntax::Plain)?;
        let base = timings(&mut index, queries, runs, Syntax::Fts5)?;
        for (which, q) in [("p50", 0.5), ("p99", 0.99)] {
            out.push(Measurement {
                name: format!("search {which}: {class} ({} queries)", queries.len()),
                figure: quantile(&ours, q),
                baseline_name: "the same words as raw FTS5 OR, BM25 only".to_owned(),
                baseline: quantile(&base, q),
                unit: "ms".to_owned(),
                note: format!(
                    "{size_note}; in process, warm; {} runs; {}",
                    ours.len(),
                    if which == "p50" {
                        "target < 20 ms"
                    } else {
                        "no target"
                    }
                ),
            });
        }
    }
    // Issue 43: a query repeating a word, or holding hundreds, costs what a bounded one
    // does (a repeated word is searched once, at most 32 distinct terms).
    let repeated = ["error"; 300].join(" ");
    let many: Vec<&str> = ONE_WORD
        .iter()
        .copied()
        .chain(NATURAL.iter().flat_map(|q| q.split_whitespace()))
        .cycle()
        .take(200)
        .collect();
    let many = many.join(" ");
    for (what, query, base_name, base) in [
        (
            "one word repeated 300 times",
            repeated.as_str(),
            "the word once",
            "error",
        ),
        ("200 words", many.as_str(), "five-word natural", NATURAL[0]),
    ] {
        let ours = timings(&mut index, &[query], runs, Syntax::Plain)?;
        let once = timings(&mut index, &[base], runs, Syntax::Plain)?;
        out.push(Measurement {
            name: format!("search p50: {what}"),
            figure: quantile(&ours, 0.5),
            baseline_name: base_name.to_owned(),
            baseline: quantile(&once, 0.5),
            unit: "ms".to_owned(),
            note: format!(
                "{size_note}; in process, warm; {runs} runs; repeated words searched once, at \
                 most 32 distinct terms of 1,000 characters"
            ),
        });
    }
    Ok(out)
}

/// The narrow index's binary, as built from [`NARROW_COMMIT`].
fn narrow_binary() -> PathBuf {
    std::env::var_os("REMAIND_NARROW_BIN").map_or_else(
        || {
            binary()
                .parent()
                .and_then(Path::parent)
                .map_or_else(PathBuf::new, Path::to_path_buf)
                .join("bench-base")
                .join("remaind-narrow")
        },
        PathBuf::from,
    )
}

fn index_bytes(dir: &Path) -> Result<u64, String> {
    let path = dir.join("db").join("context.sqlite");
    std::fs::metadata(&path)
        .map(|m| m.len())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// A search for a word in no event: opening, catching up and an empty answer.
const PROBE: &[&str] = &["search", "qqxqqzz", "--limit", "1"];

/// What one binary's index measured.
struct Side {
    bytes: u64,
    reindex: Duration,
    /// Median extra time of a search that first catches up [`APPEND`] events.
    catch_up: f64,
}

/// Reindex each copy with its binary, then rounds of: append the same [`APPEND`] events to
/// both ledgers, time the probe search (which catches up) on each, interleaved; the
/// catch-up is that time less the probe's time on a fresh index.
fn compare(
    bins: [&Path; 2],
    dirs: [&Path; 2],
    rounds: usize,
    rng: &mut Rng,
    vocab: &Vocab,
) -> Result<[Side; 2], String> {
    let mut sides = Vec::new();
    for (bin, dir) in bins.iter().zip(dirs) {
        let reindex = crate::bench::run_remaind(bin, dir, &["reindex", "--quiet"])?;
        sides.push(Side {
            bytes: index_bytes(dir)?,
            reindex,
            catch_up: 0.0,
        });
    }
    let fresh = |bin: &Path, dir: &Path| {
        ms(median_time(7, || {
            let _ = crate::bench::run_remaind(bin, dir, PROBE);
        }))
    };
    let mut extra: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for _ in 0..rounds {
        let lines = json_lines(vocab, rng, APPEND);
        for (i, (bin, dir)) in bins.iter().zip(dirs).enumerate() {
            let ledger = Ledger::open(
                Utf8Path::from_path(dir)
                    .ok_or_else(|| format!("{} is not UTF-8", dir.display()))?,
            )
            .map_err(|e| e.to_string())?;
            ledger
                .append(remaind_ledger::AppendRequest::json_lines(&lines))
                .map_err(|e| e.to_string())?;
            let caught = ms(crate::bench::run_remaind(bin, dir, PROBE)?);
            extra[i].push(caught - fresh(bin, dir));
        }
    }
    for (side, mut e) in sides.iter_mut().zip(extra) {
        e.sort_by(f64::total_cmp);
        side.catch_up = e.get(e.len() / 2).copied().unwrap_or(f64::NAN);
    }
    let [a, b]: [Side; 2] = sides
        .try_into()
        .map_err(|_| "two sides expected".to_owned())?;
    Ok([a, b])
}

/// Index size, reindex time and catch-up of the wider index against the narrow one on
/// copies of the `.context/` at `dir` (left as it is). `label` names the ledger.
pub(crate) fn wide_vs_narrow(
    dir: &Path,
    label: &str,
    rounds: usize,
    vocab: &Vocab,
) -> Vec<Measurement> {
    let narrow = narrow_binary();
    if !narrow.is_file() {
        return vec![Measurement::failed(
            &format!("index: wide vs narrow, {label}"),
            &format!(
                "no narrow-index binary at {} (build commit {NARROW_COMMIT} with `cargo build --release -p remaind-cli` and copy its remaind there, or set REMAIND_NARROW_BIN)",
                narrow.display()
            ),
        )];
    }
    let measured = (|| -> Result<Vec<Measurement>, String> {
        let tmp = tempfile::tempdir().map_err(|e| format!("tempdir: {e}"))?;
        let wide_dir = tmp.path().join("wide");
        let narrow_dir = tmp.path().join("narrow");
        crate::bench::copy_tree(dir, &wide_dir)?;
        crate::bench::copy_tree(dir, &narrow_dir)?;
        let mut rng = Rng(0x6a09_e667_f3bc_c909);
        let [wide, narrow] = compare(
            [&binary(), &narrow],
            [&wide_dir, &narrow_dir],
            rounds,
            &mut rng,
            vocab,
        )?;
        let base = format!("narrow index (commit {NARROW_COMMIT}), same ledger");
        let mut out = vec![
            Measurement {
                name: format!("index size: {label}"),
                figure: wide.bytes as f64 / 1e6,
                baseline_name: base.clone(),
                baseline: narrow.bytes as f64 / 1e6,
                unit: "MB".to_owned(),
                note: "after remaind reindex; no target".to_owned(),
            },
            Measurement {
                name: format!("index reindex: {label}"),
                figure: ms(wide.reindex),
                baseline_name: base.clone(),
                baseline: ms(narrow.reindex),
                unit: "ms".to_owned(),
                note: "remaind reindex --quiet, whole process; no target".to_owned(),
            },
        ];
        if rounds > 0 {
            out.push(Measurement {
                name: format!("index append ({APPEND} events): {label}"),
                figure: wide.catch_up,
                baseline_name: base,
                baseline: narrow.catch_up,
                unit: "ms".to_owned(),
                note: format!(
                    "catch-up inside a search process less a search on a fresh index; median of {rounds} rounds; target: ratio <= 1.2"
                ),
            });
        }
        Ok(out)
    })();
    measured.unwrap_or_else(|e| {
        vec![Measurement::failed(
            &format!("index: wide vs narrow, {label}"),
            &e,
        )]
    })
}
