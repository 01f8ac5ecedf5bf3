"""`ats scan-incomplete release ID --reason T | rescan ID` - an admin's two ways out of
`scan_incomplete` (clamd stopped at a limit; docs/runbook/clamav.md):

    ats scan-incomplete release ID --reason "reviewed: PDF/A with large embedded font" [--json]
    ats scan-incomplete rescan ID [--json]   # with the second, raised-limits clamd
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from ats.intake import api as intake_api
from ats.intake.management.commands._actions import run_action


class Command(BaseCommand):
    help = "Release after review, or re-scan with raised limits, a file clamd could not scan completely."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        release = sub.add_parser("release", help="release after review: read it in the sandbox")
        release.add_argument("attachment_id", type=int)
        release.add_argument("--reason", required=True)
        release.add_argument("--json", action="store_true")
        rescan = sub.add_parser("rescan", help="scan again with the raised-limits clamd")
        rescan.add_argument("attachment_id", type=int)
        rescan.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["action"] == "release":
            run_action(
                intake_api.attachment_release_after_review, attachment_id=opts["attachment_id"], reason=opts["reason"]
            )
        else:
            run_action(intake_api.attachment_rescan_raised_limits, attachment_id=opts["attachment_id"])
        att = intake_api.attachment_get(opts["attachment_id"])
        assert att is not None
        status = intake_api.attachment_status(att)
        if opts["json"]:
            self.stdout.write(json.dumps(status, default=str))
        else:
            self.stdout.write(f"attachment {att.pk}: {status['state_label']}")
