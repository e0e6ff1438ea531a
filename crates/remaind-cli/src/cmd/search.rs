//! `remaind search`.

use std::io::Write;
use std::process::ExitCode;

use remaind_events::{Kind, Status};
use remaind_index::{Index, MAX_QUERY_CHARS, MAX_QUERY_TERMS, QueryBounds, SearchOptions, Syntax};
use remaind_ledger::Ledger;

use crate::cli_error::CliError;

/// Most neighbouring events `--context` brings on each side of a hit.
const MAX_CONTEXT: u8 = 20;
/// Longest text a neighbouring event shows, in characters.
const CONTEXT_TEXT: usize = 280;
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
    if args.on_store {
        return on_store(global, &query, &opts, args.json);
    }
    let ctx = global.context()?;
    let ledger = Ledger::open(ctx.root()).map_err(CliError::from)?;
    let found =
        Index::open(ctx.root(), &ledger).and_then(|mut index| index.search_bounded(&query, &opts));
    let searched = match found {
        Ok(searched) => searched,
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
                .search_bounded(&query, &opts)
                .map_err(CliError::from)?
        }
    };
    let n = usize::from(args.context);
    let mut shown = Vec::with_capacity(searched.hits.len());
    for h in &searched.hits {
        let context = if n == 0 {
            Vec::new()
        } else {
            let before = ledger
                .before(h.seq, n, &remaind_ledger::Filter::default())
                .map_err(CliError::from)?;
            let after = ledger
                .range(h.seq + 1, n, &remaind_ledger::Filter::default())
                .map_err(CliError::from)?;
            before
                .iter()
                .chain(&after)
                .map(|e| Neighbour::of(e, h.seq))
                .collect()
        };
        shown.push({
            let (status, by) = status_parts(h.status);
            Shown {
                id: h.id.to_string(),
                seq: h.seq,
                kind: h.kind.as_str(),
                ts: h.ts.clone(),
                importance: h.importance,
                status,
                status_by: by,
                field: h.field.as_str(),
                snippet: h.snippet.clone(),
                rank: h.rank,
                score: h.score,
                exact: h.exact,
                context,
            }
        });
    }
    let fallback = (!searched.phrases_as_words.is_empty()).then_some(&searched.phrases_as_words);
    print_hits(
        &query,
        &shown,
        Some(searched.bounds),
        fallback.map(Vec::as_slice),
        args.json,
    )
}

/// An event next to a hit, as `--context` shows it.
struct Neighbour {
    id: String,
    seq: u64,
    /// Its place relative to the hit: -1 just before, 1 just after.
    offset: i64,
    kind: &'static str,
    ts: String,
    actor: Option<String>,
    /// Its text (the tool's name when it has none), cut to [`CONTEXT_TEXT`] characters.
    text: String,
}

impl Neighbour {
    fn of(e: &remaind_events::Event, hit: u64) -> Neighbour {
        let whole = match (&e.text, &e.tool) {
            (Some(t), _) if !t.trim().is_empty() => t.clone(),
            (_, Some(tool)) => format!("({})", tool.name),
            _ => String::new(),
        };
        let mut text: String = whole.chars().take(CONTEXT_TEXT).collect();
        if text.len() < whole.len() {
            text.push('…');
        }
        Neighbour {
            id: e.id.to_string(),
            seq: e.seq,
            offset: i64::try_from(e.seq).unwrap_or(i64::MAX) - i64::try_from(hit).unwrap_or(0),
            kind: e.kind.as_str(),
            ts: e.ts.clone(),
            actor: e.actor.clone(),
            text,
        }
    }
}

/// A hit as printed, from the folder's index or the store's.
struct Shown {
    id: String,
    seq: u64,
    kind: &'static str,
    ts: String,
    importance: u8,
    status: &'static str,
    status_by: Option<String>,
    field: &'static str,
    snippet: String,
    rank: f64,
    score: f64,
    exact: bool,
    /// The events around it (`--context`), in ledger order.
    context: Vec<Neighbour>,
}

/// Says how a query was bounded, when part of it was not searched: a field of `--json`'s
/// document, a line on stderr otherwise.
fn bounds_json(bounds: Option<QueryBounds>) -> Option<serde_json::Value> {
    let b = bounds.filter(|b| b.cut() || b.repeated > 0)?;
    Some(serde_json::json!({
        "cut": b.cut(),
        "terms": b.terms,
        "repeated_terms_dropped": b.repeated,
        "terms_dropped": b.dropped_terms,
        "chars_cut": b.cut_chars,
        "max_terms": MAX_QUERY_TERMS,
        "max_chars": MAX_QUERY_CHARS,
    }))
}

/// What `--json` and stderr say when quoted phrases found nothing and their words were
/// searched ranked instead.
fn fallback_note(phrases: &[String]) -> String {
    let quoted: Vec<String> = phrases.iter().map(|p| format!("\"{p}\"")).collect();
    format!(
        "no event holds {} as an exact phrase; searched its words as ranked words instead",
        quoted.join(", ")
    )
}

