// Upload page: post the files to the JSON API, then poll GET /api/intake/<id> until every
// file is in a terminal state (the per-file outcome a candidate sees after applying).
// Plain JavaScript, no build step, no inline script (CSP script-src 'self').
(function () {
  "use strict";
  var form = document.getElementById("upload-form");
  var table = document.getElementById("outcomes");
  var body = table.querySelector("tbody");
  var errorBox = document.getElementById("upload-error");
  var maxFiles = parseInt(form.dataset.maxFiles, 10);
  var maxBytes = parseInt(form.dataset.maxBytes, 10);

  function csrf() {
    return form.querySelector("input[name=csrfmiddlewaretoken]").value;
  }

  function showError(text) {
    errorBox.textContent = text;
    errorBox.hidden = false;
  }

  function cell(text) {
    var td = document.createElement("td");
    td.textContent = text || "";
    return td;
  }

  function render(attachments) {
    body.textContent = "";
    attachments.forEach(function (a) {
      var tr = document.createElement("tr");
      tr.dataset.state = a.state;
      tr.dataset.terminal = String(a.terminal);
      var name = document.createElement("td");
      var link = document.createElement("a");
      link.href = "/documents/" + a.attachment_id;
      link.textContent = a.filename;
      name.appendChild(link);
      tr.appendChild(name);
      var state = cell(a.state_label + (a.terminal ? "" : " ..."));
      state.className = "state state-" + a.state;
      tr.appendChild(state);
      var details = [];
      if (a.reason) details.push(a.reason);
      if (a.action) details.push(a.action);
      if (a.candidate_id) details.push("Candidate " + a.candidate_id);
      tr.appendChild(cell(details.join(" - ")));
      body.appendChild(tr);
    });
    table.hidden = false;
  }

  function poll(rawId, delay) {
    fetch("/api/intake/" + rawId, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.json(); })
      .then(function (data) {
        render(data.attachments);
        var done = data.attachments.every(function (a) { return a.terminal; });
        if (!done) {
          window.setTimeout(function () { poll(rawId, Math.min(delay * 1.5, 3000)); }, delay);
        }
      })
      .catch(function () { window.setTimeout(function () { poll(rawId, 3000); }, 3000); });
  }

  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    errorBox.hidden = true;
    var files = form.querySelector("input[type=file]").files;
    if (files.length > maxFiles) { showError("At most " + maxFiles + " files at once."); return; }
    for (var i = 0; i < files.length; i++) {
      if (files[i].size > maxBytes) { showError(files[i].name + " is over the size limit."); return; }
    }
    var data = new FormData(form);
    fetch(form.action, { method: "POST", body: data, credentials: "same-origin", headers: { "X-CSRFToken": csrf() } })
      .then(function (r) { return r.json().then(function (body) { return { status: r.status, body: body }; }); })
      .then(function (res) {
        if (res.status !== 201) { showError(res.body.error || "Upload refused."); return; }
        render(res.body.attachments);
        form.reset();
        poll(res.body.raw_intake_id, 300);
      })
      .catch(function () { showError("The upload did not reach the server. Try again."); });
  });
})();
