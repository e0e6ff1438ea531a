//! `remaind events`.

use std::io::Write;
use std::process::ExitCode;

use camino::Utf8Path;
use remaind_events::Event;
use remaind_index::Index;
use remaind_ledger::{Filter, Ledger};

use crate::cli_error::CliError;
use crate::global::Global;

/// Print a slice of the ledger: from a seq forward, or the events before a seq (default: the
/// last N). Positional: reading a slice never parses the whole log. A filtered slice
/// (--kind, --min-importance) is read from the index when it is present and matches the
/// ledger, so a rare kind does not scan the whole log; the events are the same either way.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind events                          # the last 20 events\n  \
remaind events --from 120 --limit 50\n  \
remaind events --before 300 --limit 10 --kind decision,constraint\n  \
remaind events --min-importance 2 --json | jq .text\n  \
remaind events --follow --json                # then every new event, once, in order")]
pub(crate) struct Args {
    /// First event to show, by id or seq (`e120` or `120`: events with seq >= 120).
    #[arg(long, value_name = "EVENT", conflicts_with = "before", value_parser = crate::cmd::event_seq)]
    from: Option<u64>,
    /// Show the events before this one (the closest ones), by id or seq.
    #[arg(long, value_name = "EVENT", value_parser = crate::cmd::event_seq)]
    before: Option<u64>,
    /// How many events to show.
    #[arg(long, value_name = "N", default_value_t = 20)]
    limit: usize,
    /// Only these kinds (comma-separated or repeated).
    #[arg(long, value_name = "KIND", value_delimiter = ',')]
    kind: Vec<String>,
    /// Only events of at least this importance (0..=3).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=3))]
    min_importance: Option<u8>,
    /// Print JSON Lines (one stored event per line).
    #[arg(long)]
    json: bool,
    /// After the slice, keep printing new events as they are appended, each exactly once and
    /// in order (on a replica of a shared store, the events every machine appends), until
    /// interrupted.
    #[arg(long, conflicts_with = "before")]
    follow: bool,
}

/// How long one wait for new events lasts before the follower looks again.
const FOLLOW_WAIT: std::time::Duration = std::time::Duration::from_secs(2);
/// How often a follower of a plain folder looks at the log.
const FOLLOW_POLL: std::time::Duration = std::time::Duration::from_millis(200);

