//! `remaind search`.

use std::io::Write;
use std::process::ExitCode;

use remaind_events::Kind;
use remaind_index::Syntax::{Fts5, Plain};
use remaind_service::{SearchOptions, Source};
use serde_json::Value;

use crate::args::search::Args;
use crate::cli_error::CliError;
use crate::global::Global;

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
