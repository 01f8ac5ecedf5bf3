"""`ats ai explain APPLICATION_ID --user U | summary CANDIDATE_ID --user U | status` [--wait] [--json].

AI answers are asked for by a person (`--user`): the worker checks that person's
permissions, not the CLI's. Disabled or failing provider: "AI unavailable", exit 3.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from ats.ai import api as ai_api

EXIT_UNAVAILABLE = 3


class Command(BaseCommand):
    help = "AI explanations and summaries (behind the circuit breaker), and the breaker's status."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        for name, subject in (("explain", "application_id"), ("summary", "candidate_id")):
            p = sub.add_parser(name)
            p.add_argument("subject_id", type=int, metavar=subject.upper())
            p.add_argument("--user", required=True, help="the person asking (their permissions apply)")
            p.add_argument("--wait", action="store_true")
            p.add_argument("--timeout", type=float, default=120.0)
            p.add_argument("--json", action="store_true")
        status = sub.add_parser("status")
        status.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["action"] == "status":
            st = {**ai_api.breaker_status(), "unavailable_reason": ai_api.unavailable_reason()}
            self.stdout.write(json.dumps(st) if opts["json"] else " ".join(f"{k}={v}" for k, v in st.items()))
            return
        user = get_user_model().objects.filter(username=opts["user"]).first()
        if user is None:
            raise CommandError(f"no user {opts['user']!r}")
        kind = ai_api.AiKind.EXPLAIN_SCORE if opts["action"] == "explain" else ai_api.AiKind.CV_SUMMARY
        try:
            run = ai_api.ai_request(kind=kind, subject_id=opts["subject_id"], actor=user)
        except PermissionError as exc:
            raise CommandError(str(exc)) from exc
        deadline = time.monotonic() + opts["timeout"]
        detail = ai_api.ai_run_detail(run.id, actor=user) or {}
        while opts["wait"] and not detail.get("terminal") and time.monotonic() < deadline:
            time.sleep(0.2)
            detail = ai_api.ai_run_detail(run.id, actor=user) or {}
        if opts["json"]:
            self.stdout.write(json.dumps(detail))
        else:
            self.stdout.write(
                detail.get("text") or detail.get("message") or f"AI run {run.id} is {detail.get('state')}"
            )
        self.stdout.flush()
        if detail.get("terminal") and detail.get("state") != ai_api.AiRunState.SUCCEEDED:
            sys.exit(EXIT_UNAVAILABLE)
        if opts["wait"] and not detail.get("terminal"):
            sys.exit(1)
