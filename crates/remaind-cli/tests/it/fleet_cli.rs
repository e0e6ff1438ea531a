//! One project shared through PostgreSQL (a throwaway cluster): `init --store`, `push`,
//! `pull` and `events --follow` as a user runs them (docs/fleet.md).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::{Tmp, ok, remaind, text, tmp};
use crate::transcripts::fixture;

/// Every file under `ctx`'s `sub` folders, by relative path (lock and temp files, whose
/// names start with a dot, are not content).
fn tree(ctx: &Path, subs: &[&str]) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack: Vec<PathBuf> = subs.iter().map(|s| ctx.join(s)).collect();
    while let Some(p) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        {
            continue;
        }
        if meta.is_dir() {
            for e in std::fs::read_dir(&p).expect("read dir") {
                stack.push(e.expect("entry").path());
            }
        } else {
            let rel = p
                .strip_prefix(ctx)
                .expect("under ctx")
                .to_string_lossy()
                .into_owned();
            out.insert(rel, std::fs::read(&p).expect("read"));
        }
    }
    out
}

/// Push `src` to a new project and pull it into a new folder: the events, artifacts and
/// derived history come back byte for byte; running both again copies nothing.
fn round_trip(src: &Path) {
    let url = remaind_testkit::postgres_url();
    let project = remaind_testkit::unique_project("roundtrip");
    let pushed = ok(&remaind(
        src,
        &["push", "--to", &url, "--project", &project, "--json"],
        None,
    ));
    let pushed: serde_json::Value = serde_json::from_str(&pushed).expect("json");
    assert_eq!(pushed["created_project"], true, "{pushed}");
    assert!(pushed["events"].as_u64() > Some(0), "{pushed}");
    let t = tmp();
    let dst = t.0.join("copy").join(".context");
    ok(&remaind(
        &dst,
        &["pull", "--from", &url, "--project", &project],
        None,
    ));
    let subs = [
        "logs/events.jsonl",
        "artifacts",
        "active",
        "memory",
        "redaction.key",
        "schemas",
    ];
    let (before, after) = (tree(src, &subs), tree(&dst, &subs));
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    assert!(before == after, "a file differs after the round trip");
    assert!(
        before.keys().any(|k| k.starts_with("active/history/")),
        "history travelled"
    );
    let again = ok(&remaind(
        src,
        &["push", "--to", &url, "--project", &project, "--json"],
        None,
    ));
    assert!(again.contains(r#""events":0,"files":0"#), "{again}");
    let again = ok(&remaind(
        &dst,
        &["pull", "--from", &url, "--project", &project, "--json"],
        None,
    ));
    assert!(again.contains(r#""events":0,"files":0"#), "{again}");
    ok(&remaind(&dst, &["verify"], None));
}

#[test]
fn the_demo_session_goes_to_postgresql_and_back_byte_for_byte() {
    let t = tmp();
    // The demo's --dir is its workspace; its folder is the .context/ inside.
    ok(&remaind(&t.0, &["demo"], None));
    round_trip(&t.0.join(".context"));
}

#[test]
fn an_imported_real_session_goes_to_postgresql_and_back_byte_for_byte() {
    let t = tmp();
    let ctx = t.0.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    let transcript = fixture("claude-code-8463c716.jsonl");
    let path = transcript.to_str().expect("utf-8");
    ok(&remaind(&ctx, &["import", "claude-code", path], None));
    ok(&remaind(&ctx, &["compact"], None));
    round_trip(&ctx);
}

#[test]
fn two_machines_share_one_chain_and_see_each_others_events() {
    let url = remaind_testkit::postgres_url();
    let project = remaind_testkit::unique_project("machines");
    let (ta, tb) = (tmp(), tmp());
    let (a, b) = (ta.0.join(".context"), tb.0.join(".context"));
    let created = ok(&remaind(
        &a,
        &["init", "--store", &url, "--project", &project],
        None,
    ));
    assert!(created.contains("created from it"), "{created}");
    ok(&remaind(
        &b,
        &["init", "--store", &url, "--project", &project],
        None,
    ));
    assert_eq!(
        std::fs::read(a.join("redaction.key")).expect("key a"),
        std::fs::read(b.join("redaction.key")).expect("key b"),
        "every machine redacts with the project's key"
    );
    let store_json = std::fs::read_to_string(a.join("store.json")).expect("store.json");
    assert!(store_json.contains(&project), "{store_json}");
    for i in 0..3 {
        ok(&remaind(
            &a,
            &["log", "--kind", "note", "--text", &format!("from a {i}")],
            None,
        ));
        ok(&remaind(
            &b,
            &["log", "--kind", "note", "--text", &format!("from b {i}")],
            None,
        ));
    }
    // b reads a's events (it catches up on open) and both hold the same bytes.
    let events = ok(&remaind(&b, &["events", "--json", "--limit", "10"], None));
    assert_eq!(events.lines().count(), 6, "{events}");
    assert!(events.contains("from a 2") && events.contains("from b 2"));
    ok(&remaind(&a, &["verify"], None));
    assert_eq!(
        std::fs::read(a.join("logs/events.jsonl")).expect("a"),
        std::fs::read(b.join("logs/events.jsonl")).expect("b")
    );
    // a compacts; b's next resume takes the pair committed with a's compaction event.
    ok(&remaind(&a, &["compact"], None));
    // (The gate may interrupt: there is no user instruction here.)
    let packet = text(&remaind(&b, &["resume"], None));
    assert!(packet.contains("accepted state through e6"), "{packet}");
    for file in ["active/state.json", "active/handover.md"] {
        assert_eq!(
            std::fs::read(a.join(file)).expect("a's pair"),
            std::fs::read(b.join(file)).expect("b took the pair"),
            "{file}"
        );
    }
}

#[test]
fn a_machine_joining_later_takes_the_history_and_after_a_push_resumes_as_the_first_one_does() {
    let url = remaind_testkit::postgres_url();
    let project = remaind_testkit::unique_project("late");
    let (ta, tb) = (tmp(), tmp());
    let (a, b) = (ta.0.join(".context"), tb.0.join(".context"));
    ok(&remaind(
        &a,
        &["init", "--store", &url, "--project", &project],
        None,
    ));
    let transcript = fixture("claude-code-8463c716.jsonl");
    let path = transcript.to_str().expect("utf-8");
    ok(&remaind(&a, &["import", "claude-code", path], None));
    let joined = ok(&remaind(
        &b,
        &["init", "--store", &url, "--project", &project, "--json"],
        None,
    ));
    let joined: serde_json::Value = serde_json::from_str(&joined).expect("json");
    assert_eq!(joined["created_project"], false, "{joined}");
    assert!(joined["head"].as_u64() > Some(300), "{joined}");
    assert_eq!(
        std::fs::read(a.join("logs/events.jsonl")).expect("a"),
        std::fs::read(b.join("logs/events.jsonl")).expect("b")
    );
    // Derived files (here the framing the import recorded) travel with push and pull only.
    ok(&remaind(
        &a,
        &["push", "--to", &url, "--project", &project],
        None,
    ));
    ok(&remaind(
        &b,
        &["pull", "--from", &url, "--project", &project],
        None,
    ));
    let packet =
        |ctx: &Path| String::from_utf8_lossy(&remaind(ctx, &["resume"], None).stdout).into_owned();
    let (pa, pb) = (packet(&a), packet(&b));
    let differing: Vec<(&str, &str)> = pa.lines().zip(pb.lines()).filter(|(x, y)| x != y).collect();
    assert!(
        differing.is_empty() && pa.len() == pb.len(),
        "the packets differ: {differing:?}"
    );
}

#[test]
fn a_follower_prints_events_from_another_machine_once_in_order() {
    let url = remaind_testkit::postgres_url();
    let project = remaind_testkit::unique_project("follow");
    let (ta, tb) = (tmp(), tmp());
    let (a, b) = (ta.0.join(".context"), tb.0.join(".context"));
    ok(&remaind(
        &a,
        &["init", "--store", &url, "--project", &project],
        None,
    ));
    ok(&remaind(
        &b,
        &["init", "--store", &url, "--project", &project],
        None,
    ));
    ok(&remaind(
        &a,
        &["log", "--kind", "note", "--text", "before"],
        None,
    ));
    let mut follower = std::process::Command::new(env!("CARGO_BIN_EXE_remaind"))
        .args([
            "--dir",
            b.to_str().expect("utf-8"),
            "events",
            "--follow",
            "--json",
        ])
        .env_remove("REMAIND_DIR")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn the follower");
    for i in 0..5 {
        ok(&remaind(
            &a,
            &["log", "--kind", "note", "--text", &format!("live {i}")],
            None,
        ));
    }
    let stdout = follower.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        use std::io::BufRead;
        std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .take(6)
            .collect::<Vec<_>>()
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !reader.is_finished() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = follower.kill();
    let _ = follower.wait();
    let lines = reader.join().expect("reader");
    let seqs: Vec<u64> = lines
        .iter()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).expect("json")["seq"]
                .as_u64()
                .expect("seq")
        })
        .collect();
    assert_eq!(seqs, vec![1, 2, 3, 4, 5, 6], "{lines:?}");
}

#[test]
fn diverged_chains_and_bad_store_arguments_are_refused_with_the_fix() {
    let url = remaind_testkit::postgres_url();
    let project = remaind_testkit::unique_project("diverged");
    let (ta, tb) = (tmp(), tmp());
    let (a, b) = (ta.0.join(".context"), tb.0.join(".context"));
    ok(&remaind(&a, &["init"], None));
    ok(&remaind(
        &a,
        &["log", "--kind", "note", "--text", "a's history"],
        None,
    ));
    ok(&remaind(
        &a,
        &["push", "--to", &url, "--project", &project],
        None,
    ));
    ok(&remaind(&b, &["init"], None));
    ok(&remaind(
        &b,
        &["log", "--kind", "note", "--text", "b's own history"],
        None,
    ));
    let before = std::fs::read(b.join("logs/events.jsonl")).expect("log");
    let out = remaind(&b, &["pull", "--from", &url, "--project", &project], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("differ from seq 1"), "{}", text(&out));
    // The refusal names the project and a command that runs as it is printed.
    assert!(
        text(&out).contains(&format!("project {project:?}"))
            && !text(&out).contains("project \"\""),
        "{}",
        text(&out)
    );
    let fix = text(&out)
        .split('`')
        .nth(1)
        .expect("a command between backquotes")
        .to_owned();
    assert!(
        fix.starts_with(&format!(
            "remaind pull --from {url} --project {project} --dir /"
        )),
        "{fix}"
    );
    let suggested = fix.replacen("remaind", env!("CARGO_BIN_EXE_remaind"), 1);
    let ran = std::process::Command::new("sh")
        .args(["-c", &suggested])
        .env_remove("REMAIND_DIR")
        .env_remove("REMAIND_STORE")
        .env_remove("REMAIND_PROJECT")
        .output()
        .expect("run the suggested command");
    assert!(ran.status.success(), "{suggested}: {}", text(&ran));
    let new_root = tb.0.with_file_name(format!(
        "{}-from-store",
        tb.0.file_name().and_then(|n| n.to_str()).expect("a name")
    ));
    assert!(new_root.join(".context/logs/events.jsonl").is_file());
    std::fs::remove_dir_all(&new_root).expect("remove the pulled copy");
    assert_eq!(
        std::fs::read(b.join("logs/events.jsonl")).expect("log"),
        before
    );
    let out = remaind(&b, &["push", "--to", &url, "--project", &project], None);
    assert!(text(&out).contains("differ from seq 1"), "{}", text(&out));
    // Usage errors: exit 2, the fix named, the password never shown.
    let out = remaind(&b, &["push", "--to", &url], None);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--project"), "{}", text(&out));
    let out = remaind(
        &b,
        &["push", "--to", "mysql://ana:s3cret@db/x", "--project", "p"],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        !text(&out).contains("s3cret") && text(&out).contains("postgres://"),
        "{}",
        text(&out)
    );
    let out = remaind(
        &b,
        &[
            "init",
            "--store",
            "postgres://ana:s3cret@127.0.0.1/x",
            "--project",
            "p",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        !text(&out).contains("s3cret") && text(&out).contains("PGPASSWORD"),
        "{}",
        text(&out)
    );
    // A name that differs from another only by a trailing space or tab, or holds a control
    // character, is a usage error at init, push and pull, naming the field and the fix.
    for name in ["web-app ", "web-app\t", " web-app", "web\napp"] {
        for args in [
            vec!["init", "--store", url.as_str(), "--project", name],
            vec!["push", "--to", url.as_str(), "--project", name],
            vec!["pull", "--from", url.as_str(), "--project", name],
        ] {
            let out = remaind(&b, &args, None);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
            assert!(text(&out).contains("--project"), "{}", text(&out));
            assert!(
                text(&out).contains("use \"web-app\"") || text(&out).contains("use \"webapp\""),
                "{}",
                text(&out)
            );
        }
    }
    let out = remaind(
        &b,
        &["pull", "--from", &url, "--project", "no-such-project"],
        None,
    );
    assert!(
        text(&out).contains("remaind init --store"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_machine_without_a_folder_searches_the_store_on_the_server() {
    let url = remaind_testkit::postgres_url();
    let project = remaind_testkit::unique_project("search");
    let ta = tmp();
    let a = ta.0.join(".context");
    ok(&remaind(
        &a,
        &["init", "--store", &url, "--project", &project],
        None,
    ));
    let transcript = fixture("claude-code-8463c716.jsonl");
    ok(&remaind(
        &a,
        &["import", "claude-code", transcript.to_str().expect("utf-8")],
        None,
    ));
    // Another machine, no .context/ anywhere: the store's own index answers.
    let tb = tmp();
    let nowhere = tb.0.join("no-folder-here");
    let search = |args: &[&str]| {
        let mut all = vec![
            "--store",
            &url,
            "--project",
            &project,
            "search",
            "--on-store",
        ];
        all.extend_from_slice(args);
        remaind(&nowhere, &all, None)
    };
    let found = ok(&search(&["--json", "why", "did", "git", "push", "fail"]));
    let doc: serde_json::Value = serde_json::from_str(&found).expect("json");
    let hits = doc["hits"].as_array().expect("hits");
    assert!(!hits.is_empty(), "{doc}");
    assert!(
        hits.iter().take(10).any(|h| h["snippet"]
            .as_str()
            .is_some_and(|s| s.contains("«push»") || s.contains("«git»"))),
        "{doc}"
    );
    assert_eq!(hits[0]["status"], "unknown");
    assert!(!nowhere.exists(), "searching the store writes no folder");
    // The same shape when nothing matches; filters apply.
    let none = ok(&search(&["--json", "zebraquagga"]));
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&none).expect("json"),
        serde_json::json!({"query": "zebraquagga", "total": 0, "hits": []})
    );
    let decisions = ok(&search(&["--json", "--kind", "decision", "sandbox"]));
    let doc: serde_json::Value = serde_json::from_str(&decisions).expect("json");
    assert!(
        doc["hits"]
            .as_array()
            .expect("hits")
            .iter()
            .all(|h| h["kind"] == "decision"),
        "{doc}"
    );
    // Without a store to search: a usage error naming the fix.
    let out = remaind(&nowhere, &["search", "--on-store", "push"], None);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // --fts is the folder index's syntax.
    let out = search(&["--fts", "push"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

/// `remaind` run in `cwd` with no `--dir` and no `REMAIND_*` variables: as a user runs it in a
/// folder of their choosing.
fn remaind_in(cwd: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_remaind"));
    cmd.current_dir(cwd)
        .env_remove("REMAIND_DIR")
        .env_remove("REMAIND_STORE")
        .env_remove("REMAIND_PROJECT")
        .env_remove("FAILPOINTS")
        .stdin(std::process::Stdio::null());
    cmd
}

/// Read stdout lines of `child` until `done` holds for what was read, or 30 s pass; then
/// end the child. The lines read.
pub(crate) fn read_until(
    child: &mut std::process::Child,
    done: impl Fn(&[String]) -> bool + Send + 'static,
) -> Vec<String> {
    let stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        use std::io::BufRead;
        let mut lines = Vec::new();
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            lines.push(line);
            if done(&lines) {
                break;
            }
        }
        lines
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !reader.is_finished() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    reader.join().expect("reader")
}

fn seqs(lines: &[String]) -> Vec<u64> {
    lines
        .iter()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).expect("json")["seq"]
                .as_u64()
                .expect("seq")
        })
        .collect()
}

#[test]
fn fleet_events_follow_a_project_from_a_folder_without_context() {
    let url = remaind_testkit::postgres_url();
    let project = remaind_testkit::unique_project("folderless");
    let ta = tmp();
    let a = ta.0.join(".context");
    ok(&remaind(
        &a,
        &["init", "--store", &url, "--project", &project],
        None,
    ));
    for i in 0..4 {
        let kind = if i == 2 { "decision" } else { "note" };
        ok(&remaind(
            &a,
            &["log", "--kind", kind, "--text", &format!("before {i}")],
            None,
        ));
    }
    let tb = tmp();
    let nowhere = tb.0.join("empty");
    std::fs::create_dir(&nowhere).expect("mkdir");
    let on_store = ["--store", &url, "--project", &project];
    let run = |args: &[&str]| {
        remaind_in(&nowhere)
            .args(on_store)
            .args(args)
            .output()
            .expect("run remaind")
    };
    // A slice: the last N, from a seq, before a seq, filtered; as a folder prints them.
    let last = ok(&run(&["events", "--json", "--limit", "2"]));
    let last: Vec<String> = last.lines().map(str::to_owned).collect();
    assert_eq!(seqs(&last), [3, 4]);
    let from = ok(&run(&["events", "--json", "--from", "e2", "--limit", "2"]));
    assert_eq!(
        seqs(&from.lines().map(str::to_owned).collect::<Vec<_>>()),
        [2, 3]
    );
    let before = ok(&run(&["events", "--json", "--before", "4", "--limit", "2"]));
    assert_eq!(
        seqs(&before.lines().map(str::to_owned).collect::<Vec<_>>()),
        [2, 3]
    );
    let decisions = ok(&run(&["events", "--json", "--kind", "decision"]));
    assert_eq!(
        seqs(&decisions.lines().map(str::to_owned).collect::<Vec<_>>()),
        [3]
    );
    let readable = ok(&run(&["events"]));
    assert!(
        readable.contains("e3") && readable.contains("before 2"),
        "{readable}"
    );
    let past = run(&["events", "--from", "e9"]);
    assert!(
        text(&past).contains("the ledger's head is e4"),
        "{}",
        text(&past)
    );
    // The same as a folder's replica prints, byte for byte.
    let folder = ok(&remaind(&a, &["events", "--json", "--limit", "2"], None));
    assert_eq!(last.join("\n") + "\n", folder);
    // Follow: the slice, then every new event once, in order.
    let mut follower = remaind_in(&nowhere)
        .args(on_store)
        .args(["events", "--follow", "--json", "--limit", "1"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn the follower");
    // The slice is printed before anything new is logged (else the last event at the
    // follower's start would be a live one).
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let stdout = follower.stdout.take().expect("stdout");
    let reader = {
        let seen = std::sync::Arc::clone(&seen);
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                seen.lock().expect("lines").push(line);
            }
        })
    };
    let wait_for = |n: usize| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while seen.lock().expect("lines").len() < n && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    wait_for(1);
    for i in 0..3 {
        ok(&remaind(
            &a,
            &["log", "--kind", "note", "--text", &format!("live {i}")],
            None,
        ));
    }
    wait_for(4);
    let _ = follower.kill();
    let _ = follower.wait();
    reader.join().expect("reader");
    let lines = seen.lock().expect("lines").clone();
    assert_eq!(seqs(&lines), [4, 5, 6, 7], "{lines:?}");
    assert_eq!(
        std::fs::read_dir(&nowhere).expect("read").count(),
        0,
        "following the store writes nothing in the folder"
    );
    // A folder-less follower still needs a store: the fix is named.
    let out = remaind_in(&nowhere).args(["events"]).output().expect("run");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("--store"), "{}", text(&out));
}