fn print_hits(
    query: &str,
    hits: &[Shown],
    bounds: Option<QueryBounds>,
    fallback: Option<&[String]>,
    json: bool,
) -> Result<ExitCode, CliError> {
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    if json {
        // One document, the same shape with or without hits.
        let hits: Vec<serde_json::Value> = hits
            .iter()
            .map(|h| {
                serde_json::json!({
                    "id": h.id,
                    "seq": h.seq,
                    "kind": h.kind,
                    "ts": h.ts,
                    "importance": h.importance,
                    "status": h.status,
                    "status_by": h.status_by,
                    "field": h.field,
                    "snippet": h.snippet,
                    "rank": h.rank,
                    "score": h.score,
                    "exact_phrase": h.exact,
                    "context": h.context.iter().map(|c| serde_json::json!({
                        "id": c.id,
                        "seq": c.seq,
                        "offset": c.offset,
                        "kind": c.kind,
                        "ts": c.ts,
                        "actor": c.actor,
                        "text": c.text,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let mut doc = serde_json::json!({"query": query, "total": hits.len(), "hits": hits});
        if let Some(b) = bounds_json(bounds) {
            doc["query_bounds"] = b;
        }
        if let Some(phrases) = fallback {
            doc["fallback"] = serde_json::json!({
                "name": "phrases_as_words",
                "phrases": phrases,
                "note": fallback_note(phrases),
            });
        }
        return writeln!(out, "{doc}")
            .and_then(|()| out.flush())
            .map(|()| ExitCode::SUCCESS)
            .map_err(CliError::stdout);
    }
    let res = hits.iter().try_for_each(|h| {
        let status = match &h.status_by {
            Some(by) => format!("{} by {by}", h.status),
            None => h.status.to_owned(),
        };
        writeln!(
            out,
            "{:<8} {:<17} {}  imp {}  {}\n         {}: {}",
            h.id,
            h.kind,
            h.ts,
            h.importance,
            status,
            h.field,
            h.snippet.replace('\n', " ")
        )?;
        for c in &h.context {
            writeln!(
                out,
                "           {:+} {} {}: {}",
                c.offset,
                c.id,
                c.kind,
                c.text.replace('\n', " ")
            )?;
        }
        Ok(())
    });
    res.and_then(|()| out.flush()).map_err(CliError::stdout)?;
    if let Some(phrases) = fallback {
        eprintln!("remaind: {}", fallback_note(phrases));
    }
    if let Some(b) = bounds.filter(QueryBounds::cut) {
        eprintln!(
            "remaind: the query was cut to its first {} distinct terms within {MAX_QUERY_CHARS} characters ({} terms and {} characters left out)",
            b.terms, b.dropped_terms, b.cut_chars
        );
    }
    if hits.is_empty() {
        eprintln!("remaind: no events match `{query}`");
    }
    Ok(ExitCode::SUCCESS)
}

/// `search --on-store`: the store's full-text index on the server. Status is not known there
/// (it needs every later event): hits say `unknown`.
fn on_store(
    global: &Global,
    query: &str,
    opts: &SearchOptions,
    json: bool,
) -> Result<ExitCode, CliError> {
    let setting = match global.store_setting()? {
        Some(setting) => setting,
        None => {
            let folder = match global.context() {
                Ok(ctx) => remaind_ledger::StoreSetting::load(ctx.root())?,
                Err(_) => None,
            };
            folder.ok_or_else(|| {
                CliError::invalid(
                    "--on-store needs a store: --store URL --project NAME, or a folder made a \
                     replica with `remaind init --store`",
                )
            })?
        }
    };
    let failed = |action| crate::global::store_failed(&setting, action);
    let mut store =
        remaind_pg::Store::connect(&setting.url, &setting.project).map_err(failed("connect"))?;
    let filter = remaind_pg::SearchFilter {
        kinds: opts.kinds.iter().map(|k| k.as_str().to_owned()).collect(),
        min_importance: opts.min_importance.unwrap_or(0),
        limit: opts.limit,
    };
    let (hits, bounds) = store.search(query, &filter).map_err(failed("search"))?;
    // The store bounds a query by the folder index's rule (held equal by a test).
    let bounds = QueryBounds {
        terms: bounds.terms,
        dropped_terms: bounds.dropped_terms,
        cut_chars: bounds.cut_chars,
        ..QueryBounds::default()
    };
    let mut shown = Vec::with_capacity(hits.len());
    for hit in hits {
        let event: remaind_events::Event = serde_json::from_slice(&hit.line).map_err(|e| {
            CliError::runtime(format!(
                "the shared store's line {} is not an event: {e}",
                hit.seq
            ))
        })?;
        let from_text = event.text.as_deref().is_some_and(|t| !t.is_empty());
        shown.push(Shown {
            id: event.id.to_string(),
            seq: event.seq,
            kind: event.kind.as_str(),
            ts: event.ts.clone(),
            importance: event.importance,
            status: "unknown",
            status_by: None,
            field: if from_text { "text" } else { "input" },
            snippet: hit.snippet,
            rank: f64::from(hit.rank),
            score: f64::from(hit.rank),
            exact: false,
            context: Vec::new(),
        });
    }
    print_hits(query, &shown, Some(bounds), None, json)
}
