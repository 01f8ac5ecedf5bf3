"""The recruiter's pages: triage (home), document timeline, upload, candidates."""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from ats.candidates import api as candidates_api
from ats.iam import api as iam_api
from ats.intake import api as intake_api
from ats.web.access import LOGIN_ONLY, requires
from ats.web.upload import MAX_FILES_PER_UPLOAD

PAGE_SIZE = 50

# Which permission each document action needs (iam.can), and its form's wording.
ACTION_RULES: dict[str, str] = {
    "reparse": "intake.reparse",
    "retry_scan": "intake.retry",
    "retry_candidate": "intake.retry",
    "discard": "intake.discard",
}


def _date(value: str | None) -> datetime.date | None:
    try:
        return datetime.date.fromisoformat(value) if value else None
    except ValueError:
        return None


def _without_page(request: HttpRequest) -> str:
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode()


@requires(LOGIN_ONLY)
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Each role lands where its work is: triage, candidates, or the ops console."""
    if iam_api.can(request.user, "intake.view"):
        return triage(request)
    if iam_api.can(request.user, "candidate.view"):
        return HttpResponseRedirect(reverse("candidates"))
    return HttpResponseRedirect(reverse("ops"))


def triage(request: HttpRequest) -> HttpResponse:
    f = intake_api.TriageFilter(
        state=request.GET.get("state", "attention"),  # home shows what needs attention
        channel=request.GET.get("channel", ""),
        since=_date(request.GET.get("since")),
        until=_date(request.GET.get("until")),
        q=request.GET.get("q", "").strip()[:200],
    )
    try:
        page_no = max(int(request.GET.get("page", "1")), 1)
    except ValueError:
        page_no = 1
    rows, total = intake_api.triage_rows(f, limit=PAGE_SIZE, offset=(page_no - 1) * PAGE_SIZE)
    counts = intake_api.state_counts()
    states: list[dict[str, Any]] = [
        {
            "state": s.value,
            "label": intake_api.INFO[s].label,
            "kind": intake_api.INFO[s].kind.value,
            "count": counts.get(s.value, 0),
        }
        for s in intake_api.State
    ]
    attention = sum(c["count"] for c in states if c["kind"] == "terminal_failed")
    waiting = sum(c["count"] for c in states if c["kind"] == "waiting")
    return render(
        request,
        "ats/triage.html",
        {
            "rows": rows,
            "total": total,
            "filter": f,
            "states": states,
            "attention": attention,
            "waiting": waiting,
            "channels": intake_api.Channel.choices,
            "page": page_no,
            "has_next": page_no * PAGE_SIZE < total,
            "query": _without_page(request),
            "action_labels": {k: v[0] for k, v in intake_api.ACTIONS.items()},
            "lost": intake_api.latest_verification(),
        },
    )


@requires("intake.view")
@require_GET
def document(request: HttpRequest, attachment_id: int) -> HttpResponse:
    att = intake_api.attachment_get(attachment_id)
    if att is None:
        raise Http404("no such document")
    status = intake_api.attachment_status(att)
    actions = [
        (name, intake_api.ACTIONS[name][0])
        for name in intake_api.allowed_actions(att.state)
        if iam_api.can(request.user, ACTION_RULES[name])
    ]
    return render(
        request,
        "ats/document.html",
        {
            "att": att,
            "status": status,
            "sender": intake_api.attachment_sender(att),
            "attempts": intake_api.parse_attempts(att.pk),
            "timeline": intake_api.attachment_timeline(att.pk),
            "has_thumbnail": intake_api.attachment_thumbnail_png(att.pk) is not None,
            "actions": actions,
            "can_see_candidate": iam_api.can(request.user, "candidate.view"),
        },
    )


@requires("intake.view")
@require_POST
def document_action(request: HttpRequest, attachment_id: int, action: str) -> HttpResponse:
    rule = ACTION_RULES.get(action)
    if rule is None:
        raise Http404("no such action")
    if not iam_api.can(request.user, rule):
        return render(request, "ats/403.html", {"action": rule}, status=403)
    try:
        if action == "reparse":
            attempt = intake_api.attachment_reparse(attachment_id=attachment_id, actor=request.user)
            messages.success(request, f"Re-parse requested: attempt {attempt.attempt_no}.")
        elif action == "retry_scan":
            intake_api.attachment_retry_scan(attachment_id=attachment_id, actor=request.user)
            messages.success(request, "The malware scan will run again.")
        elif action == "retry_candidate":
            intake_api.attachment_retry_candidate(attachment_id=attachment_id, actor=request.user)
            messages.success(request, "Candidate creation will run again.")
        else:
            intake_api.attachment_discard(
                attachment_id=attachment_id, reason=request.POST.get("reason", ""), actor=request.user
            )
            messages.success(request, "Document discarded.")
    except LookupError as exc:
        raise Http404(str(exc)) from exc
    except intake_api.ActionRefused as exc:
        messages.error(request, str(exc))
        return HttpResponseRedirect(reverse("document", args=[attachment_id]), status=303)
    return HttpResponseRedirect(reverse("document", args=[attachment_id]), status=303)


@requires("intake.view")
@require_GET
def thumbnail(request: HttpRequest, attachment_id: int) -> HttpResponse:
    png = intake_api.attachment_thumbnail_png(attachment_id)
    if png is None:
        raise Http404("no thumbnail")
    # Sandbox output: served only as an image, never sniffed, never a document context.
    response = HttpResponse(png, content_type="image/png")
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    response["Content-Disposition"] = f'inline; filename="thumbnail-{attachment_id}.png"'
    response["Cache-Control"] = "private, max-age=300"
    return response


@requires("intake.upload")
@require_GET
def upload_page(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "ats/upload.html",
        {
            "max_bytes": intake_api.max_upload_bytes(),
            "max_mb": intake_api.max_upload_bytes() / (1024 * 1024),
            "max_files": MAX_FILES_PER_UPLOAD,
        },
    )


# --- candidates (minimal until the candidates module's reshaping lands) ----------------


def _candidate_row(c: Any) -> dict[str, Any]:
    return {
        "id": c.pk,
        "name": getattr(c, "display_name", "") or f"Candidate {c.pk}",
        "email": getattr(c, "email", ""),
        "created_at": getattr(c, "created_at", None),
    }


@requires("candidate.view")
@require_GET
def candidates(request: HttpRequest) -> HttpResponse:
    q = request.GET.get("q", "").strip()[:200]
    qs = candidates_api.Candidate.objects.order_by("-pk")
    if q:
        qs = qs.filter(Q(display_name__icontains=q) | Q(email__icontains=q))
    page = Paginator(qs, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "ats/candidates.html",
        {"rows": [_candidate_row(c) for c in page.object_list], "page": page, "q": q},
    )


@requires("candidate.view")
@require_GET
def candidate(request: HttpRequest, candidate_id: int) -> HttpResponse:
    c = candidates_api.Candidate.objects.filter(pk=candidate_id).first()
    if c is None:
        raise Http404("no such candidate")
    docs = list(intake_api.Attachment.objects.filter(candidate_id=c.pk).order_by("pk"))
    return render(
        request,
        "ats/candidate.html",
        {
            "c": _candidate_row(c),
            "documents": docs,
            "can_see_documents": iam_api.can(request.user, "intake.view"),
        },
    )
