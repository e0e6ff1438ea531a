//! A blocking W3C WebDriver client with just the dozen commands the browser suite
//! (ui_browser.rs) sends to chromedriver: JSON over HTTP on loopback, through ureq (already
//! built for the LLM client). Hand-written because the crate it replaces, fantoccini, cost 55
//! crates and about 50 CPU-seconds of every cold build (an async runtime, a second HTTP stack,
//! cookies, dates, an ICU family) for those dozen commands, sent one at a time.
//!
//! Every error names the command, the CSS selector where there is one, and the driver's own
//! message.

use std::fmt;
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

/// The key under which the W3C protocol hands over an element reference.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";
/// How often `wait_for` asks again.
const POLL: Duration = Duration::from_millis(100);
/// A bound on every command, so that a hung browser fails the suite instead of blocking it;
/// the slowest command, a page load on loopback, takes a second or two.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);
/// Room above ureq's default 10 MB for the largest answers, screenshots (base64 PNG) and page
/// sources: a few hundred KB today.
const ANSWER_LIMIT: u64 = 64 << 20;

/// One browser session on the driver.
pub(crate) struct Client {
    agent: ureq::Agent,
    /// `http://127.0.0.1:PORT/session/ID`, which every command's URL starts with.
    session: String,
}

/// An element of the page: the driver's reference and, for error messages, the selector
/// that found it.
pub(crate) struct Element<'c> {
    client: &'c Client,
    id: String,
    css: String,
}

/// A command the driver refused (its W3C error code and message), or one that got no usable
/// answer (no code).
struct Failure {
    code: String,
    message: String,
}

impl Failure {
    fn transport(e: ureq::Error) -> Self {
        Self {
            code: String::new(),
            message: e.to_string(),
        }
    }

    fn is_no_such_element(&self) -> bool {
        self.code == "no such element"
    }

    /// The message for the suite: `command: code: message`, on one line.
    fn of(&self, command: &str) -> String {
        format!("{command}: {self}")
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Chromedriver's messages start with the code and end with a "(Session info: ...)" line.
        let message = self
            .message
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if self.code.is_empty() || message.starts_with(&self.code) {
            f.write_str(&message)
        } else {
            write!(f, "{}: {message}", self.code)
        }
    }
}

enum Verb {
    Get,
    Post(Value),
    Delete,
}

/// Sends one command; the answer's `value`, or the driver's error.
fn send(agent: &ureq::Agent, verb: Verb, url: &str) -> Result<Value, Failure> {
    let sent = match verb {
        Verb::Get => agent.get(url).call(),
        Verb::Delete => agent.delete(url).call(),
        Verb::Post(body) => agent
            .post(url)
            .header("content-type", "application/json")
            .send(body.to_string()),
    };
    let mut response = sent.map_err(Failure::transport)?;
    let status = response.status();
    let text = response
        .body_mut()
        .with_config()
        .limit(ANSWER_LIMIT)
        .read_to_string()
        .map_err(Failure::transport)?;
    let mut answer: Value = serde_json::from_str(&text).map_err(|e| Failure {
        code: String::new(),
        message: format!(
            "HTTP {status} with an answer that is not JSON ({e}): {}",
            text.chars().take(200).collect::<String>()
        ),
    })?;
    let value = answer.get_mut("value").map(Value::take).unwrap_or_default();
    if status.is_success() {
        return Ok(value);
    }
    // W3C errors: {"value": {"error": code, "message": ..., "stacktrace": ...}}.
    Err(Failure {
        code: value["error"].as_str().unwrap_or_default().to_owned(),
        message: value["message"]
            .as_str()
            .map_or_else(|| format!("HTTP {status}: {value}"), str::to_owned),
    })
}

impl Client {
    /// Starts a session on the driver at `driver` (`http://127.0.0.1:PORT`); every browser
    /// it starts must match `caps`.
    pub(crate) fn new(driver: &str, caps: Value) -> Result<Self, String> {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            // The driver's errors are JSON answers with a 4xx or 5xx status: read them.
            .http_status_as_error(false)
            // Loopback: never through an HTTP_PROXY from the environment.
            .proxy(None)
            .timeout_global(Some(COMMAND_TIMEOUT))
            .build()
            .into();
        let body = json!({"capabilities": {"alwaysMatch": caps}});
        let value = send(&agent, Verb::Post(body), &format!("{driver}/session"))
            .map_err(|f| f.of("new session"))?;
        let id = value["sessionId"]
            .as_str()
            .ok_or_else(|| format!("new session: no sessionId in {value}"))?;
        Ok(Self {
            session: format!("{driver}/session/{id}"),
            agent,
        })
    }

    fn command(&self, verb: Verb, path: &str) -> Result<Value, Failure> {
        send(&self.agent, verb, &format!("{}{path}", self.session))
    }

    fn get(&self, path: &str, name: &str) -> Result<Value, String> {
        self.command(Verb::Get, path).map_err(|f| f.of(name))
    }

    fn post(&self, path: &str, body: Value, name: &str) -> Result<Value, String> {
        self.command(Verb::Post(body), path).map_err(|f| f.of(name))
    }

    /// Navigates to `url` and returns once the page has loaded.
    pub(crate) fn goto(&self, url: &str) -> Result<(), String> {
        self.post("/url", json!({ "url": url }), &format!("goto {url}"))?;
        Ok(())
    }

