"""Writes of the scoring module (`<entity>_<action>(*, ...)`).

Every function that creates a row a job refers to defers that job in the same transaction
(ADR 0004 convention 2). Scoring is keyed on `input_fingerprint` (convention 1): an
unchanged input is an index lookup and no new row; the unique constraint on
(application, input_fingerprint) is what makes racing inserts harmless.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone
from rapidfuzz import fuzz, process

from ats.audit import api as audit_api
from ats.candidates import api as candidates_api
from ats.config import checkpoints
from ats.errors import AtsError, NotAllowed, Refused
from ats.extraction import api as extraction_api
from ats.iam import api as iam_api
from ats.intake import api as intake_api
from ats.jobs import api as jobs_api
from ats.scoring import engine
from ats.scoring.data import AppliedApplication, Decision, RequisitionVersionData
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
    ScoringEvent,
    Stage,
)

logger = logging.getLogger("ats.scoring")

SCORE = "scoring.score_application"
RESCORE_ONE = "scoring.rescore_application"
RESCORE = "scoring.rescore_requisition_version"
ROUTE_DUPLICATE = "scoring.route_duplicate"
# What applications_for_document defers (no queueing lock, no delay): a caller may send
# these with its own jobs in one statement (jobs_api.follow_ups(together=...), issue 26).
SCORE_TASKS = (SCORE,)


class ScoringError(AtsError):
    """Base of the errors the scoring module raises on purpose."""


# Keeps its builtin base (ValueError) so every `except ValueError` still catches it.
class UnknownSkill(ScoringError, ValueError):
    """A requisition named a skill outside the vocabulary; the message lists close matches."""


def _authorize(actor: Any, action: str) -> None:
    if not iam_api.can(actor, action):
        raise NotAllowed(f"{iam_api.actor_label(actor)} may not {action}")


def rescore_lock(requisition_version_id: int) -> str:
    return jobs_api.policy_for(RESCORE).queueing_lock_for({"requisition_version_id": requisition_version_id}) or ""


# --- requisitions -----------------------------------------------------------------


def canonical_skills(names: Iterable[str]) -> list[str]:
    """Canonical names for `names` (case-insensitive, aliases accepted), in order, deduped.

    Raises UnknownSkill naming every unknown one with its closest vocabulary matches.
    """
    vocab = extraction_api.skill_vocabulary()
    out: list[str] = []
    problems: list[str] = []
    for raw in names:
        key = " ".join(str(raw).split()).casefold()
        if not key:
            continue
        canonical = vocab.get(key)
        if canonical is None:
            close = process.extract(key, list(vocab), scorer=fuzz.ratio, limit=8, score_cutoff=60)
            suggestions = list(dict.fromkeys(vocab[m[0]] for m in close))[:5]
            hint = f"did you mean {', '.join(suggestions)}?" if suggestions else "no close match in the vocabulary"
            problems.append(f"unknown skill {raw!r}: {hint}")
        elif canonical not in out:
            out.append(canonical)
    if problems:
        raise UnknownSkill("; ".join(problems))
    return out


def _skills_both(must: Sequence[str] | None, nice: Sequence[str] | None) -> tuple[list[str] | None, list[str] | None]:
    """Both lists checked before either is refused: one error names every unknown skill."""
    out: list[list[str] | None] = []
    problems: list[str] = []
    for names in (must, nice):
        try:
            out.append(canonical_skills(names) if names is not None else None)
        except UnknownSkill as exc:
            problems.append(str(exc))
            out.append(None)
    if problems:
        raise UnknownSkill("; ".join(problems))
    return out[0], out[1]


def _criteria_check(must_have: list[str], nice_to_have: list[str], min_years: float | None) -> None:
    # No criteria at all is a draft (created from a title alone; its applications wait
    # with a reason until must-haves are added); anything else needs a must-have first.
    if not must_have and (nice_to_have or min_years is not None):
        raise ValueError("a requisition needs at least one must-have skill")
    both = set(must_have) & set(nice_to_have)
    if both:
        raise ValueError(f"skill(s) both must-have and nice-to-have: {', '.join(sorted(both))}")
    if min_years is not None and not 0 <= min_years <= 60:
        raise ValueError("--min-years must be between 0 and 60")


def requisition_create(
    *,
    title: str,
    must_have: Sequence[str] = (),
    nice_to_have: Sequence[str] = (),
    min_years: float | None = None,
    weights: dict[str, int] | None = None,
    actor: Any,
) -> RequisitionVersionData:
    _authorize(actor, "requisition.edit")
    title = title.strip()
    if not title:
        raise ValueError("a requisition needs a title")
    checked_must, checked_nice = _skills_both(must_have, nice_to_have)
    must, nice = checked_must or [], checked_nice or []
    _criteria_check(must, nice, min_years)
    w = engine.validate_weights(weights or engine.DEFAULT_WEIGHTS)
    with transaction.atomic():
        req = Requisition.objects.create(title=title[:255], current_version=1)
        version = RequisitionVersion.objects.create(
            requisition=req,
            version=1,
            title=req.title,
            must_have=must,
            nice_to_have=nice,
            min_years=min_years,
            weights=w,
            created_by=iam_api.actor_label(actor),
        )
        _audit(actor, "requisition.created", req.pk, {"version": 1, "criteria": _criteria(version).values()})
        return _version_data(version)


def _version_data(v: RequisitionVersion) -> RequisitionVersionData:
    return RequisitionVersionData(
        id=v.pk,
        requisition_id=v.requisition_id,
        version=v.version,
        title=v.title,
        must_have=tuple(v.must_have),
        nice_to_have=tuple(v.nice_to_have),
        min_years=v.min_years,
        weights=dict(v.weights),
        created_by=v.created_by,
        created_at=v.created_at,
    )


_UNSET: Any = object()


def requisition_update(
    *,
    requisition_id: int,
    title: str | None = None,
    must_have: Sequence[str] | None = None,
    nice_to_have: Sequence[str] | None = None,
    min_years: float | None = _UNSET,
    weights: dict[str, int] | None = None,
    actor: Any,
) -> RequisitionVersionData:
    """A new version with only the given options changed; rescoring of every application
    is deferred in the same transaction (a no-op per application whose inputs did not change)."""
    _authorize(actor, "requisition.edit")
    with transaction.atomic():
        req = Requisition.objects.select_for_update().filter(pk=requisition_id).first()
        if req is None:
            raise LookupError(f"requisition {requisition_id} does not exist")
        cur = RequisitionVersion.objects.get(requisition=req, version=req.current_version)
        new_title = title.strip()[:255] if title is not None else cur.title
        if not new_title:
            raise ValueError("a requisition needs a title")
        checked_must, checked_nice = _skills_both(must_have, nice_to_have)
        must = checked_must if checked_must is not None else list(cur.must_have)
        nice = checked_nice if checked_nice is not None else list(cur.nice_to_have)
        years = cur.min_years if min_years is _UNSET else min_years
        _criteria_check(must, nice, years)
        w = engine.validate_weights(weights) if weights is not None else dict(cur.weights)
        req.current_version += 1
        req.title = new_title
        req.save(update_fields=["current_version", "title", "updated_at"])
        version = RequisitionVersion.objects.create(
            requisition=req,
            version=req.current_version,
            title=new_title,
            must_have=must,
            nice_to_have=nice,
            min_years=years,
            weights=w,
            created_by=iam_api.actor_label(actor),
        )
        _audit(
            actor,
            "requisition.updated",
            req.pk,
            {"version": version.version, "criteria": _criteria(version).values()},
        )
        jobs_api.defer(RESCORE, payload={"requisition_version_id": version.pk})
        return _version_data(version)


def requisition_assign(*, requisition_id: int, user_id: int, actor: Any) -> None:
    _authorize(actor, "requisition.edit")
    with transaction.atomic():
        req = Requisition.objects.filter(pk=requisition_id).first()
        if req is None:
            raise LookupError(f"requisition {requisition_id} does not exist")
        RequisitionAssignment.objects.get_or_create(requisition=req, user_id=user_id)
        _audit(actor, "requisition.assigned", req.pk, {"user_id": user_id})


def requisition_unassign(*, requisition_id: int, user_id: int, actor: Any) -> bool:
    _authorize(actor, "requisition.edit")
    with transaction.atomic():
        deleted, _ = RequisitionAssignment.objects.filter(requisition_id=requisition_id, user_id=user_id).delete()
        if deleted:
            _audit(actor, "requisition.unassigned", requisition_id, {"user_id": user_id})
        return bool(deleted)


def requisition_close(*, requisition_id: int, reopen: bool = False, actor: Any) -> None:
    """Close (or reopen) a requisition. Closed: the upload page no longer offers it; its
    ranking, applications and decisions stay readable and decidable."""
    _authorize(actor, "requisition.edit")
    with transaction.atomic():
        req = Requisition.objects.select_for_update().filter(pk=requisition_id).first()
        if req is None:
            raise LookupError(f"requisition {requisition_id} does not exist")
        if reopen == (req.closed_at is None):
            raise ValueError("the requisition is already " + ("open" if reopen else "closed"))
        req.closed_at = None if reopen else timezone.now()
        req.save(update_fields=["closed_at", "updated_at"])
        _audit(actor, "requisition.reopened" if reopen else "requisition.closed", req.pk, {})


def channel_set_requisition(*, channel_id: int, requisition_id: int | None, actor: Any) -> None:
    """Route a mailbox channel's documents to a requisition (None: back to the talent pool)."""
    _authorize(actor, "requisition.edit")
    with transaction.atomic():
        if requisition_id is None:
            ChannelRequisition.objects.filter(channel_id=channel_id).delete()
        else:
            if not Requisition.objects.filter(pk=requisition_id).exists():
                raise LookupError(f"requisition {requisition_id} does not exist")
            ChannelRequisition.objects.update_or_create(
                channel_id=channel_id, defaults={"requisition_id": requisition_id}
            )
        _audit(actor, "channel.requisition_set", requisition_id or 0, {"channel_id": channel_id})


