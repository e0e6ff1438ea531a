//! `remaind init` and folder discovery, end to end.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn remaind(cwd: &Path, args: &[&str], env_dir: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_remaind"));
    cmd.current_dir(cwd).args(args).env_remove("REMAIND_DIR");
    if let Some(dir) = env_dir {
        cmd.env("REMAIND_DIR", dir);
    }
    cmd.output().expect("run remaind")
}

/// Every path under `root` with its mode and bytes (folders have no bytes).
fn tree(root: &Path) -> BTreeMap<PathBuf, (u32, Option<Vec<u8>>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            let meta = std::fs::symlink_metadata(&path).expect("metadata");
            let mode = meta.permissions().mode() & 0o777;
            let rel = path.strip_prefix(root).expect("under root").to_path_buf();
            if meta.is_dir() {
                out.insert(rel, (mode, None));
                stack.push(path);
            } else {
                out.insert(rel, (mode, Some(std::fs::read(&path).expect("read"))));
            }
        }
    }
    out
}

#[test]
fn init_creates_the_full_tree_private_and_a_second_init_changes_no_byte() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = remaind(tmp.path(), &["init"], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ctx = tmp.path().join(".context");
    assert_eq!(
        std::fs::metadata(&ctx).expect("ctx").permissions().mode() & 0o777,
        0o700
    );
    let before = tree(&ctx);
    for expected in [
        "CONTRACT.md",
        "active",
        "active/history",
        "logs",
        "logs/events.jsonl",
        "logs/quarantine",
        "schemas/event.schema.json",
        "schemas/state.schema.json",
        "schemas/thresholds.json",
        "schemas/redaction.json",
        "schemas/tools.yaml",
        "schemas/llm.json",
        "schemas/llm.schema.json",
        "artifacts",
        "db",
        "redaction.key",
    ] {
        assert!(
            before.contains_key(Path::new(expected)),
            "missing {expected}"
        );
    }
    for (path, (mode, bytes)) in &before {
        let want = if bytes.is_some() { 0o600 } else { 0o700 };
        assert_eq!(*mode, want, "{} has mode {mode:o}", path.display());
    }
    assert_eq!(
        before[Path::new("logs/events.jsonl")].1.as_deref(),
        Some(&b""[..])
    );

    let again = remaind(tmp.path(), &["init"], None);
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stdout).contains("nothing changed"));
    assert_eq!(tree(&ctx), before, "a second init must change no byte");
}

#[test]
fn force_restores_missing_files_only() {
    let tmp = tempfile::tempdir().expect("tempdir");
    assert!(remaind(tmp.path(), &["init"], None).status.success());
    let ctx = tmp.path().join(".context");
    let tools = ctx.join("schemas/tools.yaml");
    let thresholds = ctx.join("schemas/thresholds.json");
    std::fs::remove_file(&tools).expect("rm");
    std::fs::write(&thresholds, b"{\"context_window\": 1000}").expect("edit");
    let out = remaind(tmp.path(), &["init", "--force"], None);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("schemas/tools.yaml"));
    assert!(tools.is_file(), "the missing file is restored");
    assert_eq!(
        std::fs::read(&thresholds).expect("read"),
        b"{\"context_window\": 1000}",
        "an existing file is never overwritten"
    );
}

#[test]
fn embedded_schemas_are_valid_json_schema_2020_12() {
    let tmp = tempfile::tempdir().expect("tempdir");
    assert!(remaind(tmp.path(), &["init"], None).status.success());
    for name in ["event.schema.json", "state.schema.json"] {
        let path = tmp.path().join(".context/schemas").join(name);
        let schema: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("JSON");
        assert_eq!(
            schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{name}"
        );
        jsonschema::meta::validate(&schema)
            .unwrap_or_else(|e| panic!("{name} is not a valid 2020-12 schema: {e}"));
        assert!(
            jsonschema::draft202012::new(&schema).is_ok(),
            "{name} compiles"
        );
    }
}

#[test]
fn the_folder_is_found_by_flag_env_or_walking_up() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let project = tmp.path().join("project");
    let deep = project.join("src/deep");
    std::fs::create_dir_all(&deep).expect("mkdir");
    assert!(remaind(&project, &["init"], None).status.success());

    // Walking up from a subfolder.
    let out = remaind(
        &deep,
        &["log", "--kind", "note", "--text", "from deep"],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "e1");

    // REMAIND_DIR from anywhere.
    let ctx = project.join(".context");
    let out = remaind(
        tmp.path(),
        &["log", "--kind", "note", "--text", "env"],
        Some(&ctx),
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "e2");

    // No folder anywhere: a clear error, exit 1... never a panic.
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let out = remaind(elsewhere.path(), &["events"], None);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no .context/ folder"), "{err}");
    assert!(err.contains("remaind init"), "{err}");
}

/// A folder works through the store its `store.json` names and no other: `--store` naming
/// another (a stray `REMAIND_STORE`) is refused before anything is opened, the password it
/// may hold is not printed, and the folder is left as it was.
#[test]
fn a_store_flag_that_is_not_the_folders_own_is_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cwd = tmp.path();
    let out = remaind(cwd, &["init"], None);
    assert!(out.status.success(), "{out:?}");
    let ctx = cwd.join(".context");
    let before = tree(&ctx);
    let elsewhere = [
        "--store",
        "postgres://ana:s3cret@127.0.0.1:1/remaind",
        "--project",
        "web-app",
    ];
    let run = |extra: &[&str]| {
        let mut args = elsewhere.to_vec();
        args.extend_from_slice(extra);
        remaind(cwd, &args, None)
    };
    for command in [
        &["log", "--kind", "note", "--text", "hello"][..],
        &["resume"],
        &["events"],
    ] {
        let out = run(command);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command:?}: {stderr}");
        assert!(
            stderr.contains("a plain folder (no store.json)"),
            "{stderr}"
        );
        assert!(stderr.contains("\"web-app\""), "{stderr}");
        assert!(!stderr.contains("s3cret"), "{stderr}");
    }
    // A replica of another project: both are named.
    std::fs::write(
        ctx.join("store.json"),
        r#"{"url":"postgres://127.0.0.1:1/remaind","project":"api"}"#,
    )
    .expect("store.json");
    let out = run(&["status"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("a replica of project \"api\""), "{stderr}");
    std::fs::remove_file(ctx.join("store.json")).expect("remove");
    assert_eq!(tree(&ctx), before, "a refused command writes nothing");
}
