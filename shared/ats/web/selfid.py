"""Voluntary self-identification and the fairness report in the web (issue 27).

- `/self-identification/<token>`: the optional form linked from the acknowledgement. The
  signed token names the person; nobody signs in. Every question has "Prefer not to say".
- `/fairness/`: the report (aggregates only) and an admin's entry from a paper survey.
  Admins only; no page anywhere shows one person's answer.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse

from ats.candidates import api as candidates_api
from ats.selfid import api as selfid_api
from ats.web.access import public, requires

_CHOICES = {"sex": selfid_api.Sex.choices, "race": selfid_api.RaceEthnicity.choices}
# Each stage's heading on the page says which decision it measures.
_STAGE_TITLES = {
    "screening": "Screening: moved on from a new application",
    "interview": "Interview: moved on from screening",
    "offer": "Offer: moved on from interview",
    "hire": "Hire: hired after an offer",
}


def _for_screen(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's stages with titles and groups in words (the JSON keeps its keys)."""
    return [
        {
            **s,
            "title": _STAGE_TITLES.get(s["stage"], s["stage"].capitalize()),
            "groups": [{**g, "label": selfid_api.group_label(g["group"])} for g in s["groups"]],
        }
        for s in report["stages"]
    ]


@public("the candidate's own optional form, reached through the signed link in their acknowledgement")
def selfid_form(request: HttpRequest, token: str) -> HttpResponse:
    candidate_id = selfid_api.selfid_token_candidate(token)
    if candidate_id is None:
        # The candidate's own words, not the staff's "Not found" with a link to the sign-in.
        return render(request, "ats/selfid_form.html", {"invalid": True}, status=404)
    context = {
        "token": token,
        "choices": _CHOICES,
        "done": False,
        "error": "",
        # A second visit says the answers are in and may be replaced; it never shows them.
        "answered": selfid_api.selfid_answered(candidate_id=candidate_id),
    }
    if request.method == "POST":
        try:
            selfid_api.selfid_record(
                candidate_id=candidate_id,
                sex=request.POST.get("sex", "prefer_not_to_say"),
                race_ethnicity=request.POST.get("race", "prefer_not_to_say"),
                source="candidate_form",
                actor=None,
            )
        except ValueError:
            context["error"] = "Choose one of the answers offered (or Prefer not to say)."
            return render(request, "ats/selfid_form.html", context, status=400)
        context["done"] = True
    return render(request, "ats/selfid_form.html", context)


@requires("fairness.view")
def fairness(request: HttpRequest) -> HttpResponse:
    error = ""
    requisition = request.GET.get("requisition", "").strip()
    since = request.GET.get("since", "").strip()
    try:
        req_id = int(requisition) if requisition else None
        since_d = datetime.date.fromisoformat(since) if since else None
    except ValueError:
        req_id, since_d, error = None, None, "Give the requisition as a number and the date as YYYY-MM-DD."
    report = selfid_api.fairness_report_run(actor=request.user, requisition_id=req_id, since=since_d, store=False)
    return render(
        request,
        "ats/fairness.html",
        {
            "report": report,
            "stages": _for_screen(report),
            "scores": [{**d, "label": selfid_api.group_label(d["group"])} for d in report["scores"]],
            "low": [
                {**x, "label": selfid_api.group_label(x["group"]), "title": _STAGE_TITLES.get(x["stage"], x["stage"])}
                for x in selfid_api.below_four_fifths(report)
            ],
            "choices": _CHOICES,
            "requisition": requisition,
            "since": since,
            "error": error,
        },
        status=400 if error else 200,
    )


@requires("selfid.enter")
def selfid_enter(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return HttpResponseRedirect(reverse("fairness"))
    try:
        candidate_id = int(request.POST.get("candidate_id", ""))
    except ValueError:
        messages.error(request, "Give the candidate number printed on the survey.")
        return HttpResponseRedirect(reverse("fairness"), status=303)
    # The number off the paper must be a real person (merges followed), and the admin is
    # told whose answers they were, by name, so a mistyped number shows at once.
    person = candidates_api.candidate_people([candidate_id]).get(candidate_id)
    if person is None or person["status"] is None:
        messages.error(request, f"There is no candidate number {candidate_id}: nothing was recorded.")
        return HttpResponseRedirect(reverse("fairness"), status=303)
    try:
        selfid_api.selfid_record(
            candidate_id=person["id"],
            sex=request.POST.get("sex", "prefer_not_to_say"),
            race_ethnicity=request.POST.get("race", "prefer_not_to_say"),
            source="admin_survey",
            actor=request.user,
        )
    except ValueError:
        messages.error(request, "Choose one of the answers offered (or Prefer not to say).")
    else:
        who = person["name"] or f"candidate {person['id']}"
        messages.success(request, f"Survey answers recorded for {who}.")
    return HttpResponseRedirect(reverse("fairness"), status=303)
