//! The shared store against a real PostgreSQL (a throwaway cluster, or `REMAIND_TEST_PG`).

use std::time::{Duration, Instant};

mod least_privilege;

use remaind_hash::sha256_hex;
use remaind_pg::{Error, Head, Store};
use remaind_testkit::{postgres_url, unique_project};

const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

fn new_project(prefix: &str) -> Store {
    let (store, created) =
        Store::create(&postgres_url(), &unique_project(prefix), GENESIS, &[]).expect("create");
    assert!(created);
    store
}

/// A line shaped like the ledger's: seq and prev first.
fn line(head: &Head, text: &str) -> Vec<u8> {
    format!(
        r#"{{"v":1,"seq":{},"id":"e{}","ts":"2026-11-26T00:00:00Z","prev":"{}","kind":"note","text":{text:?}}}"#,
        head.seq + 1,
        head.seq + 1,
        head.digest
    )
    .into_bytes()
}

/// Build `n` lines chained onto `head`.
fn chained(head: &Head, n: usize, text: &str) -> Vec<Vec<u8>> {
    let mut head = head.clone();
    let mut out = Vec::new();
    for i in 0..n {
        let l = line(&head, &format!("{text} {i}"));
        head = Head {
            seq: head.seq + 1,
            digest: sha256_hex(&l),
        };
        out.push(l);
    }
    out
}

fn refs(lines: &[Vec<u8>]) -> Vec<&[u8]> {
    lines.iter().map(Vec::as_slice).collect()
}

/// Walk the whole chain: seq gapless from 1, every prev the digest of the line before.
fn assert_chain(store: &mut Store) -> u64 {
    let mut prev = GENESIS.to_owned();
    let mut seq = 0;
    loop {
        let page = store.lines(seq, u64::MAX, 1000).expect("read");
        if page.is_empty() {
            break;
        }
        for (s, l) in page {
            assert_eq!(s, seq + 1, "gap after seq {seq}");
            let text = String::from_utf8(l.clone()).expect("utf-8");
            assert!(
                text.contains(&format!(r#""prev":"{prev}""#)),
                "fork at seq {s}"
            );
            prev = sha256_hex(&l);
            seq = s;
        }
    }
    assert_eq!(store.head().expect("head"), Head { seq, digest: prev });
    seq
}

#[test]
fn lines_come_back_byte_for_byte_in_order_with_their_head() {
    let mut store = new_project("roundtrip");
    let head = store.head().expect("head");
    assert_eq!(
        head,
        Head {
            seq: 0,
            digest: GENESIS.into()
        }
    );
    let lines = chained(&head, 3, "hello \u{1F600} \\u0000 \u{0}");
    let new = store.append(0, &refs(&lines)).expect("append");
    assert_eq!(new.seq, 3);
    assert_eq!(new.digest, sha256_hex(&lines[2]));
    let back: Vec<Vec<u8>> = store
        .lines(0, u64::MAX, 10)
        .expect("read")
        .into_iter()
        .map(|l| l.1)
        .collect();
    assert_eq!(back, lines);
    assert_eq!(
        store.lines(1, u64::MAX, 1).expect("read")[0],
        (2, lines[1].clone())
    );
    assert_eq!(
        store.digest_at(2).expect("digest"),
        Some(sha256_hex(&lines[1]))
    );
    assert_eq!(store.digest_at(9).expect("digest"), None);
    assert_eq!(assert_chain(&mut store), 3);
}

#[test]
fn a_stale_head_or_a_broken_chain_writes_nothing() {
    let mut store = new_project("refuse");
    let first = chained(&store.head().expect("head"), 2, "first");
    store.append(0, &refs(&first)).expect("append");
    // Built on seq 0 again: another writer got there first.
    let stale = chained(
        &Head {
            seq: 0,
            digest: GENESIS.into(),
        },
        1,
        "late",
    );
    match store.append(0, &refs(&stale)) {
        Err(Error::HeadMoved {
            head: 2,
            expected: 0,
        }) => {}
        other => panic!("expected HeadMoved, got {other:?}"),
    }
    // Claims the right head but names the wrong prev: a fork, refused by the server.
    let forged = chained(
        &Head {
            seq: 2,
            digest: sha256_hex(b"other"),
        },
        1,
        "forged",
    );
    assert!(matches!(
        store.append(2, &refs(&forged)),
        Err(Error::Chain { after: 2, .. })
    ));
    // A gap inside a batch is refused as a whole.
    let head = store.head().expect("head");
    let mut batch = chained(&head, 3, "gap");
    batch.remove(1);
    assert!(matches!(
        store.append(2, &refs(&batch)),
        Err(Error::Chain { .. })
    ));
    assert_eq!(assert_chain(&mut store), 2);
}

#[test]
fn many_writers_on_many_connections_keep_one_gapless_chain() {
    let name = unique_project("writers");
    Store::create(&postgres_url(), &name, GENESIS, &[]).expect("create");
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let name = name.clone();
            std::thread::spawn(move || {
                let mut store = Store::connect(&postgres_url(), &name).expect("connect");
                let mut conflicts = 0;
                for i in 0..25 {
                    // Half append under the lock, half optimistically with a retry.
                    if i % 2 == 0 {
                        let mut tx = store.begin().expect("begin");
                        let lines = chained(tx.head(), 2, &format!("w{w} locked {i}"));
                        tx.append(&refs(&lines)).expect("append");
                        tx.commit().expect("commit");
                    } else {
                        loop {
                            let head = store.head().expect("head");
                            let lines = chained(&head, 1, &format!("w{w} cas {i}"));
                            match store.append(head.seq, &refs(&lines)) {
                                Ok(_) => break,
                                Err(Error::HeadMoved { .. } | Error::Chain { .. }) => {
                                    conflicts += 1
                                }
                                Err(e) => panic!("{e:?}"),
                            }
                        }
                    }
                }
                conflicts
            })
        })
        .collect();
    for w in writers {
        w.join().expect("a writer");
    }
    let mut store = Store::connect(&postgres_url(), &name).expect("connect");
    assert_eq!(assert_chain(&mut store), 8 * (13 * 2 + 12));
}

