//! The store: one connection to one project.

use std::time::{Duration, Instant};

use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, GenericClient, Transaction};
use remaind_hash::sha256_hex;

use crate::url::{config, mask_password};
use crate::{Error, Result};

/// The schema's migrations, in order; each is applied once per database.
const MIGRATIONS: &[(i32, &str)] = &[
    (1, include_str!("schema.sql")),
    (2, include_str!("schema-2.sql")),
    (3, include_str!("schema-3.sql")),
    (4, include_str!("schema-4.sql")),
];

/// The advisory lock taken while migrating, so `remaind init` may run on many machines at once.
const MIGRATION_LOCK: i64 = 0x7265_6d61_696e_6401;

/// Artifacts are stored in chunks of this many bytes.
const CHUNK: usize = 1 << 20;

/// The channel of the wake-up hint sent on every append.
const CHANNEL: &str = "remaind_events";

/// The head of a project's chain: its last seq (0 when empty) and that line's SHA-256.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// The last seq, 0 for an empty ledger.
    pub seq: u64,
    /// The hex SHA-256 of the last line, or the genesis value.
    pub digest: String,
}

/// One connection to one project of a shared store.
pub struct Store {
    pub(crate) client: Client,
    pub(crate) project: i64,
    /// The role the connection logs in as (named in a privilege error's hint).
    pub(crate) role: String,
    name: String,
    /// The URL, its password masked.
    url: String,
    listening: bool,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("project", &self.name)
            .finish_non_exhaustive()
    }
}

pub(crate) fn query(action: &'static str) -> impl FnOnce(postgres::Error) -> Error {
    move |source| {
        // A role that may use no schema is told to create its tables nowhere (3F000).
        let code = source.code();
        if code == Some(&postgres::error::SqlState::INSUFFICIENT_PRIVILEGE)
            || code == Some(&postgres::error::SqlState::INVALID_SCHEMA_NAME)
        {
            Error::Privilege {
                action,
                role: String::new(),
                source,
            }
        } else {
            Error::Query { action, source }
        }
    }
}

/// [`query`], naming `role` in a privilege error's hint.
pub(crate) fn query_as<'r>(
    role: &'r str,
    action: &'static str,
) -> impl FnOnce(postgres::Error) -> Error + 'r {
    move |source| query(action)(source).for_role(role)
}

/// `result` with `role` named in a privilege error's hint.
pub(crate) fn named<T>(role: &str, result: Result<T>) -> Result<T> {
    result.map_err(|e| e.for_role(role))
}

pub(crate) fn to_seq(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn to_sql(seq: u64) -> i64 {
    i64::try_from(seq).unwrap_or(i64::MAX)
}

fn open_client(url: &str) -> Result<(Client, String)> {
    let (config, tls) = config(url)?;
    let role = config.get_user().unwrap_or_default().to_owned();
    let connector = crate::tls::connector(&tls).map_err(|reason| Error::Url {
        url: mask_password(url),
        reason,
    })?;
    let mut client = config.connect(connector).map_err(|source| Error::Connect {
        url: mask_password(url),
        role: role.clone(),
        source,
    })?;
    migrate(&mut client).map_err(|e| e.for_role(&role))?;
    Ok((client, role))
}

/// Apply the migrations this database lacks, under an advisory lock, in one transaction.
/// A database already at this build's version costs one read and no lock: every hook
/// process connects.
fn migrate(client: &mut Client) -> Result<()> {
    let known = MIGRATIONS.last().map_or(0, |m| m.0);
    let current = match client.query_opt(
        "SELECT max(version) FROM remaind_migrations WHERE to_regclass('remaind_migrations') IS NOT NULL",
        &[],
    ) {
        Ok(row) => row.and_then(|row| row.get::<_, Option<i32>>(0)),
        // The schema is there but this role may not read it: migrating would fail too, and
        // say less.
        Err(e) if e.code() == Some(&postgres::error::SqlState::INSUFFICIENT_PRIVILEGE) => {
            return Err(query("read the schema version")(e));
        }
        Err(_) => None,
    };
    if current == Some(known) {
        return Ok(());
    }
    let mut tx = client.transaction().map_err(query("migrate the schema"))?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .map_err(query("lock the schema for migration"))?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS remaind_migrations (
             version integer PRIMARY KEY,
             applied_at timestamptz NOT NULL DEFAULT now())",
    )
    .map_err(query("migrate the schema"))?;
    let applied: i32 = tx
        .query_one(
            "SELECT coalesce(max(version), 0) FROM remaind_migrations",
            &[],
        )
        .map_err(query("read the schema version"))?
        .get(0);
    if applied > known {
        return Err(Error::Corrupt {
            what: "schema".into(),
            reason: format!(
                "it is at version {applied}, newer than this remaind knows ({known}); upgrade remaind"
            ),
        });
    }
    for (version, sql) in MIGRATIONS.iter().filter(|m| m.0 > applied) {
        tx.batch_execute(sql).map_err(query("migrate the schema"))?;
        tx.execute(
            "INSERT INTO remaind_migrations (version) VALUES ($1)",
            &[version],
        )
        .map_err(query("record a migration"))?;
    }
    tx.commit().map_err(query("migrate the schema"))
}

