"""`ats application show ID --json` and `ats application list --requisition ID --json` (a CLI contract).

show: id, candidate_id, requisition_id, requisition_version, state, score (0-100 or null),
reason (when failed), explanation [{criterion, contribution, evidence}] summing to score,
fingerprint (hex sha256), results [{fingerprint, score, created_at}] oldest first.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ats.iam import api as iam_api
from ats.scoring import api as scoring_api

CLI_ACTOR = iam_api.SystemActor("cli:system")


class Command(BaseCommand):
    help = "Show or list applications with their scores and explanations."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        show = sub.add_parser("show")
        show.add_argument("application_id", type=int)
        show.add_argument("--json", action="store_true")
        lst = sub.add_parser("list")
        lst.add_argument("--requisition", type=int, required=True)
        lst.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["action"] == "show":
            detail = scoring_api.application_detail(opts["application_id"], actor=CLI_ACTOR)
            if detail is None:
                raise CommandError(f"application {opts['application_id']} does not exist")
            if opts["json"]:
                self.stdout.write(json.dumps(detail))
                return
            score = detail["score"] if detail["score"] is not None else "-"
            lines = [
                f"application {detail['id']}: candidate {detail['candidate_id']}, requisition "
                f"{detail['requisition_id']} v{detail['requisition_version']}, {detail['state']}, score {score}"
            ]
            if detail["reason"]:
                lines.append(f"  reason: {detail['reason']}")
            for e in detail["explanation"]:
                quote = "; ".join(str(ev.get("text")) for ev in e["evidence"][:2])
                lines.append(f"  {e['contribution']:>3}/{e['max']:<3} {e['criterion']} [{e['status']}] {quote}")
            self.stdout.write("\n".join(lines))
            return
        rows = scoring_api.application_list(requisition_id=opts["requisition"], actor=CLI_ACTOR)
        if opts["json"]:
            self.stdout.write(json.dumps(rows))
            return
        for r in rows:
            score = r["score"] if r["score"] is not None else "-"
            self.stdout.write(f"{r['id']}  candidate {r['candidate_id']}  {r['state']}  score {score}")
