from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse

from ats.iam import api as iam_api
from ats.intake import api as intake_api
from ats.jobs import api as jobs_api


def healthz(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")


def readyz(request: HttpRequest) -> HttpResponse:
    try:
        with connection.cursor() as cur:
            cur.execute("SELECT 1")
    except Exception as exc:  # readiness must answer, not raise
        return HttpResponse(f"database unavailable: {type(exc).__name__}", status=503, content_type="text/plain")
    return HttpResponse("ready", content_type="text/plain")


def _denied(request: HttpRequest, action: str) -> JsonResponse | None:
    if not request.user.is_authenticated:
        return JsonResponse({"error": "authentication required"}, status=401)
    if not iam_api.can(request.user, action):
        return JsonResponse({"error": "forbidden"}, status=403)
    return None


def api_job(request: HttpRequest, job_id: int) -> JsonResponse:
    if (denied := _denied(request, "jobs.view")) is not None:
        return denied
    detail = jobs_api.job_detail(job_id)
    if detail is None:
        return JsonResponse({"error": "not found"}, status=404)
    return JsonResponse(detail)


def api_raw_intake(request: HttpRequest, raw_intake_id: int) -> JsonResponse:
    if (denied := _denied(request, "intake.view")) is not None:
        return denied
    raw = intake_api.raw_intake_get(raw_intake_id)
    if raw is None:
        return JsonResponse({"error": "not found"}, status=404)
    return JsonResponse(
        {
            "raw_intake_id": raw.pk,
            "channel": raw.channel,
            "received_at": raw.received_at.isoformat(),
            "attachments": [intake_api.attachment_status(a) for a in intake_api.raw_intake_attachments(raw.pk)],
        }
    )
