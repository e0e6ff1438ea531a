//! Wiring the hooks into a runtime's settings file, and the wiring check over it.

use camino::{Utf8Path, Utf8PathBuf};
use remaind_adapters::Runtime;
use remaind_fs::ContextDir;
use remaind_service::{
    DoctorOptions, InstallAction, InstallOptions, UserEnv, WiringState, doctor, install,
};

/// A project folder (no `.context/`) and a user's home inside one scratch folder.
fn project() -> (tempfile::TempDir, Utf8PathBuf, UserEnv) {
    let tmp = remaind_testkit::scratch_dir("service-install");
    let root = Utf8PathBuf::from_path_buf(tmp.path().to_owned()).expect("a UTF-8 path");
    let home = root.join("home");
    std::fs::create_dir(&home).expect("home");
    let project = root.join("project");
    std::fs::create_dir(&project).expect("project");
    let env = UserEnv {
        home: Some(home.to_string()),
        xdg_config_home: None,
        path: Some(String::new()),
    };
    (tmp, project, env)
}

fn options(runtime: Runtime, project: &Utf8Path, env: &UserEnv) -> InstallOptions {
    InstallOptions {
        runtime,
        project: project.to_owned(),
        user: false,
        dry_run: false,
        uninstall: false,
        env: env.clone(),
    }
}

/// A new settings file is created with the recipe's hooks; a second install changes
/// nothing; uninstalling removes the file it created.
#[test]
fn install_creates_then_leaves_then_removes() {
    let (_tmp, project, env) = project();
    let opts = options(Runtime::ClaudeCode, &project, &env);
    let first = install(&opts).expect("install");
    assert_eq!(first.action, InstallAction::Created);
    assert_eq!(first.file, project.join(".claude/settings.json"));
    assert!(!first.added.is_empty());
    assert!(first.file.is_file());
    assert_eq!(first.backup, None);
    // No .context/ and no `remaind` on PATH: both said.
    assert!(
        first.notes.iter().any(|n| n.contains("no .context/")),
        "{first:?}"
    );
    assert!(
        first.notes.iter().any(|n| n.contains("not on PATH")),
        "{first:?}"
    );
    let again = install(&opts).expect("install again");
    assert_eq!(again.action, InstallAction::AlreadyInstalled);
    assert!(again.added.is_empty());
    let gone = install(&InstallOptions {
        uninstall: true,
        ..opts
    })
    .expect("uninstall");
    assert_eq!(gone.action, InstallAction::Removed);
    assert!(!gone.file.exists());
    assert!(gone.notes.is_empty());
}

/// A file of the user's is backed up before our hooks go in, and uninstalling gives its
/// bytes back and uses the backup up. A dry run writes nothing.
#[test]
fn the_users_file_is_backed_up_and_given_back() {
    let (_tmp, project, env) = project();
    let file = project.join(".claude/settings.json");
    std::fs::create_dir_all(file.parent().expect("a folder")).expect("mkdir");
    // A file with hooks of the user's, as Claude Code writes it.
    let fixture = Utf8PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/install/claude-code.settings.json");
    let mine = std::fs::read(&fixture).expect("the fixture");
    std::fs::write(&file, &mine).expect("write");
    let opts = options(Runtime::ClaudeCode, &project, &env);
    let dry = install(&InstallOptions {
        dry_run: true,
        ..opts.clone()
    })
    .expect("dry run");
    assert_eq!(dry.action, InstallAction::Updated);
    assert_eq!(std::fs::read(&file).expect("read"), mine);
    let done = install(&opts).expect("install");
    let backup = done.backup.expect("a backup");
    assert_eq!(backup, project.join(".claude/settings.json.remaind-backup"));
    assert_eq!(std::fs::read(&backup).expect("read the backup"), mine);
    assert_ne!(std::fs::read(&file).expect("read"), mine);
    let back = install(&InstallOptions {
        uninstall: true,
        ..opts
    })
    .expect("uninstall");
    assert_eq!(back.action, InstallAction::Restored);
    assert!(back.kept > 0, "{back:?}");
    assert_eq!(std::fs::read(&file).expect("read"), mine);
    assert!(!backup.exists());
}

