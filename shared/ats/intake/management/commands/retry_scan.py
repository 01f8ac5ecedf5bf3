"""`ats retry-scan ATTACHMENT_ID` - run the malware scan again for a `scan_failed` document."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from ats.intake import api as intake_api
from ats.intake.management.commands._actions import run_action


class Command(BaseCommand):
    help = "Retry the malware scan of a document whose scan failed (state scan_failed)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("attachment_id", type=int)

    def handle(self, *args: Any, **opts: Any) -> None:
        run_action(intake_api.attachment_retry_scan, attachment_id=opts["attachment_id"])
        # The action moves the document to exactly this state, or raises.
        state = intake_api.State.RECEIVED
        self.stdout.write(f"attachment {opts['attachment_id']}: scan queued again (state {state})")
