//! Options every command shares, and finding the `.context/` folder.

use camino::{Utf8Path, Utf8PathBuf};
use clap::Args;
use remaind_resume::ContextDir;

use crate::cli_error::CliError;

/// Options every command shares.
#[derive(Debug, Clone, Args)]
pub(crate) struct Global {
    /// The .context/ folder to use (default: $REMAIND_DIR, else the nearest .context/ in the
    /// current folder or its parents).
    #[arg(long, global = true, env = "REMAIND_DIR", value_name = "PATH")]
    pub(crate) dir: Option<Utf8PathBuf>,
}

impl Global {
    /// The current directory as a UTF-8 path.
    pub(crate) fn cwd(&self) -> Result<Utf8PathBuf, CliError> {
        let cwd = std::env::current_dir()
            .map_err(|e| CliError::runtime(format!("cannot read the current directory: {e}")))?;
        Utf8PathBuf::from_path_buf(cwd).map_err(|p| {
            CliError::runtime(format!(
                "the current directory {} is not valid UTF-8",
                p.display()
            ))
        })
    }

    /// The folder `init` should create: `--dir`/`REMAIND_DIR`, else `./.context`.
    pub(crate) fn init_target(&self) -> Result<ContextDir, CliError> {
        let cwd = self.cwd()?;
        Ok(ContextDir::new(match &self.dir {
            Some(dir) => absolute(&cwd, dir),
            None => cwd.join(remaind_fs::layout::CONTEXT_DIR_NAME),
        }))
    }

    /// Finds an initialized `.context/` folder.
    pub(crate) fn context(&self) -> Result<ContextDir, CliError> {
        let cwd = self.cwd()?;
        remaind_resume::discover(self.dir.as_deref(), &cwd).map_err(CliError::from)
    }
}

fn absolute(cwd: &Utf8Path, dir: &Utf8Path) -> Utf8PathBuf {
    if dir.is_absolute() {
        dir.to_owned()
    } else {
        cwd.join(dir)
    }
}
