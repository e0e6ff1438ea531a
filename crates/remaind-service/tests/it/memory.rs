//! The memory jobs as `remaind memory` runs them.

use remaind_fs::ContextDir;
use remaind_memory::Status;
use remaind_service::{MemoryAnswer, MemoryJob, memory};

fn folder() -> (tempfile::TempDir, ContextDir) {
    crate::common::folder("service-memory")
}

fn proposal(answer: MemoryAnswer) -> remaind_memory::Proposal {
    match answer {
        MemoryAnswer::Proposal(p) => p,
        other => panic!("not a proposal: {other:?}"),
    }
}

/// A proposal is listed, accepted into MEMORY.md, and found in the tree.
#[test]
fn propose_accept_and_find_it_in_the_tree() {
    let (_tmp, ctx) = folder();
    let p = proposal(
        memory(
            &ctx,
            MemoryJob::Propose {
                title: "Test command".to_owned(),
                text: "Run cargo xtask ci before every push.".to_owned(),
                cites: Vec::new(),
            },
        )
        .expect("propose"),
    );
    assert_eq!(p.status, Status::Proposed);
    match memory(&ctx, MemoryJob::List).expect("list") {
        MemoryAnswer::Proposals(all) => assert_eq!(all, vec![p.clone()]),
        other => panic!("not a list: {other:?}"),
    }
    let accepted = proposal(memory(&ctx, MemoryJob::Accept { id: p.id.clone() }).expect("accept"));
    assert_eq!(accepted.status, Status::Accepted);
    let tree = match memory(
        &ctx,
        MemoryJob::Tree {
            budget: None,
            query: Some("xtask".to_owned()),
        },
    )
    .expect("tree")
    {
        MemoryAnswer::Tree(tree) => tree,
        other => panic!("not a tree: {other:?}"),
    };
    assert!(
        remaind_memory::render_listing(&tree).contains("xtask"),
        "{tree:?}"
    );
}

/// A citation that is no event id, and a budget of nothing, are refused as invalid input.
#[test]
fn bad_citations_and_a_zero_budget_are_refused() {
    let (_tmp, ctx) = folder();
    let err = memory(
        &ctx,
        MemoryJob::Propose {
            title: "Port".to_owned(),
            text: "8080".to_owned(),
            cites: vec!["twelve".to_owned()],
        },
    )
    .expect_err("a bad citation");
    assert!(err.is_invalid_input());
    assert!(err.to_string().contains("--cites `twelve`"), "{err}");
    match memory(&ctx, MemoryJob::List).expect("list") {
        MemoryAnswer::Proposals(all) => assert!(all.is_empty()),
        other => panic!("not a list: {other:?}"),
    }
    let err = memory(
        &ctx,
        MemoryJob::Tree {
            budget: Some(0),
            query: None,
        },
    )
    .expect_err("no budget");
    assert!(err.is_invalid_input());
}
