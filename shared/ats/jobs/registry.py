"""Hooks procrastinate calls when its Django app is ready."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ats.jobs import health

UNTRUSTED_TASKS = "ats.parse_worker.tasks"


def on_app_ready(app: Any) -> None:
    # Task registration happens in each module's tasks.py via ats.jobs.api.task, which
    # reads the policy table. A worker process (`ats worker` sets the path) keeps its
    # status file for `ats healthcheck`.
    status_file = os.environ.get(health.STATUS_ENV)
    if status_file:
        health.install_hooks(Path(status_file))


def registered_task_names() -> set[str]:
    """Names of every task this codebase registers, whichever deployable imports it.

    A process imports only its own task modules (worker-untrusted: `ats.parse_worker.tasks`,
    an app the trusted settings do not install; the rest: each app's `tasks`), so both are
    imported here before reading procrastinate's registry.
    """
    from importlib import import_module

    from django.utils.module_loading import autodiscover_modules
    from procrastinate.contrib.django import app

    autodiscover_modules("tasks")
    import_module(UNTRUSTED_TASKS)  # by name: jobs must not depend on the parse worker
    return set(app.tasks)


def registered_periodic() -> dict[str, str]:
    """task name -> cron of every periodic task registered with procrastinate."""
    from procrastinate.contrib.django import app

    registered_task_names()
    out: dict[str, str] = {}
    for periodic in app.periodic_registry.periodic_tasks.values():
        out[periodic.task.name] = periodic.cron
    return out
