"""`ats ingest [--wait] [--timeout S] [--json] PATH...` - the CLI intake channel."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from ats.intake import api as intake_api


class Command(BaseCommand):
    help = "Ingest files through the intake facade; with --wait, block until each is terminal."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("paths", nargs="+")
        parser.add_argument("--wait", action="store_true", help="block until every file is terminal")
        parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait at most")
        parser.add_argument("--json", action="store_true", help="one JSON object per file")

    def handle(self, *args: Any, **opts: Any) -> None:
        limit = intake_api.max_upload_bytes()
        entries: list[tuple[str, Any]] = []  # (path, RawIntake)
        for raw_path in opts["paths"]:
            path = Path(raw_path)
            if not path.is_file():
                raise CommandError(f"{raw_path}: not a readable file")
            # Read at most limit+1 bytes: an oversized file is still recorded (as
            # rejected_too_large, visible) without loading all of it.
            with path.open("rb") as fh:
                data = fh.read(limit + 1)
            raw = intake_api.intake_receive(
                channel=intake_api.Channel.CLI,
                files=[intake_api.IncomingFile(filename=path.name, data=data)],
                source_ref=f"cli:{os.getuid()}:{path.resolve()}",
            )
            entries.append((raw_path, raw))
        deadline = time.monotonic() + opts["timeout"]
        results = [self._snapshot(p, raw) for p, raw in entries]
        while opts["wait"] and not all(r["terminal"] for r in results) and time.monotonic() < deadline:
            time.sleep(0.2)
            results = [self._snapshot(p, raw) for p, raw in entries]
        for r in results:
            if opts["json"]:
                sys.stdout.write(json.dumps(r) + "\n")
            else:
                sys.stdout.write(
                    f"{r['path']}: raw_intake {r['raw_intake_id']} {r['state']}"
                    + (f" ({r['reason']})" if r["reason"] else "")
                    + (f" candidate {r['candidate_id']}" if r["candidate_id"] else "")
                    + "\n"
                )
        if opts["wait"] and not all(r["terminal"] for r in results):
            raise CommandError("timed out before every file reached a terminal state")

    @staticmethod
    def _snapshot(path: str, raw: Any) -> dict[str, Any]:
        atts = intake_api.raw_intake_attachments(raw.pk)
        att = atts[0]
        st = intake_api.attachment_status(att)
        return {
            "path": path,
            "raw_intake_id": raw.pk,
            "attachment_id": att.pk,
            "state": st["state"],
            # A duplicate is terminal at once but names its original's candidate: wait for it.
            "terminal": st["terminal"] and not st["awaiting_original"],
            "reason": st["reason"],
            "candidate_id": st["candidate_id"],
        }
