//! `remaind search`.

use std::io::Write;
use std::process::ExitCode;

use remaind_index::{Index, SearchOptions, Syntax};
use remaind_ledger::{Kind, Ledger, Status};

use crate::cli_error::CliError;
use crate::global::Global;

/// Ranked search over everything an event holds: its text, the tool's name, input (commands,
/// paths, written and replaced text) and output (stderr and large outputs included).
///
/// Any of the words may match (stop words are dropped, English word forms and identifier
/// spellings match each other); events holding more of them (together, rare words counting
/// more), the whole query as a phrase, the words as written, and decisions over traces rank
/// higher, for a question what someone wrote over a tool's output, the newer first on a tie.
/// Each hit says which part matched. The index (.context/db/context.sqlite) is brought up to
/// the ledger head first, and rebuilt if it is missing, stale or corrupt.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Query syntax: words (any may match, more rank higher), +word (must match), \
prefix* and \"quoted phrases\" (must match); other characters are searched literally. With \
--fts the query is raw SQLite FTS5 syntax, every term required unless joined by OR (AND, OR, \
NOT, NEAR(), column filters text:, tool:, input:, output:, parts:).\n\n\
Examples:\n  remaind search sqlite index\n  remaind search what did we decide about the sandbox\n  \
remaind search ActiveSessionRegistry\n  remaind search '\"hash chain\"' +ledger --kind decision --current\n  \
remaind search 'deploy*' --min-importance 2 --limit 5 --json\n  remaind search --fts 'tool:cargo AND NOT trace'"
)]
pub(crate) struct Args {
    /// What to search for (several words are joined by spaces).
    #[arg(required = true, num_args = 1.., value_name = "QUERY")]
    query: Vec<String>,
    /// Only events of this kind (repeat or separate with commas).
    #[arg(long, value_name = "KIND", value_delimiter = ',')]
    kind: Vec<String>,
    /// Only events of at least this importance (0-3).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=3))]
    min_importance: Option<u8>,
    /// Only current events (neither superseded nor resolved).
    #[arg(long)]
    current: bool,
    /// At most this many hits.
    #[arg(long, value_name = "N", default_value_t = 20)]
    limit: usize,
    /// Read QUERY as raw FTS5 syntax.
    #[arg(long)]
    fts: bool,
    /// Print the result as one JSON document: `{"query", "total", "hits": [...]}` (`hits`
    /// empty when nothing matches).
    #[arg(long)]
    json: bool,
}

fn status_parts(status: Status) -> (&'static str, Option<String>) {
    match status {
        Status::Current => ("current", None),
        Status::Superseded { by } => ("superseded", Some(by.to_string())),
        Status::Resolved { by } => ("resolved", Some(by.to_string())),
    }
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let kinds = args
        .kind
        .iter()
        .map(|k| {
            k.trim()
                .parse::<Kind>()
                .map_err(|e| CliError::invalid(format!("--kind: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let query = args.query.join(" ");
    let opts = SearchOptions {
        kinds,
        min_importance: args.min_importance,
        current_only: args.current,
        limit: args.limit,
        syntax: if args.fts {
            Syntax::Fts5
        } else {
            Syntax::Plain
        },
    };
    let ctx = global.context()?;
    let ledger = Ledger::open(ctx.root()).map_err(CliError::from)?;
    let found = Index::open(ctx.root(), &ledger).and_then(|mut index| index.search(&query, &opts));
    let hits = match found {
        Ok(hits) => hits,
        Err(e) if e.is_invalid_input() => return Err(CliError::from(e)),
        // A `.context/` this user cannot write (a read-only mount, another user's project):
        // the index is built from the ledger in a private temporary folder instead.
        Err(e) => {
            let why = CliError::from(e).full_message();
            eprintln!(
                "remaind: the index in {} cannot be used ({why}); searching a temporary index built from the ledger (slower)",
                ctx.join(remaind_fs::layout::DB_DIR)
            );
            let dir = tempfile::tempdir()
                .map_err(|e| CliError::runtime(format!("cannot create a temporary folder: {e}")))?;
            let dir = camino::Utf8Path::from_path(dir.path())
                .ok_or_else(|| CliError::runtime("the temporary folder's path is not UTF-8"))?;
            Index::scratch(dir, &ledger)
                .search(&query, &opts)
                .map_err(CliError::from)?
        }
    };
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    if args.json {
        // One document, the same shape with or without hits.
        let hits: Vec<serde_json::Value> = hits
            .iter()
            .map(|h| {
                let (status, by) = status_parts(h.status);
                serde_json::json!({
                    "id": h.id.to_string(),
                    "seq": h.seq,
                    "kind": h.kind.as_str(),
                    "ts": h.ts,
                    "importance": h.importance,
                    "status": status,
                    "status_by": by,
                    "field": h.field.as_str(),
                    "snippet": h.snippet,
                    "rank": h.rank,
                    "score": h.score,
                    "exact_phrase": h.exact,
                })
            })
            .collect();
        let doc = serde_json::json!({"query": query, "total": hits.len(), "hits": hits});
        return writeln!(out, "{doc}")
            .and_then(|()| out.flush())
            .map(|()| ExitCode::SUCCESS)
            .map_err(|e| CliError::runtime(format!("cannot write to stdout: {e}")));
    }
    let res = hits.iter().try_for_each(|h| {
        let (status, by) = status_parts(h.status);
        {
            let status = match by {
                Some(by) => format!("{status} by {by}"),
                None => status.to_owned(),
            };
            writeln!(
                out,
                "{:<8} {:<17} {}  imp {}  {}\n         {}: {}",
                h.id,
                h.kind.as_str(),
                h.ts,
                h.importance,
                status,
                h.field.as_str(),
                h.snippet.replace('\n', " ")
            )
        }
    });
    res.and_then(|()| out.flush())
        .map_err(|e| CliError::runtime(format!("cannot write to stdout: {e}")))?;
    if hits.is_empty() {
        eprintln!("remaind: no events match `{query}`");
    }
    Ok(ExitCode::SUCCESS)
}