    pub(crate) fn current_url(&self) -> Result<String, String> {
        string(self.get("/url", "current url")?, "current url")
    }

    /// The page's HTML as the browser has it now (scripts' changes included).
    pub(crate) fn source(&self) -> Result<String, String> {
        string(self.get("/source", "page source")?, "page source")
    }

    /// Runs `script` in the page, without arguments; what it returns.
    pub(crate) fn execute(&self, script: &str) -> Result<Value, String> {
        let body = json!({ "script": script, "args": [] });
        self.post("/execute/sync", body, "execute")
    }

    /// The text of the open alert dialog; an error when none is open.
    pub(crate) fn get_alert_text(&self) -> Result<String, String> {
        string(self.get("/alert/text", "alert text")?, "alert text")
    }

    pub(crate) fn set_window_size(&self, width: u32, height: u32) -> Result<(), String> {
        let body = json!({ "width": width, "height": height });
        self.post(
            "/window/rect",
            body,
            &format!("set window size {width}x{height}"),
        )?;
        Ok(())
    }

    /// The viewport as PNG bytes.
    pub(crate) fn screenshot(&self) -> Result<Vec<u8>, String> {
        let encoded = string(self.get("/screenshot", "screenshot")?, "screenshot")?;
        base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|e| format!("screenshot: not base64: {e}"))
    }

    /// The first element on the page that matches `css`.
    pub(crate) fn find(&self, css: &str) -> Result<Element<'_>, String> {
        self.locate("", css)
            .map_err(|f| f.of(&format!("find `{css}`")))
    }

    /// Every element on the page that matches `css` (none is no error).
    pub(crate) fn find_all(&self, css: &str) -> Result<Vec<Element<'_>>, String> {
        self.locate_all("", css)
            .map_err(|f| f.of(&format!("find all `{css}`")))
    }

    /// Asks for `css` every 100 ms until an element matches or `timeout` has passed; an error
    /// other than "no such element" ends the wait at once.
    pub(crate) fn wait_for(&self, css: &str, timeout: Duration) -> Result<Element<'_>, String> {
        let started = Instant::now();
        loop {
            match self.locate("", css) {
                Ok(el) => return Ok(el),
                Err(f) if f.is_no_such_element() && started.elapsed() < timeout => {
                    std::thread::sleep(POLL);
                }
                Err(f) if f.is_no_such_element() => {
                    return Err(format!(
                        "wait for `{css}`: none within {} s ({f})",
                        timeout.as_secs_f64()
                    ));
                }
                Err(f) => return Err(f.of(&format!("wait for `{css}`"))),
            }
        }
    }

    /// Ends the session (the driver closes the browser).
    pub(crate) fn close(self) -> Result<(), String> {
        self.command(Verb::Delete, "")
            .map_err(|f| f.of("close session"))?;
        Ok(())
    }

    /// The first match of `css` under `scope` (`""` for the page, `/element/ID` for an element).
    fn locate(&self, scope: &str, css: &str) -> Result<Element<'_>, Failure> {
        let found = self.command(Verb::Post(by_css(css)), &format!("{scope}/element"))?;
        self.element(&found, css)
    }

    /// Every match of `css` under `scope`, as `locate`.
    fn locate_all(&self, scope: &str, css: &str) -> Result<Vec<Element<'_>>, Failure> {
        let found = self.command(Verb::Post(by_css(css)), &format!("{scope}/elements"))?;
        let Value::Array(list) = found else {
            return Err(malformed(&format!("not a list of elements: {found}")));
        };
        list.iter().map(|v| self.element(v, css)).collect()
    }

    fn element(&self, reference: &Value, css: &str) -> Result<Element<'_>, Failure> {
        let id = reference[ELEMENT_KEY]
            .as_str()
            .ok_or_else(|| malformed(&format!("not an element reference: {reference}")))?;
        Ok(Element {
            client: self,
            id: id.to_owned(),
            css: css.to_owned(),
        })
    }
}

impl<'c> Element<'c> {
    /// The text as rendered (hidden text left out, CSS case transforms applied).
    pub(crate) fn text(&self) -> Result<String, String> {
        let name = format!("text of `{}`", self.css);
        let value = self
            .client
            .command(Verb::Get, &format!("/element/{}/text", self.id))
            .map_err(|f| f.of(&name))?;
        string(value, &name)
    }

    pub(crate) fn click(&self) -> Result<(), String> {
        self.client
            .command(
                Verb::Post(json!({})),
                &format!("/element/{}/click", self.id),
            )
            .map_err(|f| f.of(&format!("click `{}`", self.css)))?;
        Ok(())
    }

    /// Every element inside this one that matches `css`.
    pub(crate) fn find_all(&self, css: &str) -> Result<Vec<Element<'c>>, String> {
        self.client
            .locate_all(&format!("/element/{}", self.id), css)
            .map_err(|f| f.of(&format!("find all `{css}` in `{}`", self.css)))
    }
}

fn by_css(css: &str) -> Value {
    json!({ "using": "css selector", "value": css })
}

/// A success answer whose `value` is not what the command returns.
fn malformed(what: &str) -> Failure {
    Failure {
        code: String::new(),
        message: format!("unexpected answer from the driver: {what}"),
    }
}

fn string(value: Value, name: &str) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s),
        other => Err(format!("{name}: not a string: {other}")),
    }
}
