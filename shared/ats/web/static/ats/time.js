// Every <time data-local> the server wrote (the |when filter, "2026-12-01 21:05 UTC") is
// rewritten into the browser's own zone in the same one format ("2026-12-01 22:05 CET");
// the UTC reading stays as its title. Runs again after htmx swaps new rows in.
(function () {
  "use strict";
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function zone(d) {
    try {
      var parts = new Intl.DateTimeFormat(undefined, { timeZoneName: "short" }).formatToParts(d);
      for (var i = 0; i < parts.length; i++) if (parts[i].type === "timeZoneName") return parts[i].value;
    } catch (e) { /* old browser: fall through to the offset */ }
    var off = -d.getTimezoneOffset();
    return "UTC" + (off >= 0 ? "+" : "-") + pad(Math.floor(Math.abs(off) / 60)) + ":" + pad(Math.abs(off) % 60);
  }
  function localise(root) {
    var els = (root || document).querySelectorAll("time[data-local]");
    for (var i = 0; i < els.length; i++) {
      var el = els[i];
      if (el.dataset.localised) continue;
      var d = new Date(el.getAttribute("datetime"));
      if (isNaN(d.getTime())) continue;
      var text = d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
        pad(d.getHours()) + ":" + pad(d.getMinutes()) +
        (el.hasAttribute("data-seconds") ? ":" + pad(d.getSeconds()) : "");
      el.title = el.textContent;
      el.textContent = text + " " + zone(d);
      el.dataset.localised = "1";
    }
  }
  window.atsLocaliseTimes = localise;
  localise(document);
  document.addEventListener("htmx:afterSettle", function (ev) { localise(ev.target); });
})();
