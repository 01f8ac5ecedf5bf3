"""Thin ai tasks (queue `ai`)."""

from __future__ import annotations

from django.conf import settings

from ats.ai import services
from ats.jobs import api as jobs_api


@jobs_api.task(services.INVOKE)
def invoke(*, ai_run_id: int, payload_version: int) -> None:
    services.ai_run_execute(ai_run_id=ai_run_id)


@jobs_api.task("ai.probe_breaker", periodic=settings.AI_PROBE_CRON)
def probe_breaker(*, timestamp: int, payload_version: int) -> None:
    services.breaker_probe()