/// Why `name` cannot name a project, if it cannot: empty, longer than 200 bytes, starting
/// or ending with whitespace, or holding a control character (a tab, a newline) anywhere —
/// names that differ from another only there would be told apart by no one reading them.
pub fn project_name_problem(name: &str) -> Option<String> {
    let trimmed = name.trim_matches(|c: char| c.is_whitespace() || c.is_control());
    let clean: String = trimmed.chars().filter(|c| !c.is_control()).collect();
    let fix = if clean.is_empty() {
        String::new()
    } else {
        format!("; use {clean:?}")
    };
    if name.is_empty() {
        Some("is empty; name the project".into())
    } else if name.len() > 200 {
        Some(format!("is {} bytes; the limit is 200", name.len()))
    } else if trimmed != name {
        Some(format!(
            "{name:?} starts or ends with whitespace or a control character, so it would name \
             a different project than one without it{fix}"
        ))
    } else if name.chars().any(char::is_control) {
        Some(format!(
            "{name:?} holds a control character (a tab, a newline), which no one reading it \
             can see{fix}"
        ))
    } else {
        None
    }
}

impl Store {
    /// Check that the store at `url` answers and holds this build's schema (migrating it
    /// when older), without touching any project: what `init --store` asks before it
    /// writes anything.
    pub fn check(url: &str) -> Result<()> {
        open_client(url).map(drop)
    }

    /// Connect to project `name` of the store at `url` (migrating the schema when it is older
    /// than this build's). A missing project is [`Error::NoProject`].
    pub fn connect(url: &str, name: &str) -> Result<Store> {
        let (mut client, role) = open_client(url)?;
        let row = client
            .query_opt("SELECT id FROM remaind_projects WHERE name = $1", &[&name])
            .map_err(|e| query("look up the project")(e).for_role(&role))?;
        let Some(row) = row else {
            return Err(Error::NoProject { name: name.into() });
        };
        Ok(Store {
            project: row.get(0),
            client,
            role,
            name: name.into(),
            url: mask_password(url),
            listening: false,
        })
    }

    /// Create project `name` with an empty chain starting at `genesis` and its first
    /// `files`, or connect to it when it exists. Returns the store and whether it was
    /// created; safe to run from many machines at once (exactly one creates it).
    pub fn create(
        url: &str,
        name: &str,
        genesis: &str,
        files: &[(String, Vec<u8>)],
    ) -> Result<(Store, bool)> {
        if let Some(reason) = project_name_problem(name) {
            return Err(Error::ProjectName {
                name: name.into(),
                reason,
            });
        }
        let (mut client, role) = open_client(url)?;
        let named = |e: Error| e.for_role(&role);
        let mut tx = client
            .transaction()
            .map_err(query("create the project"))
            .map_err(named)?;
        let row = tx
            .query_one(
                "SELECT p_id, p_created FROM remaind_create_project($1, $2)",
                &[&name, &genesis],
            )
            .map_err(query("create the project"))
            .map_err(named)?;
        let project: i64 = row.get(0);
        let created: bool = row.get(1);
        if created {
            for (path, bytes) in files {
                put_file(&mut tx, project, path, bytes).map_err(named)?;
            }
        }
        tx.commit()
            .map_err(query("create the project"))
            .map_err(named)?;
        let store = Store {
            client,
            project,
            role,
            name: name.into(),
            url: mask_password(url),
            listening: false,
        };
        Ok((store, created))
    }

    /// Whether this connection is encrypted, as the server sees it (`pg_stat_ssl`).
    pub fn tls_in_use(&mut self) -> Result<bool> {
        let row = self
            .client
            .query_opt(
                "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                &[],
            )
            .map_err(query_as(
                &self.role,
                "ask whether the connection is encrypted",
            ))?;
        Ok(row.is_some_and(|r| r.get(0)))
    }

    /// The project's name.
    pub fn project(&self) -> &str {
        &self.name
    }

