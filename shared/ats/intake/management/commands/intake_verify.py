"""`ats intake-verify [--json]` - the lost-document detector; exits 1 naming each one."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand

from ats.intake import api as intake_api


class Command(BaseCommand):
    help = "Report every document that is neither terminal nor backed by a live job (exit 1 if any)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        lost = intake_api.lost_documents()
        if opts["json"]:
            sys.stdout.write(json.dumps({"lost": len(lost), "documents": [d.as_json() for d in lost]}) + "\n")
        else:
            for d in lost:
                sys.stdout.write(f"LOST attachment {d.attachment_id} ({d.filename}) in {d.state}: {d.why}\n")
            sys.stdout.write(f"{len(lost)} lost document(s)\n")
        if lost:
            sys.exit(1)
