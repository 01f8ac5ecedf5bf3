"""`ats audit verify [--json]` | `ats audit export [--month YYYY-MM] [--json]` | `ats audit partitions`."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from ats.audit import api as audit_api
from ats.audit.partitions import parse_month


class Command(BaseCommand):
    help = "Verify the audit hash chain, export closed months to the archive, maintain partitions."

    def add_arguments(self, parser: Any) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        verify = sub.add_parser("verify", help="walk the whole chain; exit 1 on a break")
        verify.add_argument("--json", action="store_true")
        export = sub.add_parser("export", help="write closed months to the immutable archive")
        export.add_argument("--month", help="YYYY-MM (default: every closed month not yet exported)")
        export.add_argument("--json", action="store_true")
        parts = sub.add_parser("partitions", help="create partitions ahead, drop exported ones past 13 months")
        parts.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:  # noqa: PLR0912 - one branch per sub-command and output form (a CLI contract)
        action = opts["action"]
        if action == "verify":
            result = audit_api.audit_verify()
            if opts["json"]:
                sys.stdout.write(json.dumps(result) + "\n")
            else:
                for p in result["partitions"]:
                    sys.stdout.write(f"{p['name']:<24} {'ok' if p['ok'] else 'BROKEN':<7} {p['rows']} rows\n")
                fb = result["first_broken"]
                if fb:
                    sys.stdout.write(f"first broken link: {fb['partition']} event {fb['event_id']}: {fb['reason']}\n")
                else:
                    sys.stdout.write("chain intact\n")
            sys.stdout.flush()
            if not result["ok"]:
                sys.exit(1)
        elif action == "export":
            try:
                month = parse_month(opts["month"]) if opts["month"] else None
                results = audit_api.audit_export(month=month)
            except (ValueError, audit_api.ExportRefused) as exc:
                raise CommandError(str(exc)) from exc
            if opts["json"]:
                sys.stdout.write(json.dumps({"exports": [r.as_json() for r in results]}) + "\n")
            else:
                for r in results:
                    sys.stdout.write(
                        f"{r.month} {r.partition} -> {r.container}/{r.key} sha256={r.sha256} "
                        f"rows={r.rows} ({r.status})\n"
                    )
                if not results:
                    sys.stdout.write("nothing to export (no closed month without an export)\n")
        else:
            out = audit_api.audit_partitions_maintain()
            sys.stdout.write((json.dumps(out) if opts["json"] else " ".join(f"{k}={v}" for k, v in out.items())) + "\n")
