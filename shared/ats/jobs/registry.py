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


def registered_task_names() -> set[str]:
    """Names of every task this process has registered.

    Each app's `tasks` module is imported first. worker-untrusted's tasks
    (`ats.parse_worker.tasks`, an app the trusted settings do not install) count only if
    the caller imported them (ats.parse_worker.api.import_tasks): jobs sits below the
    parse worker and may not import it, not even by name.
    """
    from django.utils.module_loading import autodiscover_modules
    from procrastinate.contrib.django import app

    autodiscover_modules("tasks")
    return set(app.tasks)


def registered_periodic() -> dict[str, str]:
    """task name -> cron of every periodic task registered with procrastinate."""
    from procrastinate.contrib.django import app

    registered_task_names()
    out: dict[str, str] = {}
    for periodic in app.periodic_registry.periodic_tasks.values():
        out[periodic.task.name] = periodic.cron
    return out
