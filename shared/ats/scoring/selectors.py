"""Reads of the scoring module: the `ats requisition|application|rescore` shapes (a CLI contract).

Hiring managers see only the requisitions they are assigned to (and those requisitions'
applications); recruiters and admins see all; iam's `can()` decides the action first.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from ats.iam import api as iam_api
from ats.jobs import api as jobs_api
from ats.scoring import engine
from ats.scoring.data import ApplicationSummary, Decision, RequisitionVersionData
from ats.scoring.models import (
    Application,
    ApplicationDecision,
    ApplicationDocument,
    ApplicationState,
    AtsResult,
    ChannelRequisition,
    ItemState,
    Requisition,
    RequisitionAssignment,
    RequisitionVersion,
    RescoreItem,
    RescoreRun,
    RescoreState,
)
from ats.scoring.services import RESCORE_ONE, SCORE, NotAllowed


def _visible_requisitions(actor: Any, action: str = "requisition.view") -> QuerySet[Requisition]:
    if not iam_api.can(actor, action):
        raise NotAllowed(f"{iam_api.actor_label(actor)} may not {action}")
    qs = Requisition.objects.all()
    if iam_api.role_of(actor) == iam_api.Role.HIRING_MANAGER:
        assigned = RequisitionAssignment.objects.filter(user_id=actor.pk).values("requisition_id")
        qs = qs.filter(pk__in=assigned)
    return qs


def candidate_ids_assigned_to(user_id: int) -> QuerySet[Application, int]:
    """Candidates with an application in a requisition assigned to this user (a subquery:
    the candidates module's hiring-manager scope, `candidates_visible_to`, is built on it)."""
    assigned = RequisitionAssignment.objects.filter(user_id=user_id).values("requisition_id")
    return Application.objects.filter(requisition_id__in=assigned).values_list("candidate_id", flat=True)


def _iso(dt: Any) -> str | None:
    return dt.astimezone(tz=dt.tzinfo).isoformat().replace("+00:00", "Z") if dt else None


def version_json(v: RequisitionVersion | RequisitionVersionData) -> dict[str, Any]:
    from ats.scoring.services import _criteria  # one definition of a version's criteria

    criteria = _criteria(v)
    return {
        "id": v.requisition_id,
        "version": v.version,
        "requisition_version_id": v.id,
        "title": v.title,
        "must_have": list(v.must_have),
        "nice_to_have": list(v.nice_to_have),
        "min_years": v.min_years,
        "weights": dict(v.weights),
        # What the score uses: a category with nothing to judge gives its points to the
        # must-haves, and each category is split over its criteria (the explanation's max).
        "weights_used": engine.effective_weights(criteria) if v.must_have else {},
        "criterion_max": [{"criterion": c, "max": m} for c, m in engine.criterion_maxima(criteria)],
        "created_at": _iso(v.created_at),
    }


def requisition_list(*, actor: Any) -> list[dict[str, Any]]:
    reqs = _visible_requisitions(actor).annotate(n_apps=Count("applications")).order_by("pk")
    current = {
        (v.requisition_id, v.version): v
        for v in RequisitionVersion.objects.filter(requisition__in=[r.pk for r in reqs])
    }
    assigned: dict[int, list[int]] = {}
    for req_id, user_id in RequisitionAssignment.objects.filter(requisition__in=[r.pk for r in reqs]).values_list(
        "requisition_id", "user_id"
    ):
        assigned.setdefault(req_id, []).append(user_id)
    out = []
    for r in reqs:
        v = current[(r.pk, r.current_version)]
        out.append(
            {
                **version_json(v),
                "applications": r.n_apps,
                "closed_at": _iso(r.closed_at),
                "hiring_manager_ids": sorted(assigned.get(r.pk, [])),
            }
        )
    return out


def requisition_exists(requisition_id: int) -> bool:
    return Requisition.objects.filter(pk=requisition_id).exists()


def channel_requisition_id(channel_id: int) -> int | None:
    return ChannelRequisition.objects.filter(channel_id=channel_id).values_list("requisition_id", flat=True).first()


def _app_json(app: Application, *, with_results: bool) -> dict[str, Any]:
    result = app.current_result if app.state == ApplicationState.SCORED else None
    out: dict[str, Any] = {
        "id": app.pk,
        "candidate_id": app.candidate_id,
        "requisition_id": app.requisition_id,
        "requisition_version": app.requisition_version.version,
        "requisition_version_id": app.requisition_version_id,
        "state": app.state,
        "stage": app.stage,
        # Never a default: a failed or not-yet-scored application has no score.
        "score": result.score if result else None,
        "reason": app.reason or None,
        "reason_code": app.reason_code or None,
        "explanation": (
            [
                {
                    "criterion": e["criterion"],
                    "contribution": e["contribution"],
                    "evidence": e["evidence"],
                    "status": e.get("status"),
                    "max": e.get("max"),
                }
                for e in result.explanation
            ]
            if result
            else []
        ),
        "fingerprint": result.input_fingerprint if result else None,
        "config_version": result.config_version if result else None,
    }
    if with_results:
        out["results"] = [
            {
                "fingerprint": r.input_fingerprint,
                "score": r.score,
                "created_at": _iso(r.created_at),
                "requisition_version_id": r.requisition_version_id,
                "config_version": r.config_version,
            }
            for r in AtsResult.objects.filter(application=app).order_by("created_at", "pk")
        ]
        out["decisions"] = [decision_json(d) for d in app.decisions.order_by("created_at", "pk")]
        out["documents"] = list(
            ApplicationDocument.objects.filter(application=app)
            .order_by("attachment_id")
            .values_list("attachment_id", flat=True)
        )
    return out


def decision_json(d: ApplicationDecision | Decision) -> dict[str, Any]:
    return {
        "id": d.id,
        "application_id": d.application_id,
        "from": d.from_stage,
        "to": d.to_stage,
        "reason": d.reason,
        "actor": d.actor,
        "score": d.score,
        "result_id": d.result_id,
        "fingerprint": d.input_fingerprint or None,
        "config_version": d.config_version or None,
        "requisition_version_id": d.requisition_version_id,
        "explanation": d.explanation,
        "created_at": _iso(d.created_at),
    }


def applications_of_candidates(candidate_ids: list[int], *, actor: Any) -> list[dict[str, Any]]:
    """The applications of these candidate ids (a person and the records merged into it)
    on requisitions `actor` may see, newest first, with score and explanation."""
    visible = _visible_requisitions(actor, "application.view")
    apps = (
        Application.objects.select_related("requisition_version", "current_result", "requisition")
        .filter(candidate_id__in=candidate_ids, requisition__in=visible)
        .order_by("-created_at", "-pk")
    )
    out = []
    for a in apps:
        row = _app_json(a, with_results=False)
        row["requisition_title"] = a.requisition.title
        out.append(row)
    return out


def application_detail(application_id: int, *, actor: Any) -> dict[str, Any] | None:
    """`ats application show ID --json`."""
    visible = _visible_requisitions(actor, "application.view")
    app = (
        Application.objects.select_related("requisition_version", "current_result")
        .filter(pk=application_id, requisition__in=visible)
        .first()
    )
    return _app_json(app, with_results=True) if app else None


def application_list(*, requisition_id: int, actor: Any) -> list[dict[str, Any]]:
    visible = _visible_requisitions(actor, "application.view")
    apps = (
        Application.objects.select_related("requisition_version", "current_result")
        .filter(requisition_id=requisition_id, requisition__in=visible)
        .order_by("pk")
    )
    return [_app_json(a, with_results=False) for a in apps]


def application_for_attachment(attachment_id: int) -> tuple[int, str] | None:
    """(application id, state) of the application a document brought, if any."""
    row = (
        ApplicationDocument.objects.filter(attachment_id=attachment_id)
        .values_list("application_id", "application__state")
        .first()
    )
    return (int(row[0]), str(row[1])) if row else None


def application_summary(application_id: int) -> ApplicationSummary | None:
    """No access check: for the upload answer, which names the application its own
    document brought (the uploader's, not a listing)."""
    app = Application.objects.select_related("requisition").filter(pk=application_id).first()
    if app is None:
        return None
    return ApplicationSummary(
        id=app.pk, state=app.state, requisition_id=app.requisition_id, requisition_title=app.requisition.title
    )


def application_exists(*, candidate_id: int, requisition_id: int) -> bool:
    """Has this candidate applied to this requisition (any state)?"""
    return Application.objects.filter(candidate_id=candidate_id, requisition_id=requisition_id).exists()


def rescore_summary(run: RescoreRun) -> dict[str, Any]:
    """`ats rescore --json`: counts from the items, failures with their reasons."""
    counts = dict(RescoreItem.objects.filter(run=run).values_list("state").annotate(n=Count("pk")))
    failures = [
        {"application_id": a, "reason": r}
        for a, r in RescoreItem.objects.filter(run=run, state=ItemState.FAILED)
        .order_by("application_id")
        .values_list("application_id", "reason")
    ]
    return {
        "id": run.pk,
        "requisition_id": run.requisition_version.requisition_id,
        "requisition_version": run.requisition_version.version,
        "requisition_version_id": run.requisition_version_id,
        "state": run.state,
        "total": run.total,
        "scored": counts.get(ItemState.SCORED, 0),
        "unchanged": counts.get(ItemState.UNCHANGED, 0),
        "failed": counts.get(ItemState.FAILED, 0),
        "pending": counts.get(ItemState.PENDING, 0),
        "failures": failures,
        "config_version": run.config_version,
        "created_at": _iso(run.created_at),
        "completed_at": _iso(run.completed_at),
    }


def rescore_runs_with_failures(*, days: int = 7) -> list[dict[str, Any]]:
    """Batch rescores of the last `days` with failed items, newest first: counts only
    (the ops console names no person; the requisition page lists each failure)."""
    since = timezone.now() - datetime.timedelta(days=days)
    runs = (
        RescoreRun.objects.filter(created_at__gte=since, items__state=ItemState.FAILED)
        .select_related("requisition_version")
        .annotate(n_failed=Count("items", filter=Q(items__state=ItemState.FAILED)))
        .order_by("-pk")
        .distinct()[:20]
    )
    return [
        {
            "id": r.pk,
            "requisition_id": r.requisition_version.requisition_id,
            "job_id": r.job_id,
            "state": r.state,
            "total": r.total,
            "failed": r.n_failed,
            "created_at": r.created_at,
        }
        for r in runs
    ]


def rescore_runs_without_summary(*, older_than_s: int = 15 * 60) -> int:
    """Batch rescores still `running` although no item is pending, older than the grace:
    the hand-made aggregate completion (no fan-in primitive) missed its moment - the
    signal of ADR 0004 trigger T3."""
    cutoff = timezone.now() - datetime.timedelta(seconds=older_than_s)
    return (
        RescoreRun.objects.filter(state=RescoreState.RUNNING, created_at__lt=cutoff)
        .exclude(items__state=ItemState.PENDING)
        .count()
    )


def rescore_summary_for_job(job_id: int) -> dict[str, Any] | None:
    """`rescore_summary` of the run this rescore job started (None until it starts one)."""
    run = RescoreRun.objects.select_related("requisition_version").filter(job_id=job_id).first()
    return rescore_summary(run) if run is not None else None


@dataclasses.dataclass(frozen=True)
class LostApplication:
    application_id: int
    candidate_id: int
    requisition_id: int
    why: str

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def lost_applications() -> list[LostApplication]:
    """Applications left `applied` with no live score job (todo, or doing on a live worker).

    One REPEATABLE READ snapshot for rows and jobs, like the lost-document detector.
    """
    if connection.in_atomic_block:
        return _lost_applications()
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        return _lost_applications()


def _lost_applications() -> list[LostApplication]:
    waiting = list(Application.objects.filter(state=ApplicationState.APPLIED).order_by("pk"))
    jobs = jobs_api.jobs_by_payload_key("application_id", [a.pk for a in waiting])
    stalled_after = jobs_api.stalled_after_s()
    lost = []
    for app in waiting:
        mine = [j for j in jobs.get(app.pk, []) if j.task_name in (SCORE, RESCORE_ONE)]
        if any(j.is_backing(stalled_after) for j in mine):
            continue
        why = (
            "applied but no score job exists"
            if not mine
            else f"job {mine[0].id} is {mine[0].status} but the application was never scored or failed"
        )
        lost.append(LostApplication(app.pk, app.candidate_id, app.requisition_id, why))
    return lost


def requisition_rescore_status(requisition_id: int, *, actor: Any) -> dict[str, Any] | None:
    """The requisition page's rescore panel: the newest run's summary (counts, failures
    with reasons), and whether a rescore of the current version is still waiting for a
    worker (`queued`: the coordinator has not written its run yet). None when invisible."""
    req = _visible_requisitions(actor).filter(pk=requisition_id).first()
    if req is None:
        return None
    version = RequisitionVersion.objects.get(requisition=req, version=req.current_version)
    run = (
        RescoreRun.objects.select_related("requisition_version")
        .filter(requisition_version__requisition=req)
        .order_by("-pk")
        .first()
    )
    from ats.scoring.services import rescore_lock

    queued = run is None or run.requisition_version_id != version.pk
    queued = queued and jobs_api.active_job_for_lock(rescore_lock(version.pk)) is not None
    return {"queued": queued, "version": version.version, "run": rescore_summary(run) if run else None}


@dataclasses.dataclass(frozen=True)
class Outcome:
    """One application as the fairness report counts it: no score explanation, no text."""

    application_id: int
    candidate_id: int
    stage: str
    decisions: tuple[tuple[str, str], ...]  # (from_stage, to_stage), oldest first
    score: int | None
    config_version: str


def application_outcomes(*, requisition_id: int | None = None, since: Any = None) -> list[Outcome]:
    """Applications (of one requisition, created since a date) with their decisions and
    current score, for ats.selfid's fairness report. Erased applications are gone."""
    apps = Application.objects.all()
    if requisition_id is not None:
        apps = apps.filter(requisition_id=requisition_id)
    if since is not None:
        apps = apps.filter(created_at__date__gte=since)
    rows = list(apps.values_list("pk", "candidate_id", "stage", "current_result_id"))
    ids = [r[0] for r in rows]
    decided: dict[int, list[tuple[str, str]]] = {}
    for app_id, frm, to in (
        ApplicationDecision.objects.filter(application_id__in=ids)
        .order_by("created_at", "pk")
        .values_list("application_id", "from_stage", "to_stage")
    ):
        decided.setdefault(app_id, []).append((frm, to))
    results = {
        pk: (score, version)
        for pk, score, version in AtsResult.objects.filter(pk__in=[r[3] for r in rows if r[3]]).values_list(
            "pk", "score", "config_version"
        )
    }
    return [
        Outcome(
            application_id=pk,
            candidate_id=cid,
            stage=stage,
            decisions=tuple(decided.get(pk, ())),
            score=results[res][0] if res in results else None,
            config_version=results[res][1] if res in results else "",
        )
        for pk, cid, stage, res in rows
    ]
