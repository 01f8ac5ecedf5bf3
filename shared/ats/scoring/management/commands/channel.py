"""`ats channel set-requisition CHANNEL REQ` - route a mailbox channel to a requisition.

CHANNEL is the channel id or its mailbox address; REQ a requisition id, or `none` to send
the channel's documents back to the talent pool.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ats.channels import api as channels_api
from ats.iam import api as iam_api
from ats.scoring import api as scoring_api

CLI_ACTOR = iam_api.SystemActor("cli:system")


class Command(BaseCommand):
    help = "Mailbox channel routing to requisitions."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        p = sub.add_parser("set-requisition")
        p.add_argument("channel")
        p.add_argument("requisition")
        p.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        raw = opts["channel"]
        # An id or a mailbox address names the channel.
        key = "channel_id" if raw.isdigit() else "mailbox"
        wanted = int(raw) if raw.isdigit() else raw
        channel_id = next((c["channel_id"] for c in channels_api.channel_list() if c[key] == wanted), None)
        if channel_id is None:
            raise CommandError(f"no channel {raw!r}")
        req = None if opts["requisition"].lower() == "none" else int(opts["requisition"])
        try:
            scoring_api.channel_set_requisition(channel_id=channel_id, requisition_id=req, actor=CLI_ACTOR)
        except (LookupError, PermissionError) as exc:
            raise CommandError(str(exc)) from exc
        out = {"channel_id": channel_id, "requisition_id": req}
        self.stdout.write(json.dumps(out) if opts["json"] else f"channel {channel_id} -> requisition {req or '-'}")
