"""Requisitions and applications: create/edit/close/assign, ranked lists, the explained
score, and people's decisions (one at a time or in bulk).

Reads go through the scoring selectors, which enforce who sees what (a hiring manager
only the requisitions assigned to them); writes through the scoring services, which check
iam again and audit with the actor. Names come from the candidates facade here, in the
web layer: the scoring module never reads a name (it must not influence a score).
The AI explanation goes through the ai facade and is shown only to the person who asked.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ats.ai import api as ai_api
from ats.candidates import api as candidates_api
from ats.iam import api as iam_api
from ats.scoring import api as scoring_api
from ats.web.access import requires

STAGES = [(s.value, s.label) for s in scoring_api.Stage]
STAGE_LABELS = dict(STAGES)
STATE_LABELS = {"applied": "Waiting for its score", "scored": "Scored", "scoring_failed": "Could not be scored"}
BULK_MAX = 500


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


def _skills(raw: str) -> list[str]:
    return [s.strip() for s in raw.replace("\n", ",").split(",") if s.strip()]


def _years(raw: str) -> float | None:
    raw = raw.strip()
    if not raw:
        return None
    try:
        return float(raw.replace(",", "."))
    except ValueError:
        raise ValueError("Minimum years must be a number (for example 3 or 2.5).") from None


def _with_people(apps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each application with its person: name and link of who it is now (merged-away
    records resolve to their survivor), stage and state in words."""
    people = candidates_api.candidate_people(a["candidate_id"] for a in apps)
    for a in apps:
        person = people.get(a["candidate_id"]) or {"id": a["candidate_id"], "name": None}
        a["person_id"] = person["id"]
        a["person_name"] = person["name"] or "Name not found"
        a["stage_label"] = STAGE_LABELS.get(a.get("stage", ""), a.get("stage", ""))
        a["state_label"] = STATE_LABELS.get(a["state"], a["state"])
    return apps


