//! Colour for human output: only when stdout is a terminal, never when `NO_COLOR` is set
//! (to anything non-empty, <https://no-color.org>) or `TERM=dumb`. JSON output is never
//! coloured. Plain ANSI SGR sequences; nothing to configure.

use std::io::IsTerminal;

/// Whether to colour what goes to stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Style {
    enabled: bool,
}

impl Style {
    /// Decides from the environment and stdout.
    #[expect(clippy::disallowed_methods, reason = "the CLI reads the environment")]
    pub(crate) fn stdout() -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        Style {
            enabled: !no_color && !dumb && std::io::stdout().is_terminal(),
        }
    }

    fn paint(self, sgr: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{sgr}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Something that went as designed.
    pub(crate) fn good(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Something that failed or was rejected.
    pub(crate) fn bad(self, text: &str) -> String {
        self.paint("31", text)
    }

    /// A label or heading.
    pub(crate) fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Secondary detail (ids, paths).
    pub(crate) fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }
}