#[test]
fn an_append_dropped_before_commit_leaves_nothing_and_holds_others_off_until_then() {
    let name = unique_project("tx");
    let (mut a, _) = Store::create(&postgres_url(), &name, GENESIS, &[]).expect("create");
    let mut b = Store::connect(&postgres_url(), &name).expect("connect");
    {
        let mut tx = a.begin().expect("begin");
        let lines = chained(tx.head(), 2, "never");
        tx.append(&refs(&lines)).expect("append");
        tx.put_artifact(&sha256_hex(b"x"), b"x").expect("artifact");
        // Dropped: rolled back.
    }
    assert_eq!(b.head().expect("head").seq, 0);
    assert_eq!(b.artifact(&sha256_hex(b"x")).expect("read"), None);
    let mut tx = a.begin().expect("begin");
    let waiter = std::thread::spawn(move || {
        let started = Instant::now();
        let tx = b.begin().expect("begin");
        (started.elapsed(), tx.head().seq)
    });
    std::thread::sleep(Duration::from_millis(300));
    let lines = chained(tx.head(), 1, "first");
    tx.append(&refs(&lines)).expect("append");
    tx.commit().expect("commit");
    let (waited, seen) = waiter.join().expect("waiter");
    assert!(
        waited >= Duration::from_millis(250),
        "did not wait: {waited:?}"
    );
    assert_eq!(
        seen, 1,
        "the second writer sees the first one's line once it holds the lock"
    );
}

