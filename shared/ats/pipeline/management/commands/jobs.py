"""`ats jobs retry|cancel|delete --status S [--task T] [--queue Q] [--since D] [--json]` -
act on every job matching a filter; prints {"matched": n, "retried"|"cancelled"|"deleted": n}.

`delete` removes finished jobs only (succeeded, failed, cancelled, aborted; a failed one
only once the sweep recorded its document's state) with their events and attempts.

One audit event records who, when, which filter and how many. A failed job that belongs
to a document is retried through the document's own action (convention 5), and only
where that action would do something; a waiting job a document waits for is never
cancelled (the document would be lost). Each job is acted on in its own savepoint, so
one refusal does not undo the rest.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from ats.audit import api as audit_api
from ats.intake import api as intake_api
from ats.jobs import ops_api as jobs_ops

# The document action that retries each document task's failure (as the console's).
DOCUMENT_RETRY: dict[str, str] = {
    "intake.ingest_attachment": "retry_scan",
    "intake.parse_attachment": "reparse",
    "intake.apply_parse_result": "reparse",
    "candidates.create_from_attachment": "retry_candidate",
}


def cli_actor() -> str:
    return f"cli:{os.getuid()}"


def _retry_one(job_id: int, task_name: str, args: dict[str, Any]) -> bool:
    attachment_id = args.get("attachment_id")
    if attachment_id is None or task_name not in DOCUMENT_RETRY:
        jobs_ops.job_retry(job_id=job_id)
        return True
    att = intake_api.attachment_get(int(attachment_id))
    if att is None:
        return False
    action = DOCUMENT_RETRY[task_name]
    allowed = intake_api.allowed_actions(att.state)
    if action == "reparse" and att.state != intake_api.State.PARSE_FAILED:
        return False  # a document past its failure: the retry would change nothing
    if action not in allowed:
        return False
    fn = {
        "retry_scan": intake_api.attachment_retry_scan,
        "retry_candidate": intake_api.attachment_retry_candidate,
        "reparse": intake_api.attachment_reparse,
    }[action]
    fn(attachment_id=int(attachment_id), actor=cli_actor())
    return True


def _cancel_one(job_id: int, task_name: str, args: dict[str, Any]) -> bool:
    attachment_id = args.get("attachment_id")
    if attachment_id is not None:
        att = intake_api.attachment_get(int(attachment_id))
        if (
            att is not None
            and not intake_api.is_terminal(att.state)
            and task_name in intake_api.INFO[intake_api.State(att.state)].waits_for
        ):
            return False
    jobs_ops.job_cancel(job_id=job_id)
    return True


def _delete_one(job_id: int, task_name: str, args: dict[str, Any]) -> bool:
    jobs_ops.job_delete(job_id=job_id)
    return True


ACTIONS = {"retry": (_retry_one, "retried"), "cancel": (_cancel_one, "cancelled"), "delete": (_delete_one, "deleted")}


class Command(BaseCommand):
    help = "Retry, cancel or delete (finished) every job matching a filter (audited once)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("action", choices=list(ACTIONS))
        parser.add_argument("--status", required=True, choices=jobs_ops.STATUSES)
        parser.add_argument("--task", default="")
        parser.add_argument("--queue", default="")
        parser.add_argument("--since", default="")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        action = opts["action"]
        try:
            since = jobs_ops.parse_since(opts["since"]) if opts["since"] else None
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if action == "delete" and opts["status"] not in jobs_ops.FINISHED_STATUSES:
            raise CommandError(f"delete --status: one of {', '.join(jobs_ops.FINISHED_STATUSES)} (finished jobs only)")
        act, done_key = ACTIONS[action]
        with transaction.atomic():
            matched = jobs_ops.job_ids_matching(
                status=opts["status"], task_name=opts["task"], queue=opts["queue"], since=since
            )
            done = 0
            for job_id, task_name, job_args in matched:
                try:
                    with transaction.atomic():
                        done += act(job_id, task_name, job_args)
                except (jobs_ops.JobActionRefused, intake_api.ActionRefused, LookupError):
                    continue  # e.g. started meanwhile, or an identical job already waits
            result = {"matched": len(matched), done_key: done}
            audit_api.audit_event_record(
                actor=cli_actor(),
                action=f"jobs.bulk_{action}",
                object_type="job_filter",
                object_id="-",
                payload={
                    "filter": {
                        "status": opts["status"],
                        "task": opts["task"],
                        "queue": opts["queue"],
                        "since": since.isoformat() if since else "",
                    },
                    **result,
                },
            )
        if opts["json"]:
            sys.stdout.write(json.dumps(result) + "\n")
        else:
            sys.stdout.write(f"{len(matched)} matched, {done} {done_key}\n")
