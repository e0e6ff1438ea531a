//! A throwaway PostgreSQL cluster for the suites that test the shared store.

use std::path::{Path, PathBuf};

use camino::Utf8Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

/// Where Debian's PostgreSQL 15 server programs live.
const PG_BIN: &str = "/usr/lib/postgresql/15/bin";

/// The environment variable naming a running server to use instead of starting one (a
/// `postgres://` URL whose user may create tables).
pub const TEST_PG_ENV: &str = "REMAIND_TEST_PG";

/// The URL of a PostgreSQL server for this test process: [`TEST_PG_ENV`] when set, else a
/// cluster started once per process (initdb under the target folder, as the `postgres` user
/// when running as root, since the server refuses root; a free loopback port; trust
/// authentication on loopback only) and torn down when the process ends. Panics with the
/// server's log when it cannot start: a suite that needs the store must not pass without it.
pub fn postgres_url() -> String {
    if let Ok(url) = std::env::var(TEST_PG_ENV) {
        return url;
    }
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| start_cluster(false).0).clone()
}

/// A throwaway cluster of one test's own, which it may stop and restart (the shared one of
/// [`postgres_url`] serves every test of the process at once).
#[derive(Debug)]
pub struct PrivateCluster {
    /// Its superuser's URL.
    pub url: String,
    data: PathBuf,
    log: PathBuf,
}

impl PrivateCluster {
    /// Start a new cluster (torn down when the process ends).
    pub fn start() -> PrivateCluster {
        let (url, _, dir) = start_cluster(false);
        PrivateCluster {
            url,
            data: dir.join("data"),
            log: dir.join("server.log"),
        }
    }

    /// Restart the server (a fast shutdown: every connection is ended), waiting until it
    /// accepts connections again.
    pub fn restart(&self) {
        let st = pg(
            "pg_ctl",
            &[
                "-D",
                self.data.to_str().expect("a UTF-8 path"),
                "-l",
                self.log.to_str().expect("a UTF-8 path"),
                "-m",
                "fast",
                "-w",
                "restart",
            ],
        )
        .current_dir("/")
        .stdout(Stdio::null())
        .status()
        .expect("run pg_ctl");
        assert!(
            st.success(),
            "the test PostgreSQL did not restart: {}",
            std::fs::read_to_string(&self.log).unwrap_or_default()
        );
    }
}

/// A second throwaway cluster, started once per process, that speaks TLS with a certificate
/// for `localhost` and `127.0.0.1` issued by a test CA made for it: its URL (no `sslmode`)
/// and the CA's PEM file, for `sslmode=verify-full&sslrootcert=…`. Needs the `openssl`
/// command.
pub fn postgres_tls() -> (String, PathBuf) {
    static TLS: OnceLock<(String, PathBuf)> = OnceLock::new();
    TLS.get_or_init(|| {
        let (url, ca, _) = start_cluster(true);
        (url, ca.expect("the test CA"))
    })
    .clone()
}

/// Make a test CA and a server certificate it signs (`localhost`, `127.0.0.1`) in `dir`;
/// returns the CA's PEM file.
fn make_certificates(dir: &Path) -> PathBuf {
    let run = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("run openssl");
        assert!(
            out.status.success(),
            "openssl {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let key = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    run(&[
        &["req", "-x509"][..],
        &key,
        &[
            "-keyout",
            "ca.key",
            "-out",
            "ca.crt",
            "-days",
            "2",
            "-subj",
            "/CN=remaind test CA",
        ],
    ]
    .concat());
    run(&[
        &["req"][..],
        &key,
        &[
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ],
    ]
    .concat());
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n\
         keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n",
    )
    .expect("write the extensions");
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "2",
        "-extfile",
        "server.ext",
    ]);
    dir.join("ca.crt")
}

/// Set (to anything) to run a suite with every folder it creates a replica of a shared store
/// (see [`postgres_url`]): the same tests on the other storage (docs/fleet.md). `cargo xtask
/// ci` runs the suites whose behaviour is the same on both storages this way.
pub const ON_STORE_ENV: &str = "REMAIND_TEST_ON_STORE";

