"""`ats status` - documents by state and queues by depth, for operators."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand

from ats.intake import api as intake_api
from ats.jobs import ops_api as jobs_ops


class Command(BaseCommand):
    help = "Show document counts per state and job counts per queue."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        states = intake_api.state_counts()
        queues = jobs_ops.queue_stats()
        if opts["json"]:
            sys.stdout.write(json.dumps({"documents": states, "queues": queues}) + "\n")
            return
        sys.stdout.write("documents by state:\n")
        for state, n in states.items():
            kind = "terminal" if intake_api.is_terminal(state) else "waiting"
            sys.stdout.write(f"  {state:<28} {n:>6}  ({kind})\n")
        sys.stdout.write("jobs by queue:\n")
        for q in queues:
            age = f"{q['oldest_age_s']:.0f}s" if q["oldest_age_s"] is not None else "-"
            sys.stdout.write(f"  {q['queue']:<12} {q['status']:<10} {q['count']:>6}  oldest {age}\n")
