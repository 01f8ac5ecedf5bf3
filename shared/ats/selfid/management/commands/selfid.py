"""`ats selfid link CANDIDATE_ID` prints the optional form's link for the acknowledgement;
`ats selfid enter CANDIDATE_ID --sex S --race R` enters a paper survey (admin)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.urls import reverse

from ats.candidates import api as candidates_api
from ats.iam import api as iam_api
from ats.selfid import api as selfid_api


class Command(BaseCommand):
    help = "Voluntary self-identification: the form link, or an admin's entry from a survey."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        link = sub.add_parser("link")
        link.add_argument("candidate_id", type=int)
        enter = sub.add_parser("enter")
        enter.add_argument("candidate_id", type=int)
        enter.add_argument("--sex", choices=selfid_api.Sex.values, default="prefer_not_to_say")
        enter.add_argument("--race", choices=selfid_api.RaceEthnicity.values, default="prefer_not_to_say")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["action"] == "link":
            token = selfid_api.selfid_token(candidate_id=opts["candidate_id"])
            self.stdout.write(reverse("selfid-form", args=[token]))
            return
        # As on /fairness/: a survey's number must be a real person (merges followed).
        person = candidates_api.candidate_people([opts["candidate_id"]]).get(opts["candidate_id"])
        if person is None or person["status"] is None:
            raise CommandError(f"there is no candidate number {opts['candidate_id']}: nothing was recorded")
        try:
            selfid_api.selfid_record(
                candidate_id=person["id"],
                sex=opts["sex"],
                race_ethnicity=opts["race"],
                source="admin_survey",
                actor=iam_api.SystemActor("cli:selfid"),
            )
        except (selfid_api.NotAllowed, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write("recorded")
