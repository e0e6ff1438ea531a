//! `remaind artifact`.

use std::io::Write;
use std::process::ExitCode;

use remaind_artifacts::ArtifactStore;

use crate::cli_error::CliError;
use crate::global::Global;

/// Read artifacts: large or binary payloads routed out of events, stored by SHA-256.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind artifact show 3f2a…(64 hex digits) > output.bin\n  \
remaind artifact show 41641196f98c   # the short id of an `[artifact:41641196f98c]` marker\n  \
remaind events --json | jq -r '.artifact[]?.sha256' | xargs -n1 remaind artifact show\n  \
remaind artifact list")]
pub(crate) struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// Print one artifact's raw bytes to stdout (its hash is checked first).
    Show {
        /// The artifact's SHA-256 (64 hex digits, as in an event's `artifact` record), or a
        /// unique prefix of at least 8 (the short id of an `[artifact:…]` marker).
        hash: String,
    },
    /// List the hashes of all stored artifacts.
    List {
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
    },
}

/// The full hash `given` names: 64 hex digits, or a unique prefix of at least 8 (also written
/// as the `[artifact:…]` marker events carry).
fn resolve(store: &ArtifactStore, given: &str) -> Result<String, CliError> {
    let hash = given.trim().to_ascii_lowercase();
    let hash = hash
        .strip_prefix("[artifact:")
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(&hash)
        .to_owned();
    if hash.len() < 8 || hash.len() > 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(CliError::invalid(format!(
            "`{given}` is not an artifact id; give the 64 hex digits of an event's \
artifact.sha256 or the short id of its `[artifact:…]` marker (at least 8 hex digits)"
        )));
    }
    if hash.len() == 64 {
        return Ok(hash);
    }
    let list = store
        .list()
        .map_err(|e| CliError::runtime(format!("{}/artifacts: {e}", store.root())))?;
    let found: Vec<String> = list.into_iter().filter(|h| h.starts_with(&hash)).collect();
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(CliError::invalid(format!(
            "no artifact id starts with `{hash}`; `remaind artifact list` shows them"
        ))),
        many => Err(CliError::invalid(format!(
            "`{hash}` names {} artifacts ({}); give more digits",
            many.len(),
            many.join(", ")
        ))),
    }
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    let store = ArtifactStore::open(ctx.root())?;
    match args.command {
        Sub::Show { hash } => {
            let hash = resolve(&store, &hash)?;
            store.verify(&hash)?;
            let bytes = store.get(&hash)?;
            let mut out = std::io::stdout().lock();
            out.write_all(&bytes)
                .and_then(|()| out.flush())
                .map_err(CliError::stdout)?;
        }
        Sub::List { json } => {
            let list = store.list()?;
            if json {
                let line =
                    serde_json::to_string(&list).map_err(|e| CliError::runtime(e.to_string()))?;
                println!("{line}");
            } else {
                for h in list {
                    println!("{h}");
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
