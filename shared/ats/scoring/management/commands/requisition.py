"""`ats requisition create|update|list|assign` (a CLI contract).

    ats requisition create --title T --must-have "A,B" [--nice-to-have "C"] [--min-years N]
                           [--weights must_have=70,nice_to_have=15,years=15] --json
        -> {id, version, requisition_version_id, ...}
    ats requisition update ID [any of the same options] --json   (only the options given change)
    ats requisition list --json
    ats requisition assign ID --user USERNAME                    (a hiring manager sees it)

An unknown skill is an error naming its closest vocabulary matches. The CLI acts as the
system actor `cli:system`.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from ats.iam import api as iam_api
from ats.scoring import api as scoring_api

CLI_ACTOR = iam_api.SystemActor("cli:system")


def _skills(raw: str | None) -> list[str] | None:
    return None if raw is None else [s.strip() for s in raw.split(",") if s.strip()]


def _weights(raw: str | None) -> dict[str, int] | None:
    if raw is None:
        return None
    out: dict[str, int] = {}
    for part in raw.split(","):
        key, _, value = part.partition("=")
        try:
            out[key.strip()] = int(value)
        except ValueError:
            raise CommandError(f"--weights: {part!r} is not name=integer") from None
    return out


class Command(BaseCommand):
    help = "Create, update (a new version), list and assign requisitions."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create")
        update = sub.add_parser("update")
        update.add_argument("requisition_id", type=int)
        for p in (create, update):
            p.add_argument("--title", required=p is create)
            p.add_argument("--must-have", required=p is create, help="comma-separated canonical skill names")
            p.add_argument("--nice-to-have", default=None)
            p.add_argument("--min-years", type=float, default=None)
            p.add_argument("--weights", default=None, help="must_have=N,nice_to_have=N,years=N (sum 100)")
            p.add_argument("--json", action="store_true")
        lst = sub.add_parser("list")
        lst.add_argument("--json", action="store_true")
        assign = sub.add_parser("assign")
        assign.add_argument("requisition_id", type=int)
        assign.add_argument("--user", required=True)
        assign.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            getattr(self, "_" + opts["action"])(opts)
        except (LookupError, ValueError, PermissionError) as exc:
            raise CommandError(str(exc)) from exc

    def _print_version(self, opts: dict[str, Any], version: Any) -> None:
        data = scoring_api.version_json(version)
        if opts["json"]:
            self.stdout.write(json.dumps(data))
        else:
            self.stdout.write(
                f"requisition {data['id']} version {data['version']} ({data['title']}): must-have "
                f"{', '.join(data['must_have'])}; nice-to-have {', '.join(data['nice_to_have']) or '-'}; "
                f"min years {data['min_years'] if data['min_years'] is not None else '-'}"
            )

    def _create(self, opts: dict[str, Any]) -> None:
        version = scoring_api.requisition_create(
            title=opts["title"],
            must_have=_skills(opts["must_have"]) or [],
            nice_to_have=_skills(opts["nice_to_have"]) or [],
            min_years=opts["min_years"],
            weights=_weights(opts["weights"]),
            actor=CLI_ACTOR,
        )
        self._print_version(opts, version)

    def _update(self, opts: dict[str, Any]) -> None:
        changes: dict[str, Any] = {
            "title": opts["title"],
            "must_have": _skills(opts["must_have"]),
            "nice_to_have": _skills(opts["nice_to_have"]),
            "weights": _weights(opts["weights"]),
        }
        if opts["min_years"] is not None:
            changes["min_years"] = opts["min_years"]
        version = scoring_api.requisition_update(requisition_id=opts["requisition_id"], actor=CLI_ACTOR, **changes)
        self._print_version(opts, version)

    def _list(self, opts: dict[str, Any]) -> None:
        rows = scoring_api.requisition_list(actor=CLI_ACTOR)
        if opts["json"]:
            self.stdout.write(json.dumps(rows))
            return
        for r in rows:
            self.stdout.write(
                f"{r['id']}  v{r['version']}  {r['title']}  ({r['applications']} application(s))  "
                f"must-have: {', '.join(r['must_have'])}"
            )

    def _assign(self, opts: dict[str, Any]) -> None:
        user = get_user_model().objects.filter(username=opts["user"]).first()
        if user is None:
            raise CommandError(f"no user {opts['user']!r}")
        scoring_api.requisition_assign(requisition_id=opts["requisition_id"], user_id=user.pk, actor=CLI_ACTOR)
        out = {"requisition_id": opts["requisition_id"], "user_id": user.pk}
        self.stdout.write(json.dumps(out) if opts["json"] else f"assigned {opts['user']} to {opts['requisition_id']}")
