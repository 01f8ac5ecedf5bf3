// The requisition page's rescore panel: while a rescore is queued or running, poll its
// JSON every 2 s and update the counts in place; when it finishes, reload once so the
// ranking and the list of what could not be scored are the server's.
(function () {
  "use strict";
  var panel = document.getElementById("rescore");
  if (!panel || panel.dataset.finished === "1") return;
  var out = document.getElementById("rescore-progress");
  var bar = document.getElementById("rescore-bar");
  function tick() {
    if (document.hidden) return;
    fetch(panel.dataset.rescoreUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (s) {
        if (!s) return;
        if (s.finished) { window.clearInterval(timer); window.location.reload(); return; }
        if (s.queued || !s.run) { out.textContent = "Version " + s.version + ": waiting for a worker to start…"; return; }
        var r = s.run;
        out.textContent = "Version " + r.requisition_version + ": " + s.done + " of " + r.total + " done - " +
          r.scored + " scored again, " + r.unchanged + " unchanged, " + r.failed + " could not be scored" +
          (r.pending ? ", " + r.pending + " to go." : ".");
        if (bar) { bar.max = r.total || 1; bar.value = s.done; }
      })
      .catch(function () { /* the next tick tries again */ });
  }
  var timer = window.setInterval(tick, 2000);
})();
