"""`ats intake-verify [--json]` - the lost-work detector; exits 1 naming each lost item.

Lost = a document neither terminal nor backed by a live job, or an application left
`applied` with no live score job.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand

from ats.intake import api as intake_api
from ats.scoring import api as scoring_api


class Command(BaseCommand):
    help = "Report every document or application neither terminal nor backed by a live job (exit 1 if any)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        lost = intake_api.lost_documents()
        lost_apps = scoring_api.lost_applications()
        if opts["json"]:
            sys.stdout.write(
                json.dumps(
                    {
                        "lost": len(lost),
                        "documents": [d.as_json() for d in lost],
                        "lost_applications": len(lost_apps),
                        "applications": [a.as_json() for a in lost_apps],
                    }
                )
                + "\n"
            )
        else:
            for d in lost:
                sys.stdout.write(f"LOST attachment {d.attachment_id} ({d.filename}) in {d.state}: {d.why}\n")
            for a in lost_apps:
                sys.stdout.write(f"LOST application {a.application_id} (candidate {a.candidate_id}) applied: {a.why}\n")
            sys.stdout.write(f"{len(lost)} lost document(s)\n")
            if lost_apps:
                sys.stdout.write(f"{len(lost_apps)} lost application(s)\n")
        if lost or lost_apps:
            sys.exit(1)