/// `remaind hook EVENT` in `repo` with `payload` on stdin.
fn hook_in(repo: &Path, event: &str, payload: &serde_json::Value) -> std::process::Output {
    use std::io::Write;
    let mut child = remaind_in(repo)
        .args(["hook", event])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn the hook");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(payload.to_string().as_bytes())
        .expect("write the payload");
    child.wait_with_output().expect("wait for the hook")
}

/// Point the replica at `url` instead (the same project): a database gone away.
fn repoint(ctx: &Path, url: &str) {
    let path = ctx.join("store.json");
    let mut setting: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("store.json")).expect("json");
    setting["url"] = serde_json::json!(url);
    std::fs::write(&path, setting.to_string()).expect("write store.json");
}

/// A loopback address where nothing listens.
fn dead_url() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    format!("postgres://postgres@127.0.0.1:{port}/postgres")
}

/// A folder `repo/.context` joined to a new project on the test cluster: the temp folder
/// (kept alive by the caller), the store's URL, the repository and its `.context/`.
fn joined_replica(name: &str) -> (Tmp, String, PathBuf, PathBuf) {
    let url = remaind_testkit::postgres_url();
    let project = remaind_testkit::unique_project(name);
    let t = tmp();
    let repo = t.0.join("repo");
    let ctx = repo.join(".context");
    ok(&remaind(
        &ctx,
        &["init", "--store", &url, "--project", &project],
        None,
    ));
    (t, url, repo, ctx)
}

