//! The least-privilege agent role of docs/fleet.md (`AGENT_GRANTS`): it appends, reads,
//! follows, searches, creates projects and stores artifacts and files through the functions
//! of migration 4, and cannot write a row of any table any other way. Also a database set up
//! with the grants of before migration 4, whose agents lose their direct writes on upgrade.

use postgres::error::SqlState;
use remaind_pg::{AGENT_GRANTS, AGENT_ROLE, Error, SearchFilter, Store};
use remaind_testkit::{postgres_url, unique_project};

use crate::{GENESIS, chained, refs};

/// The tables of the schema, each with a statement of each kind an agent must be refused.
const TABLES: &[&str] = &[
    "remaind_migrations",
    "remaind_projects",
    "remaind_events",
    "remaind_artifacts",
    "remaind_files",
    "remaind_search",
];

/// A database owned by a new owner role, and a new agent role that may connect to it:
/// (database URL as the owner, as the agent, the agent's role name, admin URL, db name).
fn database(prefix: &str) -> (String, String, String, String) {
    let url = postgres_url();
    let name = unique_project(prefix).replace('-', "_");
    let owner = format!("{name}_owner");
    let agent = format!("{name}_agent");
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    // One statement at a time: CREATE DATABASE runs outside a transaction.
    for sql in [
        format!("CREATE ROLE {owner} LOGIN"),
        format!("CREATE ROLE {agent} LOGIN"),
        format!("CREATE DATABASE {name} OWNER {owner}"),
        format!("REVOKE ALL ON DATABASE {name} FROM PUBLIC"),
        format!("GRANT CONNECT ON DATABASE {name} TO {agent}"),
    ] {
        admin.batch_execute(&sql).expect(&sql);
    }
    let (base, _) = url.rsplit_once('/').expect("a database in the URL");
    let host = base
        .rsplit_once('@')
        .map(|(_, h)| h.to_owned())
        .expect("user@host");
    (
        format!("postgres://{owner}@{host}/{name}"),
        format!("postgres://{agent}@{host}/{name}"),
        agent,
        name,
    )
}

fn drop_database(name: &str) {
    let mut admin = postgres::Client::connect(&postgres_url(), postgres::NoTls).expect("connect");
    for sql in [
        format!("DROP DATABASE {name} WITH (FORCE)"),
        format!("DROP ROLE {name}_owner"),
        format!("DROP ROLE {name}_agent"),
    ] {
        admin.batch_execute(&sql).expect(&sql);
    }
}

/// Every direct write on every table, as `agent_url`'s role: each must be refused with
/// SQLSTATE 42501 (insufficient privilege).
fn assert_no_direct_writes(agent_url: &str, project: i64) {
    let mut c = postgres::Client::connect(agent_url, postgres::NoTls).expect("connect");
    let line = format!(
        r#"{{"v":1,"seq":99,"id":"e99","ts":"2026-01-01T00:00:00Z","prev":"{GENESIS}","kind":"note"}}"#
    );
    for table in TABLES {
        let insert = match *table {
            "remaind_migrations" => "INSERT INTO remaind_migrations (version) VALUES (99)".into(),
            "remaind_projects" => format!(
                "INSERT INTO remaind_projects (name, head_digest) VALUES ('forged', '{GENESIS}')"
            ),
            "remaind_events" => format!(
                "INSERT INTO remaind_events (project, seq, digest, line)
                 VALUES ({project}, 99, '{GENESIS}', convert_to('{line}', 'UTF8'))"
            ),
            "remaind_artifacts" => format!(
                "INSERT INTO remaind_artifacts (project, sha256, chunk, chunks, bytes)
                 VALUES ({project}, '{GENESIS}', 0, 1, '\\x00')"
            ),
            "remaind_files" => format!(
                "INSERT INTO remaind_files (project, path, sha256, bytes)
                 VALUES ({project}, 'redaction.json', '{GENESIS}', '\\x7b7d')"
            ),
            _ => format!(
                "INSERT INTO remaind_search (project, seq, kind, importance, body, doc)
                 VALUES ({project}, 99, 'note', 1, 'forged', to_tsvector('forged'))"
            ),
        };
        let statements = [
            insert,
            format!("UPDATE {table} SET {} = {}", column(table), column(table)),
            format!("DELETE FROM {table}"),
            format!("TRUNCATE {table}"),
            format!("SELECT * FROM {table} FOR UPDATE"),
        ];
        for sql in statements {
            let e = c
                .batch_execute(&sql)
                .expect_err(&format!("the agent's role may not run: {sql}"));
            assert_eq!(
                e.code(),
                Some(&SqlState::INSUFFICIENT_PRIVILEGE),
                "{sql}: {e}"
            );
        }
        c.query(&format!("SELECT count(*) FROM {table}"), &[])
            .unwrap_or_else(|e| panic!("the agent reads {table}: {e}"));
    }
}

/// A column of `table` to name in an UPDATE.
fn column(table: &str) -> &'static str {
    match table {
        "remaind_migrations" => "version",
        "remaind_projects" => "head_seq",
        "remaind_events" | "remaind_search" => "seq",
        "remaind_artifacts" => "chunk",
        _ => "path",
    }
}

