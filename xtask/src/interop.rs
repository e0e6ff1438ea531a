//! `cargo xtask mcp-interop`: the official MCP Python SDK's stdio client drives `remaind mcp`
//! (crates/remaind-mcp/tests/interop/client.py). The SDK is installed by this step itself,
//! pinned, into target/mcp-venv from PyPI; any failure (no python3, no network, a failed
//! check) fails the step: it never skips.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::jobs::Job;
use crate::run::{Binary, Runner, remaind_binary, step, workspace_root};

/// The pinned Python SDK (`pip install mcp==…`).
pub(crate) const PYTHON_SDK: &str = "2.3.0";

/// The interpreter that creates the venv: `$REMAIND_PYTHON`, else `python3`.
fn python() -> String {
    std::env::var("REMAIND_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// True when the venv already holds the pinned SDK.
fn installed(venv_python: &Path) -> bool {
    Command::new(venv_python)
        .args([
            "-c",
            &format!(
                "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '{PYTHON_SDK}')"
            ),
        ])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The venv of the pinned SDK, `target/mcp-venv`.
fn venv() -> PathBuf {
    workspace_root().join("target/mcp-venv")
}

/// The pinned SDK installed into its venv unless it is there, each command through `run`.
pub(crate) fn install_sdk(run: Runner<'_>) -> Result<(), String> {
    let venv = venv();
    let venv_python = venv.join("bin/python");
    if installed(&venv_python) {
        return Ok(());
    }
    let mut create = Command::new(python());
    create.arg("-m").arg("venv").arg("--clear").arg(&venv);
    run("create target/mcp-venv", create)
        .map_err(|e| format!("{e}; the MCP interop test needs python3 (>= 3.10) with venv"))?;
    let mut pip = Command::new(&venv_python);
    pip.args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        &format!("mcp=={PYTHON_SDK}"),
    ]);
    run(&format!("pip install mcp=={PYTHON_SDK}"), pip)
        .map_err(|e| format!("{e}; the MCP interop test needs PyPI to install the SDK"))
}

/// The client run against `remaind` (built when asked), the pinned SDK installed if needed.
pub(crate) fn job(binary: Binary) -> Result<Job, String> {
    let root = workspace_root();
    let binary = remaind_binary(binary, "the MCP interop test")?;
    install_sdk(&mut step)?;
    let venv_python = venv().join("bin/python");

    let work = root.join(format!("target/mcp-interop/{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let mut client = Command::new(&venv_python);
    client
        .arg(root.join("crates/remaind-mcp/tests/interop/client.py"))
        .arg(&binary)
        .arg(&work)
        .env_remove("REMAIND_DIR");
    let mut job = Job::new(
        format!("MCP interop: official Python SDK {PYTHON_SDK} stdio client"),
        client,
    );
    job.must_test = true;
    job.scratch = Some(work);
    Ok(job)
}
