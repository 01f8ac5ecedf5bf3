"""`ats evidence show ATTACHMENT_ID [--json]` - exit 1 when any link fails."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand

from ats.evidence import api as evidence_api


class Command(BaseCommand):
    help = "Show and check one document's evidence chain (bytes, scan, sandbox, parse) against the audit chain."

    def add_arguments(self, parser: Any) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        show = sub.add_parser("show", help="re-read the stored bytes and rows and check every link")
        show.add_argument("attachment_id", type=int)
        show.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        record = evidence_api.evidence_show(attachment_id=opts["attachment_id"])
        if opts["json"]:
            sys.stdout.write(json.dumps(record) + "\n")
        else:
            sys.stdout.write(f"attachment {record['attachment_id']}: {'ok' if record['ok'] else 'BROKEN'}\n")
            for link in record["links"]:
                mark = "ok " if link["ok"] else "BAD"
                sys.stdout.write(f"  {mark} {link['step']:<20} expected={link['expected']} actual={link['actual']}\n")
        sys.stdout.flush()
        if not record["ok"]:
            sys.exit(1)
