"""`ats user-add USERNAME --role ROLE` - create a login (or change its role) from the shell.

The admin site does the same for admins; this is for the first operator or recruiter of a
fresh install and for scripts. The password is generated and printed once, or read from
--password-file.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from ats.iam import api as iam_api


class Command(BaseCommand):
    help = (
        "Create a user with an iam role (recruiter, hiring_manager, operator, admin), or set an existing user's role."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("username")
        parser.add_argument("--role", required=True, choices=[r.value for r in iam_api.Role])
        parser.add_argument("--email", default="")
        parser.add_argument("--password-file", default="", help="read the password from this file")

    def handle(self, *args: Any, **opts: Any) -> None:
        existing = get_user_model().objects.filter(username=opts["username"]).first()
        if existing is not None:
            iam_api.membership_set(user=existing, role=opts["role"])
            self.stdout.write(f"{opts['username']}: role set to {opts['role']} (password unchanged)")
            return
        if opts["password_file"]:
            with open(opts["password_file"]) as fh:
                password = fh.read().strip()
            if len(password) < 8:
                raise CommandError("the password must have at least 8 characters")
        else:
            password = secrets.token_urlsafe(12)
        iam_api.user_create(username=opts["username"], password=password, role=opts["role"], email=opts["email"])
        shown = "(from the file)" if opts["password_file"] else password
        self.stdout.write(f"login: {opts['username']} / {shown} ({opts['role']})")
