//! Options every command shares, and finding the `.context/` folder.

use camino::{Utf8Path, Utf8PathBuf};
use clap::Args;
use remaind_fs::ContextDir;

use crate::cli_error::CliError;

/// Options every command shares.
#[derive(Debug, Clone, Args)]
pub(crate) struct Global {
    /// The .context/ folder to use (default: $REMAIND_DIR, else the nearest .context/ in the
    /// current folder or its parents).
    #[arg(long, global = true, env = "REMAIND_DIR", value_name = "PATH")]
    pub(crate) dir: Option<Utf8PathBuf>,
    /// A shared PostgreSQL store (postgres://user@host/db): the one `init` joins, and the
    /// one `events` and `search --on-store` read where no folder is (default:
    /// $REMAIND_STORE). A folder works through the store its store.json names; given one,
    /// this must name the same. Its password comes from $PGPASSWORD. See docs/fleet.md.
    #[arg(
        long,
        global = true,
        env = "REMAIND_STORE",
        value_name = "URL",
        hide_env_values = true
    )]
    pub(crate) store: Option<String>,
    /// The project in the shared store (default: $REMAIND_PROJECT).
    #[arg(long, global = true, env = "REMAIND_PROJECT", value_name = "NAME")]
    pub(crate) project: Option<String>,
}

impl Global {
    /// The current directory as a UTF-8 path.
    pub(crate) fn cwd(&self) -> Result<Utf8PathBuf, CliError> {
        current_dir()
            .map_err(|e| CliError::runtime(format!("cannot read the current directory: {e}")))
    }

    /// The folder `init` should create: `--dir`/`REMAIND_DIR`, else `./.context`.
    pub(crate) fn init_target(&self) -> Result<ContextDir, CliError> {
        let cwd = self.cwd()?;
        Ok(ContextDir::new(match &self.dir {
            Some(dir) => absolute(&cwd, dir),
            None => cwd.join(remaind_fs::layout::CONTEXT_DIR_NAME),
        }))
    }

    /// The store and project given by `--store` and `--project` (or their variables), if
    /// any; a store without a project is a usage error.
    pub(crate) fn store_setting(&self) -> Result<Option<remaind_ledger::StoreSetting>, CliError> {
        match (&self.store, &self.project) {
            (None, _) => Ok(None),
            (Some(url), Some(project)) if !project.is_empty() => {
                check_project(project)?;
                Ok(Some(remaind_ledger::StoreSetting {
                    url: url.clone(),
                    project: project.clone(),
                }))
            }
            (Some(_), _) => Err(CliError::invalid(
                "--store needs --project NAME (or REMAIND_PROJECT): the project in the store",
            )),
        }
    }

    /// Finds an initialized `.context/` folder. Its store is the one its `store.json` names:
    /// `--store`/`--project` naming another are refused (exit 2), never followed, so one
    /// folder's chain is never written into another project.
    pub(crate) fn context(&self) -> Result<ContextDir, CliError> {
        let ctx = self.folder_to_share()?;
        self.check_folder_store(&ctx)?;
        Ok(ctx)
    }

    /// [`Global::context`] for `push`, which names its store with `--to` and reads the
    /// folder as it is on disk: `--store` is not compared.
    pub(crate) fn folder_to_share(&self) -> Result<ContextDir, CliError> {
        let cwd = self.cwd()?;
        Ok(remaind_fs::ContextDir::discover(self.dir.as_deref(), &cwd)?)
    }

    fn check_folder_store(&self, ctx: &ContextDir) -> Result<(), CliError> {
        let Some(named) = self.store_setting()? else {
            return Ok(());
        };
        let own = remaind_ledger::StoreSetting::load(ctx.root())?;
        if own.as_ref() == Some(&named) {
            return Ok(());
        }
        let is = match own {
            Some(own) => format!("a replica of project {:?} of {}", own.project, own.url),
            None => "a plain folder (no store.json)".to_owned(),
        };
        Err(CliError::invalid(format!(
            "--store/--project (or REMAIND_STORE/REMAIND_PROJECT) name project {:?} of {}, but {} is {is}: a folder works through the store its store.json names. Unset them for this folder, or make it a replica with `remaind init --store URL --project NAME`",
            named.project,
            remaind_pg::mask_password(&named.url),
            ctx.root()
        )))
    }
}

/// Where a command that can read a project without a folder finds it.
pub(crate) enum Found {
    /// The `.context/` folder.
    Folder(ContextDir),
    /// No folder here or above, and `--store`/`--project` name a shared store.
    Store(remaind_ledger::StoreSetting),
}

impl Global {
    /// The `.context/` folder, else (none here or above, no `--dir`) the shared store
    /// `--store`/`--project` name: a machine that keeps no folder reads the project there.
    pub(crate) fn context_or_store(&self) -> Result<Found, CliError> {
        if self.dir.is_some() {
            return self.context().map(Found::Folder);
        }
        let cwd = self.cwd()?;
        match remaind_fs::ContextDir::discover(None, &cwd) {
            Ok(ctx) => {
                self.check_folder_store(&ctx)?;
                Ok(Found::Folder(ctx))
            }
            Err(e @ remaind_fs::Error::NoContext { .. }) => match self.store_setting()? {
                Some(setting) => Ok(Found::Store(setting)),
                None => {
                    let mut err = CliError::from(e);
                    err.message.push_str(
                        "; or read a shared store's project from any folder with --store URL \
                         --project NAME",
                    );
                    Err(err)
                }
            },
            Err(e) => Err(e.into()),
        }
    }
}

/// `--project` (or `REMAIND_PROJECT`) refused as a usage error (exit 2) when it cannot name
/// a project: a trailing space or tab would name a second project beside the first.
pub(crate) fn check_project(project: &str) -> Result<(), CliError> {
    match remaind_pg::project_name_problem(project) {
        None => Ok(()),
        Some(reason) => Err(CliError::invalid(format!(
            "--project (or REMAIND_PROJECT): the name {reason}"
        ))),
    }
}

/// The current directory as a UTF-8 path, for a library that says its own words around
/// the error (the hook runner).
pub(crate) fn current_dir() -> std::io::Result<Utf8PathBuf> {
    let cwd = std::env::current_dir()?;
    Utf8PathBuf::from_path_buf(cwd)
        .map_err(|p| std::io::Error::other(format!("{} is not valid UTF-8", p.display())))
}

fn absolute(cwd: &Utf8Path, dir: &Utf8Path) -> Utf8PathBuf {
    if dir.is_absolute() {
        dir.to_owned()
    } else {
        cwd.join(dir)
    }
}

impl Global {
    /// The shared store a command reads itself (`search --on-store`): `--store`/`--project`'s,
    /// else the folder's `store.json` (`None` when neither names one).
    pub(crate) fn any_store(&self) -> Result<Option<remaind_ledger::StoreSetting>, CliError> {
        match self.store_setting()? {
            Some(setting) => Ok(Some(setting)),
            None => match self.context() {
                Ok(ctx) => Ok(remaind_ledger::StoreSetting::load(ctx.root())?),
                Err(_) => Ok(None),
            },
        }
    }
}
