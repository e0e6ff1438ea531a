//! `cargo xtask ui-browser`: headless Chromium drives `remaind ui` (the suite is
//! xtask/bench/src/ui_browser.rs). Debian's `chromium` and `chromium-driver` are installed
//! with apt-get when missing (CI runs as root), as the MCP interop step installs its SDK; a
//! browser that downloads itself cannot work here. Any failure fails the step: it never skips.

use std::path::Path;
use std::process::Command;

use crate::jobs::Job;
use crate::run::{Binary, Runner, bench_command, remaind_binary, step};

const BROWSER: &str = "/usr/bin/chromium";
const DRIVER: &str = "/usr/bin/chromedriver";

/// Install the browser and its driver from Debian when either is missing, each command
/// through `run`.
pub(crate) fn ensure_browser(run: Runner<'_>) -> Result<(), String> {
    if Path::new(BROWSER).exists() && Path::new(DRIVER).exists() {
        return Ok(());
    }
    let mut update = Command::new("apt-get");
    update.args(["update", "-q"]);
    run("apt-get update", update)
        .map_err(|e| format!("{e}; the browser suite needs apt-get (as root) for chromium"))?;
    let mut install = Command::new("apt-get");
    install
        .args(["install", "-y", "-q", "chromium", "chromium-driver"])
        .env("DEBIAN_FRONTEND", "noninteractive");
    run("apt-get install chromium chromium-driver", install)
        .map_err(|e| format!("{e}; the browser suite needs Debian's chromium and chromium-driver"))
}

/// The suite run against `remaind` (built when asked), the browser installed when missing.
pub(crate) fn job(binary: Binary) -> Result<Job, String> {
    ensure_browser(&mut step)?;
    let remaind = remaind_binary(binary, "the browser suite")?;
    let mut suite = bench_command(binary);
    suite
        .args(["ui-browser", "--remaind"])
        .arg(&remaind)
        .env_remove("REMAIND_DIR");
    let mut job = Job::new(
        "remaind ui in headless Chromium (demo + imported transcript)",
        suite,
    );
    job.must_test = true;
    Ok(job)
}