    /// The store's URL, its password masked (for messages).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The head of the project's chain.
    pub fn head(&mut self) -> Result<Head> {
        named(&self.role, head(&mut self.client, self.project, false))
    }

    /// Up to `limit` stored lines after seq `after` and at most `upto` (the head a caller
    /// read: a row past the recorded head was not written by an append), in order, each
    /// with its seq.
    pub fn lines(&mut self, after: u64, upto: u64, limit: usize) -> Result<Vec<(u64, Vec<u8>)>> {
        named(
            &self.role,
            lines(&mut self.client, self.project, after, upto, limit),
        )
    }

    /// The head, and the first seq the store holds past it (a row written around the
    /// append function), read in one snapshot.
    pub fn head_and_stray(&mut self) -> Result<(Head, Option<u64>)> {
        named(&self.role, head_and_stray(&mut self.client, self.project))
    }

    /// The SHA-256 of line `seq`, if the store has it.
    pub fn digest_at(&mut self, seq: u64) -> Result<Option<String>> {
        let row = self
            .client
            .query_opt(
                "SELECT digest FROM remaind_events WHERE project = $1 AND seq = $2",
                &[&self.project, &to_sql(seq)],
            )
            .map_err(query_as(&self.role, "read a digest"))?;
        Ok(row.map(|r| r.get(0)))
    }

    /// Append `lines` (each chained onto the one before, the first onto seq `after`) in one
    /// round trip. [`Error::HeadMoved`] when another writer appended first: nothing was
    /// written.
    pub fn append(&mut self, after: u64, lines: &[&[u8]]) -> Result<Head> {
        named(
            &self.role,
            append(&mut self.client, self.project, after, lines),
        )
    }

    /// The artifact with this SHA-256, if stored; checked against its name.
    pub fn artifact(&mut self, sha256: &str) -> Result<Option<Vec<u8>>> {
        named(&self.role, artifact(&mut self.client, self.project, sha256))
    }

    /// Store an artifact (a no-op when it is already there).
    pub fn put_artifact(&mut self, sha256: &str, bytes: &[u8]) -> Result<()> {
        named(
            &self.role,
            put_artifact(&mut self.client, self.project, sha256, bytes),
        )
    }

    /// Which of `sha256s` the store lacks.
    pub fn missing_artifacts(&mut self, sha256s: &[String]) -> Result<Vec<String>> {
        named(
            &self.role,
            missing_artifacts(&mut self.client, self.project, sha256s),
        )
    }

    /// The paths and SHA-256s of the project's files under `prefix` (e.g. `"active/"`).
    pub fn files(&mut self, prefix: &str) -> Result<Vec<(String, String)>> {
        let pattern = format!("{}%", prefix.replace('%', "\\%").replace('_', "\\_"));
        let rows = self
            .client
            .query(
                "SELECT path, sha256 FROM remaind_files WHERE project = $1 AND path LIKE $2
                 ORDER BY path",
                &[&self.project, &pattern],
            )
            .map_err(query_as(&self.role, "list files"))?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// The bytes of file `path`, if stored.
    pub fn file(&mut self, path: &str) -> Result<Option<Vec<u8>>> {
        let row = self
            .client
            .query_opt(
                "SELECT bytes FROM remaind_files WHERE project = $1 AND path = $2",
                &[&self.project, &path],
            )
            .map_err(query_as(&self.role, "read a file"))?;
        Ok(row.map(|r| r.get(0)))
    }

    /// Store file `path` (replacing what was there).
    pub fn put_file(&mut self, path: &str, bytes: &[u8]) -> Result<()> {
        named(
            &self.role,
            put_file(&mut self.client, self.project, path, bytes),
        )
    }

    /// Start an append under the project's lock: other writers wait until it commits or
    /// is dropped. For a writer that must see the head before it builds its lines.
    pub fn begin(&mut self) -> Result<Append<'_>> {
        let mut tx = self
            .client
            .transaction()
            .map_err(query_as(&self.role, "start an append"))?;
        let head = named(&self.role, head(&mut tx, self.project, true))?;
        Ok(Append {
            tx,
            project: self.project,
            role: &self.role,
            head,
        })
    }

