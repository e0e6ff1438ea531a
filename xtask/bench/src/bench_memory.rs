//! Benchmarks of `remaind-memory`:
//!
//! - compiling 10 MB of Markdown (instruction-file shapes: headings, paragraphs, lists, code,
//!   key-value lines, tables) into the memory tree, against only reading it and splitting it
//!   into lines in the same run (the ratio is the tree's cost per byte);
//! - the p50 of `remaind memory tree --budget 2000` on a project whose `CLAUDE.md` is that
//!   Markdown, against `remaind --version` (a process that only starts).

use std::process::Command;

use crate::bench::{Measurement, median_time};
use crate::bench_resume::{binary, check, process_ms, remaind};

/// About `target` bytes of instruction-file Markdown.
fn markdown(target: usize) -> String {
    let mut out = String::with_capacity(target + 4096);
    let mut i = 0usize;
    while out.len() < target {
        out.push_str(&format!(
            "# Area {i}\n\nThe uploader in area {i} retries put_object with backoff; keep the \
             public API of Uploader unchanged and log every retry.\n\n\
             ## Rules {i}\n\n- Run `cargo xtask ci` before every push.\n- Never skip a \
             failing test.\n  Fix it or mark the issue.\n\nowner: team-{i}\nreview: two \
             approvals\n\n```sh\ncargo test -p uploader-{i}\n```\n\n| path | owner |\n|---|---|\n\
             | crates/area{i} | team-{i} |\n\n"
        ));
        i += 1;
    }
    out
}

/// Runs the memory benchmarks.
pub(crate) fn run(quick: bool) -> Vec<Measurement> {
    run_inner(quick).unwrap_or_else(|e| vec![Measurement::failed("memory", &e)])
}

fn run_inner(quick: bool) -> Result<Vec<Measurement>, String> {
    let size = if quick { 2 << 20 } else { 10 << 20 };
    let md = markdown(size);
    let mb = md.len() as f64 / 1e6;
    let runs = if quick { 3 } else { 5 };
    let split = median_time(runs, || {
        let n = md.lines().count();
        std::hint::black_box(n);
    });
    let mut nodes = 0;
    let compile = median_time(runs, || {
        nodes = remaind_memory::compile("CLAUDE.md", &md).len();
    });
    let mut out = vec![Measurement {
        name: format!("memory: compile {mb:.0} MB of Markdown into the tree"),
        figure: compile.as_secs_f64() * 1e3,
        baseline_name: "split the same text into lines".to_owned(),
        baseline: split.as_secs_f64() * 1e3,
        unit: "ms".to_owned(),
        note: format!(
            "{nodes} nodes; ratio = the tree's cost over a line split (token counts included)"
        ),
    }];

    let tmp = tempfile::tempdir().map_err(|e| format!("tempdir: {e}"))?;
    let ctx = tmp.path().join(".context");
    check("init", remaind(&ctx, &["init"]), &[0])?;
    std::fs::write(tmp.path().join("CLAUDE.md"), &md).map_err(|e| format!("CLAUDE.md: {e}"))?;
    let tree_runs = if quick { 3 } else { 7 };
    check(
        "memory tree",
        remaind(&ctx, &["memory", "tree", "--budget", "2000"]),
        &[0],
    )?;
    let tree = process_ms(tree_runs, || {
        remaind(&ctx, &["memory", "tree", "--budget", "2000"])
    });
    let start = process_ms(tree_runs, || {
        let mut c = Command::new(binary());
        c.arg("--version");
        c
    });
    out.push(Measurement {
        name: format!("memory: `memory tree --budget 2000`, p50 ({mb:.0} MB CLAUDE.md)"),
        figure: tree,
        baseline_name: "remaind --version (start and exit)".to_owned(),
        baseline: start,
        unit: "ms".to_owned(),
        note: format!(
            "median of {tree_runs} processes after a first call compiled the tree into db/memory_tree (that compile: the row above)"
        ),
    });
    Ok(out)
}
