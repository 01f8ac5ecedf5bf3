// Behaviour every page shares; no inline script anywhere (CSP script-src 'self').
// 1. Stacked cards under 600 px: each cell of a .grid table gets its column's heading as
//    data-label, so the CSS can print it before the value (any page's tables, no template change).
// 2. Bulk selection: "select all on this page", the selected count, and the choice between
//    the ticked rows and every row matching the filter.
// 3. htmx live regions: a refresh never replaces a region the user is working in (ticked
//    rows, focus inside, a form being filled), nor runs while the page's "live-toggle"
//    checkbox is unticked (remembered per page for the tab's session).
(function () {
  "use strict";

  function label(root) {
    var tables = (root || document).querySelectorAll("table.grid");
    for (var t = 0; t < tables.length; t++) {
      var heads = tables[t].querySelectorAll("thead th");
      if (!heads.length) continue;
      var names = [];
      for (var h = 0; h < heads.length; h++) names.push(heads[h].textContent.trim());
      var rows = tables[t].querySelectorAll("tbody tr");
      for (var r = 0; r < rows.length; r++) {
        var cells = rows[r].children;
        if (cells.length === 1) continue; // "Nothing here." spans every column
        for (var c = 0; c < cells.length && c < names.length; c++) {
          if (!cells[c].hasAttribute("data-label") && names[c]) cells[c].setAttribute("data-label", names[c]);
        }
      }
    }
  }

  function bulk(root) {
    var forms = (root || document).querySelectorAll("form[data-bulk]");
    for (var i = 0; i < forms.length; i++) wire(forms[i]);
  }

  function wire(form) {
    if (form.dataset.wired) return;
    form.dataset.wired = "1";
    var all = document.querySelector("input[data-select-all='" + form.id + "']");
    var count = form.querySelector("[data-selected-count]");
    var scopeSel = form.querySelector("input[name=scope][value=selected]");
    function boxes() { return document.querySelectorAll("input[name=ids][form='" + form.id + "']"); }
    function update() {
      var n = 0, b = boxes();
      for (var k = 0; k < b.length; k++) if (b[k].checked) n++;
      if (count) count.textContent = String(n);
      if (n && scopeSel && !scopeSel.checked && form.dataset.userScope !== "1") scopeSel.checked = true;
    }
    if (all) {
      all.addEventListener("change", function () {
        var b = boxes();
        for (var k = 0; k < b.length; k++) b[k].checked = all.checked;
        update();
      });
    }
    document.addEventListener("change", function (ev) {
      if (ev.target.name === "ids" && ev.target.getAttribute("form") === form.id) update();
      if (ev.target.name === "scope" && ev.target.form === form) form.dataset.userScope = "1";
    });
    update();
  }

  var LIVE_KEY = "ats-live:" + location.pathname;

  // The toggle can sit inside the region it controls (the document page): wire each copy.
  function toggle() {
    var t = document.getElementById("live-toggle");
    if (!t || t.dataset.wired) return;
    t.dataset.wired = "1";
    t.checked = sessionStorage.getItem(LIVE_KEY) !== "off";
    t.addEventListener("change", function () { sessionStorage.setItem(LIVE_KEY, t.checked ? "on" : "off"); });
  }

  function paused() {
    var t = document.getElementById("live-toggle");
    return !!t && !t.checked;
  }

  function busy(region) {
    if (paused()) return true; // the page's "Refresh every N s" switch pauses its live regions
    var active = document.activeElement;
    if (active && active.id === "live-toggle") return false; // ticking the toggle is not work in the region
    if (region.contains(active) && active !== region) return true;
    if (document.querySelector("input[name=ids]:checked")) return true;
    return false;
  }

  document.addEventListener("htmx:beforeRequest", function (ev) {
    var region = ev.detail.elt;
    if (region && region.hasAttribute("data-live") && (document.hidden || paused() || busy(region))) ev.preventDefault();
  });
  // An unchanged region (same data-version from the server) is not swapped in.
  document.addEventListener("htmx:beforeSwap", function (ev) {
    var region = ev.detail.target;
    if (!region || !region.hasAttribute("data-live") || !region.dataset.version) return;
    var fresh = new DOMParser().parseFromString(ev.detail.serverResponse, "text/html").getElementById(region.id);
    if (fresh && fresh.dataset.version === region.dataset.version) ev.detail.shouldSwap = false;
  });
  document.addEventListener("htmx:afterSettle", function (ev) { label(ev.target); toggle(); });

  label(document);
  toggle();
  bulk(document);
})();