/// The user's settings need an absolute HOME; OpenCode's go under XDG_CONFIG_HOME.
#[test]
fn the_users_settings_follow_the_environment() {
    let (_tmp, project, env) = project();
    let no_home = UserEnv {
        home: Some("relative/home".to_owned()),
        ..env.clone()
    };
    let err = install(&InstallOptions {
        user: true,
        ..options(Runtime::Cursor, &project, &no_home)
    })
    .expect_err("no HOME");
    assert!(err.is_invalid_input());
    assert!(err.to_string().contains("HOME is not set"), "{err}");
    let xdg = project.join("xdg");
    let with_xdg = UserEnv {
        xdg_config_home: Some(xdg.to_string()),
        ..env
    };
    let done = install(&InstallOptions {
        user: true,
        ..options(Runtime::OpenCode, &project, &with_xdg)
    })
    .expect("install");
    assert_eq!(done.file, xdg.join("opencode/plugins/remaind.js"));
    // The user's settings do not need the project's .context/.
    assert!(
        !done.notes.iter().any(|n| n.contains(".context/")),
        "{done:?}"
    );
}

/// A settings file that is a symlink is refused, and nothing is written.
#[test]
fn a_symlinked_settings_file_is_refused() {
    let (_tmp, project, env) = project();
    let target = project.join("elsewhere.json");
    std::fs::write(&target, b"{}").expect("write");
    std::fs::create_dir_all(project.join(".cursor")).expect("mkdir");
    std::os::unix::fs::symlink(&target, project.join(".cursor/hooks.json")).expect("symlink");
    let err = install(&options(Runtime::Cursor, &project, &env)).expect_err("a symlink");
    assert!(err.is_invalid_input());
    assert!(err.to_string().contains("is a symlink"), "{err}");
    assert_eq!(std::fs::read(&target).expect("read"), b"{}");
}

/// The wiring check: a runtime installed into the project is wired (and, with a ledger
/// where its hooks never recorded anything, a problem says so); a settings file that is not
/// JSON is a problem with its fix; no `remaind` on PATH is one too.
#[test]
fn doctor_reports_the_wiring_and_each_problem() {
    let (_tmp, project, env) = project();
    let ctx = ContextDir::new(project.join(".context"));
    remaind_resume::init(&ctx, false).expect("init");
    install(&options(Runtime::Codex, &project, &env)).expect("install");
    std::fs::create_dir_all(project.join(".cursor")).expect("mkdir");
    std::fs::write(project.join(".cursor/hooks.json"), b"not json").expect("write");
    let report = doctor(&DoctorOptions {
        project: project.clone(),
        context: Some(ctx.clone()),
        env,
    });
    assert_eq!(report.binary, None);
    assert_eq!(report.context.as_deref(), Some(ctx.root()));
    let codex = report
        .runtimes
        .iter()
        .find(|r| r.runtime == "codex")
        .expect("codex");
    assert!(codex.wired);
    assert_eq!(codex.files["project"].state, WiringState::Wired);
    assert_eq!(codex.files["user"].state, WiringState::Absent);
    assert_eq!(codex.last_hook, None);
    let cursor = report
        .runtimes
        .iter()
        .find(|r| r.runtime == "cursor")
        .expect("cursor");
    assert_eq!(cursor.files["project"].state, WiringState::Unparsable);
    assert!(!cursor.wired);
    let problems: Vec<(Option<&str>, &str)> = report
        .problems
        .iter()
        .map(|p| (p.runtime, p.problem.as_str()))
        .collect();
    assert!(
        problems
            .iter()
            .any(|(r, p)| r.is_none() && p.contains("not on PATH")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|(r, p)| *r == Some("cursor") && p.starts_with(project.join(".cursor").as_str())),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|(r, p)| *r == Some("codex") && p.contains("none of its hooks has recorded")),
        "{problems:?}"
    );
    // The JSON keeps the fields of a finding only where there is one.
    let json = serde_json::to_value(&report).expect("JSON");
    assert_eq!(
        json["runtimes"][1]["files"]["user"],
        serde_json::json!({"file": codex.files["user"].file.as_str(), "state": "absent"})
    );
}
