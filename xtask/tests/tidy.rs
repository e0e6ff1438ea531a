//! Tidy checks over the workspace's own files: every library documents its layer, member
//! manifests pin nothing themselves, no dependency edge breaks the layer order written in
//! docs/ARCHITECTURE.md, and xtask itself stays dependency-free.

#![expect(
    clippy::disallowed_methods,
    reason = "tooling, not a library: it reads its own environment (CARGO, PATH, the bench's settings)"
)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// The tooling packages, outside the layers: they may use any crate.
const TOOLING: &[&str] = &["xtask", "remaind-bench", "remaind-testkit"];

fn member_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .expect("crates/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.push(root().join("xtask"));
    dirs.push(root().join("xtask/bench"));
    dirs.sort();
    dirs
}

/// The first non-blank line of a lib.rs must be a `//!` doc.
fn lib_doc_problem(text: &str) -> Option<String> {
    match text.lines().find(|l| !l.trim().is_empty()) {
        Some(line) if line.trim_start().starts_with("//!") => None,
        _ => Some("does not open with a `//!` paragraph saying what the layer owns".into()),
    }
}

/// Lines of a member manifest that pin a version themselves instead of using the workspace.
fn version_literal_problems(manifest: &str) -> Vec<String> {
    let mut section = String::new();
    let mut problems = Vec::new();
    for (n, raw) in manifest.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.starts_with('[') {
            section = line.trim_matches(|c| c == '[' || c == ']').to_owned();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        let in_deps = section.ends_with("dependencies");
        let literal = (section == "package" && key == "version" && value.starts_with('"'))
            || (in_deps && value.starts_with('"'))
            || (in_deps && value.contains("version") && value.contains('"'));
        if literal {
            problems.push(format!(
                "line {}: `{line}` pins a version here; pin it once in the root \
                 [workspace.dependencies] and write `{key}.workspace = true`",
                n + 1
            ));
        }
    }
    problems
}

/// The layer of every crate, from the ```text block of `layer N: a, b` lines in
/// docs/ARCHITECTURE.md.
fn layers(architecture: &str) -> BTreeMap<String, u32> {
    let mut out = BTreeMap::new();
    for line in architecture.lines() {
        let Some(rest) = line.trim().strip_prefix("layer ") else {
            continue;
        };
        let Some((n, names)) = rest.split_once(':') else {
            continue;
        };
        let Ok(n) = n.trim().parse::<u32>() else {
            continue;
        };
        for name in names.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            out.insert(name.to_owned(), n);
        }
    }
    out
}

/// Dependency names of one manifest section kind (`dependencies`, `dev-dependencies`, ...);
/// an optional one (behind a feature) in `dependencies` is in `optional-dependencies`.
fn deps(manifest: &str) -> Vec<(String, String)> {
    let mut section = String::new();
    let mut out = Vec::new();
    for raw in manifest.lines() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.starts_with('[') {
            section = line.trim_matches(|c| c == '[' || c == ']').to_owned();
            continue;
        }
        if section.ends_with("dependencies")
            && let Some((key, _)) = line.split_once('=')
        {
            let name = key.trim().split('.').next().unwrap_or("").to_owned();
            let optional = section == "dependencies" && line.contains("optional = true");
            let section = if optional {
                "optional-dependencies".to_owned()
            } else {
                section.clone()
            };
            out.push((section, name));
        }
    }
    out
}

fn package_name(manifest: &str) -> String {
    manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("name = \""))
        .and_then(|rest| rest.split('"').next())
        .unwrap_or("")
        .to_owned()
}

/// Edges that break the layer order, and outside crates a library must not pull in.
fn edge_problems(
    name: &str,
    manifest_deps: &[(String, String)],
    layer_of: &BTreeMap<String, u32>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(&mine) = layer_of.get(name) else {
        return vec![format!(
            "{name} has no layer in docs/ARCHITECTURE.md; add it to the layer list"
        )];
    };
    let is_binary_layer = name == "remaind-cli";
    for (section, dep) in manifest_deps {
        // A crate's tests may turn on its own features (remaind-ledger's `store`).
        if dep == name && section == "dev-dependencies" {
            continue;
        }
        if let Some(&theirs) = layer_of.get(dep) {
            if theirs >= mine {
                problems.push(format!(
                    "{name} (layer {mine}) depends on {dep} (layer {theirs}) in [{section}]; \
                     a crate may use only lower layers"
                ));
            }
        } else if TOOLING.contains(&dep.as_str()) {
            if section != "dev-dependencies" {
                problems.push(format!(
                    "{name} depends on {dep} in [{section}]; tooling is only a dev-dependency"
                ));
            }
        } else if dep.starts_with("remaind") {
            problems.push(format!("{dep} has no layer in docs/ARCHITECTURE.md"));
        }
        // Only the CLI depends on clap outright; a library may offer it behind a feature.
        if !is_binary_layer
            && section == "dependencies"
            && ["clap", "anyhow", "clap_complete", "clap_mangen"].contains(&dep.as_str())
        {
            problems.push(format!(
                "{name} is a library layer but depends on {dep}; only the CLI may"
            ));
        }
    }
    problems
}

