"""`ats reparse ATTACHMENT_ID` - request a new parse attempt."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from ats.intake import api as intake_api
from ats.intake.management.commands._actions import run_action


class Command(BaseCommand):
    help = "Request a re-parse of a document (a new parse attempt number)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("attachment_id", type=int)

    def handle(self, *args: Any, **opts: Any) -> None:
        attempt = run_action(intake_api.attachment_reparse, attachment_id=opts["attachment_id"])
        self.stdout.write(f"attachment {opts['attachment_id']}: parse attempt {attempt.attempt_no} queued")
