//! The handover parser: binding line, sections, citations, fences, structural problems.

use remaind_events::EventId;
use remaind_validate::titles;
use remaind_validate::{
    Binding, Handover, SECTION_TITLES, citations, parse_binding, render_citations,
    render_instruction,
};

fn ids(ns: &[u64]) -> Vec<EventId> {
    ns.iter().copied().map(EventId).collect()
}

#[test]
fn citations_follow_the_pattern() {
    assert_eq!(citations("done [e4] [e7] and [e4] again"), ids(&[4, 7]));
    assert_eq!(citations("[e0] [e01] [e] [E5] e5 [e5 ] [ e6]"), ids(&[]));
    assert_eq!(citations("[[e12]]x[e3]"), ids(&[12, 3]));
    assert_eq!(citations("[e99999999999999999999999]"), ids(&[u64::MAX]));
    assert_eq!(citations("ünïcode [e2]…"), ids(&[2]));
    assert_eq!(render_citations(&ids(&[4, 7])), "[e4] [e7]");
}

#[test]
fn binding_round_trips_and_rejects_garbage() {
    let b = Binding {
        state_sha256: "ab".repeat(32),
        through_seq: 42,
    };
    let text = format!("{b}\n# Handover\n");
    assert_eq!(parse_binding(&text), Some(b.clone()));
    assert_eq!(Handover::parse(&text).binding, Some(b));
    for bad in [
        "<!-- remaind:handover state_sha256=abc through_seq=1 -->",
        "<!-- remaind:handover through_seq=1 state_sha256=00 -->",
        "<!-- remaind:handover state_sha256=0000000000000000000000000000000000000000000000000000000000000000 through_seq=01 -->",
        "<!-- remaind:handover state_sha256=0000000000000000000000000000000000000000000000000000000000000000 through_seq=1 x=2 -->",
        "# Handover",
        "",
    ] {
        assert_eq!(parse_binding(bad), None, "{bad}");
    }
    let parsed =
        Handover::parse("<!-- remaind:handover state_sha256=zz through_seq=1 -->\n# Handover\n");
    assert_eq!(parsed.problems.len(), 1, "{:?}", parsed.problems);
    assert!(parsed.problems[0].contains("binding comment"));
}

#[test]
fn sections_keep_order_bodies_and_citations() {
    let text = "# Handover\n\nintro line\n\n## Latest user instruction\n[e9]\nDo [e3] now.\n\n\
                ## Next step\nShip it. [e10] [e11]\n\n## Custom\n- thing [e2]\n\n## Superseded\n\
                - old [e1] (superseded by [e2])\n";
    let h = Handover::parse(text);
    assert!(h.problems.is_empty(), "{:?}", h.problems);
    let titles_seen: Vec<&str> = h.sections.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(
        titles_seen,
        [
            titles::LATEST_USER_INSTRUCTION,
            titles::NEXT_STEP,
            "Custom",
            titles::SUPERSEDED
        ]
    );
    assert_eq!(h.sections[0].body, "[e9]\nDo [e3] now.\n\n");
    assert_eq!(
        h.sections[0].citations,
        ids(&[9]),
        "instruction text adds no citations"
    );
    assert_eq!(h.sections[1].citations, ids(&[10, 11]));
    assert!(h.sections[3].is_history());
    let current: Vec<EventId> = h.current_citations().map(|(_, id)| id).collect();
    assert_eq!(current, ids(&[9, 10, 11, 2]));
    assert_eq!(
        h.section(titles::NEXT_STEP).map(|s| s.citations.len()),
        Some(2)
    );
}

#[test]
fn fenced_instruction_stays_in_one_section() {
    let text = "the plan:\n## Not a heading\n```rust\nlet x = 1;\n```\n~~~ too";
    let body = render_instruction(EventId(5), text);
    assert!(body.starts_with("[e5]\n````\n"), "{body}");
    let doc = format!("# Handover\n\n## Latest user instruction\n{body}\n## Next step\nGo. [e5]\n");
    let h = Handover::parse(&doc);
    assert!(h.problems.is_empty(), "{:?}", h.problems);
    assert_eq!(h.sections.len(), 2);
    assert!(h.sections[0].body.contains(text));
    assert_eq!(h.sections[0].citations, ids(&[5]));
    let plain = render_instruction(EventId(2), "just do it");
    assert_eq!(plain, "[e2]\njust do it\n");
}

#[test]
fn structural_problems_are_listed_not_fatal() {
    let h = Handover::parse("## Goal\n- g [e1]\n## Decisions\n- d [e2]\n## Goal\n- again [e1]\n");
    assert_eq!(h.sections.len(), 3);
    assert!(
        h.problems
            .iter()
            .any(|p| p.contains("no `# Handover` title"))
    );
    assert!(
        h.problems
            .iter()
            .any(|p| p.contains("out of order (Goal, Decisions, Goal)")),
        "{:?}",
        h.problems
    );
    assert!(
        h.problems
            .iter()
            .any(|p| p.contains("`Goal` appears more than once"))
    );
    let h = Handover::parse("# Notes\n## Goal\n");
    assert!(
        h.problems
            .iter()
            .any(|p| p.contains("must be `# Handover`"))
    );
    assert_eq!(SECTION_TITLES.last(), Some(&titles::SUPERSEDED));
}

#[test]
fn garbage_never_panics() {
    for text in [
        "",
        "\n\n",
        "#",
        "## ",
        "[e",
        "```\n## x",
        "\r\n## A\r\n[e1]\r\n",
        "\u{0}[e1",
    ] {
        let _ = Handover::parse(text);
        let _ = parse_binding(text);
        let _ = citations(text);
    }
}
