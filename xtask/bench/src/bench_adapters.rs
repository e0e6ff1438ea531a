//! Benchmarks of the runtime adapters, on the release binary:
//!
//! - `remaind import claude-code` throughput in MB/s on a large transcript (the real session
//!   `fixtures/transcripts/claude-code-fe5e1c67.jsonl` repeated with fresh line ids), against
//!   an in-process loop that only parses the same JSON Lines with serde_json (target: ratio
//!   ≥ 0.5);
//! - the p50 latency of `remaind hook post-tool-use`, `stop` and `session-start` on a context
//!   holding a real imported session (`claude-code-fe5e1c67`, compacted), each payload naming
//!   a real transcript (`claude-code-8463c716`, 2.9 MB) that gains one line before every
//!   run, so the edge hooks read what is new since the last one; against a process that
//!   only starts and exits (`remaind --version`), measured in the same run; the ratios are
//!   reported.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::bench::{Measurement, median_time};
use crate::bench_resume::{binary, check, process_ms, remaind};
use crate::workspace_root;

/// A transcript of about `target` bytes: the real session repeated, each copy with its own
/// session id and line ids (an import of one copy must not skip the next).
fn transcript(target: usize) -> Result<Vec<u8>, String> {
    let src = workspace_root().join("fixtures/transcripts/claude-code-fe5e1c67.jsonl");
    let text = std::fs::read_to_string(&src).map_err(|e| format!("{}: {e}", src.display()))?;
    let mut out = Vec::with_capacity(target + text.len());
    let mut copy = 0;
    while out.len() < target {
        let tagged = text
            .replace("\"uuid\":\"", &format!("\"uuid\":\"c{copy}-"))
            .replace("\"sessionId\":\"", &format!("\"sessionId\":\"c{copy}-"));
        out.extend_from_slice(tagged.as_bytes());
        copy += 1;
    }
    Ok(out)
}

fn import_throughput(quick: bool, root: &Path) -> Result<Measurement, String> {
    let bytes = transcript(if quick { 8 << 20 } else { 64 << 20 })?;
    let file = root.join("session.jsonl");
    std::fs::write(&file, &bytes).map_err(|e| format!("{}: {e}", file.display()))?;
    let mb = bytes.len() as f64 / 1e6;
    let runs = if quick { 3 } else { 5 };
    let parse = median_time(runs, || {
        let mut n = 0usize;
        for line in bytes.split(|b| *b == b'\n') {
            if let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) {
                n += usize::from(v.is_object());
            }
        }
        std::hint::black_box(n);
    });
    let mut import_times = Vec::new();
    for _ in 0..runs {
        let dir = root.join("import").join(".context");
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        check("init", remaind(&dir, &["init"]), &[0])?;
        let start = Instant::now();
        check(
            "import",
            remaind(
                &dir,
                &["import", "claude-code", file.to_str().unwrap_or("")],
            ),
            &[0],
        )?;
        import_times.push(start.elapsed());
    }
    import_times.sort();
    let import = import_times[import_times.len() / 2];
    Ok(Measurement {
        name: format!("import claude-code ({mb:.0} MB transcript)"),
        figure: mb / import.as_secs_f64(),
        baseline_name: "serde_json parse of the same lines, in process".to_owned(),
        baseline: mb / parse.as_secs_f64(),
        unit: "MB/s".to_owned(),
        note: "target: ratio >= 0.5".to_owned(),
    })
}

/// The hooks measured, with the fields their payloads add.
const HOOKS: [(&str, &str); 3] = [
    (
        "post-tool-use",
        r#""tool_name":"Edit","tool_input":{"file_path":"src/a.rs","old_string":"a","new_string":"b"},"tool_response":{"success":true}"#,
    ),
    (
        "stop",
        r#""last_assistant_message":"Done: the retries are in.""#,
    ),
    ("session-start", r#""source":"resume""#),
];

fn hook_latency(quick: bool, root: &Path) -> Result<Vec<Measurement>, String> {
    let dir = root.join("hook").join(".context");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    check("init", remaind(&dir, &["init"]), &[0])?;
    let session = workspace_root().join("fixtures/transcripts/claude-code-fe5e1c67.jsonl");
    let session = session.to_str().unwrap_or("");
    check(
        "import",
        remaind(&dir, &["import", "claude-code", session]),
        &[0],
    )?;
    check("compact", remaind(&dir, &["compact"]), &[0])?;
    // The live transcript the payloads name: a real one, growing by a line per hook.
    let live = root.join("hook").join("live.jsonl");
    let real = workspace_root().join("fixtures/transcripts/claude-code-8463c716.jsonl");
    std::fs::copy(&real, &live).map_err(|e| format!("{}: {e}", real.display()))?;
    let mut n = 0u64;
    let mut grow = || {
        n += 1;
        let line = format!(
            "{{\"type\":\"assistant\",\"uuid\":\"bench-{n}\",\"sessionId\":\"bench\",\"cwd\":\"/work/app\",\"message\":{{\"model\":\"claude-test\",\"content\":[{{\"type\":\"text\",\"text\":\"step {n}\"}}]}}}}\n"
        );
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&live)
            .expect("live transcript");
        std::io::Write::write_all(&mut f, line.as_bytes()).expect("append");
    };
    let runs = if quick { 21 } else { 101 };
    let baseline = process_ms(runs, || {
        let mut c = Command::new(binary());
        c.arg("--version");
        c
    });
    let mut out = Vec::new();
    for (hook, fields) in HOOKS {
        let payload = root.join("hook").join(format!("{hook}.json"));
        let body = format!(
            "{{\"session_id\":\"bench\",\"cwd\":\"/work/app\",\"transcript_path\":{},{fields}}}",
            serde_json::Value::from(live.to_str().unwrap_or(""))
        );
        std::fs::write(&payload, body).map_err(|e| format!("{}: {e}", payload.display()))?;
        let mut command = || {
            grow();
            let mut c = remaind(&dir, &["hook", hook]);
            c.stdin(std::fs::File::open(&payload).expect("payload"));
            c
        };
        // The first run reads the whole transcript; the measured ones what is new.
        check(&format!("hook {hook}"), command(), &[0])?;
        let figure = process_ms(runs, &mut command);
        out.push(Measurement {
            name: format!("hook {hook} p50 (process, transcript followed)"),
            figure,
            baseline_name: "remaind --version (start and exit)".to_owned(),
            baseline,
            unit: "ms".to_owned(),
            note: "reported: ratio".to_owned(),
        });
    }
    Ok(out)
}

/// Runs the adapter benchmarks; a benchmark that cannot run reports NaN and says why.
pub(crate) fn run(quick: bool) -> Vec<Measurement> {
    let root = workspace_root()
        .join("target")
        .join("bench")
        .join("adapters");
    let failed = |name: &str, e: String| Measurement {
        name: name.to_owned(),
        figure: f64::NAN,
        baseline_name: String::new(),
        baseline: f64::NAN,
        unit: String::new(),
        note: format!("did not run: {e}"),
    };
    if let Err(e) = std::fs::create_dir_all(&root) {
        return vec![failed("adapters", format!("{}: {e}", root.display()))];
    }
    let mut out =
        vec![import_throughput(quick, &root).unwrap_or_else(|e| failed("import throughput", e))];
    out.extend(hook_latency(quick, &root).unwrap_or_else(|e| vec![failed("hook latency", e)]));
    out
}
