"""Requisitions and applications: ranked lists and the explained score.

Reads go through the scoring selectors, which enforce who sees what (a hiring manager
only the requisitions assigned to them); the AI explanation goes through the ai facade
and is shown only to the person who asked for it.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from ats.ai import api as ai_api
from ats.scoring import api as scoring_api
from ats.web.access import requires


def _rank_key(app: dict[str, Any]) -> tuple[int, int, int]:
    # Scored first, best score first; unscored/failed after them (never given a score).
    score = app["score"]
    return (0 if score is not None else 1, -(score or 0), int(app["id"]))


def visible_requisitions(user: Any) -> list[dict[str, Any]]:
    """The requisitions `user` may see (empty when they may see none)."""
    try:
        return scoring_api.requisition_list(actor=user)
    except scoring_api.NotAllowed:
        return []


@requires("requisition.view")
@require_GET
def requisitions(request: HttpRequest) -> HttpResponse:
    return render(request, "ats/requisitions.html", {"rows": visible_requisitions(request.user)})


@requires("requisition.view")
@require_GET
def requisition(request: HttpRequest, requisition_id: int) -> HttpResponse:
    req = next((r for r in visible_requisitions(request.user) if r["id"] == requisition_id), None)
    if req is None:  # unknown, or not assigned to this hiring manager: the same answer
        raise Http404("no such requisition")
    apps = scoring_api.application_list(requisition_id=requisition_id, actor=request.user)
    apps.sort(key=_rank_key)
    return render(request, "ats/requisition.html", {"req": req, "apps": apps})


def ai_state(user: Any, application_id: int, run_id: str | None) -> dict[str, Any]:
    """What the page shows of AI: available or not (disabled or breaker not closed), and
    the run the user asked for, if any (only the asker sees it)."""
    status = ai_api.breaker_status()
    available = bool(status["enabled"]) and status["state"] == ai_api.BreakerState.CLOSED
    run = None
    if run_id and run_id.isdigit():
        run = ai_api.ai_run_detail(int(run_id), actor=user)
        if run is not None and (run["kind"] != ai_api.AiKind.EXPLAIN_SCORE or run["subject_id"] != application_id):
            run = None
    # Why it is unavailable, in plain words (not configured / switched off since T, and why).
    return {"available": available, "run": run, "unavailable": ai_api.unavailable_reason() or ai_api.UNAVAILABLE}


@requires("application.view")
@require_GET
def application(request: HttpRequest, application_id: int) -> HttpResponse:
    app = scoring_api.application_detail(application_id, actor=request.user)
    if app is None:
        raise Http404("no such application")
    total = sum(int(e["contribution"]) for e in app["explanation"])
    return render(
        request,
        "ats/application.html",
        {
            "app": app,
            "explanation_total": total,
            "ai": ai_state(request.user, application_id, request.GET.get("ai_run")),
        },
    )


@requires("ai.invoke")
@require_POST
def application_explain(request: HttpRequest, application_id: int) -> HttpResponse:
    if scoring_api.application_detail(application_id, actor=request.user) is None:
        raise Http404("no such application")
    back = reverse("application", args=[application_id])
    try:
        run = ai_api.ai_request(kind=ai_api.AiKind.EXPLAIN_SCORE, subject_id=application_id, actor=request.user)
    except ai_api.NotAllowed as exc:
        messages.error(request, str(exc))
        return HttpResponseRedirect(back)
    return HttpResponseRedirect(f"{back}?ai_run={run.pk}")