#[test]
fn artifacts_of_any_size_come_back_checked_and_files_are_replaced() {
    let mut store = new_project("artifacts");
    let big: Vec<u8> = (0..(2 * 1024 * 1024 + 17))
        .map(|i| (i % 251) as u8)
        .collect();
    let empty: Vec<u8> = Vec::new();
    for bytes in [&big, &empty] {
        let sha = sha256_hex(bytes);
        store.put_artifact(&sha, bytes).expect("put");
        store
            .put_artifact(&sha, bytes)
            .expect("put twice is a no-op");
        assert_eq!(
            store.artifact(&sha).expect("get").as_deref(),
            Some(bytes.as_slice())
        );
    }
    let missing = sha256_hex(b"missing");
    assert_eq!(
        store
            .missing_artifacts(&[sha256_hex(&big), missing.clone()])
            .expect("missing"),
        vec![missing.clone()]
    );
    assert_eq!(store.artifact(&missing).expect("get"), None);
    store.put_file("active/state.json", b"{}").expect("file");
    store
        .put_file("active/state.json", b"{\"a\":1}")
        .expect("file");
    store
        .put_file("schemas/thresholds.json", b"{}")
        .expect("file");
    assert_eq!(
        store.file("active/state.json").expect("file").as_deref(),
        Some(&b"{\"a\":1}"[..])
    );
    let listed = store.files("active/").expect("files");
    assert_eq!(
        listed,
        vec![("active/state.json".to_owned(), sha256_hex(b"{\"a\":1}"))]
    );
}

#[test]
fn creating_a_project_from_many_connections_creates_it_once_with_its_files() {
    let name = unique_project("create");
    let files = vec![("redaction.key".to_owned(), vec![7u8; 32])];
    let racers: Vec<_> = (0..6)
        .map(|_| {
            let (name, files) = (name.clone(), files.clone());
            std::thread::spawn(move || {
                Store::create(&postgres_url(), &name, GENESIS, &files)
                    .expect("create")
                    .1
            })
        })
        .collect();
    let created = racers
        .into_iter()
        .map(|r| r.join().expect("a racer"))
        .filter(|&created| created)
        .count();
    assert_eq!(created, 1);
    let mut store = Store::connect(&postgres_url(), &name).expect("connect");
    assert_eq!(
        store.file("redaction.key").expect("file"),
        Some(vec![7u8; 32])
    );
    match Store::connect(&postgres_url(), "no-such-project-anywhere") {
        Err(e @ Error::NoProject { .. }) => assert!(e.to_string().contains("remaind init --store")),
        other => panic!("expected NoProject, got {other:?}"),
    }
}

#[test]
fn a_follower_is_woken_by_an_append_and_times_out_without_one() {
    let name = unique_project("follow");
    let (mut writer, _) = Store::create(&postgres_url(), &name, GENESIS, &[]).expect("create");
    let mut follower = Store::connect(&postgres_url(), &name).expect("connect");
    let started = Instant::now();
    assert_eq!(
        follower
            .wait(0, Duration::from_millis(200))
            .expect("wait")
            .seq,
        0
    );
    assert!(started.elapsed() >= Duration::from_millis(200));
    let t = std::thread::spawn(move || {
        let started = Instant::now();
        let head = follower.wait(0, Duration::from_secs(20)).expect("wait");
        (started.elapsed(), head.seq)
    });
    std::thread::sleep(Duration::from_millis(100));
    let lines = chained(&writer.head().expect("head"), 1, "wake");
    writer.append(0, &refs(&lines)).expect("append");
    let (waited, seq) = t.join().expect("follower");
    assert_eq!(seq, 1);
    assert!(waited < Duration::from_secs(5), "woken late: {waited:?}");
}

#[test]
fn errors_never_show_the_password_of_the_url() {
    let url = "postgres://remaind:hunter2secret@127.0.0.1:1/none?connect_timeout=2";
    let e = Store::connect(url, "x").expect_err("nothing listens on port 1");
    let mut shown = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        shown.push_str(&s.to_string());
        source = s.source();
    }
    assert!(!shown.contains("hunter2secret"), "{shown}");
    assert!(shown.contains("remaind:***@127.0.0.1"), "{shown}");
}

