// Live pages without a framework: an element with data-refresh-s="N" reloads the page
// every N seconds while the tab is visible (the document page while its document is not
// terminal, the ops console always). A checkbox with id "live-toggle" pauses it.
(function () {
  "use strict";
  var el = document.querySelector("[data-refresh-s]");
  if (!el) return;
  var seconds = parseFloat(el.dataset.refreshS);
  var toggle = document.getElementById("live-toggle");
  var key = "ats-live:" + location.pathname;
  if (toggle) {
    toggle.checked = sessionStorage.getItem(key) !== "off";
    toggle.addEventListener("change", function () {
      sessionStorage.setItem(key, toggle.checked ? "on" : "off");
    });
  }
  window.setInterval(function () {
    if (document.hidden) return;
    if (toggle && !toggle.checked) return;
    if (document.activeElement && document.activeElement.tagName === "INPUT" && document.activeElement.type !== "checkbox") return;
    window.location.reload();
  }, seconds * 1000);
})();
