"""`ats queue pause NAME` / `ats queue resume NAME` [--json] - stop and restart fetching
from one queue. In-flight jobs finish; new ones wait (docs/runbook/queue.md)."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from ats.audit import api as audit_api
from ats.jobs import ops_api as jobs_ops


def cli_actor() -> str:
    import os

    return f"cli:{os.getuid()}"


class Command(BaseCommand):
    help = "Pause or resume a queue (in-flight jobs finish; new jobs wait while paused)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("action", choices=["pause", "resume"])
        parser.add_argument("name")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        paused = opts["action"] == "pause"
        try:
            with transaction.atomic():  # the switch and its audit row commit together
                row = jobs_ops.queue_set_paused(queue=opts["name"], paused=paused, actor=cli_actor())
                audit_api.audit_event_record(
                    actor=cli_actor(),
                    action=f"jobs.queue_{opts['action']}",
                    object_type="queue",
                    object_id=opts["name"],
                    payload={"queue": opts["name"], "paused": paused},
                )
        except LookupError as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            sys.stdout.write(json.dumps(row) + "\n")
        else:
            sys.stdout.write(f"queue {row['queue']} {'paused' if paused else 'resumed'}: {row['waiting']} waiting\n")
