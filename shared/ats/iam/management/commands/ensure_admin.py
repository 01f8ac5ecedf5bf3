"""Create (or keep) a local admin login for the embedded stack and print it."""

from __future__ import annotations

import os
import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from ats.iam import api as iam_api


def write_private(path: str, text: str) -> None:
    """Write a file only its owner can read (0600), whatever the umask - also when it
    already exists with wider permissions (issue 21 N12: the admin password was 0644)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as fh:
        os.fchmod(fh.fileno(), 0o600)
        fh.write(text)


class Command(BaseCommand):
    help = "Ensure an admin login exists; print its credentials when created."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--username", default="admin")
        parser.add_argument("--password-file", default="")

    def handle(self, *args: Any, **opts: Any) -> None:
        user_model = get_user_model()
        if user_model.objects.filter(username=opts["username"]).exists():
            self.stdout.write(f"login: {opts['username']} (exists; password unchanged)")
            return
        password = secrets.token_urlsafe(12)
        user = iam_api.user_create(username=opts["username"], password=password, role=iam_api.Role.ADMIN)
        user.is_staff = True
        user.save(update_fields=["is_staff"])
        if opts["password_file"]:
            write_private(opts["password_file"], password + "\n")
        self.stdout.write(f"login: {opts['username']} / {password}")
