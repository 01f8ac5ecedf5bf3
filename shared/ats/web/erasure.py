"""The erasure action of the candidate page (GDPR art. 17; admins only).

GET shows what erasure does and asks for a reason and the candidate number typed again
(an irreversible action is confirmed, not one click); POST erases synchronously through
ats.retention (the same service as `ats erase candidate`) and shows the steps.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse

from ats.candidates import api as candidates_api
from ats.retention import api as retention_api
from ats.web.access import requires


@requires("candidate.erase")
def candidate_erase(request: HttpRequest, candidate_id: int) -> HttpResponse:
    detail = candidates_api.candidate_detail(candidate_id, actor=request.user)
    if detail is None:
        raise Http404("no such candidate")
    context = {"c": detail, "title": f"Erase candidate {candidate_id}", "error": "", "reason": ""}
    if request.method == "POST":
        reason = request.POST.get("reason", "").strip()[:2000]
        context["reason"] = reason
        if request.POST.get("confirm", "").strip() != str(candidate_id):
            context["error"] = "Type the candidate number to confirm."
        elif not reason:
            context["error"] = "A reason is required (e.g. the request's reference)."
        else:
            try:
                erasure = retention_api.subject_erase(candidate_id=candidate_id, reason=reason, actor=request.user)
            except retention_api.ErasureRefused:
                return render(request, "ats/403.html", {"action": "candidate.erase"}, status=403)
            except (LookupError, ValueError) as exc:
                context["error"] = str(exc)
            else:
                messages.success(
                    request,
                    f"Candidate {erasure.candidate_id} erased (erasure {erasure.id}): "
                    + ", ".join(f"{s['step']} {s.get('rows', 0)}" for s in erasure.steps),
                )
                return HttpResponseRedirect(reverse("candidate", args=[erasure.candidate_id]), status=303)
        return render(request, "ats/candidate_erase.html", context, status=400)
    return render(request, "ats/candidate_erase.html", context)
