"""`ats retry-candidate ATTACHMENT_ID` - create the candidate again for a `candidate_failed` document."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from ats.intake import api as intake_api
from ats.intake.management.commands._actions import run_action


class Command(BaseCommand):
    help = "Retry candidate creation for a document whose candidate step failed (state candidate_failed)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("attachment_id", type=int)

    def handle(self, *args: Any, **opts: Any) -> None:
        run_action(intake_api.attachment_retry_candidate, attachment_id=opts["attachment_id"])
        # The action moves the document to exactly this state, or raises.
        state = intake_api.State.PARSED
        self.stdout.write(f"attachment {opts['attachment_id']}: candidate creation queued again (state {state})")
