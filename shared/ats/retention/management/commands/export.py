"""`ats export candidate ID --out DIR [--json]` - subject access (GDPR art. 15), a contract.

Writes DIR/subject.json (every row held about the person, table by table, with audit
events and their personal details) and DIR/documents/<attachment id>-<file name> (the
original files). Acts as `cli:<uid>` (see `ats erase`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ats.iam import api as iam_api
from ats.retention import api as retention_api


class Command(BaseCommand):
    help = "Export everything held about a person (GDPR art. 15)."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="what", required=True)
        cand = sub.add_parser("candidate", help="one person, across merges")
        cand.add_argument("candidate_id", type=int)
        cand.add_argument("--out", required=True)
        cand.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            data = retention_api.subject_export(
                candidate_id=opts["candidate_id"],
                out_dir=Path(opts["out"]),
                actor=iam_api.SystemActor(f"cli:{os.getuid()}"),
            )
        except (LookupError, PermissionError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            self.stdout.write(json.dumps(data))
        else:
            rows = sum(data["tables"].values())
            self.stdout.write(
                f"candidate {data['candidate_id']}: {rows} rows, {len(data['files'])} files -> {data['out']}"
            )
