// The CV viewer: keyboard moves between pages, "Zoom in" doubles the same page images,
// and a "Show on page" button on a field's source lights up its box on the page image.
// Box positions are fractions of the page in the provenance's own units (points for PDF,
// image pixels for scans), so they hold at any displayed size.
(function () {
  "use strict";
  function pagesOf(viewer) { return Array.prototype.slice.call(viewer.querySelectorAll(".cv-page")); }

  function current(viewer) {
    var pages = pagesOf(viewer), mid = window.innerHeight / 3, best = 0;
    pages.forEach(function (p, i) { if (p.getBoundingClientRect().top <= mid) { best = i; } });
    var focused = pages.indexOf(document.activeElement);
    return focused >= 0 ? focused : best;
  }

  function go(viewer, delta) {
    var pages = pagesOf(viewer);
    if (!pages.length) { return; }
    var next = pages[Math.max(0, Math.min(pages.length - 1, current(viewer) + delta))];
    next.focus({ preventScroll: true });
    next.scrollIntoView({ block: "start" });
  }

  function highlight(button) {
    var doc = button.getAttribute("data-doc"), page = button.getAttribute("data-page");
    var bbox = (button.getAttribute("data-bbox") || "").split(",").map(Number);
    var figure = document.getElementById("doc-" + doc + "-page-" + page);
    if (!figure || bbox.length !== 4 || bbox.some(isNaN)) { return false; }
    var uw = Number(figure.getAttribute("data-unit-w")), uh = Number(figure.getAttribute("data-unit-h"));
    if (!(uw > 0 && uh > 0)) { return false; }
    document.querySelectorAll(".cv-box").forEach(function (b) { b.remove(); });
    document.querySelectorAll(".show-source[aria-pressed=true]").forEach(function (b) { b.setAttribute("aria-pressed", "false"); });
    var pad = 2, box = document.createElement("div");
    function pct(v, total) { return Math.max(0, Math.min(100, (v / total) * 100)) + "%"; }
    box.className = "cv-box flash";
    box.setAttribute("data-field", button.getAttribute("data-field") || "");
    box.style.left = pct(bbox[0] - pad, uw);
    box.style.top = pct(bbox[1] - pad, uh);
    box.style.width = pct(bbox[2] - bbox[0] + 2 * pad, uw);
    box.style.height = pct(bbox[3] - bbox[1] + 2 * pad, uh);
    figure.querySelector(".cv-page-frame").appendChild(box);
    button.setAttribute("aria-pressed", "true");
    box.scrollIntoView({ block: "center", inline: "nearest" });
    return true;
  }

  document.addEventListener("click", function (ev) {
    var t = ev.target.closest ? ev.target.closest(".show-source, .viewer-zoom") : null;
    if (!t) { return; }
    if (t.classList.contains("show-source")) {
      highlight(t);
      return;
    }
    var pages = document.getElementById(t.getAttribute("aria-controls"));
    var on = !pages.classList.contains("zoomed");
    pages.classList.toggle("zoomed", on);
    t.setAttribute("aria-pressed", on ? "true" : "false");
    t.textContent = on ? "Zoom out" : "Zoom in";
  });

  document.addEventListener("keydown", function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    var viewer = ev.target.closest ? ev.target.closest(".viewer-pages") : null;
    if (!viewer) { return; }
    var keys = { j: 1, k: -1, PageDown: 1, PageUp: -1, ArrowRight: 1, ArrowLeft: -1 };
    if (!(ev.key in keys)) { return; }
    ev.preventDefault();
    go(viewer, keys[ev.key]);
  });
})();