#[test]
fn a_database_at_an_older_migration_is_brought_up_to_date_once() {
    // A database as a build with only migration 1 left it.
    let url = postgres_url();
    let name = unique_project("mig").replace('-', "_");
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .expect("create a database");
    let (base, _) = url.rsplit_once('/').expect("a database in the URL");
    let db_url = format!("{base}/{name}");
    let mut old = postgres::Client::connect(&db_url, postgres::NoTls).expect("connect");
    old.batch_execute(include_str!("../../src/schema.sql"))
        .expect("migration 1");
    old.batch_execute(
        "CREATE TABLE remaind_migrations (version integer PRIMARY KEY,
             applied_at timestamptz NOT NULL DEFAULT now());
         INSERT INTO remaind_migrations (version) VALUES (1)",
    )
    .expect("record it");

    let (mut store, _) = Store::create(&db_url, "upgraded", GENESIS, &[]).expect("create");
    let head = store.head().expect("head");
    store
        .append(0, &refs(&chained(&head, 3, "after the upgrade")))
        .expect("append");
    Store::connect(&db_url, "upgraded").expect("a second connection migrates nothing");
    let versions: Vec<i32> = old
        .query(
            "SELECT version FROM remaind_migrations ORDER BY version",
            &[],
        )
        .expect("versions")
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(versions, [1, 2, 3, 4]);
    let keys: i64 = old
        .query_one(
            "SELECT count(*) FROM pg_constraint
             WHERE conrelid = 'remaind_events'::regclass AND contype = 'f'",
            &[],
        )
        .expect("constraints")
        .get(0);
    assert_eq!(keys, 0, "migration 2 dropped the per-line foreign key");
    assert_eq!(assert_chain(&mut store), 3);
    drop((old, store));
    admin
        .batch_execute(&format!("DROP DATABASE {name} WITH (FORCE)"))
        .expect("drop the database");
}

#[test]
fn sslmode_is_honoured_and_verify_full_checks_the_certificate() {
    let (url, ca) = remaind_testkit::postgres_tls();
    let ca = ca.to_str().expect("a UTF-8 path");
    let name = unique_project("tls");
    let with = |mode: &str| format!("{url}?sslmode={mode}");
    // Every mode that may use TLS creates or reaches the project and appends.
    for mode in ["prefer", "require"] {
        let (mut store, _) = Store::create(&with(mode), &name, GENESIS, &[]).expect(mode);
        let head = store.head().expect("head");
        store
            .append(head.seq, &refs(&chained(&head, 1, mode)))
            .expect("append over TLS");
    }
    let full = format!("{url}?sslmode=verify-full&sslrootcert={ca}");
    let mut store = Store::connect(&full, &name).expect("verify-full with the CA");
    assert_eq!(store.head().expect("head").seq, 2);
    assert!(
        store.tls_in_use().expect("ask the server"),
        "verify-full encrypts"
    );
    let mut plain = Store::connect(&with("disable"), &name).expect("disable");
    assert!(
        !plain.tls_in_use().expect("ask the server"),
        "disable stays plain"
    );
    let mut preferred = Store::connect(&with("prefer"), &name).expect("prefer");
    assert!(
        preferred.tls_in_use().expect("ask the server"),
        "prefer takes TLS when offered"
    );

    // The public roots do not know the test CA; a name the certificate lacks is refused.
    let untrusted = Store::connect(&with("verify-full"), &name).expect_err("unknown issuer");
    let shown = format!("{untrusted}: {:?}", std::error::Error::source(&untrusted));
    assert!(shown.to_lowercase().contains("certificate"), "{shown}");
    // The plain cluster has no TLS: require fails rather than talk in the clear.
    let refused = Store::connect(&format!("{}?sslmode=require", postgres_url()), &name);
    assert!(
        refused.is_err(),
        "require against a server without TLS must fail"
    );
}

/// Lines of any body (`{"kind": …, …}` without the header), chained onto `head`.
fn chained_bodies(head: &Head, bodies: &[&str]) -> Vec<Vec<u8>> {
    let mut head = head.clone();
    let mut out = Vec::new();
    for body in bodies {
        let seq = head.seq + 1;
        let l = format!(
            r#"{{"v":1,"seq":{seq},"id":"e{seq}","ts":"2026-11-26T00:00:00Z","prev":"{}",{}"#,
            head.digest,
            body.trim_start_matches('{')
        )
        .into_bytes();
        head = Head {
            seq,
            digest: sha256_hex(&l),
        };
        out.push(l);
    }
    out
}

