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
from ats.scoring import api as scoring_api

# Exit status for a usage problem found before anything was ingested (argparse's too).
EXIT_USAGE = 2


def unreadable_paths(paths: list[str]) -> list[tuple[str, str]]:
    """(path, why) for every path that cannot be ingested; checked before ingesting any."""
    bad: list[tuple[str, str]] = []
    for raw_path in paths:
        path = Path(raw_path)
        if not path.exists():
            bad.append((raw_path, "no such file"))
        elif not path.is_file():
            bad.append((raw_path, "not a regular file"))
        elif not os.access(path, os.R_OK):
            bad.append((raw_path, "permission denied"))
    return bad


class Command(BaseCommand):
    help = "Ingest files through the intake facade; with --wait, block until each is terminal."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("paths", nargs="+")
        parser.add_argument("--wait", action="store_true", help="block until every file is terminal")
        parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait at most")
        parser.add_argument(
            "--json", action="store_true", help="exactly one JSON object per file on stdout (its final state)"
        )
        parser.add_argument(
            "--requisition",
            type=int,
            default=None,
            help="apply to this requisition (with --wait: wait until the application is scored or failed)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        # All or nothing: a batch with one bad path ingests none of it, so re-running the
        # corrected command never reports the good files as duplicates of themselves.
        bad = unreadable_paths(opts["paths"])
        if bad:
            listing = "\n".join(f"  {p}: {why}" for p, why in bad)
            raise CommandError(
                f"nothing ingested: {len(bad)} of {len(opts['paths'])} path(s) cannot be read\n{listing}",
                returncode=EXIT_USAGE,
            )
        requisition = opts["requisition"]
        if requisition is not None and not scoring_api.requisition_exists(requisition):
            raise CommandError(f"nothing ingested: requisition {requisition} does not exist", returncode=EXIT_USAGE)
        metadata = {"requisition_id": requisition} if requisition is not None else None
        limit = intake_api.max_upload_bytes()
        entries: list[tuple[str, Any]] = []  # (path, RawIntake)
        for raw_path in opts["paths"]:
            path = Path(raw_path)
            # Read at most limit+1 bytes: an oversized file is still recorded (as
            # rejected_too_large, visible) without loading all of it.
            try:
                with path.open("rb") as fh:
                    data = fh.read(limit + 1)
            except OSError as exc:  # vanished or became unreadable since the check
                raise CommandError(f"{raw_path}: {exc.strerror or exc}", returncode=EXIT_USAGE) from None
            raw = intake_api.intake_receive(
                channel=intake_api.Channel.CLI,
                files=[intake_api.IncomingFile(filename=path.name, data=data)],
                source_ref=f"cli:{os.getuid()}:{path.resolve()}",
                metadata=metadata,
            )
            entries.append((raw_path, raw))
        progress = _Progress(enabled=opts["wait"] and sys.stderr.isatty())
        deadline = time.monotonic() + opts["timeout"]
        results = [self._snapshot(p, raw, requisition) for p, raw in entries]
        while opts["wait"] and not all(r["terminal"] for r in results) and time.monotonic() < deadline:
            progress.show(results)
            time.sleep(0.1)
            results = [self._snapshot(p, raw, requisition) for p, raw in entries]
        progress.done()
        for r in results:
            if opts["json"]:
                sys.stdout.write(json.dumps(r) + "\n")
            else:
                sys.stdout.write(
                    f"{r['path']}: raw_intake {r['raw_intake_id']} {r['state']}"
                    + (f" ({r['reason']})" if r["reason"] else "")
                    + (f" candidate {r['candidate_id']}" if r["candidate_id"] else "")
                    + (
                        f" application {r['application_id']} {r['application_state']}"
                        if r.get("application_id")
                        else ""
                    )
                    + "\n"
                )
        sys.stdout.flush()
        if opts["wait"] and not all(r["terminal"] for r in results):
            raise CommandError("timed out before every file reached a terminal state")

    @staticmethod
    def _snapshot(path: str, raw: Any, requisition: int | None = None) -> dict[str, Any]:
        atts = intake_api.raw_intake_attachments(raw.pk)
        att = atts[0]
        st = intake_api.attachment_status(att)
        # A duplicate is terminal at once but names its original's candidate: wait for it.
        terminal = st["terminal"] and not st["awaiting_original"]
        row = {
            "path": path,
            "raw_intake_id": raw.pk,
            "attachment_id": att.pk,
            "state": st["state"],
            "terminal": terminal,
            "reason": st["reason"],
            "candidate_id": st["candidate_id"],
        }
        if requisition is not None:
            app = scoring_api.application_for_attachment(att.pk)
            row["application_id"], row["application_state"] = app if app else (None, None)
            if terminal and st["candidate_id"]:
                # The document made (or names) a candidate: the application follows; wait
                # until it is scored or failed.
                row["terminal"] = app is not None and app[1] != scoring_api.ApplicationState.APPLIED
        return row


class _Progress:
    """One self-overwriting status line on a terminal's stderr; silent otherwise (scripts)."""

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled
        self.shown = False

    def show(self, results: list[dict[str, Any]]) -> None:
        if not self.enabled:
            return
        done = sum(1 for r in results if r["terminal"])
        states = ", ".join(sorted({r["state"] for r in results if not r["terminal"]}))
        sys.stderr.write(f"\r\x1b[K{done}/{len(results)} terminal; waiting on: {states}")
        sys.stderr.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
