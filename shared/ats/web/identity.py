"""The document page's identity part (issue 28): what was read from the document, and -
for a document that named no person or gave no contact - the recruiter's ways out:
attach it to an existing candidate (searched by name, e-mail or phone), create the
candidate by hand, or discard it with a reason (the page's generic Discard action).

Kept apart from pages.py / document.html's viewer so the two evolve independently:
document.html includes ats/_document_identity.html, and `document` adds this context.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from ats.candidates import api as candidates_api
from ats.iam import api as iam_api
from ats.intake import api as intake_api
from ats.web.access import requires

SEARCH_LIMIT = 20


def identity_context(request: HttpRequest, att: Any) -> dict[str, Any]:
    needs = att.state == intake_api.State.NO_CANDIDATE_DETAILS
    can_act = needs and iam_api.can(request.user, "candidate.edit")
    query = request.GET.get("candidate_q", "").strip()[:200] if can_act else ""
    results: list[dict[str, Any]] = []
    if query:
        results = candidates_api.candidate_attach_search(actor=request.user, query=query, limit=SEARCH_LIMIT)
    extraction = candidates_api.document_extraction(att.pk) if iam_api.can(request.user, "candidate.view") else None
    membership = candidates_api.document_membership(att.pk) if iam_api.can(request.user, "candidate.view") else None
    return {
        "membership": membership,
        "can_detach": bool(membership and membership["documents"] > 1 and iam_api.can(request.user, "candidate.edit")),
        "can_release": att.state == intake_api.State.SCAN_INCOMPLETE and iam_api.can(request.user, "intake.release"),
        "identity_actions": can_act,
        "candidate_q": query,
        "candidate_results": results,
        "extraction": extraction,
    }


def _back(attachment_id: int) -> HttpResponseRedirect:
    return HttpResponseRedirect(reverse("document", args=[attachment_id]), status=303)


@requires("candidate.edit")
@require_POST
def document_attach(request: HttpRequest, attachment_id: int) -> HttpResponse:
    try:
        candidate_id = int(request.POST.get("candidate_id", ""))
    except ValueError:
        messages.error(request, "Choose a candidate to attach the document to.")
        return _back(attachment_id)
    try:
        candidate = candidates_api.candidate_attach_document(
            attachment_id=attachment_id, candidate_id=candidate_id, actor=request.user
        )
    except intake_api.ActionRefused as exc:
        messages.error(request, str(exc))
        return _back(attachment_id)
    except candidates_api.CandidateNotActive:
        messages.error(request, "That candidate was merged or erased meanwhile; search again.")
        return _back(attachment_id)
    except LookupError as exc:
        raise Http404(str(exc)) from exc
    messages.success(request, f"Document attached to {candidate.display_name or 'the candidate'}.")
    return _back(attachment_id)


@requires("candidate.edit")
@require_POST
def document_create_candidate(request: HttpRequest, attachment_id: int) -> HttpResponse:
    try:
        candidate = candidates_api.candidate_create_for_document(
            attachment_id=attachment_id,
            name=request.POST.get("name", "")[:255],
            email=request.POST.get("email", "")[:320],
            phone=request.POST.get("phone", "")[:64],
            actor=request.user,
        )
    except intake_api.ActionRefused as exc:
        messages.error(request, str(exc))
        return _back(attachment_id)
    except LookupError as exc:
        raise Http404(str(exc)) from exc
    except ValueError as exc:
        messages.error(request, f"Candidate not created: {exc}.")
        return _back(attachment_id)
    messages.success(request, f"Candidate {candidate.display_name} created for this document.")
    return _back(attachment_id)


@requires("candidate.edit")
@require_POST
def document_detach(request: HttpRequest, attachment_id: int) -> HttpResponse:
    try:
        candidates_api.candidate_detach_document(attachment_id=attachment_id, actor=request.user)
    except LookupError as exc:
        raise Http404(str(exc)) from exc
    except (ValueError, candidates_api.CandidateNotActive) as exc:
        messages.error(request, f"Not detached: {exc}.")
        return _back(attachment_id)
    messages.success(request, "Document detached: it belongs to no candidate now.")
    return _back(attachment_id)
