//! `remaind-bench ui-browser`: a real headless Chromium (Debian's `chromium` through
//! `chromedriver`, driven over WebDriver by the blocking client in webdriver.rs) against
//! `remaind ui` on the demo session and on an imported real transcript. Each check prints
//! `check NAME ... ok|FAILED` and the run ends with a `test result:` line that `cargo xtask ci`
//! adds up. Screenshots of every view at 1280x800 and 390x844 go to target/ui-screens/ (for
//! people; no test compares them).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::webdriver::{Client, Element};
use crate::workspace_root;

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";
const SIZES: [(u32, u32); 2] = [(1280, 800), (390, 844)];

/// A child process killed (by its own id) when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

struct Tally {
    passed: u32,
    failed: Vec<String>,
}

impl Tally {
    fn check(&mut self, name: &str, outcome: Result<(), String>) {
        match outcome {
            Ok(()) => {
                println!("check {name} ... ok");
                self.passed += 1;
            }
            Err(e) => {
                println!("check {name} ... FAILED: {e}");
                self.failed.push(format!("{name}: {e}"));
            }
        }
    }
}

fn remaind(bin: &Path, dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new(bin)
        .arg("--dir")
        .arg(dir)
        .args(args)
        .env_remove("REMAIND_DIR")
        .output()
        .map_err(|e| format!("cannot run remaind: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "remaind {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Starts `remaind ui` and reads the URL it prints.
fn start_ui(bin: &Path, dir: &Path, writes: bool) -> Result<(Proc, String), String> {
    let mut cmd = Command::new(bin);
    cmd.arg("--dir").arg(dir).args(["ui", "--port", "0"]);
    if writes {
        cmd.arg("--allow-writes");
    }
    let mut child = cmd
        .env_remove("REMAIND_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start remaind ui: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let proc = Proc(child);
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    reader.read_line(&mut line).map_err(|e| e.to_string())?;
    // Keep reading: a closed pipe would end the server at its next line.
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .ok_or_else(|| format!("remaind ui printed no URL: {line:?}"))?
        .to_owned();
    Ok((proc, url))
}

fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(l.local_addr().map_err(|e| e.to_string())?.port())
}

fn start_driver() -> Result<(Proc, u16), String> {
    let port = free_port()?;
    let child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {CHROMEDRIVER}: {e}"))?;
    let proc = Proc(child);
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if started.elapsed() > Duration::from_secs(20) {
            return Err("chromedriver did not start listening within 20 s".to_owned());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok((proc, port))
}

fn browser(driver_port: u16) -> Result<Client, String> {
    let caps = serde_json::json!({
        "goog:chromeOptions": {
            "binary": CHROMIUM,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,800", "--hide-scrollbars"]
        }
    });
    Client::new(&format!("http://127.0.0.1:{driver_port}"), caps)
        .map_err(|e| format!("cannot start a chromium session: {e}"))
}

fn e<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

fn text_of(c: &Client, css: &str) -> Result<String, String> {
    c.find(css)?.text()
}

fn wait_for(c: &Client, css: &str, secs: u64) -> Result<(), String> {
    c.wait_for(css, Duration::from_secs(secs)).map(drop)
}

/// Waits for the page itself: a navigation carries the session cookie but not the page key, so
/// it gets the boot page, whose script asks for the same URL again with the key and puts the
/// answer's `<main>` in place of its own.
fn booted(c: &Client) -> Result<(), String> {
    let r = wait_for(c, "main#main:not([data-boot])", 10);
    if r.is_err() && c.find("main[data-state='no-key']").is_ok() {
        return Err("the page has no key for this launch".to_owned());
    }
    r
}

/// Navigates to `url` and waits for the page.
fn open(c: &Client, url: &str) -> Result<(), String> {
    c.goto(url)?;
    booted(c)
}

/// Clicks `el` (a link or a GET form's button, a navigation) and waits for the new page: the
/// old one is marked first, so its own `<main>` is not taken for the new one's.
fn click_to(c: &Client, el: &Element<'_>) -> Result<(), String> {
    c.execute("document.body.setAttribute('data-left', '')")?;
    el.click()?;
    wait_for(c, "body:not([data-left]) main#main:not([data-boot])", 10)
}

fn ensure(cond: bool, what: impl Into<String>) -> Result<(), String> {
    if cond { Ok(()) } else { Err(what.into()) }
}

/// Every view at both sizes.
fn screens(c: &Client, base: &str, prefix: &str, views: &[(&str, &str)]) -> Result<(), String> {
    let dir = workspace_root().join("target/ui-screens");
    std::fs::create_dir_all(&dir).map_err(e)?;
    for (w, h) in SIZES {
        c.set_window_size(w, h)?;
        for (name, path) in views {
            open(c, &format!("{base}{path}"))?;
            wait_for(c, "main h1", 10)?;
            let png = c.screenshot()?;
            std::fs::write(dir.join(format!("{prefix}-{name}-{w}x{h}.png")), png).map_err(e)?;
        }
    }
    c.set_window_size(1280, 800)?;
    Ok(())
}

/// The path of an absolute URL: what follows the host, up to the query or fragment.
fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let rest = &rest[rest.find(['/', '?', '#']).unwrap_or(rest.len())..];
    match rest.split(['?', '#']).next() {
        Some(path) if !path.is_empty() => path,
        _ => "/",
    }
}

fn origin_of(url: &str) -> String {
    url.split("/?").next().unwrap_or(url).to_owned()
}

fn state_times(bin: &Path, dir: &Path) -> Result<Vec<String>, String> {
    let list: serde_json::Value =
        serde_json::from_str(&remaind(bin, dir, &["rollback", "--list", "--json"])?).map_err(e)?;
    Ok(list
        .as_array()
        .ok_or("rollback --list --json is not an array")?
        .iter()
        .filter(|p| p["file"] == "state.json")
        .filter_map(|p| p["time"].as_str().map(str::to_owned))
        .collect())
}

fn demo(t: &mut Tally, bin: &Path, driver: u16, work: &Path) -> Result<(), String> {
    let (ctx, times) = demo_session(bin, work)?;
    let (_ui, url) = start_ui(bin, &ctx, true)?;
    let base = origin_of(&url);
    let c = browser(driver)?;
    let state = ctx.join("active/state.json");
    let handover = ctx.join("active/handover.md");
    let page = DemoPage {
        c: &c,
        bin,
        ctx: &ctx,
        url: &url,
        base: &base,
        times: &times,
        state: &state,
        handover: &handover,
    };
    t.check(
        "demo: the token URL sets the cookie and the timeline renders",
        token_url_sets_the_cookie(&page),
    );
    t.check(
        "demo: <script> and ## Next step render as text",
        untrusted_text_renders_as_text(&page),
    );
    t.check(
        "demo: an event logged while the page is open appears live",
        a_logged_event_appears_live(&page),
    );
    t.check(
        "demo: /e/3 is a deep link to one event with its payload",
        deep_link_to_one_event(&page),
    );
    t.check(
        "demo: search highlights hits and a hit opens its event",
        search_hits_open_their_event(&page),
    );
    t.check(
        "demo: Now shows packet, gate, band, state; a citation opens its event",
        now_shows_the_packet(&page),
    );
    t.check(
        "demo: a rejected candidate shows its failed checks and their events",
        rejected_candidate_shows_its_checks(&page),
    );
    t.check(
        "demo: the diff of two compactions shows an added and a superseded item",
        diff_shows_added_and_superseded(&page),
    );
    t.check(
        "demo: Memory and Integrity render",
        memory_and_integrity_render(&page),
    );
    t.check(
        "demo: Now, Memory and `loops list` show the same open loops",
        open_loops_agree(&page),
    );
    t.check(
        "demo: the compare form names each state's events and, after a rollback, shows nothing as dropped",
        compare_form_after_a_rollback(&page),
    );
    t.check(
        "demo: rollback with --allow-writes changes the files and undo restores the exact bytes",
        rollback_and_undo_restore_bytes(&page),
    );
    let r = screens(
        &c,
        &base,
        "demo",
        &[
            ("timeline", "/timeline"),
            ("event", "/e/3"),
            ("search", "/search?q=retries"),
            ("now", "/now"),
            ("compactions", "/compactions"),
            (
                "diff",
                &format!(
                    "/compactions/diff?a={}&b={}",
                    times[times.len() - 2],
                    times[times.len() - 1]
                ),
            ),
            ("memory", "/memory"),
            ("integrity", "/integrity"),
            ("rollback", "/rollback"),
        ],
    );
    t.check("demo: screenshots of every view at 1280x800 and 390x844", r);
    c.close()?;
    Ok(())
}

/// The demo session with untrusted text and two accepted states whose difference has an added
/// and a superseded item: the context folder and the state's history times.
fn demo_session(bin: &Path, work: &Path) -> Result<(PathBuf, Vec<String>), String> {
    let folder = work.join("demo");
    let out = Command::new(bin)
        .arg("demo")
        .arg("--dir")
        .arg(&folder)
        .env_remove("REMAIND_DIR")
        .output()
        .map_err(e)?;
    ensure(out.status.success(), "remaind demo failed")?;
    let ctx = folder.join(".context");
    // Untrusted text, and two accepted states whose difference has an added and a
    // superseded item.
    remaind(
        bin,
        &ctx,
        &[
            "log",
            "--kind",
            "note",
            "--text",
            "<script>alert(1)</script>",
        ],
    )?;
    remaind(
        bin,
        &ctx,
        &[
            "log",
            "--kind",
            "note",
            "--text",
            "## Next step\nforged heading",
        ],
    )?;
    let old = remaind(
        bin,
        &ctx,
        &[
            "log",
            "--kind",
            "decision",
            "--text",
            "Ship the viewer on port 8080",
        ],
    )?;
    let old_id = old
        .split_whitespace()
        .find(|w| w.starts_with('e'))
        .unwrap_or("")
        .to_owned();
    remaind(bin, &ctx, &["compact"])?;
    remaind(
        bin,
        &ctx,
        &[
            "log",
            "--kind",
            "decision",
            "--text",
            "Ship the viewer on a random port",
            "--supersedes",
            &old_id,
        ],
    )?;
    remaind(bin, &ctx, &["compact"])?;
    let times = state_times(bin, &ctx)?;
    Ok((ctx, times))
}

/// What every check of the demo session's pages works with.
struct DemoPage<'a> {
    c: &'a Client,
    bin: &'a Path,
    ctx: &'a Path,
    url: &'a str,
    base: &'a str,
    times: &'a [String],
    state: &'a Path,
    handover: &'a Path,
}

/// demo: the token URL sets the cookie and the timeline renders.
fn token_url_sets_the_cookie(p: &DemoPage<'_>) -> Result<(), String> {
    let DemoPage { c, url, .. } = p;
    open(c, url)?;
    let now = c.current_url()?;
    ensure(
        !now.as_str().contains("token="),
        format!("the token stays in the URL: {now}"),
    )?;
    ensure(
        !now.as_str().contains("remaind-key"),
        format!("the page key stays in the URL: {now}"),
    )?;
    ensure(path_of(&now) == "/timeline", format!("landed on {now}"))?;
    let rows = c.find_all("#events li.ev")?;
    ensure(
        rows.len() >= 20,
        format!("{} rows on the first page", rows.len()),
    )
}

/// demo: `<script>` and `## Next step` render as text.
fn untrusted_text_renders_as_text(p: &DemoPage<'_>) -> Result<(), String> {
    let DemoPage { c, .. } = p;
    let page = c.source()?;
    ensure(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the script text is not escaped in the page",
    )?;
    let texts = c.find_all("#events .text")?;
    let mut seen = (false, false);
    for el in texts {
        let t = el.text()?;
        seen.0 |= t.contains("<script>alert(1)</script>");
        seen.1 |= t.contains("## Next step");
    }
    ensure(
        seen.0 && seen.1,
        format!("visible as text: script {}, heading {}", seen.0, seen.1),
    )?;
    ensure(c.get_alert_text().is_err(), "an alert dialog opened")?;
    let h2 = c.find_all("#events h2")?;
    ensure(h2.is_empty(), "a forged heading became a heading")
}

/// demo: an event logged while the page is open appears live.
fn a_logged_event_appears_live(p: &DemoPage<'_>) -> Result<(), String> {
    let DemoPage { c, bin, ctx, .. } = p;
    wait_for(c, "#conn[data-state='live']", 15)?;
    remaind(
        bin,
        ctx,
        &[
            "log",
            "--kind",
            "note",
            "--text",
            "appended while the page is open",
        ],
    )?;
    let started = Instant::now();
    loop {
        let page = c.source()?;
        if page.contains("appended while the page is open") {
            break;
        }
        ensure(
            started.elapsed() < Duration::from_secs(15),
            "the new event did not appear within 15 s",
        )?;
        std::thread::sleep(Duration::from_millis(200));
    }
    ensure(
        path_of(&c.current_url()?) == "/timeline",
        "the page reloaded",
    )
}

/// demo: /e/3 is a deep link to one event with its payload.
fn deep_link_to_one_event(p: &DemoPage<'_>) -> Result<(), String> {
    let DemoPage { c, base, .. } = p;
    open(c, &format!("{base}/e/3"))?;
    let h1 = text_of(c, "main h1")?;
    ensure(h1 == "Event e3", format!("heading {h1:?}"))?;
    text_of(c, "pre.payload").map(|_| ())
}

/// demo: search highlights hits and a hit opens its event.
fn search_hits_open_their_event(p: &DemoPage<'_>) -> Result<(), String> {
    let DemoPage { c, base, .. } = p;
    open(c, &format!("{base}/search?q=retries"))?;
    wait_for(c, ".hit mark", 10)?;
    let link = c.find(".hit a.ev-id")?;
    let id = link.text()?;
    link.click()?;
    wait_for(c, "#event", 10)?;
    let h1 = text_of(c, "main h1")?;
    ensure(
        h1 == format!("Event {id}"),
        format!("clicked {id}, opened {h1:?}"),
    )
}

/// demo: Now shows packet, gate, band, state; a citation opens its event.
fn now_shows_the_packet(p: &DemoPage<'_>) -> Result<(), String> {
    let DemoPage { c, base, .. } = p;
    open(c, &format!("{base}/now"))?;
    text_of(c, "#gate .verdict")?;
    let band = text_of(c, "#band")?;
    ensure(band.contains("tokens"), format!("band {band:?}"))?;
    text_of(c, "#instruction .ev-link")?;
    ensure(text_of(c, "pre.packet")?.len() > 200, "packet too short")?;
    text_of(c, "#state .items")?;
    let cite = c.find("pre.handover a.cite")?;
    let id = cite.text()?;
    cite.click()?;
    wait_for(c, "#event", 10)?;
    let h1 = text_of(c, "main h1")?;
    ensure(
        h1 == format!("Event {id}"),
        format!("clicked {id}, opened {h1:?}"),
    )
}

/// demo: a rejected candidate shows its failed checks and their events.
fn rejected_candidate_shows_its_checks(p: &DemoPage<'_>) -> Result<(), String> {
    let DemoPage { c, base, .. } = p;
    open(c, &format!("{base}/compactions"))?;
    let rows = c.find_all(".card.rejected table.failures td code")?;
    ensure(!rows.is_empty(), "no failed check shown")?;
    let check = rows[0].text()?;
    ensure(
        check.ends_with("_preserved") || check.contains('_'),
        format!("check {check:?}"),
    )?;
    let named = c.find_all(".card.rejected table.failures a.ev-link")?;
    ensure(!named.is_empty(), "the failed checks name no event")
}

/// demo: the diff of two compactions shows an added and a superseded item.
fn diff_shows_added_and_superseded(p: &DemoPage<'_>) -> Result<(), String> {
    let DemoPage { c, base, times, .. } = p;
    let n = times.len();
    ensure(n >= 2, "fewer than two states in history")?;
    let (a, b) = (&times[n - 2], &times[n - 1]);
    open(c, &format!("{base}/compactions/diff?a={a}&b={b}"))?;
    let added = c.find_all(".diff li.added")?;
    let sup = c.find_all(".diff li.superseded")?;
    ensure(
        !added.is_empty() && !sup.is_empty(),
        format!("{} added, {} superseded", added.len(), sup.len()),
    )?;
    let s = sup[0].text()?;
    ensure(s.contains("port 8080"), format!("superseded item {s:?}"))?;
    let a0 = added[0].text()?;
    ensure(!a0.is_empty(), "empty added item")
}

/// demo: Memory and Integrity render.
fn memory_and_integrity_render(p: &DemoPage<'_>) -> Result<(), String> {
    let DemoPage { c, base, .. } = p;
    open(c, &format!("{base}/memory"))?;
    let page = c.source()?;
    ensure(
        page.contains("Proposals")
            && page.contains("Accepted")
            && page.contains("table class=\"tree\""),
        "memory sections missing",
    )?;
    open(c, &format!("{base}/integrity"))?;
    let v = text_of(c, "#chain")?;
    ensure(v.contains("intact"), format!("integrity {v:?}"))
}

/// The event ids of the links inside `css` on the page at `path`.
fn linked_ids(p: &DemoPage<'_>, path: &str, css: &str) -> Result<Vec<String>, String> {
    let DemoPage { c, base, .. } = p;
    open(c, &format!("{base}{path}"))?;
    let mut ids = Vec::new();
    for a in c.find_all(css)? {
        ids.push(a.text()?);
    }
    Ok(ids)
}

/// demo: Now, Memory and `loops list` show the same open loops.
fn open_loops_agree(p: &DemoPage<'_>) -> Result<(), String> {
    let listed: Vec<String> = remaind(p.bin, p.ctx, &["loops", "list", "--json"])?
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["id"].as_str().map(str::to_owned))
        .collect();
    ensure(
        !listed.is_empty(),
        "the demo has an open blocker; loops list shows none",
    )?;
    let memory = linked_ids(p, "/memory", "ul.loops li a.ev-link")?;
    ensure(
        memory == listed,
        format!("Memory shows {memory:?}, loops list {listed:?}"),
    )?;
    let now = linked_ids(p, "/now", "#loops ul.loops li a.ev-link")?;
    ensure(
        now == listed,
        format!("Now shows {now:?}, loops list {listed:?}"),
    )
}

/// demo: the compare form's choices carry each state's `through eN`, and after a rollback
/// its default pair puts the state covering fewer events first: nothing shows as dropped.
fn compare_form_after_a_rollback(p: &DemoPage<'_>) -> Result<(), String> {
    let DemoPage {
        c, base, bin, ctx, ..
    } = p;
    let times = state_times(bin, ctx)?;
    let first = times.first().ok_or("no state history")?;
    // Back to the first compaction (then forward again, so later checks see the demo's end).
    let back = remaind(bin, ctx, &["rollback", "--to", first, "--json"])?;
    let back: serde_json::Value = serde_json::from_str(&back).map_err(e)?;
    let undo = back["undo_to"]
        .as_str()
        .ok_or("the rollback has no undo")?
        .to_owned();
    let checked = compare_form_shows_nothing_dropped(c, base);
    remaind(bin, ctx, &["rollback", "--to", &undo])?;
    checked
}

/// The compare form on /compactions after the rollback (its checks run before the undo).
fn compare_form_shows_nothing_dropped(c: &Client, base: &str) -> Result<(), String> {
    open(c, &format!("{base}/compactions"))?;
    let newer = text_of(c, "select[name=b] option[selected]")?;
    let older = text_of(c, "select[name=a] option[selected]")?;
    ensure(
        older.contains("through e") && newer.contains("through e"),
        format!("choices without their events: {older:?}, {newer:?}"),
    )?;
    ensure(
        older.contains("(current)") || newer.contains("(current)"),
        format!("the current state is not selected: {older:?}, {newer:?}"),
    )?;
    let through = |t: &str| {
        t.split("through e")
            .nth(1)
            .and_then(|r| r.split(|ch: char| !ch.is_ascii_digit()).next())
            .and_then(|n| n.parse::<u64>().ok())
    };
    ensure(
        through(&older) < through(&newer),
        format!("older {older:?} covers no fewer events than newer {newer:?}"),
    )?;
    c.find("form.filters button")?.click()?;
    wait_for(c, "#summary", 10)?;
    let summary = text_of(c, "#summary")?;
    // Case as rendered (the labels are styled upper-case).
    ensure(
        summary.to_lowercase().contains("dropped0"),
        format!("summary {summary:?}"),
    )
}

/// demo: rollback with --allow-writes changes the files and undo restores the exact bytes.
fn rollback_and_undo_restore_bytes(p: &DemoPage<'_>) -> Result<(), String> {
    let DemoPage {
        c,
        bin,
        ctx,
        base,
        times,
        state,
        handover,
        ..
    } = p;
    let before = (
        std::fs::read(state).map_err(e)?,
        std::fs::read(handover).map_err(e)?,
    );
    open(c, &format!("{base}/rollback"))?;
    // The newest state.json point's "roll back to before": undoes the last compaction (newer
    // points may touch only the packet or memory).
    let mut newest_state = None;
    for row in c.find_all("table.points tr")? {
        if row.text()?.contains("state.json") {
            newest_state = Some(row);
            break;
        }
    }
    let row = newest_state.ok_or("no rollback point changes state.json")?;
    let buttons = row.find_all("button")?;
    ensure(buttons.len() >= 2, "no rollback buttons")?;
    buttons[1].click()?;
    if let Err(why) = wait_for(c, "#confirm", 10) {
        let page = c.source()?;
        return Err(format!(
            "{why}; the page: {}",
            page.chars().take(600).collect::<String>()
        ));
    }
    ensure(
        std::fs::read(state).map_err(e)? == before.0,
        "the confirmation page changed a file",
    )?;
    c.find("form button.danger")?.click()?;
    wait_for(c, "#done", 10)?;
    let rolled = std::fs::read(state).map_err(e)?;
    ensure(rolled != before.0, "the rollback changed nothing")?;
    let older = &times[times.len() - 2];
    let cli_view = remaind(bin, ctx, &["rollback", "--list", "--json"])?;
    ensure(cli_view.contains(older.as_str()), "history lost a point")?;
    // Undo, confirmed, brings back the exact bytes.
    c.find("form button.danger")?.click()?;
    wait_for(c, "#confirm", 10)?;
    c.find("form button.danger")?.click()?;
    wait_for(c, "#done", 10)?;
    let after = (
        std::fs::read(state).map_err(e)?,
        std::fs::read(handover).map_err(e)?,
    );
    ensure(after == before, "undo did not restore the exact bytes")
}

fn transcript(t: &mut Tally, bin: &Path, driver: u16, work: &Path) -> Result<(), String> {
    let ctx = work.join("transcript/.context");
    let source = workspace_root().join("fixtures/transcripts/claude-code-fe5e1c67.jsonl");
    remaind(bin, &ctx, &["init"])?;
    remaind(
        bin,
        &ctx,
        &["import", "claude-code", &source.to_string_lossy()],
    )?;
    remaind(bin, &ctx, &["compact"])?;
    let (_ui, url) = start_ui(bin, &ctx, false)?;
    let base = origin_of(&url);
    let c = browser(driver)?;
    let r = transcript_timeline(&c, &url, &base);
    t.check("transcript: timeline pages and filters by kind", r);
    let r = transcript_read_only(&c, &base);
    t.check("transcript: Now, search and a read-only Rollback render", r);
    let r = screens(
        &c,
        &base,
        "transcript",
        &[
            ("timeline", "/timeline"),
            ("now", "/now"),
            ("compactions", "/compactions"),
            ("search", "/search?q=test"),
        ],
    );
    t.check("transcript: screenshots at 1280x800 and 390x844", r);
    c.close()?;
    Ok(())
}

/// transcript: timeline pages and filters by kind.
fn transcript_timeline(c: &Client, url: &str, base: &str) -> Result<(), String> {
    open(c, url)?;
    let rows = c.find_all("#events li.ev")?;
    ensure(
        rows.len() == 50,
        format!("{} rows on the first page", rows.len()),
    )?;
    let prev = c.find("a[rel=prev]")?;
    click_to(c, &prev)?;
    let older = c.find_all("#events li.ev")?;
    ensure(!older.is_empty(), "the older page is empty")?;
    open(c, &format!("{base}/timeline?kind=user_message"))?;
    let kinds = c.find_all("#events .kind")?;
    ensure(!kinds.is_empty(), "no user message")?;
    for k in kinds {
        ensure(
            k.text()? == "user_message",
            "the kind filter let another kind through",
        )?;
    }
    Ok(())
}

/// transcript: Now, search and a read-only Rollback render.
fn transcript_read_only(c: &Client, base: &str) -> Result<(), String> {
    open(c, &format!("{base}/now"))?;
    text_of(c, "#gate .verdict")?;
    text_of(c, "pre.packet")?;
    open(c, &format!("{base}/rollback"))?;
    text_of(c, "#read-only")?;
    let buttons = c.find_all("button.danger")?;
    ensure(buttons.is_empty(), "a read-only viewer shows write buttons")?;
    open(c, &format!("{base}/search?q=test"))?;
    wait_for(c, ".hit mark", 10)
}

/// Runs both sessions; `bin` is the `remaind` binary to serve.
pub(crate) fn run(bin: Option<&str>) -> Result<(), String> {
    let root = workspace_root();
    let bin = bin.map_or_else(|| root.join("target/debug/remaind"), PathBuf::from);
    let work = root.join(format!("target/ui-browser/{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(e)?;
    let (_driver, port) = start_driver()?;
    let mut tally = Tally {
        passed: 0,
        failed: Vec::new(),
    };
    let outcome = demo(&mut tally, &bin, port, &work)
        .and_then(|()| transcript(&mut tally, &bin, port, &work));
    let _ = std::fs::remove_dir_all(&work);
    if let Err(setup) = &outcome {
        tally.failed.push(format!("setup: {setup}"));
    }
    let failed = tally.failed.len();
    println!(
        "test result: {}. {} passed; {failed} failed; 0 ignored",
        if failed == 0 { "ok" } else { "FAILED" },
        tally.passed
    );
    if failed == 0 {
        Ok(())
    } else {
        Err(format!("ui-browser: {}", tally.failed.join("; ")))
    }
}
