"""`ats blobs reconcile [--json] [--dry-run] [--grace-hours H]` - exit 1 when a row has no
blob or a non-quarantine blob has no row."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand

from ats.evidence import api as evidence_api


class Command(BaseCommand):
    help = "Reconcile blob storage with the database: orphans both ways; old quarantine orphans are deleted."

    def add_arguments(self, parser: Any) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        rec = sub.add_parser("reconcile")
        rec.add_argument("--json", action="store_true")
        rec.add_argument("--dry-run", action="store_true", help="report what would be deleted, delete nothing")
        rec.add_argument("--grace-hours", type=float, help="override the grace period (default from settings)")

    def handle(self, *args: Any, **opts: Any) -> None:
        grace = opts["grace_hours"] * 3600 if opts["grace_hours"] is not None else None
        report = evidence_api.blobs_reconcile(grace_s=grace, dry_run=opts["dry_run"])
        if opts["json"]:
            sys.stdout.write(json.dumps(report) + "\n")
        else:
            sys.stdout.write(f"blobs: {report['blobs']}  rows: {report['rows']}\n")
            for o in report["orphan_blobs"]:
                sys.stdout.write(f"  orphan  {o['container']}/{o['key']} {o['age_s']}s old -> {o['action']}\n")
            for m in report["missing_blobs"]:
                sys.stdout.write(f"  MISSING {m['container']}/{m['key']} ({m['kind']} {m['id']})\n")
            sys.stdout.write(f"{'ok' if report['ok'] else 'PROBLEMS'}: deleted {report['deleted']}\n")
        sys.stdout.flush()
        if not report["ok"]:
            sys.exit(1)
