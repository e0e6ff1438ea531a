//! The `openai` preset: one POST to `BASE_URL/chat/completions`.

use std::time::Duration;

use serde_json::{Value, json};

use crate::backend::{Answer, CallError, Tokens, excerpt};
use crate::config::HttpPreset;

/// The system message: the rules themselves travel in the user message (the prompt).
const SYSTEM: &str = "You compact a coding agent's event log into a validated state. Answer \
with one JSON object and nothing else.";

/// The key from the environment variable `api_key_env` names (`None` when none is needed).
#[expect(
    clippy::disallowed_methods,
    reason = "a preset names the variable that holds its API key, read at call time so the key is never stored"
)]
pub(crate) fn api_key(cfg: &HttpPreset) -> Result<Option<String>, CallError> {
    let Some(var) = &cfg.api_key_env else {
        return Ok(None);
    };
    match std::env::var(var) {
        Ok(key) if !key.trim().is_empty() => Ok(Some(key.trim().to_owned())),
        _ => Err(CallError::Setting {
            setting: "openai.api_key_env".to_owned(),
            reason: format!(
                "the environment variable {var} is not set; export {var}=<your key>, or set \
                 openai.api_key_env in .context/schemas/llm.json to the variable that holds it \
                 (null for a local server that needs no key)"
            ),
        }),
    }
}

/// POST the prompt; the first choice's content and the usage.
pub(crate) fn chat(cfg: &HttpPreset, prompt: &str, timeout: Duration) -> Result<Answer, CallError> {
    let key = api_key(cfg)?;
    let url = format!("{}/chat/completions", cfg.base_url.trim_end_matches('/'));
    let mut body = json!({
        "model": cfg.model,
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": prompt},
        ],
    });
    if let Some(t) = cfg.temperature {
        body["temperature"] = json!(t);
    }
    if cfg.json_mode {
        body["response_format"] = json!({"type": "json_object"});
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .build()
        .into();
    let mut request = agent.post(&url).header("content-type", "application/json");
    if let Some(key) = &key {
        request = request.header("authorization", &format!("Bearer {key}"));
    }
    let payload = serde_json::to_vec(&body).unwrap_or_default();
    let mut response = request.send(&payload[..]).map_err(|e| match e {
        ureq::Error::Timeout(_) => CallError::Failed(format!(
            "{url} did not answer within {:.1}s (openai.timeout_secs, or the time limit)",
            timeout.as_secs_f64()
        )),
        ureq::Error::Io(_)
        | ureq::Error::HostNotFound
        | ureq::Error::ConnectionFailed
        | ureq::Error::BadUri(_) => CallError::Setting {
            setting: "openai.base_url".to_owned(),
            reason: format!(
                "cannot reach {url}: {e}; check that the server is running and that \
                 openai.base_url in .context/schemas/llm.json is right"
            ),
        },
        other => CallError::Failed(format!("{url}: {other}")),
    })?;
    let status = response.status().as_u16();
    let text = response
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .map_err(|e| match e {
            ureq::Error::Timeout(_) => CallError::Failed(format!(
                "{url} did not finish its answer within {:.1}s (openai.timeout_secs, or the time \
                 limit)",
                timeout.as_secs_f64()
            )),
            other => CallError::Failed(format!("{url}: cannot read the answer: {other}")),
        })?;
    if !(200..300).contains(&status) {
        let said = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| {
                v.pointer("/error/message")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| excerpt(&text));
        let hint = match status {
            401 | 403 => "; check the key in openai.api_key_env",
            404 => "; check openai.base_url and openai.model",
            429 => "; rate limited or out of quota: wait and retry, or use another preset",
            500..=599 => "; the server failed: retry later, or use another preset",
            _ => "",
        };
        return Err(CallError::Failed(format!(
            "{url} answered HTTP {status}: {}{hint}",
            excerpt(&said)
        )));
    }
    let reply: Value = serde_json::from_str(&text).map_err(|e| {
        CallError::Failed(format!(
            "{url} answered something that is not a chat completion ({e}): {}",
            excerpt(&text)
        ))
    })?;
    let Some(content) = reply
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
    else {
        return Err(CallError::Failed(format!(
            "{url}: the chat completion has no choices[0].message.content: {}",
            excerpt(&text)
        )));
    };
    let n = |k: &str| {
        reply
            .pointer(&format!("/usage/{k}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    Ok(Answer {
        text: content.to_owned(),
        tokens: Tokens {
            input: n("prompt_tokens"),
            output: n("completion_tokens"),
        },
    })
}
