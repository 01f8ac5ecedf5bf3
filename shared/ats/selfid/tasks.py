"""The ADR's Phase-3 weekly fairness evaluation (queue maintenance): thin."""

from __future__ import annotations

from ats.iam import api as iam_api
from ats.jobs import api as jobs_api
from ats.selfid import services


@jobs_api.task("fairness.evaluate", periodic=jobs_api.periodic_cron("fairness.evaluate"))
def evaluate(*, timestamp: int, payload_version: int) -> None:
    # Writes the report; the alert (AtsFairnessImpactRatioLow) reads its flagged count.
    services.fairness_report_run(actor=iam_api.SystemActor("system:fairness"))