    /// Wait until the head passes seq `after` or `timeout` elapses; returns the head. The
    /// store's notification only wakes the wait early: the head is read either way, so a
    /// lost notification costs latency, never an event.
    pub fn wait(&mut self, after: u64, timeout: Duration) -> Result<Head> {
        if !self.listening {
            self.client
                .batch_execute(&format!("LISTEN {CHANNEL}"))
                .map_err(query_as(&self.role, "listen for appends"))?;
            self.listening = true;
        }
        let deadline = Instant::now() + timeout;
        loop {
            let now = self.head()?;
            let left = deadline.saturating_duration_since(Instant::now());
            if now.seq > after || left.is_zero() {
                return Ok(now);
            }
            // Any notification (this project's or another's) means: read the head again.
            let mut notes = self.client.notifications();
            let mut waiting = notes.timeout_iter(left.min(Duration::from_millis(500)));
            waiting
                .next()
                .map_err(query_as(&self.role, "wait for appends"))?;
        }
    }
}

/// An append in progress, holding the project's lock (see [`Store::begin`]). Dropped without
/// [`Append::commit`], nothing it wrote stays.
pub struct Append<'a> {
    tx: Transaction<'a>,
    project: i64,
    role: &'a str,
    head: Head,
}

impl std::fmt::Debug for Append<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Append")
            .field("head", &self.head)
            .finish_non_exhaustive()
    }
}

impl Append<'_> {
    /// The head under the lock (moved by [`Append::append`]).
    pub fn head(&self) -> &Head {
        &self.head
    }

    /// Stored lines after seq `after` and at most `upto` (to catch a replica up before
    /// building on the head).
    pub fn lines(&mut self, after: u64, upto: u64, limit: usize) -> Result<Vec<(u64, Vec<u8>)>> {
        named(
            self.role,
            lines(&mut self.tx, self.project, after, upto, limit),
        )
    }

    /// The head under the lock, and the first seq stored past it, as
    /// [`Store::head_and_stray`].
    pub fn head_and_stray(&mut self) -> Result<(Head, Option<u64>)> {
        named(self.role, head_and_stray(&mut self.tx, self.project))
    }

    /// An artifact, as [`Store::artifact`].
    pub fn artifact(&mut self, sha256: &str) -> Result<Option<Vec<u8>>> {
        named(self.role, artifact(&mut self.tx, self.project, sha256))
    }

    /// Store an artifact in this transaction.
    pub fn put_artifact(&mut self, sha256: &str, bytes: &[u8]) -> Result<()> {
        named(
            self.role,
            put_artifact(&mut self.tx, self.project, sha256, bytes),
        )
    }

    /// Store file `path` in this transaction.
    pub fn put_file(&mut self, path: &str, bytes: &[u8]) -> Result<()> {
        named(self.role, put_file(&mut self.tx, self.project, path, bytes))
    }

    /// Append lines chained onto the head.
    pub fn append(&mut self, lines: &[&[u8]]) -> Result<&Head> {
        self.head = named(
            self.role,
            append(&mut self.tx, self.project, self.head.seq, lines),
        )?;
        Ok(&self.head)
    }

    /// Commit: once this returns, every line appended is durable in the store.
    pub fn commit(self) -> Result<Head> {
        self.tx
            .commit()
            .map_err(query_as(self.role, "commit an append"))?;
        Ok(self.head)
    }
}

fn head(c: &mut impl GenericClient, project: i64, lock: bool) -> Result<Head> {
    // The lock is taken by a function that runs as the schema's owner (migration 4): an
    // agent's role has no UPDATE privilege, which `FOR UPDATE` needs.
    let sql = if lock {
        "SELECT head_seq, head_digest FROM remaind_lock($1)"
    } else {
        "SELECT head_seq, head_digest FROM remaind_projects WHERE id = $1"
    };
    let row = c
        .query_opt(sql, &[&project])
        .map_err(query("read the head"))?;
    let head = row.and_then(|row| {
        Some(Head {
            seq: to_seq(row.get::<_, Option<i64>>(0)?),
            digest: row.get::<_, Option<String>>(1)?,
        })
    });
    head.ok_or_else(|| Error::Corrupt {
        what: "project list".into(),
        reason: format!("project id {project} is gone"),
    })
}

/// The head, and the first seq stored past it if any, read in one statement (one snapshot:
/// an append moves the head in the transaction that writes its rows, so only a row written
/// around `remaind_append` is ever past the head).
fn head_and_stray(c: &mut impl GenericClient, project: i64) -> Result<(Head, Option<u64>)> {
    let row = c
        .query_opt(
            "SELECT p.head_seq, p.head_digest,
                    (SELECT min(e.seq) FROM remaind_events e
                      WHERE e.project = p.id AND e.seq > p.head_seq)
               FROM remaind_projects p WHERE p.id = $1",
            &[&project],
        )
        .map_err(query("read the head"))?
        .ok_or_else(|| Error::Corrupt {
            what: "project list".into(),
            reason: format!("project id {project} is gone"),
        })?;
    let head = Head {
        seq: to_seq(row.get(0)),
        digest: row.get(1),
    };
    Ok((head, row.get::<_, Option<i64>>(2).map(to_seq)))
}

