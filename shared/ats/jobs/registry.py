"""Hooks procrastinate calls when its Django app is ready."""

from __future__ import annotations

from typing import Any


def on_app_ready(app: Any) -> None:
    # Nothing to add yet: task registration happens in each module's tasks.py via
    # ats.jobs.api.task, which reads the policy table.
    return None