/// Packages in `cargo tree -p package -e normal` (its default features), one name per line.
fn normal_tree(package: &str) -> Vec<String> {
    let out = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(root())
        .args(["tree", "--locked", "-e", "normal", "--prefix", "none"])
        .args(["--format", "{p}", "-p", package])
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn tidy_the_ledger_and_resume_build_without_the_database_client() {
    // PostgreSQL (and the async runtime and TLS under it) is behind the `store` feature:
    // a team that wants only the ledger does not compile it.
    for package in ["remaind-ledger", "remaind-resume"] {
        let tree = normal_tree(package);
        assert!(
            tree.iter().any(|p| p == package),
            "{package} not in its own tree"
        );
        for heavy in ["remaind-pg", "postgres", "tokio", "rustls"] {
            assert!(
                !tree.iter().any(|p| p == heavy),
                "{package} depends on {heavy} without its `store` feature"
            );
        }
    }
}

#[test]
fn tidy_every_lib_opens_with_a_layer_doc() {
    let mut problems = Vec::new();
    for dir in member_dirs() {
        let lib = dir.join("src/lib.rs");
        if let Ok(text) = std::fs::read_to_string(&lib)
            && let Some(p) = lib_doc_problem(&text)
        {
            problems.push(format!("{}: {p}", lib.display()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn tidy_member_manifests_pin_no_versions() {
    let mut problems = Vec::new();
    for dir in member_dirs() {
        let path = dir.join("Cargo.toml");
        let text = std::fs::read_to_string(&path).expect("readable manifest");
        for p in version_literal_problems(&text) {
            problems.push(format!("{}: {p}", path.display()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn tidy_dependency_edges_follow_the_layer_order() {
    let architecture = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md"))
        .expect("docs/ARCHITECTURE.md exists");
    let layer_of = layers(&architecture);
    assert!(
        layer_of.len() >= 7,
        "docs/ARCHITECTURE.md must list every crate as `layer N: name, ...`"
    );
    let mut problems = Vec::new();
    for dir in member_dirs() {
        let text = std::fs::read_to_string(dir.join("Cargo.toml")).expect("readable manifest");
        let name = package_name(&text);
        if TOOLING.contains(&name.as_str()) {
            continue;
        }
        problems.extend(edge_problems(&name, &deps(&text), &layer_of));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Normal dependencies of xtask: it must have none, so `cargo xtask fmt`/`ci` start without
/// compiling the remaind crates and the bundled SQLite first.
fn xtask_dependency_problems(manifest: &str) -> Vec<String> {
    deps(manifest)
        .into_iter()
        .filter(|(section, _)| section == "dependencies")
        .map(|(_, dep)| {
            format!(
                "xtask depends on {dep}; xtask stays standard-library only, put code that \
                 needs {dep} in remaind-bench (xtask/bench) and run it through cargo"
            )
        })
        .collect()
}

#[test]
fn tidy_xtask_has_no_dependencies() {
    let text = std::fs::read_to_string(root().join("xtask/Cargo.toml")).expect("readable manifest");
    let problems = xtask_dependency_problems(&text);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// The checks themselves must be able to fail.

#[test]
fn tidy_checks_catch_what_they_claim() {
    assert!(lib_doc_problem("use std::fs;\n//! late doc").is_some());
    assert!(lib_doc_problem("\n//! The layer.\n").is_none());

    let bad = "[package]\nname = \"x\"\nversion = \"0.1.0\"\n[dependencies]\nserde = \"1\"\nregex = { version = \"1\", features = [] }\ncamino.workspace = true\n";
    assert_eq!(version_literal_problems(bad).len(), 3);

    let layer_of = layers(
        "```text\nlayer 0: remaind-atomic\nlayer 1: remaind-ledger\nlayer 5: remaind-cli\n```",
    );
    let upward = vec![("dependencies".to_owned(), "remaind-ledger".to_owned())];
    assert_eq!(edge_problems("remaind-atomic", &upward, &layer_of).len(), 1);
    let clap = vec![("dependencies".to_owned(), "clap".to_owned())];
    assert_eq!(edge_problems("remaind-ledger", &clap, &layer_of).len(), 1);
    // Behind a feature a front-end turns on (`Runtime` as a command-line value): allowed.
    let optional_clap = vec![("optional-dependencies".to_owned(), "clap".to_owned())];
    assert!(edge_problems("remaind-ledger", &optional_clap, &layer_of).is_empty());
    let manifest = "[dependencies]\nclap = { workspace = true, optional = true }\n";
    assert_eq!(deps(manifest), optional_clap);
    assert!(edge_problems("remaind-cli", &clap, &layer_of).is_empty());
    let testkit = |section: &str| vec![(section.to_owned(), "remaind-testkit".to_owned())];
    assert!(edge_problems("remaind-ledger", &testkit("dev-dependencies"), &layer_of).is_empty());
    assert_eq!(
        edge_problems("remaind-ledger", &testkit("dependencies"), &layer_of).len(),
        1
    );
    let sideways = vec![("dev-dependencies".to_owned(), "remaind-atomic".to_owned())];
    assert!(edge_problems("remaind-ledger", &sideways, &layer_of).is_empty());

    let heavy = "[package]\nname = \"xtask\"\n[dependencies]\nremaind-index.workspace = true\n\
                 [dev-dependencies]\ntempfile.workspace = true\n";
    assert_eq!(xtask_dependency_problems(heavy).len(), 1);
    assert!(xtask_dependency_problems("[package]\nname = \"xtask\"\n[dependencies]\n").is_empty());
}

// One owner for file primitives: remaind-fs. A second folder-sync, temp-file, rename-into-place
// or hashing helper elsewhere is how the old copies drifted (only one of five opened its
// folder with O_NOFOLLOW), so their fingerprints are refused outside it.

/// What gives a file-primitive implementation away, and what to call instead.
const PRIMITIVE_FINGERPRINTS: &[(&str, &str)] = &[
    ("fn sync_dir", "remaind_fs::sync_dir"),
    ("fn fsync_dir", "remaind_fs::sync_dir"),
    ("O_DIRECTORY", "remaind_fs::open_dir / remaind_fs::sync_dir"),
    (
        "fs::rename(",
        "remaind_fs::replace_file or create_temp + persist",
    ),
    ("tempfile::Builder", "remaind_fs::create_temp"),
    ("NamedTempFile::new", "remaind_fs::create_temp"),
    ("fn replace_file", "remaind_fs::replace_file"),
    ("fn sha256_hex", "remaind_hash::sha256_hex"),
    ("Sha256::digest", "remaind_hash::sha256_hex"),
];

/// The crates that own the primitives: the file operations (remaind-fs) and the hash
/// (remaind-hash, kept apart so the event model and the validator need no file code).
const PRIMITIVE_OWNERS: &[&str] = &["remaind-fs", "remaind-hash"];

/// Lines of `text` that implement a file primitive themselves.
fn primitive_problems(text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for (fingerprint, instead) in PRIMITIVE_FINGERPRINTS {
            if code.contains(fingerprint) {
                problems.push(format!(
                    "line {}: `{fingerprint}` outside remaind-fs; call {instead}",
                    n + 1
                ));
            }
        }
    }
    problems
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable folder") {
        let path = entry.expect("readable entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn tidy_file_primitives_live_only_in_remaind_fs() {
    let mut problems = Vec::new();
    for dir in member_dirs() {
        let src = dir.join("src");
        // Tooling (xtask, remaind-bench, remaind-testkit) builds fixtures and hand-rolled baselines on purpose.
        let owner = PRIMITIVE_OWNERS.iter().any(|o| dir.ends_with(o));
        let tooling =
            TOOLING.iter().any(|t| dir.ends_with(t)) || dir.starts_with(root().join("xtask"));
        if owner || tooling || !src.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).expect("readable source");
            // Unit tests may build fixtures however they like.
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for p in primitive_problems(code) {
                problems.push(format!("{}: {p}", file.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn tidy_primitive_check_catches_a_second_helper() {
    let copy = "fn sync_dir(p: &Path) -> io::Result<()> {\n    File::open(p)?.sync_all()\n}\n";
    assert_eq!(primitive_problems(copy).len(), 1);
    let temp = "let t = tempfile::Builder::new().tempfile_in(dir)?;\nfs::rename(&a, &b)?;\n";
    assert_eq!(primitive_problems(temp).len(), 2);
    assert!(primitive_problems("remaind_fs::sync_dir(dir)?; // not fs::rename(\n").is_empty());
}

// One owner for the `.context/` layout (remaind-fs) and one reader of the log (remaind-ledger).
// A path spelled twice drifts, and a second reader of `events.jsonl` skips the head-anchor
// check every ledger read makes.

/// The relative paths `remaind_fs::layout` spells (every constant whose value names a path
/// with a folder in it), and its folder names used as `.join("…")` arguments.
fn layout_literals() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("crates/remaind-fs/src/layout.rs"))
        .expect("remaind-fs has a layout module");
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("pub const ") else {
            continue;
        };
        let Some((_, value)) = rest.split_once("&str = \"") else {
            continue;
        };
        let value = value.trim_end_matches("\";");
        if value.contains('/') {
            out.push(format!("\"{value}"));
        } else if !value.contains('.') && value.chars().all(|c| c.is_ascii_lowercase()) {
            out.push(format!(".join(\"{value}\")"));
        }
    }
    out
}

/// Lines of `text` that spell a layout path themselves.
fn layout_problems(text: &str, literals: &[String]) -> Vec<String> {
    let mut problems = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for literal in literals {
            if code.contains(literal.as_str()) {
                problems.push(format!(
                    "line {}: `{literal}` spells a `.context/` path; use its constant in \
                     remaind_fs::layout (or a ContextDir method)",
                    n + 1
                ));
            }
        }
    }
    problems
}

/// What gives a second reader of the log away (its path, taken from the layout instead of from
/// an open ledger's `log_path()`, which is only for naming it in messages), and the files
/// allowed to name it (each for a reason that is not reading it).
const LOG_READ_FINGERPRINTS: &[&str] = &["events_path()", "LOG_PATH"];
const LOG_NAMED_ELSEWHERE: &[(&str, &str)] = &[
    (
        "remaind-resume/src/layout.rs",
        "tells an initialized folder by the log being a regular file",
    ),
    (
        "remaind-resume/src/init.rs",
        "lists the log among what init creates",
    ),
    (
        "remaind-mcp/src/session.rs",
        "watches the log's metadata to reopen the ledger",
    ),
];

/// Lines of `text` that reach the log without the ledger.
fn log_read_problems(text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        if let Some(f) = LOG_READ_FINGERPRINTS.iter().find(|f| code.contains(*f)) {
            problems.push(format!(
                "line {}: `{f}` outside remaind-ledger; read the log through \
                 remaind_ledger::Ledger or LogReader (they check the head anchor)",
                n + 1
            ));
        }
    }
    problems
}

/// Library sources outside `owner` (unit tests excluded), with their path from `crates/`.
fn library_sources_except(owner: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in member_dirs() {
        let src = dir.join("src");
        if dir.ends_with(owner) || dir.starts_with(root().join("xtask")) || !src.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).expect("readable source");
            let code = text.split("#[cfg(test)]").next().unwrap_or("").to_owned();
            let rel = file
                .strip_prefix(root().join("crates"))
                .expect("under crates/")
                .display()
                .to_string();
            out.push((rel, code));
        }
    }
    out
}

#[test]
fn tidy_context_paths_are_spelled_only_in_remaind_fs() {
    let literals = layout_literals();
    assert!(
        literals.iter().any(|l| l == "\"logs/events.jsonl"),
        "the layout module lost its constants: {literals:?}"
    );
    let mut problems = Vec::new();
    for (file, code) in library_sources_except("remaind-fs") {
        for p in layout_problems(&code, &literals) {
            problems.push(format!("{file}: {p}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn tidy_only_the_ledger_reads_the_log() {
    let mut problems = Vec::new();
    for (file, code) in library_sources_except("remaind-ledger") {
        if file.starts_with("remaind-fs/") || LOG_NAMED_ELSEWHERE.iter().any(|(f, _)| *f == file) {
            continue;
        }
        for p in log_read_problems(&code) {
            problems.push(format!("{file}: {p}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn tidy_layout_and_log_checks_catch_a_planted_violation() {
    let literals = layout_literals();
    let spelled = "let p = root.join(\"logs/events.jsonl\");\nlet d = ctx.join(\"db\");\n";
    assert_eq!(layout_problems(spelled, &literals).len(), 2);
    assert!(layout_problems("let p = ctx.join(DB_DIR); // \"logs/x\"\n", &literals).is_empty());
    let raw = "let mut f = std::fs::File::open(ctx.events_path())?;\n";
    assert_eq!(log_read_problems(raw).len(), 1);
    assert_eq!(log_read_problems("let p = ctx.join(LOG_PATH);\n").len(), 1);
    assert!(log_read_problems("Error::Io { path: ledger.log_path().to_owned() }\n").is_empty());
}

// Public APIs as small as their users: each library's surface is kept in
// xtask/tests/public-api/<crate>.txt, so that growth is a deliberate, reviewed change. The
// surface is read from the sources: the names `lib.rs` exports (`pub use`, `pub mod` and its
// top-level items, items defined in `lib.rs`) and the `pub fn`s of every `impl` block of an
// exported type.

/// Names a `pub use` statement exports: the last segment of each item, or its `as` name.
fn use_names(statement: &str) -> Vec<String> {
    let body = statement
        .trim()
        .trim_start_matches("pub use")
        .trim_end_matches(';');
    let items = match body.find('{') {
        Some(open) => body[open + 1..body.rfind('}').unwrap_or(body.len())].to_owned(),
        None => body.to_owned(),
    };
    items
        .split(',')
        .map(str::trim)
        .filter(|i| !i.is_empty() && !i.contains('{') && !i.contains('}'))
        .map(|item| match item.split_once(" as ") {
            Some((_, alias)) => alias.trim().to_owned(),
            None => item.rsplit("::").next().unwrap_or(item).trim().to_owned(),
        })
        .collect()
}

/// The name of a top-level `pub` item on `line` (`pub fn x`, `pub struct X<…>`), if any.
fn item_name(line: &str) -> Option<(String, String)> {
    let rest = line.strip_prefix("pub ")?;
    for kind in [
        "fn", "struct", "enum", "trait", "type", "const", "static", "mod",
    ] {
        if let Some(after) = rest.strip_prefix(kind).and_then(|r| r.strip_prefix(' ')) {
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            return Some((kind.to_owned(), name));
        }
    }
    None
}

/// `pub use` statements of `text`, each joined onto one line.
fn pub_uses(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut open: Option<String> = None;
    for line in text.lines() {
        if let Some(stmt) = open.as_mut() {
            stmt.push(' ');
            stmt.push_str(line.trim());
            if line.contains(';') {
                out.extend(open.take());
            }
        } else if line.starts_with("pub use ") {
            if line.contains(';') {
                out.push(line.to_owned());
            } else {
                open = Some(line.to_owned());
            }
        }
    }
    out
}

/// The type an `impl` line is for: `impl Foo {`, `impl<'a> Foo<'a> {`, `impl Trait for Foo {`.
fn impl_target(line: &str) -> Option<String> {
    let rest = line.strip_prefix("impl")?;
    let rest = if rest.starts_with('<') {
        let mut depth = 0;
        let end = rest.char_indices().find_map(|(i, c)| {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i)
        })?;
        &rest[end + 1..]
    } else {
        rest
    };
    let rest = rest.trim_start();
    let target = match rest.split_once(" for ") {
        Some((_, ty)) => ty,
        None => rest,
    };
    let name: String = target
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The public surface of the library whose sources are under `src`, one line per name.
fn public_api(src: &Path) -> Vec<String> {
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("a library has lib.rs");
    let mut names = std::collections::BTreeSet::new();
    for stmt in pub_uses(&lib) {
        names.extend(use_names(&stmt));
    }
    for line in lib.lines() {
        let Some((kind, name)) = item_name(line) else {
            continue;
        };
        if kind != "mod" {
            names.insert(name);
            continue;
        }
        let file = [
            src.join(format!("{name}.rs")),
            src.join(&name).join("mod.rs"),
        ]
        .into_iter()
        .find(|p| p.is_file())
        .expect("a pub mod has a file");
        let text = std::fs::read_to_string(file).expect("readable module");
        for l in text.lines() {
            if let Some((_, item)) = item_name(l) {
                names.insert(format!("{name}::{item}"));
            }
        }
        for stmt in pub_uses(&text) {
            names.extend(use_names(&stmt).into_iter().map(|n| format!("{name}::{n}")));
        }
    }
    let exported_types: std::collections::BTreeSet<String> = names
        .iter()
        .map(|n| n.rsplit("::").next().unwrap_or(n).to_owned())
        .filter(|n| n.starts_with(|c: char| c.is_ascii_uppercase()))
        .collect();
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut out: Vec<String> = names.into_iter().collect();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable source");
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let mut target: Option<String> = None;
        for line in code.lines() {
            if line.starts_with("impl") {
                target = impl_target(line).filter(|t| exported_types.contains(t));
            } else if line.starts_with('}') {
                target = None;
            } else if let Some(ty) = &target
                && let Some(rest) = line.strip_prefix("    pub fn ")
            {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                out.push(format!("{ty}::{name}"));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn tidy_public_apis_match_their_snapshots() {
    let bless = std::env::var_os("REMAIND_BLESS_API").is_some();
    let mut problems = Vec::new();
    for dir in member_dirs() {
        let src = dir.join("src");
        let name = dir
            .file_name()
            .expect("a crate folder")
            .to_string_lossy()
            .into_owned();
        let tooling = TOOLING.contains(&name.as_str()) || dir.starts_with(root().join("xtask"));
        if tooling || !src.join("lib.rs").is_file() {
            continue;
        }
        let snapshot = root().join(format!("xtask/tests/public-api/{name}.txt"));
        let now = public_api(&src).join("\n") + "\n";
        if bless {
            std::fs::create_dir_all(snapshot.parent().expect("a folder")).expect("mkdir");
            std::fs::write(&snapshot, &now).expect("write the snapshot");
            continue;
        }
        let recorded = std::fs::read_to_string(&snapshot).unwrap_or_default();
        if recorded != now {
            let was: Vec<&str> = recorded.lines().collect();
            let is: Vec<&str> = now.lines().collect();
            let added: Vec<&&str> = is.iter().filter(|l| !was.contains(l)).collect();
            let removed: Vec<&&str> = was.iter().filter(|l| !is.contains(l)).collect();
            problems.push(format!(
                "{name}: public API changed (added {added:?}, removed {removed:?}); if that is \
                 deliberate, run `REMAIND_BLESS_API=1 cargo test -p xtask --test tidy public_api` \
                 and commit {}",
                snapshot.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn tidy_public_api_reader_sees_what_a_library_exports() {
    assert_eq!(
        use_names("pub use packet::{Budget, build_packet, resume as run};"),
        ["Budget", "build_packet", "run"]
    );
    assert_eq!(
        use_names("pub use remaind_tokens::TokenizerName;"),
        ["TokenizerName"]
    );
    assert_eq!(
        pub_uses("pub use a::{\n    B, C,\n};\nuse d::E;\npub use f::G;\n"),
        ["pub use a::{ B, C, };", "pub use f::G;"]
    );
    assert_eq!(
        impl_target("impl<'a> Index<'a> {").as_deref(),
        Some("Index")
    );
    assert_eq!(
        impl_target("impl fmt::Display for Band {").as_deref(),
        Some("Band")
    );
    assert_eq!(
        item_name("pub fn build_packet(ctx: &ContextDir)"),
        Some(("fn".to_owned(), "build_packet".to_owned()))
    );
    assert_eq!(item_name("    pub fn inner()"), None);
}

/// The Codemap section of docs/ARCHITECTURE.md.
fn codemap(architecture: &str) -> &str {
    let start = architecture.find("## Codemap").unwrap_or(0);
    let rest = &architecture[start..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

#[test]
fn tidy_every_crate_has_its_line_in_the_codemap() {
    let architecture =
        std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let map = codemap(&architecture);
    let mut missing = Vec::new();
    for dir in member_dirs() {
        let rel = dir
            .strip_prefix(root())
            .expect("member under the root")
            .to_string_lossy()
            .into_owned();
        if !map.contains(&format!("- `{rel}`")) {
            missing.push(rel);
        }
    }
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md's Codemap has no `- `path`` line for {missing:?}; add one saying what the crate owns"
    );
}

#[test]
fn tidy_the_xtask_line_names_every_subcommand() {
    let architecture =
        std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let main = std::fs::read_to_string(root().join("xtask/src/main.rs")).expect("main.rs");
    let line = codemap(&architecture)
        .lines()
        .find(|l| l.starts_with("- `xtask`:"))
        .expect("the xtask line of the Codemap")
        .to_owned();
    let mut missing = Vec::new();
    for arm in main.split("Some(\"").skip(1) {
        let name = arm.split('"').next().unwrap_or_default();
        if !name.is_empty() && !name.starts_with('-') && !line.contains(&format!(" {name}")) {
            missing.push(name.to_owned());
        }
    }
    assert!(
        missing.is_empty(),
        "the Codemap's xtask line does not name {missing:?}: {line}"
    );
}

#[test]
fn tidy_each_library_exposes_one_error_type() {
    // ARCHITECTURE.md's Boundaries: one error type per library crate.
    let dir = root().join("xtask/tests/public-api");
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("public-api snapshots") {
        let path = entry.expect("entry").path();
        let errors: Vec<String> = std::fs::read_to_string(&path)
            .expect("snapshot")
            .lines()
            .filter(|item| !item.contains("::") && item.ends_with("Error"))
            .map(str::to_owned)
            .collect();
        if errors.len() > 1 {
            problems.push(format!("{}: {errors:?}", path.display()));
        }
    }
    assert!(
        problems.is_empty(),
        "more than one public error type: {problems:?}"
    );
}

/// The body of `[name]` in a TOML text, up to the next table header.
fn toml_table(text: &str, name: &str) -> String {
    let header = format!("[{name}]");
    text.lines()
        .skip_while(|l| l.trim() != header)
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('['))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// `cargo clippy -D warnings` on a one-file crate linted as the workspace is (its clippy.toml
/// and its clippy lint table), in a folder of its own; the output when it fails.
fn clippy_on_planted(dir: &Path, lib: &str) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("src")).expect("planted crate folder");
    std::fs::copy(root().join("clippy.toml"), dir.join("clippy.toml")).expect("clippy.toml");
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let lints = toml_table(&manifest, "workspace.lints.clippy");
    assert!(lints.contains("too_many_lines"), "{lints}");
    let planted = format!(
        "[package]\nname = \"planted\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [workspace]\n\n[lints.clippy]\n{lints}"
    );
    std::fs::write(dir.join("Cargo.toml"), planted).expect("planted manifest");
    std::fs::write(dir.join("src/lib.rs"), lib).expect("planted lib.rs");
    let out = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["clippy", "--quiet", "--", "-D", "warnings"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .output()
        .expect("cargo clippy runs");
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The rules clippy keeps for the workspace fire: a function past the length limit, an open
/// with raw flags outside remaind-fs and an environment read in a library fail the lint, and the same crate without them
/// passes (the workspace itself passes in CI's clippy step).
#[test]
fn clippy_fails_planted_violations_and_passes_without_them() {
    let dir = std::env::temp_dir().join(format!("remaind-planted-{}", std::process::id()));
    let long_body: String = (0..121)
        .map(|i| format!("    let _x{i} = {i};\n"))
        .collect();
    let raw_open = "/// A raw open.\n\
        pub fn raw(p: &std::path::Path) -> std::io::Result<std::fs::File> {\n    \
            use std::os::unix::fs::OpenOptionsExt;\n    \
            std::fs::OpenOptions::new().read(true).custom_flags(0).open(p)\n}\n";
    let env_read = "/// An environment read below the CLI.\n\
        pub fn home() -> Option<String> {\n    std::env::var(\"HOME\").ok()\n}\n";
    let planted = format!(
        "//! Planted.\n\n/// Too long.\npub fn long() {{\n{long_body}}}\n\n{raw_open}\n{env_read}"
    );
    let err = clippy_on_planted(&dir, &planted).expect_err("the planted violations fail clippy");
    assert!(
        err.contains("this function has too many lines (121/120)"),
        "{err}"
    );
    assert!(err.contains("open through remaind_fs::open_file"), "{err}");
    assert!(err.contains("read the environment in the CLI"), "{err}");

    let short_body: String = (0..120)
        .map(|i| format!("    let _x{i} = {i};\n"))
        .collect();
    let clean = format!("//! Planted.\n\n/// Long enough.\npub fn long() {{\n{short_body}}}\n");
    let outcome = clippy_on_planted(&dir, &clean);
    let _ = std::fs::remove_dir_all(&dir);
    outcome.expect("the same crate without the violations passes");
}