/// Makes the ledger folder `dir` a replica of a new, empty project (its name starts with
/// `label`) of the test store: the project is created in the store, then `store.json` names
/// it (the format of docs/contract.md, as `remaind init --store` writes it).
pub fn make_replica(dir: &Utf8Path, label: &str) {
    let url = postgres_url();
    let project = unique_project(label);
    remaind_pg::Store::create(&url, &project, remaind_events::GENESIS_PREV, &[])
        .unwrap_or_else(|e| panic!("create project {project} in the test store: {e}"));
    let setting = serde_json::json!({ "url": url, "project": project });
    let mut text = serde_json::to_vec_pretty(&setting).expect("serialize store.json");
    text.push(b'\n');
    remaind_fs::replace_file(dir, remaind_fs::layout::STORE_PATH, &text).expect("write store.json");
}

/// Whether this run puts every folder on a shared store ([`ON_STORE_ENV`]).
pub fn on_store() -> bool {
    std::env::var_os(ON_STORE_ENV).is_some()
}

/// A project name no other test of any process uses.
pub fn unique_project(prefix: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{prefix}-{}-{}-{nanos}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

/// Run a server program, as `postgres` when this process is root.
fn pg(program: &str, args: &[&str]) -> Command {
    let path = Path::new(PG_BIN).join(program);
    if is_root() {
        let mut cmd = Command::new("runuser");
        cmd.args(["-u", "postgres", "--"]).arg(path).args(args);
        cmd
    } else {
        let mut cmd = Command::new(path);
        cmd.args(args);
        cmd
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

fn cluster_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
        PathBuf::from,
    );
    let dir = target.join("pg-test").join(format!(
        "{}-{}",
        std::process::id(),
        crate::pg::unique_project("c")
    ));
    std::fs::create_dir_all(&dir).expect("create the cluster folder");
    dir.canonicalize().expect("the cluster folder")
}

fn start_cluster(tls: bool) -> (String, Option<PathBuf>, PathBuf) {
    let dir = cluster_dir();
    let data = dir.join("data");
    let log = dir.join("server.log");
    let ca = tls.then(|| make_certificates(&dir));
    if is_root() {
        let st = Command::new("chown")
            .args(["-R", "postgres"])
            .arg(&dir)
            .status()
            .expect("chown the cluster folder");
        assert!(st.success(), "cannot give {} to postgres", dir.display());
        // runuser keeps the caller's working folder, which postgres may not be able to enter.
    }
    let data_s = data.to_str().expect("a UTF-8 path");
    let init = pg(
        "initdb",
        &[
            "-D",
            data_s,
            "--auth=trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--no-sync",
        ],
    )
    .current_dir("/")
    .stdout(Stdio::null())
    .output()
    .expect("run initdb");
    assert!(
        init.status.success(),
        "initdb failed: {}",
        String::from_utf8_lossy(&init.stderr)
    );
    let port = free_port();
    let mut opts = format!(
        "-p {port} -k {} -c listen_addresses=127.0.0.1 -c max_connections=200",
        dir.display()
    );
    if tls {
        // The server refuses a key others can read.
        let key = dir.join("server.key");
        std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .expect("chmod the key");
        opts.push_str(&format!(
            " -c ssl=on -c ssl_cert_file={d}/server.crt -c ssl_key_file={d}/server.key",
            d = dir.display()
        ));
    }
    let st = pg(
        "pg_ctl",
        &[
            "-D",
            data_s,
            "-o",
            &opts,
            "-l",
            log.to_str().expect("a UTF-8 path"),
            "-w",
            "start",
        ],
    )
    .current_dir("/")
    .stdout(Stdio::null())
    .status()
    .expect("run pg_ctl");
    assert!(
        st.success(),
        "the test PostgreSQL did not start: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    watch(&dir, data_s);
    (
        format!("postgres://postgres@127.0.0.1:{port}/postgres"),
        ca,
        dir,
    )
}

/// Stop the cluster and remove its folder once this process is gone, from a detached shell
/// (a test process ends without running destructors of statics).
fn watch(dir: &Path, data: &str) {
    let stop = pg("pg_ctl", &["-D", data, "-m", "immediate", "stop"]);
    let stop = format!(
        "{} {}",
        stop.get_program().to_string_lossy(),
        stop.get_args()
            .map(|a| format!("'{}'", a.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" ")
    );
    // The outer shell exits at once (and is waited for); the watcher it leaves runs on.
    let script = format!(
        "(while kill -0 {pid} 2>/dev/null; do sleep 0.2; done; cd /; {stop} >/dev/null 2>&1; rm -rf '{dir}') >/dev/null 2>&1 &",
        pid = std::process::id(),
        dir = dir.display()
    );
    Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("start the cluster's watchdog");
}
