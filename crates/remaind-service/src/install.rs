//! Wiring Remaind's hooks into a runtime's settings file (`remaind install`): which file,
//! the merge of the recipe into it (or our hooks out of it), the backup of the file as the
//! user had it, the write, and what else the runtime needs for the hooks to run.
//!
//! The merge itself is `remaind_adapters::install` (bytes in, bytes out); this module reads,
//! backs up and writes. The environment it needs (`HOME`, `XDG_CONFIG_HOME`, `PATH`) is
//! given by the front-end as a [`UserEnv`].

use camino::{Utf8Path, Utf8PathBuf};
use remaind_adapters::Runtime;
use remaind_adapters::install::{Change, Plan};

use crate::{Error, Result};

/// What the front-end read of the process's environment for the jobs that look outside
/// the project: the user's settings files and the binary the runtimes will run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserEnv {
    /// `HOME`, as set (used only when it is an absolute path).
    pub home: Option<String>,
    /// `XDG_CONFIG_HOME`, as set (OpenCode's user plugins go under it when it is absolute).
    pub xdg_config_home: Option<String>,
    /// `PATH`, as set (where the runtimes find `remaind`).
    pub path: Option<String>,
}

impl UserEnv {
    /// `HOME` as an absolute path.
    fn home(&self) -> Result<Utf8PathBuf> {
        match &self.home {
            Some(h) if Utf8Path::new(h).is_absolute() => Ok(Utf8PathBuf::from(h)),
            _ => Err(Error::NoHome),
        }
    }

    /// The settings file of `runtime` for the project `project`, or the user's when `user`.
    pub(crate) fn settings_file(
        &self,
        runtime: Runtime,
        project: &Utf8Path,
        user: bool,
    ) -> Result<Utf8PathBuf> {
        let rel = runtime.settings_path();
        if !user {
            return Ok(project.join(rel.project));
        }
        if runtime == Runtime::OpenCode
            && let Some(xdg) = &self.xdg_config_home
            && Utf8Path::new(xdg).is_absolute()
        {
            return Ok(Utf8PathBuf::from(xdg).join("opencode/plugins/remaind.js"));
        }
        Ok(self.home()?.join(rel.user))
    }

    /// The `remaind` the runtimes will run: the first on `PATH`.
    pub(crate) fn which_remaind(&self) -> Option<Utf8PathBuf> {
        self.path
            .as_deref()?
            .split(':')
            .filter(|d| !d.is_empty())
            .map(|d| Utf8PathBuf::from(d).join("remaind"))
            .find(|p| p.is_file())
    }
}

/// What [`install`] is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallOptions {
    /// The runtime to wire.
    pub runtime: Runtime,
    /// The project folder (the front-end's current directory).
    pub project: Utf8PathBuf,
    /// Into the user's settings under `HOME` instead of the project's.
    pub user: bool,
    /// Work out what would change and write nothing.
    pub dry_run: bool,
    /// Remove our hooks instead.
    pub uninstall: bool,
    /// The environment the user's settings and the binary are found by.
    pub env: UserEnv,
}

/// What became of the settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InstallAction {
    /// Installing changed nothing: our hooks were there as the recipe has them.
    AlreadyInstalled,
    /// Uninstalling changed nothing: none of our hooks was there.
    NothingToRemove,
    /// The file did not exist and was written.
    Created,
    /// The file was rewritten.
    Updated,
    /// Uninstalling gave back the backup's bytes (and used the backup up).
    Restored,
    /// The file held only our hooks and was removed.
    Removed,
}

impl InstallAction {
    /// The words `remaind install` prints for it.
    pub fn as_str(self) -> &'static str {
        match self {
            InstallAction::AlreadyInstalled => "unchanged (already installed)",
            InstallAction::NothingToRemove => "unchanged (nothing of ours to remove)",
            InstallAction::Created => "created",
            InstallAction::Updated => "updated",
            InstallAction::Restored => "restored from the backup",
            InstallAction::Removed => "removed",
        }
    }
}

/// What [`install`] did (or, in a dry run, would do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// The settings file.
    pub file: Utf8PathBuf,
    /// What became of it.
    pub action: InstallAction,
    /// Our hook lines added (`event: command`).
    pub added: Vec<String>,
    /// Our hook lines removed.
    pub removed: Vec<String>,
    /// How many of the user's own hooks were kept as they were.
    pub kept: usize,
    /// Where the file as the user had it was saved (`<file>.remaind-backup`), when this run
    /// saved it.
    pub backup: Option<Utf8PathBuf>,
    /// What else the runtime needs for the hooks to run.
    pub notes: Vec<String>,
}

/// The backup of `file`: `<file>.remaind-backup`.
fn backup_of(file: &Utf8Path) -> Utf8PathBuf {
    Utf8PathBuf::from(format!("{file}.remaind-backup"))
}

