"""Shared plumbing of the recruiter-action CLI twins (`ats reparse|retry-scan|retry-candidate|discard`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from django.core.management.base import CommandError

from ats.intake import api as intake_api


def cli_actor() -> str:
    # The audit log's actor for a command-line action: the operating-system user.
    return f"cli:{os.getuid()}"


def run_action(fn: Callable[..., Any], **kwargs: Any) -> Any:
    try:
        return fn(actor=cli_actor(), **kwargs)
    except (LookupError, intake_api.ActionRefused, ValueError) as exc:
        raise CommandError(str(exc)) from exc
