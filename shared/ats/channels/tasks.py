"""Thin mail-channel tasks for worker-default (queue `mail`)."""

from __future__ import annotations

from django.conf import settings

from ats.channels import services
from ats.jobs import api as jobs_api


@jobs_api.task("mail.poll_channel")
def poll_channel(*, channel_id: int, payload_version: int) -> None:
    try:
        services.channel_poll(channel_id=channel_id)
    except services.PermanentPollError as exc:
        # Retrying a refused credential or an unknown mailbox only delays the visible
        # `degraded` state; the schedule tries again on its next run anyway.
        raise jobs_api.PermanentFailure(exc.code, exc.reason) from exc


@jobs_api.task("mail.schedule_polls", periodic=settings.MAIL_POLL_CRON)
def schedule_polls(*, timestamp: int, payload_version: int) -> None:
    services.channel_schedule_polls()