def _criteria(version: RequisitionVersion | RequisitionVersionData) -> engine.Criteria:
    return engine.Criteria(
        must_have=tuple(version.must_have),
        nice_to_have=tuple(version.nice_to_have),
        min_years=version.min_years,
        weights=dict(version.weights),
    )


def _audit(actor: Any, action: str, object_id: int, payload: dict[str, Any]) -> None:
    audit_api.audit_event_record(
        actor=iam_api.actor_label(actor), action=action, object_type="requisition", object_id=object_id, payload=payload
    )


# --- applications ------------------------------------------------------------------


# Keeps its builtin base (ValueError) so every `except ValueError` still catches it.
class DecisionRefused(ScoringError, Refused, ValueError):
    """A decision that cannot be recorded (same stage, no reason, unknown stage)."""


def _decidable(actor: Any) -> Any:
    """Applications `actor` may decide on: hiring managers only their assigned requisitions'."""
    _authorize(actor, "application.decide")
    qs = Application.objects.all()
    if iam_api.role_of(actor) == iam_api.Role.HIRING_MANAGER:
        qs = qs.filter(requisition__assignments__user_id=actor.pk)
    return qs


def application_decide(*, application_id: int, to_stage: str, reason: str, actor: Any) -> Decision:
    """A person moves an application to `to_stage`, with a reason.

    The decision row keeps what the person saw: the current result's score, fingerprint,
    config version and explanation (none when unscored). Audited with the actor. A hiring
    manager deciding outside their requisitions gets LookupError (the same as "no such
    application": they learn nothing about it).
    """
    reason = " ".join(str(reason).split())[:2000]
    if to_stage not in Stage.values:
        raise DecisionRefused(f"unknown stage {to_stage!r}; use one of {', '.join(Stage.values)}")
    if not reason:
        raise DecisionRefused("a decision needs a reason")
    with transaction.atomic():
        app = (
            _decidable(actor)
            .select_for_update(of=("self",))
            .select_related("current_result")
            .filter(pk=application_id)
            .first()
        )
        if app is None:
            raise LookupError(f"application {application_id} does not exist")
        if app.stage == to_stage:
            raise DecisionRefused(f"the application is already at {Stage(to_stage).label.lower()}")
        result = app.current_result if app.state == ApplicationState.SCORED else None
        decision = ApplicationDecision.objects.create(
            application=app,
            from_stage=app.stage,
            to_stage=to_stage,
            reason=reason,
            actor=iam_api.actor_label(actor),
            actor_user_id=actor.pk if getattr(actor, "is_authenticated", False) else None,
            requisition_version_id=result.requisition_version_id if result else app.requisition_version_id,
            result_id=result.pk if result else None,
            score=result.score if result else None,
            input_fingerprint=result.input_fingerprint if result else "",
            config_version=result.config_version if result else "",
            explanation=result.explanation if result else [],
        )
        app.stage = to_stage
        app.save(update_fields=["stage", "updated_at"])
        audit_api.audit_event_record(
            actor=iam_api.actor_label(actor),
            action="application.decided",
            object_type="application",
            object_id=app.pk,
            payload={
                "decision_id": decision.pk,
                "from": decision.from_stage,
                "to": to_stage,
                "result_id": decision.result_id,
                "score": decision.score,
                "input_fingerprint": decision.input_fingerprint,
                "config_version": decision.config_version,
            },
            personal={"reason": reason},
        )
        return Decision(
            id=decision.pk,
            application_id=app.pk,
            from_stage=decision.from_stage,
            to_stage=decision.to_stage,
            reason=decision.reason,
            actor=decision.actor,
            actor_user_id=decision.actor_user_id,
            requisition_version_id=decision.requisition_version_id,
            result_id=decision.result_id,
            score=decision.score,
            input_fingerprint=decision.input_fingerprint,
            config_version=decision.config_version,
            explanation=decision.explanation,
            created_at=decision.created_at,
        )