def ranked_people(apps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per person: a merged-away record's application and its survivor's are one
    person, ranked once by their best application; the others are listed on that row."""
    rows: list[dict[str, Any]] = []
    seen: dict[int, dict[str, Any]] = {}
    for a in sorted(_with_people(apps), key=_rank_key):
        if a["person_id"] in seen:
            seen[a["person_id"]]["also"].append(a)
            continue
        a["also"] = []
        seen[a["person_id"]] = a
        rows.append(a)
    rank = 0
    for row in rows:
        if row["score"] is not None:
            rank += 1
            row["rank"] = rank
    return rows


def _req_or_404(user: Any, requisition_id: int) -> dict[str, Any]:
    req = next((r for r in visible_requisitions(user) if r["id"] == requisition_id), None)
    if req is None:  # unknown, or not assigned to this hiring manager: the same answer
        raise Http404("no such requisition")
    return req


@requires("requisition.view")
@require_GET
def requisitions(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "ats/requisitions.html",
        {"rows": visible_requisitions(request.user), "can_edit": iam_api.can(request.user, "requisition.edit")},
    )


@requires("requisition.edit")
@require_http_methods(["GET", "POST"])
def requisition_new(request: HttpRequest) -> HttpResponse:
    """The contract: title (required), must_have, nice_to_have, min_years (optional);
    success redirects to the new requisition's page."""
    form = {k: request.POST.get(k, "")[:2000] for k in ("title", "must_have", "nice_to_have", "min_years")}
    error = None
    if request.method == "POST":
        try:
            version = scoring_api.requisition_create(
                title=form["title"],
                must_have=_skills(form["must_have"]),
                nice_to_have=_skills(form["nice_to_have"]),
                min_years=_years(form["min_years"]),
                actor=request.user,
            )
        except ValueError as exc:  # UnknownSkill too: its message names close matches
            error = str(exc)
        else:
            messages.success(request, f"Requisition “{version.title}” created.")
            return HttpResponseRedirect(reverse("requisition", args=[version.requisition_id]), status=303)
    return render(
        request,
        "ats/requisition_form.html",
        {"form": form, "error": error, "editing": None},
        status=400 if error else 200,
    )


@requires("requisition.view")
@require_GET
def requisition(request: HttpRequest, requisition_id: int) -> HttpResponse:
    req = _req_or_404(request.user, requisition_id)
    apps = scoring_api.application_list(requisition_id=requisition_id, actor=request.user)
    rows = ranked_people(apps)
    can_edit = iam_api.can(request.user, "requisition.edit")
    hms = dict(iam_api.users_with_role(iam_api.Role.HIRING_MANAGER)) if can_edit else {}
    assigned_names = iam_api.actor_names(f"user:{u}" for u in req["hiring_manager_ids"])
    return render(
        request,
        "ats/requisition.html",
        {
            "req": req,
            "apps": rows,
            "can_edit": can_edit,
            "can_decide": iam_api.can(request.user, "application.decide"),
            "stages": STAGES,
            "assigned": [(u, assigned_names[f"user:{u}"]) for u in req["hiring_manager_ids"]],
            "assignable": [(u, n) for u, n in hms.items() if u not in req["hiring_manager_ids"]],
            "rescore": _rescore_view(request.user, requisition_id, apps),
            "form": {
                "title": req["title"],
                "must_have": ", ".join(req["must_have"]),
                "nice_to_have": ", ".join(req["nice_to_have"]),
                "min_years": "" if req["min_years"] is None else f"{req['min_years']:g}",
            },
        },
    )


def _rescore_view(user: Any, requisition_id: int, apps: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
    status = scoring_api.requisition_rescore_status(requisition_id, actor=user)
    if status is None:
        return None
    run = status["run"]
    if run and run["failures"]:
        if apps is None:
            apps = scoring_api.application_list(requisition_id=requisition_id, actor=user)
        by_app = {a["id"]: a for a in _with_people(apps)}
        for f in run["failures"]:
            a = by_app.get(f["application_id"])
            f["person_name"] = a["person_name"] if a else "Unknown"
            f["person_id"] = a["person_id"] if a else None
    done = (run["total"] - run["pending"]) if run else 0
    status["done"] = done
    status["finished"] = bool(run and run["state"] == "completed" and not status["queued"])
    return status


@requires("requisition.view")
@require_GET
def requisition_rescore(request: HttpRequest, requisition_id: int) -> HttpResponse:
    """The rescore panel's live state (polled by rescore.js): counts and failures."""
    status = _rescore_view(request.user, requisition_id)
    if status is None:
        raise Http404("no such requisition")
    return JsonResponse(status)


def _back_to_req(requisition_id: int) -> HttpResponseRedirect:
    return HttpResponseRedirect(reverse("requisition", args=[requisition_id]), status=303)


@requires("requisition.edit")
@require_POST
def requisition_edit(request: HttpRequest, requisition_id: int) -> HttpResponse:
    """A new version from the edit form; every application is rescored (the page shows
    the run's progress and, at the end, what could not be scored and why)."""
    _req_or_404(request.user, requisition_id)
    form = {k: request.POST.get(k, "")[:2000] for k in ("title", "must_have", "nice_to_have", "min_years")}
    try:
        version = scoring_api.requisition_update(
            requisition_id=requisition_id,
            title=form["title"],
            must_have=_skills(form["must_have"]),
            nice_to_have=_skills(form["nice_to_have"]),
            min_years=_years(form["min_years"]),
            actor=request.user,
        )
    except ValueError as exc:
        return render(
            request,
            "ats/requisition_form.html",
            {"form": form, "error": str(exc), "editing": requisition_id},
            status=400,
        )
    messages.success(request, f"Saved as version {version.version}; every application is being scored again.")
    return _back_to_req(requisition_id)


@requires("requisition.edit")
@require_POST
def requisition_close(request: HttpRequest, requisition_id: int) -> HttpResponse:
    _req_or_404(request.user, requisition_id)
    reopen = request.POST.get("reopen") == "1"
    try:
        scoring_api.requisition_close(requisition_id=requisition_id, reopen=reopen, actor=request.user)
    except ValueError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Requisition reopened." if reopen else "Requisition closed.")
    return _back_to_req(requisition_id)


@requires("requisition.edit")
@require_POST
def requisition_assign(request: HttpRequest, requisition_id: int) -> HttpResponse:
    _req_or_404(request.user, requisition_id)
    hms = dict(iam_api.users_with_role(iam_api.Role.HIRING_MANAGER))
    try:
        user_id = int(request.POST.get("user_id", ""))
    except ValueError:
        user_id = 0
    if user_id not in hms:
        messages.error(request, "Choose a hiring manager.")
        return _back_to_req(requisition_id)
    if request.POST.get("remove") == "1":
        scoring_api.requisition_unassign(requisition_id=requisition_id, user_id=user_id, actor=request.user)
        messages.success(request, f"{hms[user_id]} no longer sees this requisition.")
    else:
        scoring_api.requisition_assign(requisition_id=requisition_id, user_id=user_id, actor=request.user)
        messages.success(request, f"{hms[user_id]} now sees this requisition and decides on its applications.")
    return _back_to_req(requisition_id)


@requires("application.decide")
@require_POST
def requisition_bulk_decide(request: HttpRequest, requisition_id: int) -> HttpResponse:
    """Advance or reject the selected applications: first a confirmation stating the
    count, then one decision (audited) per application and a summary."""
    _req_or_404(request.user, requisition_id)
    ids = sorted({int(x) for x in request.POST.getlist("application") if x.isdigit()})[:BULK_MAX]
    stage = request.POST.get("to_stage", "")
    reason = request.POST.get("reason", "").strip()[:2000]
    if not ids:
        messages.error(request, "Select at least one application.")
        return _back_to_req(requisition_id)
    if stage not in STAGE_LABELS or not reason:
        messages.error(request, "Choose a stage and give a reason.")
        return _back_to_req(requisition_id)
    apps = {
        a["id"]: a
        for a in _with_people(scoring_api.application_list(requisition_id=requisition_id, actor=request.user))
    }
    chosen = [apps[i] for i in ids if i in apps]
    if request.POST.get("confirm") != "1":
        return render(
            request,
            "ats/requisition_bulk.html",
            {
                "req": _req_or_404(request.user, requisition_id),
                "apps": chosen,
                "stage": stage,
                "stage_label": STAGE_LABELS[stage],
                "reason": reason,
            },
        )
    moved, refused = 0, []
    for a in chosen:
        try:
            scoring_api.application_decide(application_id=a["id"], to_stage=stage, reason=reason, actor=request.user)
            moved += 1
        except (scoring_api.DecisionRefused, LookupError) as exc:
            refused.append(f"{a['person_name']}: {exc}")
    summary = f"{moved} of {len(chosen)} application(s) moved to {STAGE_LABELS[stage]}."
    if refused:
        messages.warning(request, summary + " Not moved: " + "; ".join(refused))
    else:
        messages.success(request, summary)
    return _back_to_req(requisition_id)


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
    # How to configure it (settings, URLs, docs) is for the people who run the deployment;
    # a recruiter or hiring manager is told who can.
    why = ai_api.unavailable_reason() or ai_api.UNAVAILABLE
    if not iam_api.can(user, "ops.view"):
        why = why.replace(ai_api.HOW_TO_CONFIGURE, "An administrator can set one up.")
    return {"available": available, "run": run, "unavailable": why}


def decisions_with_names(decisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    names = iam_api.actor_names(d["actor"] for d in decisions)
    return [
        {
            **d,
            "actor_name": names.get(d["actor"], d["actor"]),
            "from_label": STAGE_LABELS.get(d["from"], d["from"]),
            "to_label": STAGE_LABELS.get(d["to"], d["to"]),
        }
        for d in decisions
    ]


def candidate_applications(request: HttpRequest, detail: dict[str, Any]) -> dict[str, Any]:
    """The candidate page's applications section: this person's applications (theirs and
    those of records merged into them) on requisitions the user may see, each with score,
    explanation and stage; a decide form where the user may decide."""
    ids = [detail["id"]] + [m["merged"] for m in detail["merges"] if m["survivor"] == detail["id"] and not m["undone"]]
    try:
        apps = scoring_api.applications_of_candidates(ids, actor=request.user)
    except scoring_api.NotAllowed:
        return {"applications": None}
    for a in apps:
        a["stage_label"] = STAGE_LABELS.get(a["stage"], a["stage"])
        a["state_label"] = STATE_LABELS.get(a["state"], a["state"])
        a["next_stages"] = [(v, label) for v, label in STAGES if v != a["stage"]]
    return {
        "applications": apps,
        "can_decide": iam_api.can(request.user, "application.decide"),
        "back": reverse("candidate", args=[detail["id"]]),
    }


@requires("application.view")
@require_GET
def application(request: HttpRequest, application_id: int) -> HttpResponse:
    app = scoring_api.application_detail(application_id, actor=request.user)
    if app is None:
        raise Http404("no such application")
    _with_people([app])
    total = sum(int(e["contribution"]) for e in app["explanation"])
    req = _req_or_404(request.user, app["requisition_id"])
    return render(
        request,
        "ats/application.html",
        {
            "app": app,
            "req": req,
            "explanation_total": total,
            "decisions": decisions_with_names(app["decisions"]),
            "stages": [(v, label) for v, label in STAGES if v != app["stage"]],
            "can_decide": iam_api.can(request.user, "application.decide"),
            "ai": ai_state(request.user, application_id, request.GET.get("ai_run")),
        },
    )


@requires("application.decide")
@require_POST
def application_decide(request: HttpRequest, application_id: int) -> HttpResponse:
    if scoring_api.application_detail(application_id, actor=request.user) is None:
        raise Http404("no such application")
    back = request.POST.get("next", "")
    target = back if back.startswith("/candidates/") and back[12:].isdigit() else None
    try:
        d = scoring_api.application_decide(
            application_id=application_id,
            to_stage=request.POST.get("to_stage", ""),
            reason=request.POST.get("reason", ""),
            actor=request.user,
        )
    except LookupError as exc:  # not theirs (a hiring manager elsewhere): as if absent
        raise Http404(str(exc)) from exc
    except scoring_api.DecisionRefused as exc:
        messages.error(request, str(exc).capitalize() + ".")
    else:
        messages.success(request, f"Moved to {STAGE_LABELS[d.to_stage]}.")
    return HttpResponseRedirect(target or reverse("application", args=[application_id]), status=303)


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
    return HttpResponseRedirect(f"{back}?ai_run={run.id}")
