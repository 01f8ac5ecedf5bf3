"""`ats channel-poll ID` - queue a poll of one mail channel now."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from ats.channels import api as channels_api


class Command(BaseCommand):
    help = "Queue a poll of a mail channel now (worker-default runs it)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("channel_id", type=int)

    def handle(self, *args: Any, **opts: Any) -> None:
        channel_id = opts["channel_id"]
        try:
            job_id = channels_api.channel_poll_request(channel_id=channel_id)
        except LookupError as exc:
            raise CommandError(str(exc)) from exc
        if job_id is None:
            sys.stdout.write(f"channel {channel_id}: a poll is already queued\n")
        else:
            sys.stdout.write(f"channel {channel_id}: poll queued as job {job_id}\n")
