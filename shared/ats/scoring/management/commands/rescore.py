"""`ats rescore --requisition ID [--wait] [--timeout S] --json` (a CLI contract).

Prints {id, requisition_version, state, total, scored, unchanged, failed, failures:
[{application_id, reason}]}. Exit 0 when the run completed (partial failures included),
1 on timeout.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ats.iam import api as iam_api
from ats.jobs import ops_api as jobs_ops
from ats.scoring import api as scoring_api

CLI_ACTOR = iam_api.SystemActor("cli:system")


class Command(BaseCommand):
    help = "Rescore every application of a requisition's current version; --wait prints the summary."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--requisition", type=int, required=True)
        parser.add_argument("--wait", action="store_true")
        parser.add_argument("--timeout", type=float, default=600.0)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            version_id, job_id = scoring_api.rescore_request(requisition_id=opts["requisition"], actor=CLI_ACTOR)
        except (LookupError, PermissionError) as exc:
            raise CommandError(str(exc)) from exc
        deadline = time.monotonic() + opts["timeout"]
        summary: dict[str, Any] = {
            "id": None,
            "requisition_version_id": version_id,
            "job_id": job_id,
            "state": "queued",
        }
        while True:
            started = scoring_api.rescore_summary_for_job(job_id)
            if started is not None:
                summary = {**started, "job_id": job_id}
            elif jobs_ops.job_status(job_id) == "failed":
                summary["state"] = "failed"
                break
            if not opts["wait"] or summary["state"] == "completed" or time.monotonic() >= deadline:
                break
            time.sleep(0.2)
        if opts["json"]:
            self.stdout.write(json.dumps(summary))
        else:
            self.stdout.write(
                f"rescore {summary['id']} ({summary['state']}): {summary.get('total', '?')} total, "
                f"{summary.get('scored', 0)} scored, {summary.get('unchanged', 0)} unchanged, "
                f"{summary.get('failed', 0)} failed"
            )
            for f in summary.get("failures", []):
                self.stdout.write(f"  application {f['application_id']}: {f['reason']}")
        self.stdout.flush()
        if opts["wait"] and summary["state"] != "completed":
            sys.exit(1)
