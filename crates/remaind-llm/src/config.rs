//! Settings: `.context/schemas/llm.json` (schema: `schemas/llm.schema.json`).

use std::time::Duration;

use camino::Utf8Path;
use serde::Deserialize;

use crate::error::{Error, Result};

/// The shipped defaults, also what a missing `llm.json` means.
pub const DEFAULT_CONFIG: &str = include_str!("../../../schemas/llm.json");
/// The JSON Schema of `llm.json`.
pub const CONFIG_SCHEMA: &str = include_str!("../../../schemas/llm.schema.json");
/// Where the settings live, relative to `.context/`.
pub const CONFIG_PATH: &str = remaind_fs::layout::LLM_CONFIG_PATH;

/// A way to reach a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Preset {
    /// Claude Code in print mode (`claude -p`), with the user's login.
    Claude,
    /// Codex (`codex exec`), with the user's login.
    Codex,
    /// Any OpenAI-compatible chat-completions endpoint.
    OpenAi,
}

impl Preset {
    /// Every preset, in the order the docs list them.
    pub const ALL: [Preset; 3] = [Preset::Claude, Preset::Codex, Preset::OpenAi];

    /// The name used on the command line and in `llm.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Preset::Claude => "claude",
            Preset::Codex => "codex",
            Preset::OpenAi => "openai",
        }
    }

    /// The preset named `name`, if any.
    pub fn from_name(name: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.as_str() == name)
    }
}

impl std::fmt::Display for Preset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// All settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Model calls per compaction (round 1 proposes, later rounds repair).
    pub max_rounds: u32,
    /// The `claude` preset.
    pub claude: CliPreset,
    /// The `codex` preset.
    pub codex: CliPreset,
    /// The `openai` preset.
    pub openai: HttpPreset,
}

/// `llm.json` as written: every field optional, unknown ones refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(rename = "$schema", default)]
    _schema: Option<String>,
    #[serde(default)]
    max_rounds: Option<u32>,
    #[serde(default)]
    claude: Option<RawCli>,
    #[serde(default)]
    codex: Option<RawCli>,
    #[serde(default)]
    openai: Option<HttpPreset>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCli {
    #[serde(default)]
    program: Option<String>,
    /// Absent: the preset's default; null: the CLI's own default.
    #[serde(default, deserialize_with = "present")]
    model: Option<Option<String>>,
    #[serde(default)]
    args: Option<Vec<String>>,
    #[serde(default)]
    timeout_secs: Option<u64>,
}

/// A field that is present, even as `null`, is `Some`.
fn present<'de, D, T>(d: D) -> std::result::Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// A preset that runs a runtime's CLI with the prompt on stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliPreset {
    /// The executable, looked up on PATH unless it contains a `/`.
    pub program: String,
    /// Passed as `--model`; `None` uses the CLI's default.
    pub model: Option<String>,
    /// Extra arguments after Remaind's own.
    pub args: Vec<String>,
    /// Seconds one call may take.
    pub timeout_secs: u64,
}

impl CliPreset {
    fn claude() -> Self {
        CliPreset {
            program: "claude".into(),
            model: Some("haiku".into()),
            args: Vec::new(),
            timeout_secs: 180,
        }
    }

    fn codex() -> Self {
        CliPreset {
            program: "codex".into(),
            model: None,
            args: Vec::new(),
            timeout_secs: 300,
        }
    }

    fn with(mut self, raw: Option<RawCli>) -> Self {
        if let Some(raw) = raw {
            if let Some(program) = raw.program {
                self.program = program;
            }
            if let Some(model) = raw.model {
                self.model = model;
            }
            if let Some(args) = raw.args {
                self.args = args;
            }
            if let Some(secs) = raw.timeout_secs {
                self.timeout_secs = secs;
            }
        }
        self
    }
}

/// The OpenAI-compatible endpoint.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HttpPreset {
    /// Up to and including the API version, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// The request's `model`.
    pub model: String,
    /// The environment variable holding the key; `None` sends no `Authorization`.
    pub api_key_env: Option<String>,
    /// Seconds one request may take.
    pub timeout_secs: u64,
    /// Sampling temperature; `None` leaves it to the server.
    pub temperature: Option<f64>,
    /// Send `response_format: {"type": "json_object"}`.
    pub json_mode: bool,
}

impl Default for HttpPreset {
    fn default() -> Self {
        HttpPreset {
            base_url: "https://api.openai.com/v1".into(),
            model: "gpt-4.1-mini".into(),
            api_key_env: Some("OPENAI_API_KEY".into()),
            timeout_secs: 180,
            temperature: Some(0.0),
            json_mode: true,
        }
    }
}