/// Reads `path`, refusing what cannot be written back safely (a symlink, a folder).
fn read(path: &Utf8Path) -> Result<Option<Vec<u8>>> {
    match remaind_fs::read_file(path) {
        Ok(bytes) => Ok(bytes),
        Err(remaind_fs::Error::Symlink { .. }) => Err(Error::SettingsSymlink {
            path: path.to_owned(),
        }),
        Err(remaind_fs::Error::NotAFile { .. } | remaind_fs::Error::NotADirectory { .. }) => {
            Err(Error::SettingsNotAFile {
                path: path.to_owned(),
            })
        }
        Err(e) => Err(e.into()),
    }
}

/// Merges Remaind's hooks into the runtime's settings file (or takes them out), keeping
/// every hook of the user's. Before a file that holds none of our hooks is changed, it is
/// copied to `<file>.remaind-backup`; uninstalling gives back that file's bytes when nothing
/// else changed, and then removes the backup. A dry run writes nothing.
pub fn install(opts: &InstallOptions) -> Result<Installed> {
    let runtime = opts.runtime;
    let file = opts.env.settings_file(runtime, &opts.project, opts.user)?;
    let backup = backup_of(&file);
    let existing = read(&file)?;
    let label = file.as_str();
    let plan = if opts.uninstall {
        match &existing {
            Some(bytes) => {
                let saved = read(&backup)?;
                remaind_adapters::install::uninstall(runtime, label, bytes, saved.as_deref())
            }
            None => Ok(Plan::unchanged()),
        }
    } else {
        remaind_adapters::install::install(runtime, label, existing.as_deref())
    }?;
    // Back up a file we change that holds none of our hooks yet: the file as the user had it.
    let back_up = !opts.uninstall
        && existing.is_some()
        && !plan.had_ours
        && matches!(plan.change, Change::Write(_));
    // The backup is used up when its bytes come back.
    let restored = opts.uninstall
        && matches!(&plan.change, Change::Write(b) if read(&backup).ok().flatten().as_ref() == Some(b));
    if !opts.dry_run {
        apply(
            &file,
            &backup,
            &plan,
            existing.as_deref(),
            back_up,
            restored,
        )?;
    }
    let action = match (&plan.change, opts.uninstall) {
        (Change::Unchanged, false) => InstallAction::AlreadyInstalled,
        (Change::Unchanged, true) => InstallAction::NothingToRemove,
        (Change::Write(_), false) if existing.is_none() => InstallAction::Created,
        (Change::Write(_), true) if restored => InstallAction::Restored,
        (Change::Write(_), _) => InstallAction::Updated,
        (Change::Remove, _) => InstallAction::Removed,
    };
    Ok(Installed {
        notes: notes(opts),
        file,
        action,
        added: plan.added,
        removed: plan.removed,
        kept: plan.kept,
        backup: back_up.then_some(backup),
    })
}

/// Writes what `plan` says: the backup first, then the file (atomically), or its removal.
fn apply(
    file: &Utf8Path,
    backup: &Utf8Path,
    plan: &Plan,
    existing: Option<&[u8]>,
    back_up: bool,
    restored: bool,
) -> Result<()> {
    let dir = file.parent().ok_or_else(|| Error::SettingsPath {
        path: file.to_owned(),
        missing: "folder",
    })?;
    let name = file.file_name().ok_or_else(|| Error::SettingsPath {
        path: file.to_owned(),
        missing: "file name",
    })?;
    let backup_name = backup.file_name().unwrap_or("settings.remaind-backup");
    match &plan.change {
        Change::Unchanged => {}
        Change::Write(bytes) => {
            create_dirs(dir)?;
            if back_up && let Some(old) = existing {
                remaind_fs::replace_file(dir, backup_name, old)?;
            }
            remaind_fs::replace_file(dir, name, bytes)?;
            if restored {
                remaind_fs::remove_file(dir, backup_name)?;
            }
        }
        Change::Remove => {
            remaind_fs::remove_file(dir, name)?;
        }
    }
    Ok(())
}

/// Creates `dir` and the folders above it that are missing.
fn create_dirs(dir: &Utf8Path) -> Result<()> {
    let missing: Vec<&Utf8Path> = dir
        .ancestors()
        .take_while(|d| !d.as_str().is_empty() && !d.is_dir())
        .collect();
    for d in missing.into_iter().rev() {
        remaind_fs::ensure_dir(d, true)?;
    }
    Ok(())
}

/// What else the runtime needs for the hooks to run.
fn notes(opts: &InstallOptions) -> Vec<String> {
    let mut out = Vec::new();
    if opts.uninstall {
        return out;
    }
    if opts.runtime == Runtime::Codex {
        out.push(
            "Codex runs hooks only with `[features] codex_hooks = true` in ~/.codex/config.toml"
                .to_owned(),
        );
    }
    let project = &opts.project;
    if !opts.user && remaind_fs::ContextDir::discover(None, project).is_err() {
        out.push(format!(
            "no .context/ in {project} or above: run `remaind init` there, or every hook does \
             nothing"
        ));
    }
    if opts.env.which_remaind().is_none() {
        out.push(
            "`remaind` is not on PATH: the runtime runs `remaind hook ...`, so put the binary \
             on PATH"
                .to_owned(),
        );
    }
    out
}