#[test]
fn the_server_search_finds_words_in_text_and_tool_fields_with_the_plain_syntax() {
    use remaind_pg::SearchFilter;
    let mut store = new_project("search");
    let lines = chained_bodies(
        &store.head().expect("head"),
        &[
            r#"{"kind":"decision","importance":2,"text":"Use the shared sandbox mode for LiveView tests"}"#,
            r#"{"kind":"tool_result","importance":1,"text":"git push failed","tool":{"name":"Bash","input":{"command":"git push"},"output":"fatal: the current branch has no upstream branch"}}"#,
            r#"{"kind":"note","importance":1,"text":"Deploying the retries of the uploader"}"#,
            r#"{"kind":"note","importance":0,"text":"the hash chain is verified on every open"}"#,
        ],
    );
    store.append(0, &refs(&lines)).expect("append");
    let seqs = |store: &mut Store, q: &str, f: &SearchFilter| -> Vec<u64> {
        store
            .search(q, f)
            .expect("search")
            .0
            .iter()
            .map(|h| h.seq)
            .collect()
    };
    let any = SearchFilter::default();
    // Any word may match; stems match ("retry uploader" finds "retries of the uploader").
    assert_eq!(seqs(&mut store, "retry uploader", &any), [3]);
    // Words inside the tool's output.
    assert_eq!(seqs(&mut store, "upstream", &any), [2]);
    // A natural question finds the decision; stop words are dropped.
    assert_eq!(
        seqs(&mut store, "what did we decide about the sandbox", &any)[0],
        1
    );
    // Required terms and phrases, prefixes.
    assert_eq!(seqs(&mut store, r#""hash chain" +verified"#, &any), [4]);
    assert!(seqs(&mut store, r#""chain hash""#, &any).is_empty());
    assert_eq!(seqs(&mut store, "deploy*", &any), [3]);
    // Filters.
    let decisions = SearchFilter {
        kinds: vec!["decision".into()],
        ..SearchFilter::default()
    };
    assert_eq!(seqs(&mut store, "sandbox push", &decisions), [1]);
    let important = SearchFilter {
        min_importance: 1,
        ..SearchFilter::default()
    };
    assert!(seqs(&mut store, "hash", &important).is_empty());
    // Nothing but stop words, or punctuation only: no hits, no error.
    assert!(seqs(&mut store, "the of and", &any).is_empty());
    assert!(seqs(&mut store, r#"" ) ( : & | !"#, &any).is_empty());
    // Snippets mark the words found; the line comes back byte for byte.
    let hit = &store.search("sandbox", &any).expect("search").0[0];
    assert!(hit.snippet.contains("«sandbox»"), "{}", hit.snippet);
    assert_eq!(hit.line, lines[0]);
    // Events appended later are indexed on the next search, once.
    let head = store.head().expect("head");
    let more = chained_bodies(
        &head,
        &[r#"{"kind":"note","text":"an otter in the sandbox"}"#],
    );
    store.append(head.seq, &refs(&more)).expect("append");
    assert_eq!(seqs(&mut store, "otter", &any), [5]);
    assert_eq!(store.index_for_search().expect("index"), 0);
}

#[test]
fn a_100_kb_question_on_the_server_is_bounded_as_the_folder_index_bounds_one() {
    let mut store = new_project("bigq");
    let head = store.head().expect("head");
    store
        .append(0, &refs(&chained(&head, 20, "lorem ipsum dolor")))
        .expect("append");
    let question: String = (0..20_000).map(|i| format!("w{i} ")).collect();
    let question = format!("lorem {question}");
    assert!(question.len() > 100_000);
    let started = Instant::now();
    let (hits, bounds) = store
        .search(&question, &remaind_pg::SearchFilter::default())
        .expect("search");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(bounds.terms, remaind_query::MAX_QUERY_TERMS);
    // Past 64,000 characters the query is not even read.
    assert!(
        bounds.cut() && bounds.dropped_terms > 10_000 && bounds.cut_chars > 100_000,
        "{bounds:?}"
    );
    assert_eq!(hits.len(), 20, "the first word is searched");
    // The statement's time limit was local to its transaction.
    assert!(store.head().is_ok());
}
