"""`ats reparse ATTACHMENT_ID` - request a new parse attempt."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from ats.intake import api as intake_api


class Command(BaseCommand):
    help = "Request a re-parse of a document (a new parse attempt number)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("attachment_id", type=int)

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            attempt = intake_api.attachment_reparse(attachment_id=opts["attachment_id"])
        except (LookupError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"attachment {opts['attachment_id']}: parse attempt {attempt.attempt_no} queued")
