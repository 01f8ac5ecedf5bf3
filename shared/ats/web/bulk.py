"""Bulk actions on the inbox and the candidate list (issue 23 item 7).

Two steps, both POST: the list's form names the rows (ticked ids, or "all matching this
filter", resolved here to ids) and the action; the first step answers a confirmation page
that states the count and the names; the second (``confirm=1``) runs the action once per
row through the owning module's service, so each row is checked and audited on its own,
and answers a summary: n done, n skipped with why. A row that cannot take the action is
skipped with its reason, never failing the others.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from ats import errors
from ats.audit import api as audit_api
from ats.candidates import api as candidates_api
from ats.iam import api as iam_api
from ats.intake import api as intake_api
from ats.scoring import api as scoring_api
from ats.web.access import requires
from ats.web.requisitions import visible_requisitions

BULK_MAX = 500  # rows per bulk action; "all matching" beyond this asks for a narrower filter
SHOWN = 50  # names listed on the confirmation page ("and N more")

# action -> (permission, verb for the button, past tense for the summary)
DOCUMENT_ACTIONS: dict[str, tuple[str, str, str]] = {
    "discard": ("intake.discard", "Discard", "discarded"),
    "reparse": ("intake.reparse", "Re-parse", "sent to be read again"),
    "assign": ("requisition.edit", "Add to requisition", "added to the requisition and sent for scoring"),
}
CANDIDATE_ACTIONS: dict[str, tuple[str, str, str]] = {
    "assign": ("requisition.edit", "Add to requisition", "added to the requisition and sent for scoring"),
    "reparse": ("intake.reparse", "Re-parse documents", "had their documents sent to be read again"),
}


@dataclasses.dataclass
class Row:
    id: int
    name: str
    url: str


class Refused(errors.Refused):
    """The whole request is refused (nothing done): the reason is shown on the list page."""


def _ids(request: HttpRequest) -> list[int]:
    out: list[int] = []
    for raw in request.POST.getlist("ids"):
        if raw.isdigit() and int(raw) not in out:
            out.append(int(raw))
    return out


def _filter_from(data: Any) -> intake_api.TriageFilter:
    from ats.web.pages import triage_filter  # the inbox's own reading of its query

    f, errors = triage_filter(data)
    if errors:
        raise Refused(" ".join(errors))
    return f


def _requisition(request: HttpRequest) -> dict[str, Any]:
    raw = request.POST.get("requisition", "")
    for r in visible_requisitions(request.user):
        if str(r["id"]) == raw:
            return r
    raise Refused("Choose a requisition to add them to.")


def _document_rows(request: HttpRequest) -> list[Row]:
    if request.POST.get("scope") == "filter":
        f = _filter_from(request.POST)
        rows, total = intake_api.triage_rows(f, limit=BULK_MAX)
        if total > BULK_MAX:
            raise Refused(f"{total} documents match; at most {BULK_MAX} at once. Narrow the filter.")
        return [Row(r["attachment_id"], r["filename"], reverse("document", args=[r["attachment_id"]])) for r in rows]
    ids = _ids(request)[:BULK_MAX]
    docs = intake_api.document_summaries(ids)
    return [Row(i, docs[i].filename, reverse("document", args=[i])) for i in ids if i in docs]


def _candidate_rows(request: HttpRequest) -> list[Row]:
    if request.POST.get("scope") == "filter":
        q = request.POST.get("q", "").strip()[:200]
        found = candidates_api.candidate_list(
            actor=request.user, search=q or None, include_inactive=False, limit=BULK_MAX + 1
        )
        if len(found) > BULK_MAX:
            raise Refused(f"More than {BULK_MAX} candidates match; narrow the search.")
        return [Row(c["id"], c["name"] or f"Candidate {c['id']}", reverse("candidate", args=[c["id"]])) for c in found]
    rows = []
    for cid in _ids(request)[:BULK_MAX]:
        detail = candidates_api.candidate_detail(cid, actor=request.user)  # scoped to what the user may see
        if detail is not None:
            rows.append(Row(cid, detail["name"] or f"Candidate {cid}", reverse("candidate", args=[cid])))
    return rows


def _assign(user: Any, candidate_id: int | None, requisition: dict[str, Any]) -> str | None:
    """Apply a candidate to a requisition (the scoring service `ingest --requisition` uses:
    it creates the application and defers its scoring); audited. None, or why skipped."""
    if not candidate_id:
        return "no candidate has been made from it (yet)"
    current = candidates_api.candidate_current_id(candidate_id)
    existed = scoring_api.application_exists(candidate_id=current, requisition_id=requisition["id"])
    with transaction.atomic():
        app = scoring_api.application_apply(candidate_id=current, requisition_id=requisition["id"])
        audit_api.audit_event_record(
            actor=iam_api.actor_label(user),
            action="application.assigned",
            object_type="application",
            object_id=app.id,
            payload={"candidate_id": current, "requisition_id": requisition["id"], "existed": existed, "via": "bulk"},
        )
    return None


def _run_document(user: Any, action: str, row: Row, reason: str, requisition: dict[str, Any] | None) -> str | None:
    att = intake_api.attachment_get(row.id)
    if att is None:
        return "it no longer exists"
    try:
        if action == "discard":
            intake_api.attachment_discard(attachment_id=row.id, reason=reason, actor=user)
        elif action == "reparse":
            if "reparse" not in intake_api.allowed_actions(att.state, att.reason_code):
                return _no_reparse_why(att)
            intake_api.attachment_reparse(attachment_id=row.id, actor=user)
        else:
            assert requisition is not None
            return _assign(user, intake_api.attachment_status(att)["candidate_id"], requisition)
    except intake_api.ActionRefused:
        return _refused_why(action, att)
    except LookupError:
        return "it no longer exists"
    return None


def _no_reparse_why(att: Any) -> str:
    if att.state == intake_api.State.PARSE_FAILED:
        return "reading it again would fail the same way (" + (att.reason or "it cannot be read") + ")"
    return f"it is {intake_api.INFO[intake_api.State(att.state)].label.lower()}; there is nothing to read again"


def _refused_why(action: str, att: Any) -> str:
    label = intake_api.INFO[intake_api.State(att.state)].label.lower()
    if action == "discard":
        return f"it is {label}; only failed or duplicate documents can be discarded"
    return f"it is {label}"


def _run_candidate(user: Any, action: str, row: Row, requisition: dict[str, Any] | None) -> str | None:
    detail = candidates_api.candidate_detail(row.id, actor=user)
    if detail is None:
        return "not found"
    if detail["status"] != candidates_api.CandidateStatus.ACTIVE:
        return f"the candidate is {detail['status']}"
    if action == "assign":
        assert requisition is not None
        return _assign(user, row.id, requisition)
    sent = 0
    for att_id in detail["documents"]:
        att = intake_api.attachment_get(att_id)
        if att is None or "reparse" not in intake_api.allowed_actions(att.state, att.reason_code):
            continue
        try:
            intake_api.attachment_reparse(attachment_id=att_id, actor=user)  # audited per document
            sent += 1
        except intake_api.ActionRefused:
            continue  # changed state since it was read: another document may still go
    return None if sent else "none of the candidate's documents can be read again"


def _bulk(request: HttpRequest, *, kind: str) -> HttpResponse:
    actions = DOCUMENT_ACTIONS if kind == "documents" else CANDIDATE_ACTIONS
    back = request.POST.get("back", "")
    if not back.startswith("/") or back.startswith("//"):
        back = reverse("home" if kind == "documents" else "candidates")
    action = request.POST.get("action", "")
    ctx: dict[str, Any] = {"kind": kind, "back": back, "action": action}
    if action not in actions:
        return render(request, "ats/bulk.html", {**ctx, "error": "Choose what to do with them."}, status=400)
    permission, verb, done_words = actions[action]
    if not iam_api.can(request.user, permission):
        return render(request, "ats/403.html", {"action": permission}, status=403)
    reason = request.POST.get("reason", "").strip()[:1000]
    try:
        requisition = _requisition(request) if action == "assign" else None
        if action == "discard" and not reason:
            raise Refused("Give a reason to discard them (it is kept with each document).")
        rows = _document_rows(request) if kind == "documents" else _candidate_rows(request)
        if not rows:
            raise Refused("Nothing selected: tick rows, or choose all rows matching the filter.")
    except Refused as exc:
        return render(request, "ats/bulk.html", {**ctx, "error": str(exc)}, status=400)
    noun = "document" if kind == "documents" else "candidate"
    ctx.update(
        verb=verb,
        noun=noun + ("" if len(rows) == 1 else "s"),
        count=len(rows),
        rows=rows[:SHOWN],
        more=max(len(rows) - SHOWN, 0),
        all_ids=[r.id for r in rows],
        reason=reason,
        requisition=requisition,
        url=reverse("documents-bulk" if kind == "documents" else "candidates-bulk"),
    )
    if request.POST.get("confirm") != "1":
        return render(request, "ats/bulk.html", {**ctx, "step": "confirm"})
    done: list[Row] = []
    skipped: list[tuple[Row, str]] = []
    for row in rows:
        if kind == "documents":
            why = _run_document(request.user, action, row, reason, requisition)
        else:
            why = _run_candidate(request.user, action, row, requisition)
        if why is None:
            done.append(row)
        else:
            skipped.append((row, why))
    return render(
        request,
        "ats/bulk.html",
        {**ctx, "step": "done", "done": done, "skipped": skipped, "done_words": done_words},
    )


@requires("intake.view")
@require_POST
def documents_bulk(request: HttpRequest) -> HttpResponse:
    return _bulk(request, kind="documents")


@requires("candidate.view")
@require_POST
def candidates_bulk(request: HttpRequest) -> HttpResponse:
    return _bulk(request, kind="candidates")