/// A UserPromptSubmit payload from `repo`.
fn prompt_in(repo: &Path, said: &str) -> serde_json::Value {
    serde_json::json!({
        "session_id": "s1", "cwd": repo.to_str().expect("utf-8"),
        "hook_event_name": "UserPromptSubmit", "prompt": said,
    })
}

#[test]
fn fleet_session_start_injects_the_local_copy_while_the_store_is_unreachable() {
    let (_t, _url, repo, ctx) = joined_replica("offline");
    let cwd = repo.to_str().expect("utf-8");
    let prompt = prompt_in(&repo, "Add a retry loop to the uploader");
    let out = hook_in(&repo, "user-prompt-submit", &prompt);
    assert!(out.status.success(), "{}", text(&out));
    let start = serde_json::json!({
        "session_id": "s2", "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup",
    });
    let online = hook_in(&repo, "session-start", &start);
    assert!(online.status.success(), "{}", text(&online));
    let log_before = std::fs::read(ctx.join("logs/events.jsonl")).expect("log");

    repoint(&ctx, &dead_url());
    let offline = hook_in(&repo, "session-start", &start);
    assert_eq!(offline.status.code(), Some(0), "{}", text(&offline));
    let injected: serde_json::Value =
        serde_json::from_slice(&offline.stdout).unwrap_or_else(|_| panic!("{}", text(&offline)));
    let context = injected["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("additionalContext");
    assert!(
        context.contains("Add a retry loop to the uploader"),
        "{context}"
    );
    assert!(
        String::from_utf8_lossy(&offline.stderr).contains("own copy"),
        "{}",
        text(&offline)
    );
    assert_eq!(
        std::fs::read(ctx.join("logs/events.jsonl")).expect("log"),
        log_before,
        "an unreachable store: nothing appended to the replica's log"
    );
    let errors = std::fs::read_to_string(ctx.join("logs/hook-errors.jsonl")).expect("errors");
    assert!(errors.contains("own copy"), "{errors}");
}

#[test]
fn fleet_init_against_an_unreachable_store_leaves_no_folder() {
    let t = tmp();
    let repo = t.0.join("repo");
    std::fs::create_dir(&repo).expect("mkdir");
    let out = remaind_in(&repo)
        .args(["init", "--store", &dead_url(), "--project", "p"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("cannot connect"), "{}", text(&out));
    assert!(!repo.join(".context").exists(), "{}", text(&out));
}

#[test]
fn fleet_prompts_wait_in_the_outbox_while_the_store_is_unreachable_and_go_in_once_in_order() {
    let (_t, url, repo, ctx) = joined_replica("outbox");
    let prompt = |said: &str| prompt_in(&repo, said);
    let secret = "ghp_R8fK2qLx9mZ4vT7wB3nJc6HdP1sYaE5gUo0i";
    repoint(&ctx, &dead_url());
    for said in [
        "First: add a retry loop to the uploader".to_owned(),
        format!("Second: the token is {secret}, never commit it"),
    ] {
        let out = hook_in(&repo, "user-prompt-submit", &prompt(&said));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert!(text(&out).contains("outbox"), "{}", text(&out));
    }
    let waiting = std::fs::read_to_string(ctx.join("logs/outbox.jsonl")).expect("outbox");
    assert_eq!(waiting.lines().count(), 2, "{waiting}");
    assert!(
        !waiting.contains(secret),
        "the outbox holds the secret: {waiting}"
    );

    repoint(&ctx, &url);
    let third = hook_in(&repo, "user-prompt-submit", &prompt("Third: ship it"));
    assert!(third.status.success(), "{}", text(&third));
    assert!(
        !ctx.join("logs/outbox.jsonl").exists(),
        "the outbox is emptied once its calls are in"
    );
    // Another hook appends nothing twice.
    let again = hook_in(&repo, "user-prompt-submit", &prompt("Fourth: and tag it"));
    assert!(again.status.success(), "{}", text(&again));
    let out = remaind(
        &ctx,
        &[
            "events",
            "--kind",
            "user_message",
            "--json",
            "--limit",
            "20",
        ],
        None,
    );
    ok(&out);
    let prompts: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|e| e["text"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(prompts.len(), 4, "{prompts:?}");
    assert!(prompts[0].starts_with("First"), "{prompts:?}");
    assert!(
        prompts[1].starts_with("Second") && !prompts[1].contains(secret),
        "{prompts:?}"
    );
    assert!(prompts[2].starts_with("Third"), "{prompts:?}");
    assert!(prompts[3].starts_with("Fourth"), "{prompts:?}");
}

/// Run `sql` on the test cluster as its superuser (who, unlike an agent's role, may write the
/// tables directly: the forger), with `psql`.
fn forge_sql(url: &str, sql: &str) {
    let out = std::process::Command::new("/usr/lib/postgresql/15/bin/psql")
        .args(["-v", "ON_ERROR_STOP=1", "-q", url, "-c", sql])
        .output()
        .expect("run psql");
    assert!(out.status.success(), "{sql}: {}", text(&out));
}

#[test]
fn fleet_verify_names_a_row_edited_in_the_store_and_a_join_refuses_a_forged_store() {
    let (t, url, _repo, ctx) = joined_replica("verify");
    let project = std::fs::read_to_string(ctx.join("store.json")).expect("store.json");
    let project: serde_json::Value = serde_json::from_str(&project).expect("json");
    let project = project["project"].as_str().expect("project").to_owned();
    for said in ["one", "two", "three"] {
        ok(&remaind(
            &ctx,
            &["log", "--kind", "note", "--text", said],
            None,
        ));
    }
    ok(&remaind(&ctx, &["verify"], None));
    // A row changed in the database after the folder copied it.
    forge_sql(
        &url,
        &format!(
            "UPDATE remaind_events SET line = convert_to(replace(convert_from(line, 'UTF8'), \
             '\"two\"', '\"TWO\"'), 'UTF8') WHERE seq = 2 AND project = \
             (SELECT id FROM remaind_projects WHERE name = '{project}')"
        ),
    );
    let out = remaind(&ctx, &["verify"], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("line 2")
            && text(&out).contains("differs from line 2 of the shared store"),
        "{}",
        text(&out)
    );
    // A row forged past the head: a machine joining is refused, naming project and seq,
    // and keeps no line of it.
    forge_sql(
        &url,
        &format!(
            "INSERT INTO remaind_events (project, seq, digest, line) SELECT id, 4, '{z}', \
             convert_to('{{\"v\":1}}', 'UTF8') FROM remaind_projects WHERE name = '{project}'",
            z = "0".repeat(64)
        ),
    );
    let other = t.0.join("other/.context");
    let out = remaind(
        &other,
        &["init", "--store", &url, "--project", &project],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("project {project:?} is refused at seq 4")),
        "{}",
        text(&out)
    );
    let log = other.join("logs/events.jsonl");
    assert!(
        std::fs::read(&log).map_or(true, |l| l.is_empty()),
        "nothing of the store was copied"
    );
}

/// A follower spawned from `cmd`, its stdout lines sent to the receiver as they come.
fn spawn_follower(
    cmd: &mut std::process::Command,
) -> (std::process::Child, std::sync::mpsc::Receiver<String>) {
    use std::io::BufRead;
    let mut child = cmd
        .args(["events", "--follow", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn the follower");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// Read from `rx` into `seen` until a line holds `text` (true) or 30 s pass (false).
fn wait_for(rx: &std::sync::mpsc::Receiver<String>, text: &str, seen: &mut Vec<String>) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !seen.iter().any(|l| l.contains(text)) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => seen.push(line),
            Err(_) => return false,
        }
    }
    true
}

/// End `child` and return its stderr.
fn stop(mut child: std::process::Child) -> String {
    use std::io::Read;
    let _ = child.kill();
    let _ = child.wait();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    stderr
}

#[test]
fn fleet_a_follower_reconnects_when_the_server_restarts_and_prints_what_came_after() {
    let cluster = remaind_testkit::PrivateCluster::start();
    let project = remaind_testkit::unique_project("restart");
    let ta = tmp();
    let a = ta.0.join(".context");
    ok(&remaind(
        &a,
        &["init", "--store", &cluster.url, "--project", &project],
        None,
    ));
    ok(&remaind(
        &a,
        &["log", "--kind", "note", "--text", "before the restart"],
        None,
    ));
    let tb = tmp();
    let nowhere = tb.0.join("dashboard");
    std::fs::create_dir(&nowhere).expect("mkdir");
    // A machine without a folder, and a replica folder of another machine.
    let (folderless, rx1) =
        spawn_follower(remaind_in(&nowhere).args(["--store", &cluster.url, "--project", &project]));
    let tc = tmp();
    let c = tc.0.join(".context");
    ok(&remaind(
        &c,
        &["init", "--store", &cluster.url, "--project", &project],
        None,
    ));
    let (replica, rx2) =
        spawn_follower(remaind_in(&tc.0).args(["--dir", c.to_str().expect("utf-8")]));
    let (mut seen1, mut seen2) = (Vec::new(), Vec::new());
    assert!(
        wait_for(&rx1, "before the restart", &mut seen1),
        "{seen1:?}"
    );
    assert!(
        wait_for(&rx2, "before the restart", &mut seen2),
        "{seen2:?}"
    );
    cluster.restart();
    ok(&remaind(
        &a,
        &["log", "--kind", "note", "--text", "after the restart"],
        None,
    ));
    let printed1 = wait_for(&rx1, "after the restart", &mut seen1);
    let printed2 = wait_for(&rx2, "after the restart", &mut seen2);
    let (err1, err2) = (stop(folderless), stop(replica));
    assert!(
        printed1,
        "the folderless follower printed the later event: {seen1:?}; {err1}"
    );
    assert!(
        printed2,
        "the replica's follower printed the later event: {seen2:?}; {err2}"
    );
    assert_eq!(seqs(&seen1), [1, 2], "each event once, in order: {seen1:?}");
    assert_eq!(seqs(&seen2), [1, 2], "each event once, in order: {seen2:?}");
    assert!(
        err1.contains("reconnecting") && err1.contains("reconnected"),
        "{err1}"
    );
}