impl Config {
    /// Read `CONTEXT/schemas/llm.json`; a missing file gives the shipped defaults.
    pub fn load(context_dir: &Utf8Path) -> Result<Config> {
        let path = context_dir.join(CONFIG_PATH);
        // No-follow, regular files only: a symlink planted in `.context/` is refused.
        let text = match remaind_fs::read_file(&path) {
            Ok(Some(bytes)) => String::from_utf8(bytes).map_err(|e| Error::Config {
                path: path.clone(),
                field: String::new(),
                reason: format!(
                    "not UTF-8 (invalid byte at offset {})",
                    e.utf8_error().valid_up_to()
                ),
            })?,
            Ok(None) => DEFAULT_CONFIG.to_owned(),
            Err(e) => {
                return Err(Error::Config {
                    path: path.clone(),
                    field: String::new(),
                    reason: format!("cannot read it: {e}"),
                });
            }
        };
        Config::parse(&text).map_err(|(field, reason)| Error::Config {
            path,
            field,
            reason,
        })
    }

    /// Parse the text of an `llm.json`; on error, the offending field and what is wrong.
    pub fn parse(text: &str) -> std::result::Result<Config, (String, String)> {
        let raw: RawConfig =
            serde_json::from_str(text).map_err(|e| (String::new(), e.to_string()))?;
        let config = Config {
            max_rounds: raw.max_rounds.unwrap_or_else(default_rounds),
            claude: CliPreset::claude().with(raw.claude),
            codex: CliPreset::codex().with(raw.codex),
            openai: raw.openai.unwrap_or_default(),
        };
        config.check()?;
        Ok(config)
    }

    /// The value rules serde cannot express (the schema states them too).
    fn check(&self) -> std::result::Result<(), (String, String)> {
        let bad = |field: &str, reason: String| Err((field.to_owned(), reason));
        if !(1..=10).contains(&self.max_rounds) {
            return bad(
                "max_rounds",
                format!("is {}; give 1 to 10", self.max_rounds),
            );
        }
        for (name, cli) in [("claude", &self.claude), ("codex", &self.codex)] {
            if cli.program.trim().is_empty() {
                return bad(
                    &format!("{name}.program"),
                    "is empty; give the executable".into(),
                );
            }
            if cli.model.as_deref().is_some_and(|m| m.trim().is_empty()) {
                return bad(
                    &format!("{name}.model"),
                    "is empty; give a model or null for the CLI's default".into(),
                );
            }
            if !(1..=3600).contains(&cli.timeout_secs) {
                return bad(
                    &format!("{name}.timeout_secs"),
                    format!("is {}; give 1 to 3600", cli.timeout_secs),
                );
            }
        }
        let o = &self.openai;
        if !(o.base_url.starts_with("http://") || o.base_url.starts_with("https://")) {
            return bad(
                "openai.base_url",
                format!(
                    "is `{}`; give an http:// or https:// URL such as https://api.openai.com/v1",
                    o.base_url
                ),
            );
        }
        if o.model.trim().is_empty() {
            return bad("openai.model", "is empty; give the model name".into());
        }
        if let Some(var) = &o.api_key_env {
            let valid = var
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return bad(
                    "openai.api_key_env",
                    format!(
                        "is `{var}`; give the NAME of an environment variable (the key itself \
                         never goes in this file), or null for a server without a key"
                    ),
                );
            }
        }
        if !(1..=3600).contains(&o.timeout_secs) {
            return bad(
                "openai.timeout_secs",
                format!("is {}; give 1 to 3600", o.timeout_secs),
            );
        }
        if o.temperature.is_some_and(|t| !(0.0..=2.0).contains(&t)) {
            return bad("openai.temperature", "give 0 to 2, or null".into());
        }
        Ok(())
    }

    /// How long one call of `preset` may take.
    pub fn timeout(&self, preset: Preset) -> Duration {
        Duration::from_secs(match preset {
            Preset::Claude => self.claude.timeout_secs,
            Preset::Codex => self.codex.timeout_secs,
            Preset::OpenAi => self.openai.timeout_secs,
        })
    }

    /// The model `preset` asks for (`None`: the CLI's default).
    pub fn model(&self, preset: Preset) -> Option<&str> {
        match preset {
            Preset::Claude => self.claude.model.as_deref(),
            Preset::Codex => self.codex.model.as_deref(),
            Preset::OpenAi => Some(&self.openai.model),
        }
    }

    /// Use `model` for `preset` instead of the configured one.
    pub fn set_model(&mut self, preset: Preset, model: String) {
        match preset {
            Preset::Claude => self.claude.model = Some(model),
            Preset::Codex => self.codex.model = Some(model),
            Preset::OpenAi => self.openai.model = model,
        }
    }
}

fn default_rounds() -> u32 {
    2
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_rounds: default_rounds(),
            claude: CliPreset::claude(),
            codex: CliPreset::codex(),
            openai: HttpPreset::default(),
        }
    }
}
