//! `schemas/tools.yaml`: per-tool risk flags, the only source of tool risk for the gate.
//!
//! ```yaml
//! default:            # applies to any tool not listed, and to flags a listed tool leaves out
//!   mutates: false
//!   spends_money: false
//!   external_side_effect: false
//! tools:
//!   read_file: {}
//!   git_push:
//!     mutates: true
//!     external_side_effect: true
//! ```
//!
//! Unknown keys are errors (a misspelt flag must not silently read as `false`), and every
//! error names the file and line.

use std::collections::BTreeMap;

use camino::Utf8Path;
use serde::{Deserialize, Serialize};

use crate::Error;

/// The risk flags of one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub(crate) struct ToolFlags {
    /// Changes files, databases or other state.
    pub(crate) mutates: bool,
    /// Costs money.
    pub(crate) spends_money: bool,
    /// Visible outside this machine.
    pub(crate) external_side_effect: bool,
}

impl ToolFlags {
    /// The names of the flags that are set, in file order.
    pub(crate) fn set_flags(self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.mutates {
            out.push("mutates");
        }
        if self.spends_money {
            out.push("spends_money");
        }
        if self.external_side_effect {
            out.push("external_side_effect");
        }
        out
    }

    /// True when any flag is set: the gate treats the tool as risky.
    #[cfg(test)]
    fn is_risky(self) -> bool {
        self.mutates || self.spends_money || self.external_side_effect
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFlags {
    mutates: Option<bool>,
    spends_money: Option<bool>,
    external_side_effect: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    #[serde(default)]
    default: Option<RawFlags>,
    #[serde(default)]
    tools: Option<BTreeMap<String, Option<RawFlags>>>,
}

/// The parsed `tools.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ToolPolicy {
    default: ToolFlags,
    tools: BTreeMap<String, ToolFlags>,
}

impl ToolPolicy {
    /// Reads `tools.yaml`. A missing file is the empty policy (every tool unflagged): risk is
    /// never guessed, so with no file no tool is risky.
    pub(crate) fn load(path: &Utf8Path) -> Result<ToolPolicy, Error> {
        match read_text(path) {
            Ok(Some(text)) => ToolPolicy::from_yaml(&text, path.as_str()),
            Ok(None) => Ok(ToolPolicy::default()),
            Err(e) => Err(Error::io("cannot read", path, e)),
        }
    }

    /// Parses the text of a `tools.yaml`; `origin` names it in errors.
    pub(crate) fn from_yaml(text: &str, origin: &str) -> Result<ToolPolicy, Error> {
        let raw: Option<RawPolicy> = serde_yaml_ng::from_str(text).map_err(|e| {
            let at = e
                .location()
                .map(|l| format!("{origin}:{}:{}", l.line(), l.column()))
                .unwrap_or_else(|| origin.to_owned());
            Error::InvalidInput {
                field: at,
                message: format!("malformed tools.yaml: {e}"),
            }
        })?;
        let raw = raw.unwrap_or_default();
        let base = raw.default.unwrap_or_default();
        let default = ToolFlags {
            mutates: base.mutates.unwrap_or(false),
            spends_money: base.spends_money.unwrap_or(false),
            external_side_effect: base.external_side_effect.unwrap_or(false),
        };
        let tools = raw
            .tools
            .unwrap_or_default()
            .into_iter()
            .map(|(name, flags)| {
                let f = flags.unwrap_or_default();
                let flags = ToolFlags {
                    mutates: f.mutates.unwrap_or(default.mutates),
                    spends_money: f.spends_money.unwrap_or(default.spends_money),
                    external_side_effect: f
                        .external_side_effect
                        .unwrap_or(default.external_side_effect),
                };
                (name, flags)
            })
            .collect();
        Ok(ToolPolicy { default, tools })
    }

    /// The flags of a tool: its own entry, else the `default` entry.
    pub(crate) fn flags(&self, tool: &str) -> ToolFlags {
        self.tools.get(tool).copied().unwrap_or(self.default)
    }
}

/// Reads a text file under `.context/` without following a symlink or blocking on a special
/// file; `Ok(None)` when it does not exist.
pub(crate) fn read_text(path: &Utf8Path) -> std::io::Result<Option<String>> {
    let bytes = remaind_fs::read_file(path).map_err(|e| match e {
        remaind_fs::Error::Io { source, .. } => source,
        other => std::io::Error::other(other.to_string()),
    })?;
    bytes
        .map(|b| String::from_utf8(b).map_err(|_| std::io::Error::other("is not UTF-8 text")))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHIPPED: &str = include_str!("../../../schemas/tools.yaml");

    #[test]
    fn shipped_file_parses() {
        let p = ToolPolicy::from_yaml(SHIPPED, "tools.yaml").unwrap();
        assert!(!p.flags("read_file").is_risky());
        assert_eq!(
            p.flags("git_push").set_flags(),
            ["mutates", "external_side_effect"]
        );
        assert_eq!(p.flags("openai_batch").set_flags(), ["spends_money"]);
        assert!(!p.flags("never_heard_of").is_risky());
    }

    #[test]
    fn listed_tools_inherit_unset_flags_from_default() {
        let p = ToolPolicy::from_yaml(
            "default: {mutates: true}\ntools:\n  grep: {mutates: false}\n  cat:\n",
            "t",
        )
        .unwrap();
        assert!(!p.flags("grep").is_risky());
        assert!(p.flags("cat").mutates);
        assert!(p.flags("other").mutates);
    }

    #[test]
    fn malformed_file_names_the_line() {
        let err = ToolPolicy::from_yaml(
            "default:\n  mutates: false\ntools:\n  x: {mutate: true}\n",
            "tools.yaml",
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("tools.yaml:4:"), "{err}");
        assert!(err.contains("mutate"), "{err}");
        let err = ToolPolicy::from_yaml("tools:\n  x: [\n", "tools.yaml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("tools.yaml:"), "{err}");
        let err = ToolPolicy::from_yaml("default:\n  mutates: maybe\n", "f")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("f:2:"), "{err}");
    }

    #[test]
    fn empty_file_is_empty_policy() {
        assert_eq!(
            ToolPolicy::from_yaml("", "t").unwrap(),
            ToolPolicy::default()
        );
        assert_eq!(
            ToolPolicy::from_yaml("# nothing\n", "t").unwrap(),
            ToolPolicy::default()
        );
    }
}
