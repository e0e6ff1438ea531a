//! `remaind log`.

use std::io::{Read, Write};
use std::process::ExitCode;

use remaind_events::EventId;
use remaind_service::{LogFlags, LogRequest};

use crate::args::log::Args;
use crate::cli_error::CliError;
use crate::global::Global;

fn print_ids(ids: &[EventId], json: bool) -> Result<(), CliError> {
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let res = if json {
        let list: Vec<String> = ids.iter().map(ToString::to_string).collect();
        let v = if list.len() == 1 {
            serde_json::json!({ "id": list[0], "ids": list })
        } else {
            serde_json::json!({ "ids": list })
        };
        writeln!(out, "{v}")
    } else {
        ids.iter().try_for_each(|id| writeln!(out, "{id}"))
    };
    res.and_then(|()| out.flush()).map_err(CliError::stdout)
}

/// Stdin read to its end. A regular file is read at its size at once, in parts by a few
/// threads (copying and faulting in the pages of a large input are the slow part), instead
/// of growing the buffer along the way; a pipe grows it as needed.
fn read_stdin() -> std::io::Result<Vec<u8>> {
    use std::io::{Seek, SeekFrom};
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileExt;
    /// Below this, one thread reads.
    const PARALLEL_MIN: usize = 8 << 20;
    const PARTS: usize = 4;
    let file = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .map(std::fs::File::from);
    let mut input = Vec::new();
    if let Ok(mut file) = file
        && let Ok(meta) = file.metadata()
        && meta.is_file()
    {
        // The clone shares stdin's offset: read from it, and leave it at the end.
        let start = file.stream_position()?;
        let len = usize::try_from(meta.len().saturating_sub(start)).unwrap_or(0);
        if len >= PARALLEL_MIN {
            input = vec![0; len];
            let part = len.div_ceil(PARTS);
            std::thread::scope(|scope| {
                let readers: Vec<_> = input
                    .chunks_mut(part)
                    .enumerate()
                    .map(|(i, chunk)| {
                        let file = &file;
                        scope.spawn(move || file.read_exact_at(chunk, start + (i * part) as u64))
                    })
                    .collect();
                readers.into_iter().try_for_each(|r| {
                    r.join()
                        .unwrap_or_else(|_| Err(std::io::Error::other("a reader panicked")))
                })
            })?;
            file.seek(SeekFrom::Start(start + len as u64))?;
            // Whatever was appended meanwhile.
            file.read_to_end(&mut input)?;
            return Ok(input);
        }
        input.reserve_exact(len.saturating_add(1));
    }
    std::io::stdin().lock().read_to_end(&mut input)?;
    Ok(input)
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    // Check and read all input before opening (and possibly recovering) the ledger.
    let output_bytes = match &args.output_file {
        Some(f) => Some(
            std::fs::read(f)
                .map_err(|e| CliError::invalid(format!("--output-file {f}: cannot read: {e}")))?,
        ),
        None => None,
    };
    let request = if args.stdin {
        let input =
            read_stdin().map_err(|e| CliError::runtime(format!("cannot read stdin: {e}")))?;
        LogRequest::from_json_lines(input)?
    } else if let Some(j) = &args.json_event {
        LogRequest::from_json(j, output_bytes)?
    } else {
        let flags = LogFlags {
            kind: args.kind,
            text: args.text,
            importance: args.importance,
            actor: args.actor,
            supersedes: args.supersedes,
            resolves: args.resolves,
            refs: args.refs,
            tool: args.tool,
            data: args.data,
        };
        LogRequest::from_flags(&flags, output_bytes)?
    };
    let ids = remaind_service::log(&global.context()?, request)?;
    print_ids(&ids, args.json)?;
    Ok(ExitCode::SUCCESS)
}
