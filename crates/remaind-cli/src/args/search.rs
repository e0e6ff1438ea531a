//! The command line of `remaind search`: its arguments and their help.

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
    pub(crate) query: Vec<String>,
    /// Only events of this kind (repeat or separate with commas).
    #[arg(long, value_name = "KIND", value_delimiter = ',')]
    pub(crate) kind: Vec<String>,
    /// Only events of at least this importance (0-3).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=3))]
    pub(crate) min_importance: Option<u8>,
    /// Only current events (neither superseded nor resolved).
    #[arg(long)]
    pub(crate) current: bool,
    /// At most this many hits. The first k hits of a longer list are the hits of --limit k.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub(crate) limit: usize,
    /// Bring each hit's N neighbouring events before and after it (0-20): shown indented
    /// under the hit, in --json as the hit's `context` list.
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u8).range(0..=MAX_CONTEXT as i64),
          conflicts_with = "on_store")]
    pub(crate) context: u8,
    /// Read QUERY as raw FTS5 syntax.
    #[arg(long)]
    pub(crate) fts: bool,
    /// Print the result as one JSON document: `{"query", "total", "hits": [...]}` (`hits`
    /// empty when nothing matches; `fallback` when quoted phrases found nothing and their
    /// words were searched instead).
    #[arg(long)]
    pub(crate) json: bool,
    /// Search the shared store on the server (PostgreSQL full text) instead of this folder's
    /// index: for a machine that keeps no folder. The store is --store/--project's, else the
    /// folder's store.json. Same syntax; English stems, no identifier splitting, no status
    /// (docs/fleet.md).
    #[arg(long, conflicts_with_all = ["fts", "current"])]
    pub(crate) on_store: bool,
}
