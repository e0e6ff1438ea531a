//! The prompt that tells a model how to use the tools: when to record what.

/// The prompt's name.
pub const PROMPT_NAME: &str = "remaind-usage";

/// What the prompt is for (shown in `prompts/list`).
pub(crate) const PROMPT_DESCRIPTION: &str = "How to use Remaind's tools in this session: when to record what, and how to read context back.";

/// The prompt's text, also the server's `instructions`.
pub const USAGE: &str = "\
This project keeps its memory in Remaind: an append-only, hash-chained, redacted ledger of \
events, compacted into a validated state and handover. Hooks capture prompts and tool calls; \
only you can record what you decided and why. Use the tools as follows.

Record (tool `record`) as soon as it happens, one fact per call, in one or two sentences:
- decision: a choice that later work depends on (\"Use SQLite for the index, not Postgres\"). \
Cite what it rests on in `refs`.
- correction: the user or a result shows an earlier event wrong. Give `supersedes` with the \
ids it replaces, and state the right fact in full.
- constraint: a rule the work must keep (\"Never touch the migrations folder\").
- remember: the user says remember/always/never. Quote them.
- blocker: something stops progress. Close it later with a result whose `resolves` names it.
- result: work finished or a test outcome. Give `resolves` for the next_step or blocker it \
closes.
- next_step: before you stop, or when the plan changes, the very next action.
- file_change: a file created, changed or removed that matters later (path in `text`).
- note: anything else worth keeping.
Do not record secrets on purpose (they are redacted anyway) and do not re-record what hooks \
capture (the user's messages, raw tool calls).

Read context in three steps, paying tokens only for what you open:
1. `search` (query, kinds, current_only, since/until, limit/offset) for compact hits with ids;
2. `timeline` (anchor id or query, before/after) for the lead-up and aftermath;
3. `get_events` (ids, or from/before + limit) for full events.

Lifecycle:
- At the start of a session, or after the context was reset, call `resume` and follow \
`gate.proceed`: when false, deal with every reason first.
- Call `monitor` with the tokens you have used; when the action says compact, call `compact` \
(the built-in compactor, or your own candidate state + handover). A rejected compaction \
changes nothing and lists every failed check with the events it names.
- `status` shows where things stand without writing anything. The resources \
remaind://handover, remaind://state, remaind://resume-packet and remaind://events/{id} hold \
the same content for reading whole.";