def applications_for_document(
    *, attachment_id: int, candidate_id: int, candidate_created: bool = False
) -> list[AppliedApplication]:
    """The candidate step's hook: one application per requisition the document (or a
    byte-identical duplicate of it) was sent for. Runs in the candidate step's transaction,
    which holds the document's row lock - the duplicate router takes the same lock, so a
    duplicate is routed by exactly one of the two (and twice is harmless anyway).

    `candidate_created`: the candidate was made by the caller's still-open transaction
    (CandidateRef.created): nobody can have merged it or applied it elsewhere yet, so
    neither is read (issue 26: two round trips fewer per new candidate)."""
    # Resolved once for every application below (issue 26: round trips per document).
    current = candidate_id if candidate_created else candidates_api.candidate_current_id(candidate_id)
    routed = [
        _application_apply(current_id=current, requisition_id=req_id, attachment_id=att_id)
        for att_id, req_id in intake_api.document_requisitions(attachment_id=attachment_id)
    ]
    if candidate_created:
        return routed
    # A new document or re-parse may change the candidate's skills or years: the
    # candidate's other applications are scored again (a no-op where nothing they use changed).
    others = Application.objects.filter(candidate_id=current).exclude(pk__in=[a.id for a in routed])
    for app_id in others.values_list("pk", flat=True):
        jobs_api.defer(SCORE, payload={"application_id": app_id})
    return routed


