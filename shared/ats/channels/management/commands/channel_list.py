"""`ats channel-list [--json]` - mail channels with their status, for operators."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand

from ats.channels import api as channels_api


class Command(BaseCommand):
    help = "List mail channels: status (active/degraded and why), last poll, messages ledgered."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--json", action="store_true", help="one JSON object per channel")

    def handle(self, *args: Any, **opts: Any) -> None:
        rows = channels_api.channel_list()
        if opts["json"]:
            for r in rows:
                sys.stdout.write(json.dumps(r) + "\n")
            return
        if not rows:
            sys.stdout.write("no mail channels (add one with `ats channel-add --mailbox ADDRESS`)\n")
        for r in rows:
            state = r["status"] if r["active"] else "off"
            sys.stdout.write(
                f"{r['channel_id']:>4}  {r['mailbox']}/{r['folder']}  {state}  "
                f"last poll {r['last_polled_at'] or 'never'}  {r['messages']} messages\n"
            )
            if r["status_reason"]:
                sys.stdout.write(f"      degraded since {r['status_since']}: {r['status_reason']}\n")
            elif r["last_error"]:
                sys.stdout.write(f"      last error {r['last_error_at']}: {r['last_error']}\n")
