"""`ats document show ID [--json]` - one document: its state, reason, action and what was
read from it (`extraction`: name, emails, phones, skills, as in `ats candidate show`),
whether or not it became or joined a candidate (a contract, issue 28)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ats.candidates import api as candidates_api
from ats.intake import api as intake_api


def document_show(attachment_id: int) -> dict[str, Any] | None:
    att = intake_api.attachment_get(attachment_id)
    if att is None:
        return None
    return {
        **intake_api.attachment_status(att),
        "sender": att.sender,
        "actions": intake_api.allowed_actions(att.state),
        "extraction": candidates_api.document_extraction(att.pk),
    }


class Command(BaseCommand):
    help = "Show one inbound document, with what was extracted from it."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        show = sub.add_parser("show", help="one document with its extraction")
        show.add_argument("attachment_id", type=int)
        show.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        doc = document_show(opts["attachment_id"])
        if doc is None:
            raise CommandError(f"document {opts['attachment_id']} does not exist")
        if opts["json"]:
            self.stdout.write(json.dumps(doc, default=str))
            return
        lines = [f"document {doc['attachment_id']} {doc['filename']}: {doc['state_label']}"]
        if doc["reason"]:
            lines.append(f"  reason: {doc['reason']}")
        if doc["action"]:
            lines.append(f"  what to do: {doc['action']}")
        if doc["candidate_id"]:
            lines.append(f"  candidate: {doc['candidate_id']}")
        ex = doc["extraction"]
        if ex is None:
            lines.append("  extraction: none (not read)")
        else:
            for name in ("name", "emails", "phones", "skills"):
                lines.append(f"  {name}: {ex[name] if ex[name] not in (None, []) else '-'}")
        self.stdout.write("\n".join(lines))
