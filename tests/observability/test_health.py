"""`ats healthcheck`: a wedged worker (heartbeat stopped, process alive) fails; a dead
zygote or a changed sandbox policy fails worker-untrusted; missing migrations fail every
deployable, the parse role included (through the narrow SECURITY DEFINER check)."""

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
from tests.conftest import FAST_ENV
from tests.jobs.helpers import wait_for

pytestmark = pytest.mark.django_db(transaction=True)
REPO = Path(__file__).resolve().parents[2]


def _status(worker: Any) -> dict[str, Any]:
    from ats.jobs import worker_api as jobs_worker

    status = jobs_worker.read_status(jobs_worker.status_path(worker.name))
    assert status is not None, "the worker wrote no status file"
    return status


@pytest.fixture
def probe(settings: Any) -> Any:
    """What `ats healthcheck` reports, from the test process: the same checks
    (observability.health_problems), without a Python + Django start per call (2-3 s quiet,
    10-15 s loaded) in loops that wait for a state. Each test still runs the real probe
    process where its exit code and stderr are what it proves. The test process judges a
    heartbeat by the workers' stalled timeout (FAST_ENV), as the real probe does."""
    from ats.observability import api as observability_api

    settings.PROCRASTINATE_WORKER_DEFAULTS = {
        **settings.PROCRASTINATE_WORKER_DEFAULTS,
        "stalled_worker_timeout": float(FAST_ENV["ATS_STALLED_WORKER_TIMEOUT_S"]),
    }
    return observability_api.health_problems


def test_wedged_worker_fails_its_health_check(start_worker: Any, ats_cli: Any, probe: Any) -> None:
    w = start_worker("default", extra=["--queues=test"])
    wait_for(lambda: probe("default", w.name) == [], 20, "healthy")
    started = time.perf_counter()
    res = ats_cli("healthcheck", "--deployable=default", f"--name={w.name}")
    wall = time.perf_counter() - started
    assert res.returncode == 0, res.stderr
    print(f"healthcheck wall time (interpreter + Django + checks): {wall * 1000:.0f} ms")
    w.signal(signal.SIGSTOP)  # alive, holding its connections, heartbeat stopped
    try:
        assert w.proc.poll() is None
        wait_for(lambda: probe("default", w.name), 30, "the wedged worker's probe to fail")
        # Stays so while the process is stopped: the real probe exits 1 and says why.
        res = ats_cli("healthcheck", "--deployable=default", f"--name={w.name}")
        assert res.returncode == 1 and "heartbeat stale" in res.stderr, res.stderr
    finally:
        w.signal(signal.SIGCONT)
    wait_for(lambda: probe("default", w.name) == [], 30, "recovered")


def test_untrusted_probe_sees_dead_zygote_and_changed_policy(
    start_worker: Any, ats_cli: Any, tmp_path: Path, stack_env: dict[str, str], probe: Any
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
    # The real probe, as the parse role connects (ATS_PARSE_DATABASE_URL), finds it healthy.
    res = ats_cli("healthcheck", "--deployable=untrusted", f"--name={w.name}")
    assert res.returncode == 0, res.stderr

    # The policy checks compare files with the hashes in the worker's status file: the
    # same in the test process.
    limits = policy / "limits.toml"
    original = limits.read_bytes()
    limits.write_bytes(original + b"\n")  # the image's policy changed under a running worker
    found = probe("untrusted", w.name)
    assert any("policy differs" in p for p in found), found
    limits.write_bytes(original)
    # The profile delivered to the node is not the one the zygotes compiled (their hash of
    # the exact bytes they loaded is in the worker's status).
    profile = policy / "seccomp-child.json"
    compiled = profile.read_bytes()
    profile.write_bytes(compiled + b"\n")
    found = probe("untrusted", w.name)
    assert any("compiled seccomp-child.json differs" in p for p in found), found
    profile.write_bytes(compiled)
    assert probe("untrusted", w.name) == []

    pid = _status(w)["sandbox"]["zygote_pids"][0]
    os.kill(pid, signal.SIGKILL)
    res = wait_for(
        lambda: (r := ats_cli("healthcheck", "--deployable=untrusted", f"--name={w.name}")).returncode == 1 and r,
        20,
        "the probe to see the dead zygote",
    )
    assert f"zygote {pid} is dead" in res.stderr


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


def test_missing_migrations_fail_the_probe(ats_cli: Any, probe: Any) -> None:
    assert probe("web", "") == []
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
