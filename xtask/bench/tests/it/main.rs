//! The bench's command line as `cargo xtask chaos`/`bench`/`ui-browser` and a user typing it
//! meet it. Being an integration test, it also makes `cargo test --workspace` build the
//! `remaind-bench` binary with the workspace's features, which `cargo xtask ci`'s crash and
//! browser steps then run instead of compiling the bench again.

use std::process::{Command, Output};

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_remaind-bench"))
        .args(args)
        .output()
        .expect("remaind-bench starts")
}

#[test]
fn help_lists_every_command() {
    let out = bench(&["--help"]);
    assert!(out.status.success());
    let usage = String::from_utf8_lossy(&out.stdout);
    for command in [
        "bench [--quick] [--only LAYER]",
        "chaos [--kills N]",
        "ui-browser",
    ] {
        assert!(usage.contains(command), "usage lacks {command}:\n{usage}");
    }
}

#[test]
fn a_count_that_is_not_a_number_is_refused_with_an_example() {
    let out = bench(&["chaos", "--kills", "many"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--kills takes a whole number, e.g. --kills 300"),
        "{err}"
    );
}

#[test]
fn an_unknown_command_is_refused_with_the_usage() {
    let out = bench(&["bnech"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown command `bnech`"), "{err}");
    assert!(err.contains("usage: remaind-bench"), "{err}");
}

#[test]
fn an_unknown_layer_is_refused_before_anything_runs() {
    let out = bench(&["bench", "--only", "nosuchlayer"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--only nosuchlayer: no such benchmark; use one of index,"),
        "{err}"
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
