//! Golden tests of the resume gate: one fixture per interrupt condition and clean resumes,
//! each snapshotting the verdict and the packet.

use std::fmt::Write as _;

use remaind_resume::Budget;

use crate::common::{self, Fixture};

#[test]
fn golden_gate() {
    insta::glob!("fixtures/gate/*.json", |path| {
        let text = std::fs::read_to_string(path).expect("read fixture");
        let fx: Fixture = serde_json::from_str(&text).expect("parse fixture");
        let (_tmp, ctx) = common::fresh();
        common::build(&ctx, &fx);
        let budget = fx.budget.map_or(Budget::Unlimited, Budget::Tokens);
        let r = remaind_resume::resume(&ctx, budget).expect("resume");

        // Invariants every fixture must satisfy, whatever its snapshot says.
        assert_eq!(r.gate.proceed, r.gate.reasons.is_empty());
        if let Some(limit) = r.budget {
            assert!(r.tokens <= limit || r.over_budget, "budget exceeded");
        }
        if let Some(ins) = &r.latest_instruction {
            assert!(
                r.packet
                    .contains(&format!("[{}]\n{}\n", ins.event, ins.text))
            );
        }
        let written = std::fs::read_to_string(ctx.resume_packet_path()).expect("packet written");
        assert_eq!(written, r.packet);

        let mut out = String::new();
        let _ = writeln!(out, "{}", fx.description);
        let _ = writeln!(out, "proceed: {}", r.gate.proceed);
        let _ = writeln!(out, "confidence: {}", r.gate.confidence.score);
        for p in &r.gate.confidence.penalties {
            let _ = writeln!(out, "  - {} {}: {}", p.factor, p.penalty, p.detail);
        }
        if let Some(tool) = &r.gate.next_tool {
            let _ = writeln!(out, "next tool: {} [{}]", tool.name, tool.flags.join(", "));
        }
        let _ = writeln!(out, "reasons:");
        for reason in &r.gate.reasons {
            let ids: Vec<String> = reason.events.iter().map(|e| e.to_string()).collect();
            let _ = writeln!(
                out,
                "  - {} [{}]: {}",
                reason.code,
                ids.join(", "),
                reason.message
            );
        }
        // The exact token count is left out: the handover's binding line holds a hash of
        // run-dependent bytes, and hex tokenizes unevenly.
        let _ = writeln!(
            out,
            "budget: {:?} over_budget: {} dropped: {:?}",
            r.budget,
            r.over_budget,
            common::dropped(&r)
        );
        let _ = writeln!(out, "----- packet -----");
        out.push_str(&r.packet);
        insta::assert_snapshot!(common::normalize(&out));
    });
}