fn readable(ev: &Event) -> String {
    let mut line = format!(
        "{:<6} {} {:<17} i{}",
        ev.id.to_string(),
        ev.ts,
        ev.kind.as_str(),
        ev.importance
    );
    if let Some(a) = &ev.actor {
        line.push_str(&format!(" @{a}"));
    }
    if let Some(t) = &ev.tool {
        line.push_str(&format!(" [{}]", t.name));
    }
    if let Some(t) = &ev.text {
        line.push_str("  ");
        line.push_str(&remaind_events::one_line(t, 120));
    }
    for (label, ids) in [
        ("refs", &ev.refs),
        ("supersedes", &ev.supersedes),
        ("resolves", &ev.resolves),
    ] {
        if !ids.is_empty() {
            let list: Vec<String> = ids.iter().map(ToString::to_string).collect();
            line.push_str(&format!("  {label}:{}", list.join(",")));
        }
    }
    if !ev.artifact.is_empty() {
        line.push_str(&format!("  artifacts:{}", ev.artifact.len()));
    }
    line
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let kinds = args
        .kind
        .iter()
        .map(|k| remaind_ledger::parse_kind(k.trim()))
        .collect::<Result<Vec<_>, _>>()?;
    let filter = Filter {
        kinds,
        min_importance: args.min_importance,
    };
    let ctx = match global.context_or_store()? {
        crate::global::Found::Folder(ctx) => ctx,
        crate::global::Found::Store(setting) => return from_store(&setting, &args, &filter),
    };
    let ledger = Ledger::open(ctx.root())?;
    let filtered = !filter.kinds.is_empty() || filter.min_importance.is_some();
    let indexed = if filtered {
        indexed_slice(ctx.root(), &ledger, &args, &filter)
    } else {
        None
    };
    let events = match indexed {
        Some(events) => events,
        None => match (args.from, args.before) {
            (Some(from), _) => ledger.range(from, args.limit, &filter)?,
            (None, Some(before)) => ledger.before(before, args.limit, &filter)?,
            (None, None) => {
                let (head, _) = ledger.head()?;
                ledger.before(head + 1, args.limit, &filter)?
            }
        },
    };
    let printed_to = match (args.from, events.last()) {
        (_, Some(last)) => last.seq,
        (Some(from), None) => from.saturating_sub(1),
        (None, None) => ledger.head()?.0,
    };
    print(&events, args.json)?;
    if args.from.is_some() && events.is_empty() {
        say_past_head(&args, ledger.head()?.0);
    }
    if args.follow {
        follow(&ledger, printed_to, &filter, args.json)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// An empty answer past the head would read as "nothing happened": say where the ledger ends.
fn say_past_head(args: &Args, head: u64) {
    let Some(from) = args.from.filter(|from| *from > head) else {
        return;
    };
    let head = if head == 0 {
        "the ledger is empty".to_owned()
    } else {
        format!("the ledger's head is e{head}")
    };
    let after = if args.follow { "; following" } else { "" };
    eprintln!("remaind: no events from e{from}: {head}{after}");
}

/// Lines read from the store per round trip.
const STORE_PAGE: usize = 1000;

/// `events` on a machine without a `.context/` folder: the project's events read straight
/// from the shared store `--store`/`--project` name (the same slices, filters and output as
/// a folder's), then followed. Nothing is written anywhere.
fn from_store(
    setting: &remaind_ledger::StoreSetting,
    args: &Args,
    filter: &Filter,
) -> Result<ExitCode, CliError> {
    let failed = |action| crate::global::store_failed(setting, action);
    let mut store =
        remaind_pg::Store::connect(&setting.url, &setting.project).map_err(failed("connect"))?;
    let head = store.head().map_err(failed("read the head"))?.seq;
    let events = match (args.from, args.before) {
        (Some(from), _) => {
            let mut out = Vec::new();
            let mut after = from.saturating_sub(1);
            while out.len() < args.limit && after < head {
                let page = store_events(&mut store, setting, after, head, STORE_PAGE)?;
                let Some(last) = page.last() else { break };
                after = last.seq;
                out.extend(page.into_iter().filter(|e| filter.matches(e)));
            }
            out.truncate(args.limit);
            out
        }
        (None, before) => {
            // Pages backwards from the seq before `before` until `limit` events match.
            let mut end = before.unwrap_or(head + 1).min(head + 1).saturating_sub(1);
            let mut out: Vec<Event> = Vec::new();
            while out.len() < args.limit && end > 0 {
                let start = end.saturating_sub(STORE_PAGE as u64);
                let page = store_events(&mut store, setting, start, end, (end - start) as usize)?;
                let mut matched: Vec<Event> =
                    page.into_iter().filter(|e| filter.matches(e)).collect();
                matched.append(&mut out);
                out = matched;
                end = start;
            }
            let cut = out.len().saturating_sub(args.limit);
            out.split_off(cut)
        }
    };
    let printed_to = match (args.from, events.last()) {
        (_, Some(last)) => last.seq,
        (Some(from), None) => from.saturating_sub(1).min(head),
        (None, None) => head,
    };
    print(&events, args.json)?;
    if args.from.is_some() && events.is_empty() {
        say_past_head(args, head);
    }
    if !args.follow {
        return Ok(ExitCode::SUCCESS);
    }
    let mut after = printed_to;
    loop {
        let now = match store.wait(after, FOLLOW_WAIT) {
            Ok(now) => now,
            Err(e) if e.is_connection_lost() => {
                store = reconnect(setting, &e)?;
                continue;
            }
            Err(e) => return Err(failed("wait for appends")(e)),
        };
        if now.seq <= after {
            continue;
        }
        let page = match store.lines(after, now.seq, STORE_PAGE) {
            Ok(page) => page,
            Err(e) if e.is_connection_lost() => {
                store = reconnect(setting, &e)?;
                continue;
            }
            Err(e) => return Err(failed("read events")(e)),
        };
        let page = parse_events(setting, page)?;
        let Some(last) = page.last() else { continue };
        after = last.seq;
        let shown: Vec<Event> = page.into_iter().filter(|e| filter.matches(e)).collect();
        print(&shown, args.json)?;
    }
}

/// The first wait before connecting again after the connection was lost; doubled on each
/// failure up to [`RECONNECT_MAX`].
const RECONNECT_FIRST: std::time::Duration = std::time::Duration::from_millis(250);
const RECONNECT_MAX: std::time::Duration = std::time::Duration::from_secs(5);

/// Connect to `setting`'s store again after `lost`, saying so on stderr, waiting longer after
/// each failure (a server restarting refuses connections for a while); a follower's position
/// is its last seq, so nothing is skipped or repeated across the reconnect. Gives up only on
/// an error no new connection can fix (a privilege, a missing project).
fn reconnect(
    setting: &remaind_ledger::StoreSetting,
    lost: &remaind_pg::Error,
) -> Result<remaind_pg::Store, CliError> {
    eprintln!(
        "remaind: lost the connection to the store of project {:?} ({}); reconnecting",
        setting.project,
        std::error::Error::source(lost).map_or_else(|| lost.to_string(), ToString::to_string)
    );
    let mut wait = RECONNECT_FIRST;
    loop {
        std::thread::sleep(wait);
        match remaind_pg::Store::connect(&setting.url, &setting.project) {
            Ok(store) => {
                eprintln!(
                    "remaind: reconnected to the store of project {:?}; following on",
                    setting.project
                );
                return Ok(store);
            }
            Err(e) if e.is_connection_lost() => {
                wait = (wait * 2).min(RECONNECT_MAX);
                eprintln!(
                    "remaind: the store is still unreachable; trying again in {} ms",
                    wait.as_millis()
                );
            }
            Err(e) => return Err(crate::global::store_failed(setting, "reconnect")(e)),
        }
    }
}

/// Up to `limit` events after seq `after` and at most `upto` (the head read: a row past it
/// was not written by an append), parsed from the store's lines.
fn store_events(
    store: &mut remaind_pg::Store,
    setting: &remaind_ledger::StoreSetting,
    after: u64,
    upto: u64,
    limit: usize,
) -> Result<Vec<Event>, CliError> {
    let lines = store
        .lines(after, upto, limit)
        .map_err(crate::global::store_failed(setting, "read events"))?;
    parse_events(setting, lines)
}

/// The store's lines as events.
fn parse_events(
    setting: &remaind_ledger::StoreSetting,
    lines: Vec<(u64, Vec<u8>)>,
) -> Result<Vec<Event>, CliError> {
    lines
        .into_iter()
        .map(|(seq, line)| {
            serde_json::from_slice(&line).map_err(|e| {
                CliError::runtime(format!(
                    "the shared store's line {seq} of project {:?} is not an event: {e}",
                    setting.project
                ))
            })
        })
        .collect()
}

fn print(events: &[Event], json: bool) -> Result<(), CliError> {
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let res = events.iter().try_for_each(|ev| {
        if json {
            let line = serde_json::to_string(ev).map_err(std::io::Error::other)?;
            writeln!(out, "{line}")
        } else {
            writeln!(out, "{}", readable(ev))
        }
    });
    res.and_then(|()| out.flush()).map_err(CliError::stdout)
}

/// Print every event after seq `after` as it arrives, in order, each once: the position is
/// the last seq read (matching the filter or not), so nothing is skipped or repeated however
/// the waits end.
fn follow(ledger: &Ledger, mut after: u64, filter: &Filter, json: bool) -> Result<(), CliError> {
    let shared = ledger.store_project().is_some();
    let mut backoff = RECONNECT_FIRST;
    loop {
        let head = match ledger.sync(FOLLOW_WAIT) {
            Ok(head) => {
                backoff = RECONNECT_FIRST;
                head
            }
            // A replica whose store restarted: said, then tried again, waiting longer
            // each time; the position is the folder's, so nothing is skipped or repeated.
            Err(e) if e.is_connection_lost() => {
                eprintln!(
                    "remaind: {e}: the store is unreachable; reconnecting in {} ms",
                    backoff.as_millis()
                );
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(RECONNECT_MAX);
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        if head <= after {
            if !shared {
                std::thread::sleep(FOLLOW_POLL);
            }
            continue;
        }
        let page = ledger.range(after + 1, 1000, &remaind_ledger::Filter::default())?;
        let Some(last) = page.last() else { continue };
        after = last.seq;
        let shown: Vec<Event> = page.into_iter().filter(|e| filter.matches(e)).collect();
        print(&shown, json)?;
    }
}

/// The filtered slice from the index, or `None` when the index is absent, cannot be opened
/// (permissions, corruption) or would need a full rebuild: the caller then reads the ledger,
/// which gives the same events. Never creates or rebuilds the index.
fn indexed_slice(
    root: &Utf8Path,
    ledger: &Ledger,
    args: &Args,
    filter: &Filter,
) -> Option<Vec<Event>> {
    let present =
        std::fs::symlink_metadata(root.join(remaind_index::DB_PATH)).is_ok_and(|m| m.is_file());
    if !present {
        return None;
    }
    let mut index = Index::open(root, ledger).ok()?;
    if !index.catch_up_incremental().ok()? {
        return None;
    }
    match (args.from, args.before) {
        (Some(from), _) => index.range(from, args.limit, filter).ok(),
        (None, Some(before)) => index.before(before, args.limit, filter).ok(),
        (None, None) => {
            let (head, _) = ledger.head().ok()?;
            index.before(head + 1, args.limit, filter).ok()
        }
    }
}
