//! The fixture project's instruction files compiled into the tree.

use remaind_memory::compile;

fn fixture(name: &str) -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/memory/project/"
    );
    std::fs::read_to_string(format!("{path}{name}")).expect("fixture")
}

#[test]
fn golden_tree_of_the_fixture_project() {
    let mut listing = String::new();
    for name in ["CLAUDE.md", "AGENTS.md"] {
        for n in compile(name, &fixture(name)) {
            listing.push_str(&format!(
                "{} {:<8} {:>3}t line {:>2} parent {:<12} {}: {}\n",
                n.id,
                n.node_type.as_str(),
                n.tokens,
                n.line,
                n.parent.as_deref().unwrap_or("-"),
                n.file,
                n.label
            ));
        }
    }
    insta::assert_snapshot!(listing);
}

#[test]
fn the_tree_of_a_context_lists_memory_and_instructions_hottest_first() {
    let p = crate::common::Project::new();
    std::fs::write(p.root.join("CLAUDE.md"), fixture("CLAUDE.md")).expect("write");
    std::fs::write(p.root.join("AGENTS.md"), fixture("AGENTS.md")).expect("write");
    let ledger = p.ledger();
    let memory = remaind_memory::Memory::open(&p.ctx, &ledger).expect("open");
    let all = memory.tree(None).expect("tree");
    assert!(all.nodes.iter().any(|n| n.file == "AGENTS.md"));
    assert!(
        all.nodes
            .iter()
            .any(|n| n.file == ".context/memory/MEMORY.md")
    );
    assert_eq!(all.omitted, 0);
    // Opening a node warms it: it leads the next listing.
    let deploys = all
        .nodes
        .iter()
        .find(|n| {
            n.label == "Staging deploys go out from `main` every hour; production needs a tag."
        })
        .expect("the deploys paragraph")
        .id
        .clone();
    let node = memory.get(&deploys).expect("get");
    assert!(node.text.contains("production needs a tag"));
    let warm = memory.tree(Some(40)).expect("tree");
    assert_eq!(warm.nodes[0].id, deploys);
    assert!(warm.nodes[0].temperature > 0.99);
    assert!(warm.tokens <= 40 && warm.omitted > 0, "{warm:?}");
    let err = memory.get("000000000000").expect_err("no such node");
    assert!(err.is_invalid_input());
}

#[test]
fn a_damaged_tree_cache_is_rebuilt_not_trusted() {
    let p = crate::common::Project::new();
    std::fs::write(
        p.root.join("CLAUDE.md"),
        "# Build\n\nRun `cargo xtask ci`.\n",
    )
    .expect("write");
    let ledger = p.ledger();
    let m = remaind_memory::Memory::open(&p.ctx, &ledger).expect("open");
    let good = m.nodes().expect("nodes");
    let cache = p.ctx.join("db/memory_tree");
    for damage in [
        "",
        "remaind-memory-tree 1\nS\tCLAUDE.md\n",
        "remaind-memory-tree 1\nN\tx\n",
    ] {
        std::fs::write(&cache, damage).expect("damage");
        assert_eq!(m.nodes().expect("nodes"), good, "after {damage:?}");
    }
}

#[test]
fn a_node_cited_by_a_recent_event_warms() {
    let p = crate::common::Project::new();
    std::fs::write(
        p.root.join("CLAUDE.md"),
        "# Build\n\nRun `cargo xtask ci`.\n\n# Style\n\nOne change per commit.\n",
    )
    .expect("write");
    let ledger = p.ledger();
    let m = remaind_memory::Memory::open(&p.ctx, &ledger).expect("open");
    let style = m
        .nodes()
        .expect("nodes")
        .into_iter()
        .find(|n| n.text == "One change per commit.")
        .expect("the style paragraph");
    let cold = m.tree(None).expect("tree");
    assert!(cold.nodes.iter().all(|n| n.temperature == 0.0));
    ledger
        .append(remaind_events::NewEvent {
            kind: Some(remaind_events::Kind::Decision),
            text: Some(format!("Split the change, per memory node {}.", style.id)),
            ..Default::default()
        })
        .expect("cite");
    let warm = m.tree(None).expect("tree");
    assert_eq!(warm.nodes[0].id, style.id, "the cited node comes first");
    assert!(warm.nodes[0].temperature > 0.9);
}

#[test]
fn configured_paths_join_the_tree_and_a_bad_configuration_is_refused() {
    let p = crate::common::Project::new();
    std::fs::create_dir_all(p.root.join("docs")).expect("docs");
    std::fs::write(
        p.root.join("docs/style.md"),
        "# Style\n\nOne change per commit.\n",
    )
    .expect("write");
    let config = p.ctx.join("schemas/memory.json");
    std::fs::create_dir_all(p.ctx.join("schemas")).expect("schemas");
    std::fs::write(
        &config,
        r#"{"tree_paths": ["docs/style.md", "docs/missing.md"]}"#,
    )
    .expect("config");
    let ledger = p.ledger();
    let m = remaind_memory::Memory::open(&p.ctx, &ledger).expect("open");
    let nodes = m.nodes().expect("nodes");
    assert!(
        nodes
            .iter()
            .any(|n| n.file == "docs/style.md" && n.text == "One change per commit."),
        "{nodes:?}"
    );
    for bad in [
        r#"{"tree_paths": ["/etc/passwd"]}"#,
        r#"{"tree_paths": ["../elsewhere.md"]}"#,
        r#"{"paths": ["docs/style.md"]}"#,
        "not json",
    ] {
        std::fs::write(&config, bad).expect("config");
        let err = m.nodes().expect_err(bad);
        assert!(err.is_invalid_input(), "{bad}: {err}");
        assert!(err.to_string().contains("memory.json"), "{err}");
    }
}

#[test]
fn token_counts_follow_the_tokenizer_monitor_uses() {
    let p = crate::common::Project::new();
    // Text whose count differs between the two vocabularies.
    let text = "Ünïcödé déjà vu — 漢字かな交じり文 and emoji 🚀🚀 in one paragraph.";
    std::fs::write(p.root.join("CLAUDE.md"), format!("# T\n\n{text}\n")).expect("write");
    let ledger = p.ledger();
    let m = remaind_memory::Memory::open(&p.ctx, &ledger).expect("open");
    let count = |m: &remaind_memory::Memory| {
        m.nodes()
            .expect("nodes")
            .into_iter()
            .find(|n| n.text == text)
            .expect("node")
            .tokens
    };
    assert_eq!(
        count(&m),
        remaind_memory::TokenizerName::O200kBase.count(text)
    );
    std::fs::create_dir_all(p.ctx.join("schemas")).expect("schemas");
    std::fs::write(
        p.ctx.join("schemas/thresholds.json"),
        r#"{"tokenizer": "cl100k_base"}"#,
    )
    .expect("thresholds");
    // The cache made with the other vocabulary is not reused.
    assert_eq!(
        count(&m),
        remaind_memory::TokenizerName::Cl100kBase.count(text)
    );
    assert_ne!(
        remaind_memory::TokenizerName::Cl100kBase.count(text),
        remaind_memory::TokenizerName::O200kBase.count(text)
    );
}
