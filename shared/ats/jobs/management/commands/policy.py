"""`ats policy [--json]` - the retry/timeout policy table, for operators."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand

from ats.jobs import api as jobs_api


class Command(BaseCommand):
    help = "Print the task policy table (queues, attempts, backoff, timeouts, exhaustion)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        for p in jobs_api.POLICIES:
            row = p.as_json()
            if opts["json"]:
                sys.stdout.write(json.dumps(row) + "\n")
            else:
                sys.stdout.write(
                    f"{row['task_class']:<26} {row['queue']:<12} attempts={row['attempts']} "
                    f"backoff=({row['backoff']}) timeout={row['timeout_s']:g}s -> {row['on_exhaustion']}\n"
                )
