from __future__ import annotations

from typing import Any

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.http import require_GET

from ats.candidates import api as candidates_api
from ats.intake import api as intake_api
from ats.jobs import ops_api as jobs_ops
from ats.scoring import api as scoring_api
from ats.web.access import api_error, public, requires


@public("liveness probe: answers without touching the database")
def healthz(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")


@public("readiness probe")
def readyz(request: HttpRequest) -> HttpResponse:
    try:
        with connection.cursor() as cur:
            cur.execute("SELECT 1")
    except Exception as exc:  # readiness must answer, not raise
        return HttpResponse(f"database unavailable: {type(exc).__name__}", status=503, content_type="text/plain")
    return HttpResponse("ready", content_type="text/plain")


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


@requires("jobs.view", api=True)
@require_GET
def api_job(request: HttpRequest, job_id: int) -> JsonResponse:
    detail = jobs_ops.job_detail(job_id)
    if detail is None:
        return api_error(404, "not_found", "not found")
    return JsonResponse(detail)


def _application_json(attachment_id: int) -> dict[str, Any] | None:
    """The application this document brought, if any: for a byte-identical re-upload to
    another requisition the upload page says "already on file, added there and scored"."""
    found = scoring_api.application_for_attachment(attachment_id)
    if found is None:
        return None
    app = scoring_api.application_summary(found[0])
    if app is None:
        return None
    return {
        "id": app.id,
        "state": app.state,
        "requisition_id": app.requisition_id,
        "requisition_title": app.requisition_title,
        "url": f"/applications/{app.id}/",
    }


def _attachment_json(att: Any) -> dict[str, Any]:
    """The status keys the upload answer has always had, plus the document's jobs and
    timeline (events with timestamps and attempt numbers) and its application."""
    timeline = intake_api.attachment_timeline(att.pk)
    status = intake_api.attachment_status(att)
    return {
        **status,
        **_candidate_link(status["candidate_id"]),
        "application": _application_json(att.pk),
        "job_ids": sorted({t["job_id"] for t in timeline if t.get("job_id") is not None}),
        "timeline": [
            {
                "at": _iso(t["at"]),
                "source": t["source"],
                "what": t["what"],
                # The machine names beside the words: the task and its event, or the audit action.
                "task_name": t.get("task_name"),
                "event": t.get("type"),
                "action": t.get("action"),
                "job_id": t.get("job_id"),
                "attempt": t.get("attempt"),
            }
            for t in timeline
        ],
    }


def _candidate_link(candidate_id: int | None) -> dict[str, Any]:
    """The person a document became, by name with the page's link (a merged-away
    candidate resolves to its survivor): what the upload page shows instead of a number."""
    if candidate_id is None:
        return {"candidate_name": None, "candidate_url": None}
    person = candidates_api.candidate_people([candidate_id])[candidate_id]
    return {"candidate_name": person["name"], "candidate_url": reverse("candidate", args=[person["id"]])}


@requires("intake.view", api=True)
@require_GET
def api_raw_intake(request: HttpRequest, raw_intake_id: int) -> JsonResponse:
    raw = intake_api.raw_intake_get(raw_intake_id)
    if raw is None:
        return api_error(404, "not_found", "not found")
    return JsonResponse(
        {
            "raw_intake_id": raw.id,
            "channel": raw.channel,
            "received_at": raw.received_at.isoformat(),
            "attachments": [_attachment_json(a) for a in intake_api.raw_intake_attachments(raw.id)],
        }
    )


@requires("candidate.view", api=True)
@require_GET
def api_candidate(request: HttpRequest, candidate_id: int) -> JsonResponse:
    """The same object as `ats candidate show ID --json` (the candidates module's contract)."""
    detail = candidates_api.candidate_detail(candidate_id, actor=request.user)
    if detail is None:
        return api_error(404, "not_found", "not found")
    return JsonResponse(detail)
