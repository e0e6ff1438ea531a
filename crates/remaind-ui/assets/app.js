// remaind ui: the page key, the boot of a page, the live tail's connection state, and no
// duplicate rows after a reconnect.
// Loaded from this server only (the Content-Security-Policy allows no inline script).
(function () {
  "use strict";
  // The page key. The session cookie alone opens nothing but the boot page: the browser sends
  // cookies to every port of this host, so another local server could replay it. The key
  // lives in this origin's storage (scoped to the port too) and goes out only as a header on
  // this page's own requests. The printed URL's token is traded for a redirect whose fragment
  // (never sent to a server) carries the key: keep it, then clear the fragment.
  var KEY = "remaind-key";
  var held = null;
  function storage() {
    try {
      return window.localStorage;
    } catch (e) {
      return null;
    }
  }
  var handed = /^#remaind-key=([0-9a-f]{64})$/.exec(location.hash);
  if (handed) {
    held = handed[1];
    var s = storage();
    try {
      if (s) s.setItem(KEY, held);
    } catch (e) {
      // Storage refused (a private window's quota): this page still has the key.
    }
    history.replaceState(history.state, "", location.pathname + location.search);
  }
  function key() {
    if (held) return held;
    var s = storage();
    try {
      return s ? s.getItem(KEY) : null;
    } catch (e) {
      return null;
    }
  }
  // Every request htmx makes from this page, and only to this server, carries the key.
  document.addEventListener("htmx:configRequest", function (e) {
    var k = key();
    var path = String(e.detail.path || "");
    if (k && path.charAt(0) === "/" && path.charAt(1) !== "/") {
      e.detail.headers["X-Remaind-Key"] = k;
    }
  });
  // The boot page asks for its own URL again with the key and puts the answer's <main> in
  // its place, an error page too; without this launch's key it says what to do instead.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var main = e.target;
    if (!main || !main.hasAttribute || !main.hasAttribute("data-boot")) return;
    if (e.detail.xhr && e.detail.xhr.status === 401) {
      e.detail.shouldSwap = false;
      e.detail.isError = false;
      main.setAttribute("data-state", "no-key");
      main.textContent = "";
      var p = document.createElement("p");
      p.className = "error";
      p.textContent =
        "This tab has no key for this launch of the viewer: open the URL `remaind ui` printed.";
      main.appendChild(p);
      return;
    }
    e.detail.shouldSwap = true;
    e.detail.isError = false;
  });
  function setState(state, label) {
    var el = document.getElementById("conn");
    if (!el) return;
    el.dataset.state = state;
    el.textContent = label;
  }
  document.addEventListener("htmx:sseOpen", function () {
    setState("live", "live");
  });
  document.addEventListener("htmx:sseError", function () {
    setState("reconnecting", "reconnecting…");
  });
  document.addEventListener("htmx:sseClose", function () {
    setState("closed", "disconnected");
  });
  // A reconnect that starts over would send rows the page already has.
  document.addEventListener("htmx:sseBeforeMessage", function (e) {
    var id = e.detail && e.detail.lastEventId;
    if (id && document.getElementById("e" + id)) e.preventDefault();
  });
  document.addEventListener("htmx:sseMessage", function () {
    var el = document.getElementById("conn");
    if (el) el.dataset.received = String((Number(el.dataset.received) || 0) + 1);
  });
})();
