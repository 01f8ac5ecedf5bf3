"""`ats policy [--json]` - the retry/timeout policy table, for operators.

In ats.pipeline: it lists the untrusted worker's tasks too, which jobs may not import."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand

from ats.jobs import ops_api as jobs_ops
from ats.parse_worker import api as parse_worker_api


class Command(BaseCommand):
    help = "Print the task policy table (queues, attempts, backoff, timeouts, exhaustion)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        parse_worker_api.import_tasks()  # worker-untrusted's tasks count too
        registered = jobs_ops.registered_task_names()
        periodic = {p.task_name: p for p in jobs_ops.PERIODIC}
        for p in jobs_ops.POLICIES:
            row = p.as_json()
            # False marks a policy row whose task no module implements yet.
            row["task_registered"] = p.task_name in registered
            row["periodic"] = periodic[p.task_name].effective_cron() if p.task_name in periodic else None
            if opts["json"]:
                sys.stdout.write(json.dumps(row) + "\n")
            else:
                sys.stdout.write(
                    f"{row['task_class']:<26} {row['queue']:<12} attempts={row['attempts']} "
                    f"backoff=({row['backoff']}) timeout={row['timeout_s']:g}s -> {row['on_exhaustion']}"
                    + ("" if row["task_registered"] else "  [no task yet]")
                    + "\n"
                )
