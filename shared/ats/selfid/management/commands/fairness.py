"""`ats fairness report [--requisition ID] [--since D] [--json]` (docs/compliance.md)."""

from __future__ import annotations

import datetime
import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ats.iam import api as iam_api
from ats.selfid import api as selfid_api


class Command(BaseCommand):
    help = "Selection rates and impact ratios per self-identified group and decision stage."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        report = sub.add_parser("report")
        report.add_argument("--requisition", type=int)
        report.add_argument("--since", type=datetime.date.fromisoformat, help="YYYY-MM-DD: applications since")
        report.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        actor = iam_api.SystemActor("cli:fairness")
        try:
            report = selfid_api.fairness_report_run(
                actor=actor, requisition_id=opts.get("requisition"), since=opts.get("since")
            )
        except selfid_api.NotAllowed as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            self.stdout.write(json.dumps(report))
            return
        for stage in report["stages"]:
            self.stdout.write(f"{stage['stage']}: {stage['explanation']}")
            for g in stage["groups"]:
                flag = "" if g["four_fifths"] is not False else "  BELOW 4/5"
                self.stdout.write(
                    f"  {g['group']}: n={g['n']} selected={g['selected']} rate={g['selection_rate']}"
                    f" ratio={g['impact_ratio']} fisher_p={g['fisher_p']}{flag}"
                )
