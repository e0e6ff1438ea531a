//! `remaind search`.

use std::io::Write;
use std::process::ExitCode;

use remaind_events::Kind;
use remaind_index::Syntax::{Fts5, Plain};
use remaind_service::{SearchOptions, Source};
use serde_json::Value;

use crate::cli_error::CliError;
use crate::global::Global;

/// Most neighbouring events `--context` brings on each side of a hit.
const MAX_CONTEXT: u8 = 20;

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
remaind search 'deploy*' --min-importance 2 --limit 5 --json\n  \
remaind search did they sign the friendship pact --context 1\n  remaind search --fts 'tool:cargo AND NOT trace'\n  \
remaind --store postgres://agent@db/remaind --project web search --on-store sandbox   # no folder needed"
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
    /// At most this many hits. The first k hits of a longer list are the hits of --limit k.
    #[arg(long, value_name = "N", default_value_t = 20)]
    limit: usize,
    /// Bring each hit's N neighbouring events before and after it (0-20): shown indented
    /// under the hit, in --json as the hit's `context` list.
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u8).range(0..=MAX_CONTEXT as i64),
          conflicts_with = "on_store")]
    context: u8,
    /// Read QUERY as raw FTS5 syntax.
    #[arg(long)]
    fts: bool,
    /// Print the result as one JSON document: `{"query", "total", "hits": [...]}` (`hits`
    /// empty when nothing matches; `fallback` when quoted phrases found nothing and their
    /// words were searched instead).
    #[arg(long)]
    json: bool,
    /// Search the shared store on the server (PostgreSQL full text) instead of this folder's
    /// index: for a machine that keeps no folder. The store is --store/--project's, else the
    /// folder's store.json. Same syntax; English stems, no identifier splitting, no status
    /// (docs/fleet.md).
    #[arg(long, conflicts_with_all = ["fts", "current"])]
    on_store: bool,
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let kinds: Result<Vec<Kind>, _> = args.kind.iter().map(|k| k.trim().parse()).collect();
    let opts = SearchOptions {
        filter: remaind_index::SearchOptions {
            kinds: kinds.map_err(|e| CliError::invalid(format!("--kind: {e}")))?,
            min_importance: args.min_importance,
            current_only: args.current,
            limit: args.limit,
            syntax: if args.fts { Fts5 } else { Plain },
        },
        context: usize::from(args.context),
        ..SearchOptions::default()
    };
    let query = args.query.join(" ");
    let found = if args.on_store {
        let setting = global.any_store()?.ok_or_else(|| {
            CliError::invalid(
                "--on-store needs a store: --store URL --project NAME, or a folder made a \
                 replica with `remaind init --store`",
            )
        })?;
        remaind_service::search(Source::Store(&setting), &query, &opts)?
    } else {
        remaind_service::search(Source::Folder(&global.context()?), &query, &opts)?
    };
    if let Some(note) = &found.index_note {
        eprintln!("remaind: {note}");
    }
    print_hits(&found.to_json(&query), args.json).map_err(CliError::stdout)?;
    if !args.json {
        for note in [found.fallback_note(), found.cut_note()]
            .into_iter()
            .flatten()
        {
            eprintln!("remaind: {note}");
        }
        if found.hits.is_empty() {
            eprintln!("remaind: no events match `{query}`");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The hits on stdout: the `--json` document on one line, else two lines a hit (with its
/// status and the part that matched) and one a neighbour.
fn print_hits(doc: &Value, json: bool) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let s = |v: &Value, key: &str| v[key].as_str().unwrap_or_default().replace('\n', " ");
    for h in doc["hits"]
        .as_array()
        .filter(|_| !json)
        .into_iter()
        .flatten()
    {
        let by = h["status_by"].as_str().map(|by| format!(" by {by}"));
        let (id, kind, ts, imp) = (s(h, "id"), s(h, "kind"), s(h, "ts"), &h["importance"]);
        let (status, field, snippet) = (s(h, "status"), s(h, "field"), s(h, "snippet"));
        writeln!(
            out,
            "{id:<8} {kind:<17} {ts}  imp {imp}  {status}{}",
            by.unwrap_or_default()
        )?;
        writeln!(out, "         {field}: {snippet}")?;
        for c in h["context"].as_array().into_iter().flatten() {
            let offset = c["offset"].as_i64().unwrap_or_default();
            let (id, kind, text) = (s(c, "id"), s(c, "kind"), s(c, "text"));
            writeln!(out, "           {offset:+} {id} {kind}: {text}")?;
        }
    }
    if json {
        writeln!(out, "{doc}")?;
    }
    out.flush()
}
