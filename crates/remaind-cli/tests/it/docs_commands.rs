//! Docs that cannot drift: every `remaind …` command line of the README and `docs/` (in a
//! fenced block or an inline code span) names subcommands that exist and only flags their
//! `--help` lists.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

/// The `remaind` command lines of the fenced code blocks of `text`, each as its words up to
/// the first shell operator or comment.
fn command_lines(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            // Inline code: `` `remaind …` `` spans.
            for span in line.split('`').skip(1).step_by(2) {
                if let Some(rest) = span.strip_prefix("remaind ") {
                    out.push(words_of(rest));
                }
            }
            continue;
        }
        let line = line.trim_start().trim_start_matches("$ ");
        let Some(rest) = line.strip_prefix("remaind ") else {
            continue;
        };
        out.push(words_of(rest));
    }
    out
}

/// The words of a command line up to the first shell operator, comment or redirection.
fn words_of(rest: &str) -> Vec<String> {
    rest.split_whitespace()
        .take_while(|w| !matches!(*w, "|" | "||" | "&&" | ";" | "\\" | "…"))
        .take_while(|w| !w.starts_with('#') && !w.starts_with('<') && !w.starts_with('>'))
        .map(str::to_owned)
        .collect()
}

/// The help text of `remaind PATH…`, cached.
fn help<'c>(cache: &'c mut HashMap<Vec<String>, String>, path: &[String]) -> &'c str {
    cache.entry(path.to_vec()).or_insert_with(|| {
        let out = Command::new(env!("CARGO_BIN_EXE_remaind"))
            .args(path)
            .arg("--help")
            .output()
            .expect("run --help");
        String::from_utf8_lossy(&out.stdout).into_owned()
    })
}

/// The subcommands a help text lists under `Commands:`.
fn subcommands(help: &str) -> Vec<String> {
    help.split("Commands:")
        .nth(1)
        .map(|rest| {
            rest.lines()
                .skip(1)
                .take_while(|l| l.starts_with("  "))
                .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Global options that take a value and may come before the subcommand.
const GLOBAL_WITH_VALUE: &[&str] = &["--dir", "--store", "--project"];

#[test]
fn every_documented_command_and_flag_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .flatten()
    {
        if entry.path().extension().is_some_and(|e| e == "md") {
            files.push(entry.path());
        }
    }
    let mut cache = HashMap::new();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read");
        for words in command_lines(&text) {
            let mut path: Vec<String> = Vec::new();
            let mut rest = words.iter();
            while let Some(w) = rest.next() {
                if w.starts_with('-') {
                    if path.is_empty() && GLOBAL_WITH_VALUE.contains(&w.as_str()) {
                        // `remaind --store URL --project P events …`: a global option first.
                        rest.next();
                        continue;
                    }
                    break;
                }
                if subcommands(help(&mut cache, &path)).contains(w) {
                    path.push(w.clone());
                } else {
                    break;
                }
            }
            if path.is_empty() && words.first().is_some_and(|w| !w.starts_with('-')) {
                wrong.push(format!(
                    "{}: `remaind {}`: no such command",
                    file.display(),
                    words.join(" ")
                ));
                continue;
            }
            let text = help(&mut cache, &path).to_owned();
            for flag in words.iter().filter(|w| w.starts_with("--")) {
                let name = flag.split('=').next().unwrap_or(flag);
                let listed = text
                    .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
                    .any(|t| t == name);
                if !listed {
                    wrong.push(format!(
                        "{}: `remaind {}`: `{name}` is not an option of `remaind {}`",
                        file.display(),
                        words.join(" "),
                        path.join(" ")
                    ));
                }
            }
            checked += 1;
        }
    }
    assert!(
        checked > 30,
        "only {checked} documented command lines found"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