fn lines(
    c: &mut impl GenericClient,
    project: i64,
    after: u64,
    upto: u64,
    limit: usize,
) -> Result<Vec<(u64, Vec<u8>)>> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = c
        .query(
            "SELECT seq, line FROM remaind_events WHERE project = $1 AND seq > $2
               AND seq <= $3
             ORDER BY seq LIMIT $4",
            &[&project, &to_sql(after), &to_sql(upto), &limit],
        )
        .map_err(query("read events"))?;
    Ok(rows.iter().map(|r| (to_seq(r.get(0)), r.get(1))).collect())
}

fn append(c: &mut impl GenericClient, project: i64, after: u64, lines: &[&[u8]]) -> Result<Head> {
    if lines.is_empty() {
        return head(c, project, false);
    }
    let row = c.query_one(
        "SELECT remaind_append($1, $2, $3)",
        &[&project, &to_sql(after), &lines],
    );
    match row {
        // The server checked every line's seq and prev; the new head is the last line's.
        Ok(row) => Ok(Head {
            seq: to_seq(row.get(0)),
            digest: sha256_hex(lines[lines.len() - 1]),
        }),
        Err(e) => Err(match e.code().map(|c| c.code()) {
            Some("RM001") => Error::HeadMoved {
                head: head(c, project, false).map_or(0, |h| h.seq),
                expected: after,
            },
            Some("RM003") => Error::Chain { after, source: e },
            Some("RM004") => Error::Corrupt {
                what: "chain".into(),
                reason: e
                    .as_db_error()
                    .map_or_else(|| e.to_string(), |d| d.message().to_owned())
                    + "; a row was written around remaind_append: as the schema's owner delete \
                       the rows past the head",
            },
            _ => query("append events")(e),
        }),
    }
}

fn artifact(c: &mut impl GenericClient, project: i64, sha256: &str) -> Result<Option<Vec<u8>>> {
    let rows = c
        .query(
            "SELECT chunk, chunks, bytes FROM remaind_artifacts WHERE project = $1 AND sha256 = $2
             ORDER BY chunk",
            &[&project, &sha256],
        )
        .map_err(query("read an artifact"))?;
    let Some(first) = rows.first() else {
        return Ok(None);
    };
    let chunks: i32 = first.get(1);
    let damaged = |reason: String| Error::Corrupt {
        what: format!("artifact {sha256}"),
        reason,
    };
    if usize::try_from(chunks).ok() != Some(rows.len()) {
        return Err(damaged(format!(
            "{} of its {chunks} chunks are stored",
            rows.len()
        )));
    }
    let mut bytes = Vec::new();
    for r in &rows {
        bytes.extend_from_slice(r.get::<_, &[u8]>(2));
    }
    if sha256_hex(&bytes) != sha256 {
        return Err(damaged("its bytes do not hash to its name".into()));
    }
    Ok(Some(bytes))
}

fn put_artifact(
    c: &mut impl GenericClient,
    project: i64,
    sha256: &str,
    bytes: &[u8],
) -> Result<()> {
    let parts: Vec<&[u8]> = if bytes.is_empty() {
        vec![bytes]
    } else {
        bytes.chunks(CHUNK).collect()
    };
    // The server checks the bytes against the name (migration 4).
    c.execute(
        "SELECT remaind_put_artifact($1, $2, $3)",
        &[&project, &sha256, &parts],
    )
    .map_err(query("store an artifact"))?;
    Ok(())
}

fn missing_artifacts(
    c: &mut impl GenericClient,
    project: i64,
    sha256s: &[String],
) -> Result<Vec<String>> {
    let rows = c
        .query(
            "SELECT s FROM unnest($2::text[]) AS t (s)
             WHERE NOT EXISTS (SELECT 1 FROM remaind_artifacts a
                               WHERE a.project = $1 AND a.sha256 = t.s AND a.chunk = 0)",
            &[&project, &sha256s],
        )
        .map_err(query("look up artifacts"))?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

fn put_file(c: &mut impl GenericClient, project: i64, path: &str, bytes: &[u8]) -> Result<()> {
    c.execute(
        "SELECT remaind_put_file($1, $2, $3)",
        &[&project, &path, &bytes],
    )
    .map_err(query("store a file"))?;
    Ok(())
}
