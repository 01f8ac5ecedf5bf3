"""`ats erase` - erasure on request (GDPR art. 17) and its operator companions (a contract).

    ats erase candidate ID --reason TEXT [--json]   # prints {candidate_id, erasure_id, steps}
    ats erase readmit ATTACHMENT_ID --reason TEXT   # an admin re-admits a tombstoned sender
    ats erase replay [--json]                        # after a restore: re-apply the erasure log
    ats erase purge [--json]                         # run the retention purge now
    ats erase verify [--json]                        # re-check purged blob keys against the store
    ats erase recompute [--json]                     # recompute retention_due_on now

Synchronous and idempotent: a second `erase candidate` of the same person prints the same
erasure_id. Admin only: the web action checks the admin role; the CLI acts as
`cli:<uid>`, a system actor - whoever runs `ats` holds the database credentials, which
only admins and operators do (docs/compliance.md).
"""

from __future__ import annotations

import json
import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ats.iam import api as iam_api
from ats.retention import api as retention_api


def cli_actor() -> Any:
    return iam_api.SystemActor(f"cli:{os.getuid()}")


class Command(BaseCommand):
    help = "Erase a person everywhere (GDPR art. 17); purge, verify and replay the erasure log."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        cand = sub.add_parser("candidate", help="erase one person (and everyone merged into them)")
        cand.add_argument("candidate_id", type=int)
        cand.add_argument("--reason", required=True)
        cand.add_argument("--json", action="store_true")
        readmit = sub.add_parser("readmit", help="re-admit the sender of an erased_subject document")
        readmit.add_argument("attachment_id", type=int)
        readmit.add_argument("--reason", required=True)
        readmit.add_argument("--json", action="store_true")
        for name, text in (
            ("replay", "re-apply the erasure log after a restore"),
            ("purge", "run the retention purge now"),
            ("verify", "re-check purged blob keys"),
            ("recompute", "recompute retention_due_on"),
        ):
            p = sub.add_parser(name, help=text)
            p.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            getattr(self, f"_{opts['action']}")(opts)
        except (LookupError, ValueError, PermissionError, retention_api.PurgeHalted) as exc:
            raise CommandError(str(exc)) from exc

    def _out(self, opts: dict[str, Any], data: Any, text: str) -> None:
        self.stdout.write(json.dumps(data, default=str) if opts.get("json") else text)

    def _candidate(self, opts: dict[str, Any]) -> None:
        erasure = retention_api.subject_erase(
            candidate_id=opts["candidate_id"], reason=opts["reason"], actor=cli_actor()
        )
        data = retention_api.erasure_json(erasure)
        lines = [f"candidate {data['candidate_id']} erased (erasure {data['erasure_id']})"]
        lines += [f"  {s['step']}: {s.get('rows', 0)} rows" for s in data["steps"]]
        self._out(opts, data, "\n".join(lines))

    def _readmit(self, opts: dict[str, Any]) -> None:
        data = retention_api.tombstone_lift(
            attachment_id=opts["attachment_id"], actor=cli_actor(), reason=opts["reason"]
        )
        self._out(
            opts, data, f"document {data['attachment_id']} re-admitted; {data['tombstones_lifted']} tombstones lifted"
        )

    def _replay(self, opts: dict[str, Any]) -> None:
        data = retention_api.erasure_replay()
        self._out(
            opts, data, f"replayed {len(data['replayed'])} erasures; {len(data['already_applied'])} already applied"
        )

    def _purge(self, opts: dict[str, Any]) -> None:
        run = retention_api.retention_purge()
        data = {"run_id": run.id, "state": run.state, "due": run.due_count, "done": run.done_count}
        self._out(opts, data, f"purge run {run.id}: {run.state}, {run.done_count}/{run.due_count} subjects")

    def _verify(self, opts: dict[str, Any]) -> None:
        v = retention_api.purge_verify()
        data = {"ok": v.ok, "checked": v.checked, "still_present": list(v.still_present)}
        self._out(opts, data, f"{'ok' if v.ok else 'FAILED'}: {v.checked} purged blobs checked")
        if not v.ok:
            raise CommandError(f"{len(v.still_present)} purged blobs still exist")

    def _recompute(self, opts: dict[str, Any]) -> None:
        data = retention_api.retention_due_on_recompute()
        self._out(opts, data, f"due dates: {data['created']} created, {data['changed']} changed")
