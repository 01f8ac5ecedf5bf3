"""`ats application show ID --json` and `ats application list --requisition ID --json` (a CLI contract).

show: id, candidate_id, requisition_id, requisition_version, state, score (0-100 or null),
reason (when failed), explanation [{criterion, contribution, evidence}] summing to score,
fingerprint (hex sha256), results [{fingerprint, score, created_at}] oldest first,
stage, decisions [{from, to, reason, actor, score, fingerprint, ...}] oldest first.

    ats application decide ID --to STAGE --reason T [--user USERNAME] --json
        -> {"application_id", "stage", "decision": {...}}   (a CLI contract)
A decision is a person's: --user records who (their role and requisition scope apply);
without it the decision is recorded as the command line's (`cli:system`).
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
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
        decide = sub.add_parser("decide")
        decide.add_argument("application_id", type=int)
        decide.add_argument("--to", required=True, choices=list(scoring_api.Stage.values), dest="to_stage")
        decide.add_argument("--reason", required=True)
        decide.add_argument("--user", default=None, help="the user deciding (their scope applies)")
        decide.add_argument("--json", action="store_true")
        lst = sub.add_parser("list")
        lst.add_argument("--requisition", type=int, required=True)
        lst.add_argument("--json", action="store_true")

    def _decide(self, opts: dict[str, Any]) -> None:
        actor: Any = CLI_ACTOR
        if opts["user"]:
            actor = get_user_model().objects.filter(username=opts["user"], is_active=True).first()
            if actor is None:
                raise CommandError(f"no active user {opts['user']!r}")
        try:
            decision = scoring_api.application_decide(
                application_id=opts["application_id"], to_stage=opts["to_stage"], reason=opts["reason"], actor=actor
            )
        except LookupError as exc:
            raise CommandError(str(exc)) from exc
        except (scoring_api.DecisionRefused, scoring_api.NotAllowed) as exc:
            raise CommandError(str(exc)) from exc
        out = {
            "application_id": decision.application_id,
            "stage": decision.to_stage,
            "decision": scoring_api.decision_json(decision),
        }
        if opts["json"]:
            self.stdout.write(json.dumps(out))
        else:
            moved = f"{decision.from_stage} -> {decision.to_stage}"
            self.stdout.write(f"application {decision.application_id}: {moved} ({decision.reason})")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["action"] == "decide":
            self._decide(opts)
            return
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
