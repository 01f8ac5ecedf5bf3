"""Hooks procrastinate calls when its Django app is ready."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ats.jobs import health


def on_app_ready(app: Any) -> None:
    # Task registration happens in each module's tasks.py via ats.jobs.api.task, which
    # reads the policy table. A worker process (`ats worker` sets the path) keeps its
    # status file for `ats healthcheck`.
    status_file = os.environ.get(health.STATUS_ENV)
    if status_file:
        health.install_hooks(Path(status_file))