def application_route_duplicate(*, attachment_id: int) -> AppliedApplication | None:
    """A byte-identical duplicate sent for a requisition: the original's candidate applies."""
    with transaction.atomic():
        original = intake_api.original_candidate_for_update(attachment_id=attachment_id)
        if original is None or original[1] is None:
            # Not a duplicate, or the original has no candidate yet: its candidate step
            # routes this duplicate (it reads duplicates under the same row lock).
            logger.info("route duplicate %s: original has no candidate yet (%s)", attachment_id, original)
            return None
        routes = dict(intake_api.document_requisitions(attachment_id=original[0]))
        req_id = routes.get(attachment_id)
        if req_id is None:
            return None
        return application_apply(candidate_id=original[1], requisition_id=req_id, attachment_id=attachment_id)


def application_apply(
    *, candidate_id: int, requisition_id: int, attachment_id: int | None = None
) -> AppliedApplication:
    """Create or refresh the application of (candidate, requisition) and defer its scoring."""
    return _application_apply(
        current_id=candidates_api.candidate_current_id(candidate_id),
        requisition_id=requisition_id,
        attachment_id=attachment_id,
    )


def _application_apply(*, current_id: int, requisition_id: int, attachment_id: int | None) -> AppliedApplication:
    """application_apply for a candidate id already resolved through merges."""
    candidate_id = current_id
    # No savepoint of its own (issue 26): every caller runs it in its own transaction and
    # lets a failure end that transaction; a caller that catches one must open a savepoint.
    with transaction.atomic(savepoint=False):
        # The requisition and its current version in one read (issue 26; was two).
        version = (
            RequisitionVersion.objects.filter(requisition_id=requisition_id, version=F("requisition__current_version"))
            .only("pk")
            .first()
        )
        if version is None:
            raise LookupError(f"requisition {requisition_id} does not exist")
        with connection.cursor() as cur:
            # ON CONFLICT: two documents of one person for one requisition at once make
            # one application, by the constraint.
            cur.execute(
                "INSERT INTO scoring_application (candidate_id, requisition_id, requisition_version_id, state,"
                " reason_code, reason, created_at, updated_at)"
                " VALUES (%s, %s, %s, 'applied', '', '', now(), now())"
                " ON CONFLICT (candidate_id, requisition_id) DO NOTHING RETURNING id, state",
                [candidate_id, requisition_id, version.pk],
            )
            inserted = cur.fetchone()
        if inserted is not None:
            # This transaction's own row: nobody else can see or lock it before the commit,
            # so it is not locked and read back (issue 26: one round trip fewer).
            app_id, state = int(inserted[0]), str(inserted[1])
        else:
            app = Application.objects.select_for_update().get(candidate_id=candidate_id, requisition_id=requisition_id)
            app_id, state = app.pk, app.state
        if attachment_id is not None:
            # One INSERT (was get_or_create: a SELECT, then SAVEPOINT, INSERT, RELEASE); the
            # document that brought an application first stays linked to it (unique).
            with connection.cursor() as cur:
                cur.execute(
                    "INSERT INTO scoring_application_document (application_id, attachment_id, created_at)"
                    " VALUES (%s, %s, now()) ON CONFLICT (attachment_id) DO NOTHING",
                    [app_id, attachment_id],
                )
        jobs_api.defer(SCORE, payload={"application_id": app_id})
        return AppliedApplication(id=app_id, candidate_id=candidate_id, requisition_id=requisition_id, state=state)


