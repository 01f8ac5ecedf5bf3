"""pytest plugin (loaded with `-p ats.devtools.pytest_plugin`): a real Postgres for the suite.

Order of preference: DATABASE_URL if given; else an ephemeral cluster the suite starts
itself; else testcontainers when a Docker engine answers. It must run before
pytest-django reads the settings, hence a `tryfirst` load_initial_conftests hook.

Parallel runs (pytest-xdist, `-n 2`): every xdist worker starts its own ephemeral cluster,
and the controller, which runs no test, starts none. One cluster per worker rather than
one database per worker in a shared cluster, because the migrations create and ALTER the
cluster-wide parse role (two at once: "tuple concurrently updated"), that role's
CONNECTION LIMIT is per cluster, and the worker fixtures find their processes by
application_name in pg_stat_activity, which spans the cluster. A DATABASE_URL given by
the caller is used as is (pytest-django then suffixes the test database per worker).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
from typing import Any

import pytest

_stack = contextlib.ExitStack()
# pytest_unconfigure does not run when start-up fails (e.g. a settings error): stop the
# ephemeral cluster at exit too, while the interpreter is still whole.
atexit.register(_stack.close)


def _docker_answers(timeout_s: float = 0.5) -> bool:
    path = "/var/run/docker.sock"
    if not os.path.exists(path):
        return False
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(timeout_s)
        try:
            s.connect(path)
            return True
        except OSError:
            return False


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: Any, parser: Any, args: list[str]) -> None:
    os.environ.setdefault("ATS_DEPLOYABLE", "cli")
    # The test server and browsers speak plain http on loopback: opt out of the secure
    # production defaults, explicitly (docs/deploy.md).
    os.environ.setdefault("ATS_DEV_PLAIN_HTTP", "1")
    # Test-only tasks (tests/testapp) exercise the job machinery inside real workers.
    os.environ.setdefault("ATS_EXTRA_APPS", "tests.testapp")
    if os.environ.get("DATABASE_URL"):
        return
    if _xdist_controller(early_config):
        # It leaves DATABASE_URL unset, so each worker it spawns starts its own cluster.
        return
    from ats.devtools import pg_local

    try:
        pg_local.pg_bindir()
        have_pg = True
    except FileNotFoundError:
        have_pg = False
    if have_pg:
        url = _stack.enter_context(pg_local.ephemeral())
    elif _docker_answers() and shutil.which("docker"):
        from testcontainers.postgres import PostgresContainer

        container = _stack.enter_context(PostgresContainer("postgres:15", driver=None))
        url = container.get_connection_url()
    else:
        raise pytest.UsageError("no Postgres: set DATABASE_URL, install postgresql, or run Docker")
    os.environ["DATABASE_URL"] = url


def _xdist_controller(early_config: Any) -> bool:
    """True in the process that hands the tests to xdist workers (`-n 2`, `-n auto`)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return False
    return getattr(early_config.known_args_namespace, "numprocesses", None) not in (None, 0)


def pytest_unconfigure(config: Any) -> None:
    _stack.close()