/// What an agent does, as `agent_url`'s role, on project `name`: create or join it, append
/// under the lock and without, store and read artifacts and files, follow, search.
fn agent_works(agent_url: &str, name: &str) -> i64 {
    let (mut store, _) = Store::create(
        agent_url,
        name,
        GENESIS,
        &[("redaction.json".into(), b"{}".to_vec())],
    )
    .expect("the agent creates or joins a project");
    let head = store.head().expect("head");
    let head = store
        .append(head.seq, &refs(&chained(&head, 2, "retry flag on")))
        .expect("the agent appends through remaind_append");
    {
        let mut up = store.begin().expect("the agent takes the project's lock");
        let lines = chained(up.head(), 1, "under the lock");
        up.put_artifact(&remaind_hash::sha256_hex(b"payload"), b"payload")
            .expect("the agent stores an artifact");
        up.put_file("active/state.json", b"{}")
            .expect("the agent stores a file");
        up.append(&refs(&lines)).expect("append under the lock");
        up.commit().expect("commit");
    }
    let forged = store.put_artifact(&GENESIS.replace('0', "a"), b"not those bytes");
    assert!(
        matches!(forged, Err(Error::Query { .. })),
        "an artifact whose bytes do not hash to its name is refused: {forged:?}"
    );
    assert_eq!(
        store
            .artifact(&remaind_hash::sha256_hex(b"payload"))
            .expect("read an artifact"),
        Some(b"payload".to_vec())
    );
    assert_eq!(
        store.file("active/state.json").expect("read a file"),
        Some(b"{}".to_vec())
    );
    let now = store.head().expect("head");
    assert_eq!(now.seq, head.seq + 1);
    assert_eq!(
        store.lines(0, now.seq, 10).expect("read lines").len(),
        usize::try_from(now.seq).expect("small")
    );
    assert_eq!(
        store
            .wait(0, std::time::Duration::ZERO)
            .expect("follow")
            .seq,
        now.seq
    );
    let hits = store
        .search("retry", &SearchFilter::default())
        .expect("the agent searches on the server")
        .0;
    assert_eq!(hits.len(), 2, "{hits:?}");
    let mut c = postgres::Client::connect(agent_url, postgres::NoTls).expect("connect");
    c.query_one("SELECT id FROM remaind_projects WHERE name = $1", &[&name])
        .expect("the project's id")
        .get(0)
}

#[test]
fn the_agent_role_appends_reads_and_searches_and_cannot_write_a_row_any_other_way() {
    let (owner_url, agent_url, agent, db) = database("lp");
    Store::check(&owner_url).expect("the owner migrates the schema");
    let mut owner = postgres::Client::connect(&owner_url, postgres::NoTls).expect("connect");
    owner
        .batch_execute(&AGENT_GRANTS.replace(AGENT_ROLE, &agent))
        .expect("the guide's grants");
    let project = agent_works(&agent_url, "web-app");
    assert_no_direct_writes(&agent_url, project);
    // The functions run as the owner with a pinned search_path, and no one else may call
    // them unless granted.
    let rows = owner
        .query(
            "SELECT p.proname, p.prosecdef, pg_get_userbyid(p.proowner), p.proconfig::text,
                    has_function_privilege('public', p.oid, 'EXECUTE')
               FROM pg_proc p
              WHERE p.proname IN ('remaind_append', 'remaind_lock', 'remaind_create_project',
                                  'remaind_put_artifact', 'remaind_put_file',
                                  'remaind_index_search')",
            &[],
        )
        .expect("the functions");
    assert_eq!(rows.len(), 6);
    for r in rows {
        let name: String = r.get(0);
        assert!(r.get::<_, bool>(1), "{name} is SECURITY DEFINER");
        assert_eq!(
            r.get::<_, String>(2),
            format!("{db}_owner"),
            "{name}'s owner"
        );
        let config: Option<String> = r.get(3);
        assert_eq!(
            config.as_deref(),
            Some("{\"search_path=pg_catalog, public, pg_temp\"}"),
            "{name}'s search_path"
        );
        assert!(!r.get::<_, bool>(4), "PUBLIC may not execute {name}");
    }
    drop(owner);
    drop_database(&db);
}

#[test]
fn an_agent_role_with_the_grants_of_before_migration_4_loses_its_direct_writes_on_upgrade() {
    let (owner_url, agent_url, agent, db) = database("lpold");
    let mut owner = postgres::Client::connect(&owner_url, postgres::NoTls).expect("connect");
    owner
        .batch_execute(&format!(
            "{}{}{}
             CREATE TABLE remaind_migrations (version integer PRIMARY KEY,
                 applied_at timestamptz NOT NULL DEFAULT now());
             INSERT INTO remaind_migrations (version) VALUES (1), (2), (3);",
            include_str!("../../src/schema.sql"),
            include_str!("../../src/schema-2.sql"),
            include_str!("../../src/schema-3.sql"),
        ))
        .expect("a database at migration 3");
    // The grants docs/fleet.md listed before migration 4.
    owner
        .batch_execute(&format!(
            "GRANT USAGE ON SCHEMA public TO {agent};
             GRANT SELECT ON remaind_migrations TO {agent};
             GRANT SELECT, INSERT, UPDATE ON remaind_projects, remaind_files TO {agent};
             GRANT SELECT, INSERT ON remaind_events, remaind_artifacts, remaind_search TO {agent};
             GRANT EXECUTE ON FUNCTION remaind_append(bigint, bigint, bytea[]) TO {agent};
             GRANT EXECUTE ON FUNCTION remaind_search_row(bytea) TO {agent};"
        ))
        .expect("the old grants");
    Store::check(&owner_url).expect("the owner migrates to migration 4");
    let project = agent_works(&agent_url, "old-fleet");
    assert_no_direct_writes(&agent_url, project);
    drop(owner);
    drop_database(&db);
}
