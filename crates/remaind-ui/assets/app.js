// remaind ui: the live tail's connection state, and no duplicate rows after a reconnect.
// Loaded from this server only (the Content-Security-Policy allows no inline script).
(function () {
  "use strict";
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
