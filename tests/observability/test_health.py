"""`ats healthcheck`: a wedged worker (heartbeat stopped, process alive) fails; a dead
zygote or a changed sandbox policy fails worker-untrusted; missing migrations fail every
deployable, the parse role included (through the narrow SECURITY DEFINER check).

The probe is a process (`ats healthcheck`, an exec probe), so each outcome is checked once
through it - exit code and stderr are its contract. The waits before those checks (until
the worker is healthy, until the stale heartbeat or the dead zygote shows) and the
checks of the sandbox's policy variants ask the same function in this process
(`observability_api.health_problems`, what the command prints): each probe process is a
Python + Django start, 1-2 CPU s, and a wait polled through them ran ten and more."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.db import connection

from ats.config.env import with_user
from tests.jobs.helpers import wait_for

pytestmark = pytest.mark.django_db(transaction=True)
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def problems(settings: Any) -> Any:
    """`ats healthcheck`'s findings, from this process: the same checks, with the workers'
    stalled-worker timeout (tests/conftest.py FAST_ENV) rather than production's 30 s."""
    from ats.observability import api as observability_api
    from tests.conftest import FAST_ENV

    settings.PROCRASTINATE_WORKER_DEFAULTS = {
        **settings.PROCRASTINATE_WORKER_DEFAULTS,
        "stalled_worker_timeout": float(FAST_ENV["ATS_STALLED_WORKER_TIMEOUT_S"]),
    }
    return observability_api.health_problems


def _status(worker: Any) -> dict[str, Any]:
    from ats.jobs import worker_api as jobs_worker

    status = jobs_worker.read_status(jobs_worker.status_path(worker.name))
    assert status is not None, "the worker wrote no status file"
    return status


def test_wedged_worker_fails_its_health_check(start_worker: Any, ats_cli: Any, problems: Any) -> None:
    w = start_worker("default", extra=["--queues=test"])
    wait_for(lambda: problems("default", w.name) == [], 20, "healthy")
    started = time.perf_counter()
    res = ats_cli("healthcheck", "--deployable=default", f"--name={w.name}")
    wall = time.perf_counter() - started
    assert res.returncode == 0, res.stderr
    print(f"healthcheck wall time (interpreter + Django + checks): {wall * 1000:.0f} ms")
    w.signal(signal.SIGSTOP)  # alive, holding its connections, heartbeat stopped
    try:
        assert w.proc.poll() is None
        found = wait_for(lambda: problems("default", w.name), 30, "the wedged worker's problems to show")
        assert any("heartbeat stale" in p for p in found), found
        # Still stopped, so still stale: the probe process fails on it.
        res = ats_cli("healthcheck", "--deployable=default", f"--name={w.name}")
        assert res.returncode == 1 and "heartbeat stale" in res.stderr, res.stderr
    finally:
        w.signal(signal.SIGCONT)
    wait_for(lambda: problems("default", w.name) == [], 30, "recovered")


def test_untrusted_probe_sees_dead_zygote_and_changed_policy(
    start_worker: Any, ats_cli: Any, problems: Any, tmp_path: Path, stack_env: dict[str, str]
) -> None:
    from ats.jobs import worker_api as jobs_worker

    policy = tmp_path / "policy"
    shutil.copytree(REPO / "services" / "worker-untrusted" / "policy", policy)
    os.chmod(tmp_path, 0o755)
    w = start_worker("untrusted", env={"ATS_SANDBOX_POLICY_DIR": str(policy)})

    wait_for(
        lambda: ((jobs_worker.read_status(jobs_worker.status_path(w.name)) or {}).get("sandbox") or {}).get(
            "zygote_pids"
        ),
        60,
        "zygotes started at worker start",
    )
    res = ats_cli("healthcheck", "--deployable=untrusted", f"--name={w.name}")
    assert res.returncode == 0, res.stderr

    limits = policy / "limits.toml"
    original = limits.read_bytes()
    limits.write_bytes(original + b"\n")  # the image's policy changed under a running worker
    assert any("policy differs" in p for p in problems("untrusted", w.name))
    limits.write_bytes(original)
    # The profile delivered to the node is not the one the zygotes compiled (their hash of
    # the exact bytes they loaded is in the worker's status).
    profile = policy / "seccomp-child.json"
    compiled = profile.read_bytes()
    profile.write_bytes(compiled + b"\n")
    assert any("compiled seccomp-child.json differs" in p for p in problems("untrusted", w.name))
    profile.write_bytes(compiled)
    assert problems("untrusted", w.name) == []

    pid = _status(w)["sandbox"]["zygote_pids"][0]
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: problems("untrusted", w.name), 20, "the dead zygote to show")
    # The probe process, as the parse role, fails on it (the zygote stays dead: the
    # worker replaces zygotes when it next parses, not on a timer).
    res = ats_cli("healthcheck", "--deployable=untrusted", f"--name={w.name}")
    assert res.returncode == 1 and f"zygote {pid} is dead" in res.stderr, res.stderr


def test_missing_migration_is_visible_to_the_parse_role_only_through_the_check() -> None:
    from ats.observability.health import expected_migrations

    s = connection.settings_dict
    url = with_user(f"postgresql://{s['USER']}@{s['HOST']}:{s['PORT']}/{s['NAME']}", "ats_parse")
    expected = expected_migrations()
    assert "observability.0001_migrations_check" in expected
    with psycopg.connect(url, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT count(*) FROM django_migrations")
        assert conn.execute("SELECT ats_missing_migrations(%s::text[])", [expected]).fetchone()[0] == []
        missing = conn.execute(
            "SELECT ats_missing_migrations(%s::text[])", [[*expected, "intake.9999_not_yet"]]
        ).fetchone()[0]
        assert missing == ["intake.9999_not_yet"]


def test_missing_migrations_fail_the_probe(ats_cli: Any, problems: Any) -> None:
    # Healthy first (its exit 0 as a process: test_healthcheck_process_is_not_dumpable).
    assert problems("web", "") == []
    with connection.cursor() as cur:
        cur.execute("SELECT id, app, name FROM django_migrations WHERE app = 'observability'")
        row = cur.fetchone()
        cur.execute("DELETE FROM django_migrations WHERE id = %s", [row[0]])
    try:
        res = ats_cli("healthcheck", "--deployable=web")
        assert res.returncode == 1 and "migrations missing: observability.0001_migrations_check" in res.stderr
    finally:
        with connection.cursor() as cur:
            cur.execute("INSERT INTO django_migrations (id, app, name, applied) VALUES (%s, %s, %s, now())", row)


def test_healthcheck_process_is_not_dumpable(stack_env: dict[str, str]) -> None:
    code = (
        "import prctl, sys\n"
        "from ats import cli\n"
        "try:\n    cli.main(['healthcheck', '--deployable=web'])\n"
        "except SystemExit as e:\n    print('exit', e.code, 'dumpable', prctl.get_dumpable())\n"
    )
    res = subprocess.run([sys.executable, "-c", code], env=stack_env, cwd=REPO, capture_output=True, text=True)
    assert "exit 0 dumpable False" in res.stdout, res.stdout + res.stderr
