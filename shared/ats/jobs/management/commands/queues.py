"""`ats queues [--json]` - every queue with its global cap, pause state, depth and age."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand

from ats.jobs import ops


class Command(BaseCommand):
    help = "List the queues: global concurrency cap, paused, waiting, running, oldest waiting age."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        rows = ops.queue_list()
        if opts["json"]:
            sys.stdout.write(json.dumps(rows) + "\n")
            return
        for r in rows:
            age = "-" if r["oldest_s"] is None else f"{r['oldest_s']:.0f}s"
            state = "PAUSED" if r["paused"] else "running"
            sys.stdout.write(
                f"{r['queue']:<12} cap {r['concurrency']:<5} {state:<8} waiting {r['waiting']:<6} "
                f"running {r['running']:<4} oldest {age}\n"
            )
