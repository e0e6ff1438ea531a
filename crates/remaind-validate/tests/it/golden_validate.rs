//! Golden verdicts over `fixtures/validate/<case>/`: each case folder holds `ledger.jsonl`
//! (compact `NewEvent` lines), an optional `prior.json`, the candidate `state.json` and
//! `handover.md`. `accept_*` cases must be accepted; `reject_<check>_*` cases must fail exactly
//! `<check>`; `mixed_*` cases must fail two checks or more.

use std::fs;
use std::path::Path;

use remaind_validate::{Check, Prior, State, validate};
use serde_json::Value;

use crate::common::{fill_digest, ledger_from_new_events};

const ALL_CHECKS: [Check; 9] = [
    Check::Schema,
    Check::Binding,
    Check::CompletedWorkPreserved,
    Check::DecisionsPreserved,
    Check::NextStepGrounded,
    Check::LatestUserInstructionPreserved,
    Check::Importance3Preserved,
    Check::NoSupersededAsCurrent,
    Check::UserWordsPreserved,
];

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The check a `reject_<check>_<what>` folder targets.
fn targeted(case: &str) -> Option<Check> {
    let rest = case.strip_prefix("reject_")?;
    ALL_CHECKS
        .into_iter()
        .find(|c| rest.starts_with(&format!("{}_", c.as_str())))
}

#[test]
fn golden_validate() {
    insta::glob!(
        "../../../../fixtures/validate",
        "*/state.json",
        |state_path| {
            let dir = state_path.parent().expect("case folder");
            let case = dir
                .file_name()
                .and_then(|n| n.to_str())
                .expect("utf-8 case name")
                .to_owned();
            let ledger = ledger_from_new_events(&read(&dir.join("ledger.jsonl")));
            let mut candidate: Value =
                serde_json::from_str(&read(state_path)).expect("state.json is JSON");
            fill_digest(&mut candidate, &ledger);
            let prior: Option<State> = dir.join("prior.json").exists().then(|| {
                let mut value: Value =
                    serde_json::from_str(&read(&dir.join("prior.json"))).expect("prior is JSON");
                fill_digest(&mut value, &ledger);
                serde_json::from_value(value).expect("prior.json is a valid state")
            });
            let handover = read(&dir.join("handover.md"));

            let verdict = validate(
                &ledger,
                prior.as_ref().map(Prior::new).as_ref(),
                &candidate,
                &handover,
            )
            .expect("memory ledger never fails");

            if case.starts_with("accept_") {
                assert!(verdict.accepted, "{case} must be accepted: {verdict:#?}");
            } else if case.starts_with("mixed_") {
                assert!(
                    verdict.failed_checks().len() >= 2,
                    "{case} must fail several checks: {verdict:#?}"
                );
            } else {
                let check = targeted(&case).unwrap_or_else(|| {
                    panic!("{case}: name it accept_*, mixed_* or reject_<check>_*")
                });
                assert_eq!(
                    verdict.failed_checks(),
                    vec![check],
                    "{case} must fail exactly {}: {verdict:#?}",
                    check.as_str()
                );
                assert!(
                    verdict
                        .failures
                        .iter()
                        .all(|f| !f.reason.is_empty() && !f.reason.contains('\n')),
                    "{case}: every reason is one non-empty line"
                );
            }
            insta::assert_json_snapshot!(verdict);
        }
    );
}

#[test]
fn every_check_has_three_rejections_and_there_are_three_acceptances() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/validate");
    let names: Vec<String> = fs::read_dir(&root)
        .expect("fixtures/validate exists")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    assert!(names.iter().filter(|n| n.starts_with("accept_")).count() >= 3);
    for check in Check::SEVEN {
        let n = names.iter().filter(|n| targeted(n) == Some(check)).count();
        assert!(n >= 3, "{} has {n} rejection cases", check.as_str());
    }
}
