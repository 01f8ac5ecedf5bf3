"""`ats channel-add --mailbox X [--folder inbox] [--json]` - register a mailbox folder for polling."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from ats.channels import api as channels_api


class Command(BaseCommand):
    help = "Add a Microsoft Graph mail channel (idempotent: an existing one is reported, not duplicated)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--mailbox", required=True, help="mailbox address (UPN) or user id")
        parser.add_argument("--folder", default="inbox", help="well-known folder name or folder id")
        parser.add_argument(
            "--phone-region",
            default=None,
            help="region (ISO 3166, e.g. DE) of national phone numbers in CVs mailed here when a CV gives "
            "no sign of its own; 'none' clears it (default: the deployment's ATS_DEFAULT_PHONE_REGION)",
        )
        parser.add_argument("--poll", action="store_true", help="also queue a first poll now")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            channel, created = channels_api.channel_add(
                mailbox=opts["mailbox"], folder=opts["folder"], phone_region=opts["phone_region"]
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        # Otherwise the first poll waits for the schedule's next tick (up to 2 minutes).
        job_id = channels_api.channel_poll_request(channel_id=channel.id) if opts["poll"] else None
        if opts["json"]:
            out = {**channels_api.channel_status(channel.id), "created": created, "poll_job_id": job_id}
            sys.stdout.write(json.dumps(out) + "\n")
            return
        verb = "added" if created else "already exists"
        sys.stdout.write(f"channel {channel.id}: {channel.mailbox}/{channel.folder} {verb}\n")
        if job_id is not None:
            sys.stdout.write(f"channel {channel.id}: poll queued as job {job_id}\n")
