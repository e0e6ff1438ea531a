//! docs/fleet.md's "Setting up the database", run as it is written against a throwaway
//! PostgreSQL 15 cluster: the blocks marked `<!-- fleet-test: NAME -->` are the test's
//! script, so the guide and what runs cannot drift apart. The only change: the guide's
//! `db.internal` becomes the cluster's address.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::{text, tmp};

/// Where Debian's PostgreSQL 15 client programs live (the cluster's own `psql`).
const PG_BIN: &str = "/usr/lib/postgresql/15/bin";

/// The shell blocks of docs/fleet.md marked `<!-- fleet-test: NAME -->`, by name, in order.
fn guide_blocks() -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/fleet.md");
    let doc = std::fs::read_to_string(&path).expect("read docs/fleet.md");
    let mut out = Vec::new();
    let mut rest = doc.as_str();
    while let Some(at) = rest.find("<!-- fleet-test: ") {
        let after = &rest[at + "<!-- fleet-test: ".len()..];
        let (name, after) = after.split_once(" -->\n").expect("a marker ends with -->");
        let body = after
            .strip_prefix("```sh\n")
            .unwrap_or_else(|| panic!("the block after marker {name} is not ```sh"));
        let (block, after) = body.split_once("\n```\n").expect("the block ends");
        out.push((name.to_owned(), format!("{block}\n")));
        rest = after;
    }
    out
}

/// The cluster's `host:port`, and its superuser's URL.
fn cluster() -> (String, String) {
    let url = remaind_testkit::postgres_url();
    let addr = url
        .strip_prefix("postgres://postgres@")
        .and_then(|r| r.split_once('/'))
        .map(|(a, _)| a.to_owned())
        .expect("the test cluster's URL is postgres://postgres@HOST:PORT/postgres");
    (addr, url)
}

