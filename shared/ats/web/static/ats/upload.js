// Upload page: post the files to the JSON API, then poll GET /api/intake/<id> until every
// file is in a terminal state (the per-file outcome a candidate sees after applying).
// Every batch keeps its own table (newest first); a file the page or the server refuses is
// listed in its batch with why, and the rest of the batch is sent. Plain JavaScript, no
// build step, no inline script (CSP script-src 'self').
(function () {
  "use strict";
  var form = document.getElementById("upload-form");
  var section = document.getElementById("outcomes");
  var batches = document.getElementById("batches");
  var errorBox = document.getElementById("upload-error");
  var limits = document.getElementById("limits").dataset.limits;
  var maxFiles = parseInt(form.dataset.maxFiles, 10);
  var maxBytes = parseInt(form.dataset.maxBytes, 10);
  var maxMb = Math.round(maxBytes / (1024 * 1024));
  var batchNo = 0;

  function csrf() {
    return form.querySelector("input[name=csrfmiddlewaretoken]").value;
  }

  function showError(text) {
    errorBox.textContent = text + " " + limits;
    errorBox.hidden = false;
  }

  function cell(text) {
    var td = document.createElement("td");
    td.textContent = text || "";
    return td;
  }

  function link(href, text) {
    var a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    return a;
  }

  function stamp() {
    var d = new Date();
    function pad(n) { return (n < 10 ? "0" : "") + n; }
    return pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
  }

  // One batch: a heading, a table, the refused files first (they never reach the server's list).
  function newBatch(requisitionText) {
    batchNo += 1;
    var box = document.createElement("section");
    box.className = "batch";
    box.dataset.batch = String(batchNo);
    var h = document.createElement("h3");
    h.textContent = "Batch " + batchNo + ", sent at " + stamp() + (requisitionText ? " for " + requisitionText : "");
    box.appendChild(h);
    var table = document.createElement("table");
    table.className = "grid";
    var head = document.createElement("thead");
    head.innerHTML = "<tr><th scope=\"col\">File</th><th scope=\"col\">State</th><th scope=\"col\">Details</th></tr>";
    table.appendChild(head);
    var refused = document.createElement("tbody");
    refused.className = "refused-rows";
    var body = document.createElement("tbody");
    body.className = "outcome-rows";
    table.appendChild(refused);
    table.appendChild(body);
    box.appendChild(table);
    batches.insertBefore(box, batches.firstChild);
    section.hidden = false;
    return { box: box, refused: refused, body: body, requisition: !!requisitionText };
  }

  function refusedRow(batch, name, why) {
    var tr = document.createElement("tr");
    tr.className = "refused";
    tr.dataset.state = "refused";
    tr.dataset.terminal = "true";
    tr.appendChild(cell(name));
    tr.appendChild(cell("Not uploaded"));
    tr.appendChild(cell(why));
    batch.refused.appendChild(tr);
  }

  function details(a) {
    var td = document.createElement("td");
    var parts = [];
    if (a.reason) parts.push(a.reason);
    var app = a.application;
    if (a.state === "duplicate" && app) {
      parts = ["Already on file (the same file was received before)."];
      parts.push("Added to " + app.requisition_title + (app.state === "scored" ? " and scored." :
        app.state === "scoring_failed" ? ", but scoring failed." : "; being scored ..."));
    } else if (app) {
      parts.push("Applied to " + app.requisition_title + (app.state === "scored" ? " and scored." :
        app.state === "scoring_failed" ? ", but scoring failed." : "; being scored ..."));
    } else if (a.action) {
      parts.push(a.action + ".");
    }
    td.appendChild(document.createTextNode(parts.join(" ")));
    if (a.candidate_id) {
      td.appendChild(document.createTextNode(" "));
      td.appendChild(link(a.candidate_url || "/candidates/" + a.candidate_id, a.candidate_name || "Open the candidate"));
    }
    if (app) {
      td.appendChild(document.createTextNode(" "));
      td.appendChild(link(app.url, "Open the application"));
    }
    return td;
  }

  // Finished for this page: terminal, and - for a batch sent to a requisition - its
  // application made and scored (a byte-identical re-upload is routed to the requisition by
  // a job after it turns terminal, so the row waits for that too).
  function settled(a, batch) {
    if (!a.terminal) return false;
    if (a.application) return a.application.state !== "applied";
    return !(batch && batch.requisition && (a.state === "duplicate" || a.state === "candidate_created"));
  }

  function render(batch, attachments) {
    batch.body.textContent = "";
    attachments.forEach(function (a) {
      var tr = document.createElement("tr");
      tr.dataset.state = a.state;
      tr.dataset.terminal = String(a.terminal);
      tr.dataset.settled = String(settled(a, batch));
      var name = document.createElement("td");
      name.appendChild(link("/documents/" + a.attachment_id, a.filename));
      tr.appendChild(name);
      var state = cell(a.state_label + (a.terminal ? "" : " ..."));
      state.className = "state state-" + a.state;
      tr.appendChild(state);
      tr.appendChild(details(a));
      batch.body.appendChild(tr);
    });
  }

  function poll(batch, rawId, delay) {
    fetch("/api/intake/" + rawId, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.json(); })
      .then(function (data) {
        render(batch, data.attachments);
        var terminal = data.attachments.every(function (a) { return a.terminal; });
        if (terminal) batch.terminalPolls = (batch.terminalPolls || 0) + 1;
        // Once every file is terminal, wait at most ~2 minutes for the scoring to show.
        var waiting = !data.attachments.every(function (a) { return settled(a, batch); });
        if (waiting && (batch.terminalPolls || 0) < 40) {
          window.setTimeout(function () { poll(batch, rawId, Math.min(delay * 1.5, 3000)); }, delay);
        }
      })
      .catch(function () { window.setTimeout(function () { poll(batch, rawId, 3000); }, 3000); });
  }

  // Per-file refusals the server names (a list of {filename, reason|error}), whatever the key.
  function serverRefusals(body) {
    var list = body.refused || body.rejected || [];
    return Array.isArray(list) ? list : [];
  }

  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    errorBox.hidden = true;
    var input = form.querySelector("input[type=file]");
    var files = input.files;
    if (!files.length) { showError("Choose at least one file."); return; }
    var select = form.querySelector("select[name=requisition]");
    var reqText = select && select.value ? select.options[select.selectedIndex].textContent : "";
    var batch = newBatch(reqText);
    var data = new FormData();
    data.append("csrfmiddlewaretoken", csrf());
    if (select && select.value) data.append("requisition", select.value);
    var sent = 0;
    for (var i = 0; i < files.length; i++) {
      if (files[i].size > maxBytes) {
        refusedRow(batch, files[i].name, "Larger than the " + maxMb + " MB limit for one file; the other files were sent.");
      } else if (sent >= maxFiles) {
        refusedRow(batch, files[i].name, "More than " + maxFiles + " files at once; send it in another batch.");
      } else {
        data.append("files", files[i], files[i].name);
        sent += 1;
      }
    }
    form.reset();
    if (!sent) return;
    fetch(form.action, { method: "POST", body: data, credentials: "same-origin", headers: { "X-CSRFToken": csrf() } })
      .then(function (r) { return r.json().then(function (body) { return { status: r.status, body: body }; }); })
      .then(function (res) {
        serverRefusals(res.body).forEach(function (f) {
          refusedRow(batch, f.filename || f.name || "a file", (f.reason || f.error || f.message || "Refused") + " " + limits);
        });
        if (res.status !== 201 && res.status !== 200) {
          if (!serverRefusals(res.body).length) showError(res.body.error || "Upload refused.");
          return;
        }
        render(batch, res.body.attachments || []);
        if (res.body.raw_intake_id) poll(batch, res.body.raw_intake_id, 300);
      })
      .catch(function () { showError("The upload did not reach the server. Try again."); });
  });
})();
