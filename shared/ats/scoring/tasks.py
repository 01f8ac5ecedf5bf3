"""Thin scoring tasks (queue `score`): take ids, re-check state, call the services."""

from __future__ import annotations

from ats.jobs import api as jobs_api
from ats.scoring import services


@jobs_api.task(services.SCORE)
def score_application(*, application_id: int, payload_version: int) -> None:
    try:
        services.application_score(application_id=application_id)
    except services.ScoringImpossible as exc:
        # Permanent: the policy's exhaustion handler writes scoring_failed with the reason.
        raise jobs_api.PermanentFailure(exc.code, exc.reason) from exc


@jobs_api.task(services.RESCORE_ONE)
def rescore_application(*, run_id: int, requisition_version_id: int, application_id: int, payload_version: int) -> None:
    try:
        services.application_score(application_id=application_id, run_id=run_id)
    except services.ScoringImpossible as exc:
        raise jobs_api.PermanentFailure(exc.code, exc.reason) from exc


@jobs_api.task(services.RESCORE)
def rescore_requisition_version(*, requisition_version_id: int, payload_version: int) -> None:
    attempt = jobs_api.current_attempt()
    services.rescore_requisition_version(
        requisition_version_id=requisition_version_id, job_id=attempt.job_id if attempt else None
    )


@jobs_api.task(services.ROUTE_DUPLICATE)
def route_duplicate(*, attachment_id: int, payload_version: int) -> None:
    services.application_route_duplicate(attachment_id=attachment_id)