/// A shell for the guide's blocks: `remaind` (this build) and the cluster's `psql` first on
/// PATH, `psql` pointed at the cluster, no Remaind setting inherited.
fn shell(cwd: &Path, addr: &str) -> Command {
    let bin = Path::new(env!("CARGO_BIN_EXE_remaind"))
        .parent()
        .expect("the binary's folder")
        .to_owned();
    let path = std::env::join_paths([bin, PathBuf::from(PG_BIN)].into_iter().chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH");
    let (host, port) = addr.rsplit_once(':').expect("host:port");
    let mut cmd = Command::new("sh");
    cmd.current_dir(cwd)
        .env("PATH", path)
        .env("PGHOST", host)
        .env("PGPORT", port)
        .env_remove("REMAIND_DIR")
        .env_remove("REMAIND_STORE")
        .env_remove("REMAIND_PROJECT")
        .env_remove("FAILPOINTS")
        .env_remove("PGPASSWORD")
        .stdin(Stdio::null());
    cmd
}

/// Run `script` (`sh -e`) in `cwd`.
fn run(cwd: &Path, addr: &str, script: &str) -> Output {
    shell(cwd, addr)
        .args(["-e", "-c", script])
        .output()
        .expect("run sh")
}

fn ok(what: &str, out: &Output) -> String {
    assert!(out.status.success(), "{what} failed: {}", text(out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn mkdir(p: PathBuf) -> PathBuf {
    std::fs::create_dir_all(&p).expect("mkdir");
    p
}

/// docs/fleet.md's marked blocks, all of them and in the guide's order.
fn marked_blocks() -> Vec<(String, String)> {
    let blocks = guide_blocks();
    let names: Vec<&str> = blocks.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "superuser",
            "owner",
            "grants",
            "agent",
            "follower",
            "search"
        ],
        "docs/fleet.md's marked blocks"
    );
    blocks
}

/// The agent's role asks to join the project and is refused, told `grant`, with no folder.
fn refused_join(agent: &Path, addr: &str, grant: &str) {
    let agent_url = format!("postgres://web_app_agents@{addr}/remaind");
    let out = run(
        agent,
        addr,
        &format!("remaind init --store {agent_url} --project web-app"),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains(grant), "{}", text(&out));
    assert!(
        !agent.join(".context").exists(),
        "a refused init writes no folder"
    );
}

#[test]
fn fleet_the_guide_runs_verbatim() {
    let (addr, _) = cluster();
    let blocks = marked_blocks();
    let block = |name: &str| {
        blocks
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.replace("db.internal", &addr))
            .expect("the block")
    };
    // The guide's grant list is the one the store's hints quote.
    assert!(
        block("grants").contains(remaind_pg::AGENT_GRANTS),
        "docs/fleet.md's grants differ from crates/remaind-pg/src/grants.sql"
    );
    let t = tmp();
    let server = mkdir(t.0.join("server"));
    let owner = mkdir(t.0.join("owner-repo"));
    let agent = mkdir(t.0.join("agent-repo"));
    let dashboard = mkdir(t.0.join("dashboard"));

    // 1. The roles and the database.
    ok(
        "the superuser's block",
        &run(&server, &addr, &block("superuser")),
    );

    // A role that does not own the database cannot create the schema: told the GRANT to
    // run, exit 1, no folder.
    refused_join(
        &agent,
        &addr,
        "GRANT CREATE ON SCHEMA public TO web_app_agents;",
    );

    // 2. The owner creates the schema and the project.
    ok("the owner's block", &run(&owner, &addr, &block("owner")));
    assert!(owner.join(".context/store.json").is_file());

    // Before the grants, an agent's role is told the first one it lacks.
    refused_join(
        &agent,
        &addr,
        "GRANT SELECT ON remaind_migrations TO web_app_agents;",
    );

    // 3. The grants; 4. an agent joins, logs, compacts and pulls as the least-privilege role.
    ok("the grants block", &run(&server, &addr, &block("grants")));
    let joined = ok("the agent's block", &run(&agent, &addr, &block("agent")));
    assert!(
        joined.contains("replica of project \"web-app\""),
        "{joined}"
    );
    let copy = t.0.join("web-app-copy/.context");
    assert_eq!(
        std::fs::read(agent.join(".context/logs/events.jsonl")).expect("the agent's log"),
        std::fs::read(copy.join("logs/events.jsonl")).expect("the pulled log"),
    );

    // 5. A machine without a folder follows the project and searches it on the server.
    let follower_block = block("follower");
    assert_eq!(follower_block.lines().count(), 1, "{follower_block}");
    let mut follower = shell(&dashboard, &addr)
        .args(["-c", &format!("exec {follower_block}")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the follower");
    ok(
        "a later append",
        &run(
            &owner,
            &addr,
            "remaind log --kind note --text 'Retry flag on in staging'",
        ),
    );
    let lines = crate::fleet_cli::read_until(&mut follower, |l| {
        l.iter().any(|l| l.contains("Retry flag on in staging"))
    });
    let followed: Vec<serde_json::Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert!(
        followed
            .iter()
            .any(|e| e["text"] == "Ship the retry change behind a flag"),
        "{lines:?}"
    );
    assert_eq!(
        followed.last().map(|e| e["text"].clone()),
        Some(serde_json::json!("Retry flag on in staging")),
        "{lines:?}"
    );
    let found = ok(
        "the search block",
        &run(&dashboard, &addr, &block("search")),
    );
    assert!(found.contains("change behind a «flag»"), "{found}");
    assert_eq!(
        std::fs::read_dir(&dashboard).expect("read").count(),
        0,
        "following and searching the store write nothing in the folder"
    );

    // Without one grant (the search index's), the role is told that grant's line.
    let owner_url = format!("postgres://remaind_owner@{addr}/remaind");
    ok(
        "revoke",
        &run(
            &server,
            &addr,
            &format!(
                "psql -v ON_ERROR_STOP=1 {owner_url} -c 'REVOKE ALL ON remaind_search FROM web_app_agents'"
            ),
        ),
    );
    let denied = run(&dashboard, &addr, &block("search"));
    assert_eq!(denied.status.code(), Some(1), "{}", text(&denied));
    assert!(
        text(&denied).contains(
            "GRANT SELECT ON remaind_projects, remaind_events, remaind_artifacts, remaind_files, remaind_search TO web_app_agents;"
        ),
        "{}",
        text(&denied)
    );
}
