"""`ats discard ATTACHMENT_ID --reason TEXT` - close a failed or duplicate document for good."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from ats.intake import api as intake_api
from ats.intake.management.commands._actions import run_action


class Command(BaseCommand):
    help = "Discard a failed or duplicate document (terminal state 'discarded'); the reason is audited."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("attachment_id", type=int)
        parser.add_argument("--reason", required=True, help="why (kept in the audit log and shown on the page)")

    def handle(self, *args: Any, **opts: Any) -> None:
        run_action(intake_api.attachment_discard, attachment_id=opts["attachment_id"], reason=opts["reason"])
        self.stdout.write(f"attachment {opts['attachment_id']}: discarded")
