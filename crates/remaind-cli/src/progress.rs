//! Progress for long work: one bar on stderr, drawn only when stderr is a terminal.

use indicatif::{ProgressBar, ProgressStyle};

/// A bar with `template` (indicatif's syntax); hidden when `quiet` or when stderr is not a
/// terminal (indicatif draws nothing then), so piped and `--json` output stays clean.
pub(crate) fn bar(template: &str, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