class ScoringImpossible(ScoringError):
    """Scoring cannot succeed on retry (e.g. the candidate was erased)."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason


def application_score(*, application_id: int, run_id: int | None = None) -> str:
    """Score an application against its requisition's current version.

    Returns "scored" (a new ats_result), "unchanged" (the fingerprint already has its
    result: no new row) or "gone" (the application no longer exists). Raises
    ScoringImpossible for a permanent problem; the task turns it into scoring_failed.
    """
    with transaction.atomic(), jobs_api.db_budget():
        qs = Application.objects.filter(pk=application_id)
        app = (qs.select_for_update() if checkpoints.row_lock("SCORE") else qs).first()
        if app is None:
            return "gone"
        # The requisition's current version in one read (issue 26; was the requisition,
        # then the version).
        version = RequisitionVersion.objects.get(
            requisition_id=app.requisition_id, version=F("requisition__current_version")
        )
        if not version.must_have:
            raise ScoringImpossible(
                "no_criteria", "The requisition has no must-have skills yet; add them and it is scored."
            )
        inputs = candidates_api.candidate_scoring_inputs(app.candidate_id)
        if inputs is None or inputs["status"] != "active":
            state = "missing" if inputs is None else inputs["status"]
            raise ScoringImpossible("candidate_" + state, f"The candidate of this application is {state}.")
        result = engine.score(
            _criteria(version),
            skills=inputs["skills"],
            years_experience=inputs["years_experience"],
            canonical=extraction_api.skill_vocabulary(),
        )
        existing = AtsResult.objects.filter(application=app, input_fingerprint=result.fingerprint).first()
        outcome = "unchanged"
        if existing is None:
            checkpoints.reach("SCORE")  # between "is there a result for this fingerprint?" and the insert
            existing = _insert_result(app, version, result)
            outcome = "scored" if existing is not None else "unchanged"
            if existing is None:  # lost the insert race to a concurrent twin: its row stands
                existing = AtsResult.objects.get(application=app, input_fingerprint=result.fingerprint)
        if (
            app.current_result_id != existing.pk
            or app.state != ApplicationState.SCORED
            or app.requisition_version_id != version.pk
        ):
            app.current_result = existing
            app.state = ApplicationState.SCORED
            app.requisition_version = version
            app.reason_code = app.reason = ""
            app.save(
                update_fields=["current_result", "state", "requisition_version", "reason_code", "reason", "updated_at"]
            )
        _log(
            app.pk,
            version_id=version.pk,
            outcome=outcome,
            fingerprint=result.fingerprint,
            result_id=existing.pk,
            run_id=run_id,
            detail=f"score {existing.score}",
        )
        if run_id is not None:
            _finish_item(run_id, app.pk, ItemState.SCORED if outcome == "scored" else ItemState.UNCHANGED)
        return outcome


def _insert_result(app: Application, version: RequisitionVersion, result: engine.Result) -> AtsResult | None:
    """INSERT ... ON CONFLICT DO NOTHING: the constraint, not this code, keeps one row per
    fingerprint; None when a concurrent job inserted it first."""
    explanation, criteria, inputs = (
        json.dumps(result.explanation),
        json.dumps(_criteria(version).values()),
        json.dumps(result.inputs),
    )
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO ats_result (application_id, requisition_version_id, input_fingerprint, config_version,"
            " score, explanation, criteria, inputs, created_at)"
            " VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, %s::jsonb, clock_timestamp())"
            " ON CONFLICT DO NOTHING RETURNING id, score, created_at",
            [
                app.pk,
                version.pk,
                result.fingerprint,
                result.config_version,
                result.score,
                explanation,
                criteria,
                inputs,
            ],
        )
        row = cur.fetchone()
    if row is None:
        return None
    # The row as stored, from RETURNING and the JSON just sent (issue 26: it was read back).
    stored = AtsResult(
        id=row[0],
        application=app,
        requisition_version=version,
        input_fingerprint=result.fingerprint,
        config_version=result.config_version,
        score=row[1],
        explanation=json.loads(explanation),
        criteria=json.loads(criteria),
        inputs=json.loads(inputs),
        created_at=row[2],
    )
    stored._state.adding = False
    stored._state.db = "default"
    return stored


def _log(
    application_id: int,
    *,
    version_id: int | None,
    outcome: str,
    fingerprint: str,
    result_id: int | None,
    run_id: int | None,
    detail: str,
) -> None:
    ScoringEvent.objects.create(
        application_id=application_id,
        requisition_version_id=version_id,
        outcome=outcome,
        input_fingerprint=fingerprint,
        config_version=engine.CONFIG_VERSION,
        result_id=result_id,
        rescore_run_id=run_id,
        detail=detail[:2000],
    )
    logger.info(
        "scoring %s",
        json.dumps(
            {
                "event": "scoring." + outcome,
                "application_id": application_id,
                "requisition_version_id": version_id,
                "input_fingerprint": fingerprint,
                "config_version": engine.CONFIG_VERSION,
                "result_id": result_id,
                "rescore_run_id": run_id,
                "detail": detail,
            }
        ),
    )


def application_mark_failed(*, application_id: int, code: str, reason: str, run_id: int | None = None) -> None:
    """The terminal failure: scoring_failed with the reason, never a default score."""
    with transaction.atomic():
        app = Application.objects.select_for_update().filter(pk=application_id).first()
        if app is None:
            return
        app.state = ApplicationState.SCORING_FAILED
        app.reason_code = code[:64]
        app.reason = reason
        app.current_result = None
        app.save(update_fields=["state", "reason_code", "reason", "current_result", "updated_at"])
        _log(
            app.pk,
            version_id=app.requisition_version_id,
            outcome="failed",
            fingerprint="",
            result_id=None,
            run_id=run_id,
            detail=f"{code}: {reason}",
        )
        if run_id is not None:
            _finish_item(run_id, app.pk, ItemState.FAILED, reason=reason)


def application_score_exhausted(*, application_id: int, reason_code: str, reason: str, **_: Any) -> None:
    application_mark_failed(application_id=application_id, code=reason_code, reason=reason)


def rescore_application_exhausted(
    *, application_id: int, run_id: int | None = None, reason_code: str, reason: str, **_: Any
) -> None:
    application_mark_failed(application_id=application_id, code=reason_code, reason=reason, run_id=run_id)


# --- batch rescore -------------------------------------------------------------------


def rescore_request(*, requisition_id: int, actor: Any) -> tuple[int, int]:
    """Ask for a rescore of every application of the requisition's current version.

    Returns (requisition_version_id, coordinator job id); a request while one is waiting or
    running for the same version joins that one (the queueing lock).
    """
    _authorize(actor, "requisition.edit")
    with transaction.atomic():
        req = Requisition.objects.filter(pk=requisition_id).first()
        if req is None:
            raise LookupError(f"requisition {requisition_id} does not exist")
        version = RequisitionVersion.objects.get(requisition=req, version=req.current_version)
        job_id = jobs_api.defer(RESCORE, payload={"requisition_version_id": version.pk})
        if job_id is None:
            job_id = jobs_api.active_job_for_lock(rescore_lock(version.pk))
        if job_id is None:
            raise RuntimeError("the rescore job could not be queued nor found")
        return version.pk, job_id


def rescore_requisition_version(*, requisition_version_id: int, job_id: int | None) -> RescoreRun | None:
    """The coordinator: the summary row, one item per application and their jobs - one
    transaction, so a crash leaves either all of it or none (then the retry does it)."""
    with transaction.atomic(), jobs_api.db_budget():
        version = RequisitionVersion.objects.filter(pk=requisition_version_id).first()
        if version is None:
            return None
        if job_id is not None:
            done = RescoreRun.objects.filter(job_id=job_id).first()
            if done is not None:
                return done  # redelivered after commit: nothing to do
        app_ids = list(
            Application.objects.filter(requisition_id=version.requisition_id)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        run = RescoreRun.objects.create(
            requisition_version=version,
            job_id=job_id,
            total=len(app_ids),
            config_version=engine.CONFIG_VERSION,
            state=RescoreState.RUNNING if app_ids else RescoreState.COMPLETED,
            completed_at=None if app_ids else timezone.now(),
        )
        checkpoints.reach("RESCORE")  # in the coordinator's transaction, after the summary row
        RescoreItem.objects.bulk_create([RescoreItem(run=run, application_id=a) for a in app_ids], batch_size=1000)
        jobs_api.defer_many(
            RESCORE_ONE,
            payloads=[{"run_id": run.pk, "requisition_version_id": version.pk, "application_id": a} for a in app_ids],
        )
        logger.info(
            "rescore run %s: requisition version %s, %s application(s) fanned out", run.pk, version.pk, len(app_ids)
        )
        return run


def _finish_item(run_id: int, application_id: int, state: str, *, reason: str = "") -> None:
    """Record one application's outcome; the last one completes the run. The run row is
    locked so two last items finishing together cannot both miss completing it."""
    run = RescoreRun.objects.select_for_update().filter(pk=run_id).first()
    if run is None:
        return
    updated = RescoreItem.objects.filter(run_id=run_id, application_id=application_id, state=ItemState.PENDING).update(
        state=state, reason=reason, finished_at=timezone.now()
    )
    if (
        updated
        and run.state == RescoreState.RUNNING
        and not RescoreItem.objects.filter(run_id=run_id, state=ItemState.PENDING).exists()
    ):
        run.state = RescoreState.COMPLETED
        run.completed_at = timezone.now()
        run.save(update_fields=["state", "completed_at"])


# --- erasure and subject access (called by ats.retention) ------------------------------


def application_personal_rows(*, candidate_ids: list[int]) -> dict[str, list[dict[str, Any]]]:
    """Every scoring row about these candidates: applications, their documents, every ATS
    result with its explanation, scoring events and rescore items (subject access)."""
    app_ids = list(Application.objects.filter(candidate_id__in=candidate_ids).values_list("pk", flat=True))
    return {
        "scoring_application": [dict(r) for r in Application.objects.filter(pk__in=app_ids).values()],
        "scoring_application_document": [
            dict(r) for r in ApplicationDocument.objects.filter(application_id__in=app_ids).values()
        ],
        "ats_result": [dict(r) for r in AtsResult.objects.filter(application_id__in=app_ids).values()],
        "scoring_event": [dict(r) for r in ScoringEvent.objects.filter(application_id__in=app_ids).values()],
        "scoring_rescore_item": [dict(r) for r in RescoreItem.objects.filter(application_id__in=app_ids).values()],
        "scoring_application_decision": [
            dict(r) for r in ApplicationDecision.objects.filter(application_id__in=app_ids).values()
        ],
    }


def applications_erase_personal(*, candidate_ids: list[int]) -> dict[str, Any]:
    """Delete these candidates' applications and everything scored about them.

    Deleted rather than pseudonymised: a score or its explanation (matched skills, years)
    describes the person even without a name. Requisitions and rescore runs stay (their
    totals are history). Idempotent; runs in the caller's transaction.
    """
    with transaction.atomic():
        apps = list(
            Application.objects.select_for_update().filter(candidate_id__in=candidate_ids).values_list("pk", flat=True)
        )
        counts = {
            "scoring_event": ScoringEvent.objects.filter(application_id__in=apps).delete()[0],
            "scoring_rescore_item": RescoreItem.objects.filter(application_id__in=apps).delete()[0],
            "scoring_application_decision": ApplicationDecision.objects.filter(application_id__in=apps).delete()[0],
        }
        Application.objects.filter(pk__in=apps).update(current_result=None)
        counts["ats_result"] = AtsResult.objects.filter(application_id__in=apps).delete()[0]
        counts["scoring_application_document"] = ApplicationDocument.objects.filter(application_id__in=apps).delete()[0]
        counts["scoring_application"] = Application.objects.filter(pk__in=apps).delete()[0]
        for app_id in apps:
            audit_api.audit_personal_erase(object_type="application", object_id=app_id)
    return {"counts": counts, "application_ids": apps}
