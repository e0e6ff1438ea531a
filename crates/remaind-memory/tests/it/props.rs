//! Properties of node ids, compilation and proposal names.

use proptest::prelude::*;
use remaind_memory::{Memory, compile, proposal_id, slug};

use crate::common::Project;

fn block() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{1,8}( [a-z]{1,8}){0,6}".prop_map(|s| s),
        "[a-z]{1,8}".prop_map(|s| format!("# {s}")),
        "[a-z]{1,8}".prop_map(|s| format!("## {s}")),
        "[a-z]{1,8}".prop_map(|s| format!("- {s}\n- {s} too")),
        "[a-z]{1,8}".prop_map(|s| format!("key: {s}")),
        "[a-z]{1,8}".prop_map(|s| format!("```\n{s}\n```")),
        "[a-z]{1,8}".prop_map(|s| format!("| {s} |\n|---|")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Compiling the same text twice gives the same nodes, byte for byte.
    #[test]
    fn prop_recompiling_changes_nothing(blocks in prop::collection::vec(block(), 0..12)) {
        let md = blocks.join("\n\n");
        let a = serde_json::to_vec(&compile("CLAUDE.md", &md)).unwrap_or_default();
        let b = serde_json::to_vec(&compile("CLAUDE.md", &md)).unwrap_or_default();
        prop_assert_eq!(a, b);
    }

    /// Changing one block changes that block's id and keeps the ids of the unchanged ones.
    #[test]
    fn prop_an_id_changes_only_with_its_content(
        blocks in prop::collection::vec(block(), 2..10),
        pick in any::<prop::sample::Index>(),
        extra in "[a-z]{1,8}",
    ) {
        let i = pick.index(blocks.len());
        let before = compile("CLAUDE.md", &blocks.join("\n\n"));
        let mut changed = blocks.clone();
        changed[i] = format!("{} {extra}", changed[i]);
        let after = compile("CLAUDE.md", &changed.join("\n\n"));
        let ids = |nodes: &[remaind_memory::Node]| -> Vec<(String, String)> {
            nodes.iter().map(|n| (n.text.clone(), n.id.clone())).collect()
        };
        let (before, after) = (ids(&before), ids(&after));
        for (text, id) in &after {
            if let Some((_, old)) = before.iter().find(|(t, _)| t == text) {
                // Same text: same id, unless a repeat of it moved (its repeat index did).
                let repeats = before.iter().filter(|(t, _)| t == text).count();
                if repeats == 1 && after.iter().filter(|(t, _)| t == text).count() == 1 {
                    prop_assert_eq!(id, old);
                }
            } else {
                prop_assert!(before.iter().all(|(_, old)| old != id));
            }
        }
    }

    /// The same title is always the same proposal; different titles never share one, even
    /// when their slugs are equal.
    #[test]
    fn prop_titles_map_to_stable_distinct_files(a in "[A-Za-z ]{1,20}", b in "[A-Za-z ]{1,20}") {
        prop_assert_eq!(proposal_id(&a), proposal_id(&a));
        if a != b {
            prop_assert_ne!(proposal_id(&a), proposal_id(&b));
        }
        let prefix = format!("{}--", slug(&a));
        prop_assert!(proposal_id(&a).starts_with(&prefix));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Whatever the sequence of commands and hand edits, every hand-edited text stays in
    /// MEMORY.md and in the ledger.
    #[test]
    fn prop_a_hand_edit_is_never_lost(steps in prop::collection::vec(0u8..4, 1..8)) {
        let p = Project::new();
        let ledger = p.ledger();
        let path = p.ctx.join("memory/MEMORY.md");
        let mut kept: Vec<String> = Vec::new();
        for (i, step) in steps.iter().enumerate() {
            let m = Memory::open(&p.ctx, &ledger).map_err(|e| TestCaseError::fail(e.to_string()))?;
            match step {
                0 => {
                    let line = format!("Hand note {i}: keep this.");
                    let now = std::fs::read_to_string(&path).unwrap_or_default();
                    std::fs::create_dir_all(p.ctx.join("memory")).map_err(|e| TestCaseError::fail(e.to_string()))?;
                    std::fs::write(&path, format!("{now}\n{line}\n")).map_err(|e| TestCaseError::fail(e.to_string()))?;
                    kept.push(line);
                }
                1 => {
                    let x = m.propose(&format!("Title {i}"), &format!("Fact {i}.")).map_err(|e| TestCaseError::fail(e.to_string()))?;
                    m.accept(&x.id).map_err(|e| TestCaseError::fail(e.to_string()))?;
                }
                2 => {
                    let x = m.propose(&format!("Title {i}"), &format!("Fact {i}.")).map_err(|e| TestCaseError::fail(e.to_string()))?;
                    m.reject(&x.id).map_err(|e| TestCaseError::fail(e.to_string()))?;
                }
                _ => {
                    m.sync().map_err(|e| TestCaseError::fail(e.to_string()))?;
                }
            }
        }
        Memory::open(&p.ctx, &ledger).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let now = std::fs::read_to_string(&path).unwrap_or_default();
        for line in &kept {
            prop_assert!(now.contains(line.as_str()), "{line} lost from {now}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// The memory files are derived: after any sequence of actions and hand edits, removing
    /// them and rebuilding from the ledger gives every file back byte for byte.
    #[test]
    fn prop_memory_files_are_rebuilt_from_the_ledger_byte_for_byte(
        steps in prop::collection::vec(0u8..5, 1..8),
    ) {
        let p = Project::new();
        let ledger = p.ledger();
        let fail = |e: &dyn std::fmt::Display| TestCaseError::fail(e.to_string());
        for (i, step) in steps.iter().enumerate() {
            act(&p, &ledger, i, *step).map_err(|e| fail(&e))?;
        }
        // Any pending hand edit is recorded first; then the files are what the ledger says.
        Memory::open(&p.ctx, &ledger).map_err(|e| fail(&e))?.sync().map_err(|e| fail(&e))?;
        let before = p.memory_files();
        std::fs::remove_dir_all(p.ctx.join("memory")).map_err(|e| fail(&e))?;
        Memory::open(&p.ctx, &ledger).map_err(|e| fail(&e))?.sync().map_err(|e| fail(&e))?;
        prop_assert_eq!(p.memory_files(), before);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Rolling the memory files back to the instant after any step gives that step's files
    /// byte for byte, and undoing the rollback gives the latest files back.
    #[test]
    fn prop_rolling_back_and_forward_restores_memory_files_byte_for_byte(
        steps in prop::collection::vec(0u8..5, 1..8),
        pick in any::<prop::sample::Index>(),
    ) {
        let p = Project::new();
        let ledger = p.ledger();
        let fail = |e: &dyn std::fmt::Display| TestCaseError::fail(e.to_string());
        let mut seen: Vec<(remaind_atomic::Timestamp, Vec<(String, String)>)> = Vec::new();
        for (i, step) in steps.iter().enumerate() {
            act(&p, &ledger, i, *step).map_err(|e| fail(&e))?;
            std::thread::sleep(std::time::Duration::from_millis(2));
            seen.push((remaind_atomic::Timestamp::now(), p.memory_files()));
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let latest = p.memory_files();
        let (at, files) = &seen[pick.index(seen.len())];
        let undo = remaind_memory::restore_to(&p.ctx, *at).map_err(|e| fail(&e))?
            .and_then(|r| r.undo_to());
        prop_assert_eq!(&p.memory_files(), files);
        if let Some(undo) = undo {
            remaind_memory::restore_to(&p.ctx, undo).map_err(|e| fail(&e))?;
        }
        prop_assert_eq!(p.memory_files(), latest);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The tree read back from its cache is the tree compiled from the files, whatever
    /// they hold (line endings included), and a changed file is compiled again.
    #[test]
    fn prop_the_cached_tree_is_the_compiled_tree(
        blocks in prop::collection::vec(block(), 0..10),
        crlf in any::<bool>(),
        extra in "[a-z]{1,8}",
    ) {
        let p = Project::new();
        let ledger = p.ledger();
        let fail = |e: &dyn std::fmt::Display| TestCaseError::fail(e.to_string());
        let mut md = blocks.join("\n\n");
        if crlf {
            md = md.replace('\n', "\r\n");
        }
        std::fs::write(p.root.join("CLAUDE.md"), &md).map_err(|e| fail(&e))?;
        let m = Memory::open(&p.ctx, &ledger).map_err(|e| fail(&e))?;
        let first = m.nodes().map_err(|e| fail(&e))?;
        prop_assert!(p.ctx.join("db/memory_tree").is_file());
        let cached = m.nodes().map_err(|e| fail(&e))?;
        prop_assert_eq!(&cached, &first);
        let compiled = compile("CLAUDE.md", &md);
        prop_assert_eq!(cached.iter().filter(|n| n.file == "CLAUDE.md").cloned().collect::<Vec<_>>(), compiled);
        // A listing (which reads no texts) while another file changes rewrites the cache;
        // the texts read back afterwards are still right.
        std::fs::write(p.root.join("AGENTS.md"), format!("# {extra}\n")).map_err(|e| fail(&e))?;
        m.tree(Some(50)).map_err(|e| fail(&e))?;
        let again = m.nodes().map_err(|e| fail(&e))?;
        prop_assert_eq!(
            again.iter().filter(|n| n.file == "CLAUDE.md").cloned().collect::<Vec<_>>(),
            compile("CLAUDE.md", &md)
        );
        std::fs::write(p.root.join("CLAUDE.md"), format!("{md}\n\n# {extra}\n")).map_err(|e| fail(&e))?;
        let changed = m.nodes().map_err(|e| fail(&e))?;
        prop_assert!(changed.iter().any(|n| n.file == "CLAUDE.md" && n.label == extra));
    }
}

/// Step `i` of a random sequence: propose (0), propose and accept (1), propose and reject
/// (2), propose and edit (3), or edit `MEMORY.md` by hand and let the next command record
/// it (4).
fn act(p: &Project, ledger: &remaind_ledger::Ledger, i: usize, step: u8) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let m = Memory::open(&p.ctx, ledger).map_err(|e| err(&e))?;
    let title = format!("Title {}", i % 3);
    let fact = format!("Fact {i}.");
    match step {
        0 => {
            m.propose(&title, &fact).map_err(|e| err(&e))?;
        }
        1 => {
            let x = m.propose(&title, &fact).map_err(|e| err(&e))?;
            m.accept(&x.id).map_err(|e| err(&e))?;
        }
        2 => {
            let x = m.propose(&title, &fact).map_err(|e| err(&e))?;
            m.reject(&x.id).map_err(|e| err(&e))?;
        }
        3 => {
            let x = m.propose(&title, &fact).map_err(|e| err(&e))?;
            m.edit(&x.id, &format!("Fact {i}, edited."))
                .map_err(|e| err(&e))?;
        }
        _ => {
            let path = p.ctx.join("memory/MEMORY.md");
            std::fs::create_dir_all(p.ctx.join("memory")).map_err(|e| err(&e))?;
            let now = std::fs::read_to_string(&path).unwrap_or_default();
            std::fs::write(&path, format!("{now}\nHand line {i}.\n")).map_err(|e| err(&e))?;
            Memory::open(&p.ctx, ledger).map_err(|e| err(&e))?;
        }
    }
    Ok(())
}
