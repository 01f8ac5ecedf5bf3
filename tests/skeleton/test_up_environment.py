"""Issue 21 N12 (the security review's dev finding): `just up` hands
worker-untrusted an environment built from an allowlist, and writes the admin password and
its logs readable by their owner only."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import call_command

from ats.devtools.up import UNTRUSTED_ENV_ALLOW, UNTRUSTED_ENV_PROCESS, private_files, untrusted_env

REPO = Path(__file__).resolve().parents[2]

# What the trusted processes of `just up` hold (every secret the trusted settings read, and
# one nobody has named yet) plus what the worker needs.
TRUSTED_ENVIRON = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/dev",
    "LANG": "C.UTF-8",
    "DATABASE_URL": "postgresql://ats:trusted@127.0.0.1:5439/ats",
    "ATS_PARSE_DATABASE_URL": "postgresql://ats_parse@127.0.0.1:5439/ats",
    "ATS_SECRET_KEY": "web-signing-key",
    "ATS_AZURE_BLOB_CONNECTION_STRING": "AccountKey=blob",
    "ATS_GRAPH_CLIENT_SECRET": "graph",
    "ATS_AI_API_KEY": "ai",
    "ATS_AUDIT_HMAC_KEY": "audit",
    "ATS_TOMBSTONE_HMAC_KEY": "tombstone",
    "ATS_METRICS_TOKEN": "metrics",
    "ATS_SOME_FUTURE_SECRET": "future",
    "REDIS_URL": "redis://:pw@127.0.0.1:6379/0",
    "ATS_GRAPH_BASE_URL": "https://127.0.0.1:9999/v1.0",
    "ATS_CLAMD_HOST": "127.0.0.1",
    "ATS_LOG_LEVEL": "INFO",
    "ATS_LOG_FORMAT": "console",
    "ATS_STATE_DIR": "/repo/.ats",
    "ATS_DEV_PLAIN_HTTP": "1",
}


def test_the_untrusted_environment_is_exactly_the_allowlist() -> None:
    env = untrusted_env(TRUSTED_ENVIRON)
    assert env == {
        "PATH": "/usr/bin:/bin",
        "HOME": "/home/dev",
        "LANG": "C.UTF-8",
        "ATS_LOG_LEVEL": "INFO",
        "ATS_LOG_FORMAT": "console",
        "ATS_STATE_DIR": "/repo/.ats",
        "DJANGO_SETTINGS_MODULE": "ats.parse_worker.settings",
        "DATABASE_URL": "postgresql://ats_parse@127.0.0.1:5439/ats",  # the parse role, never the trusted URL
    }
    for secret in ("tombstone", "audit", "future", "web-signing-key", "trusted", "redis"):
        assert all(secret not in v for v in env.values()), secret


def test_without_a_parse_url_it_still_gets_the_parse_role() -> None:
    environ = {k: v for k, v in TRUSTED_ENVIRON.items() if k != "ATS_PARSE_DATABASE_URL"}
    assert untrusted_env(environ)["DATABASE_URL"] == "postgresql://ats_parse@127.0.0.1:5439/ats"


def test_the_allowlist_names_only_what_the_manifest_or_the_dev_stack_sets() -> None:
    """Every ATS_/PG variable allowed is one the k8s manifest gives worker-untrusted, or a
    non-secret development knob (intervals, sandbox paths, logging)."""
    manifest = yaml.safe_load((REPO / "k8s" / "base" / "worker-untrusted.yaml").read_text())
    [worker] = [c for c in manifest["spec"]["template"]["spec"]["containers"] if c["name"] == "worker"]
    assert "envFrom" not in worker  # the manifest names each variable too
    in_manifest = {item["name"] for item in worker["env"]}
    dev_knobs = {
        "ATS_LOG_FORMAT", "ATS_PROCESS_NAME", "ATS_PROCRASTINATE_LOG_LEVEL", "ATS_STATE_DIR", "ATS_REPO_ROOT",
        "ATS_RUNTIME_DIR", "ATS_HEARTBEAT_INTERVAL_S", "ATS_STALLED_WORKER_TIMEOUT_S", "ATS_POLL_INTERVAL_S",
        "ATS_RETRY_TIME_SCALE", "ATS_PARSE_CONCURRENCY", "ATS_SANDBOX_ALLOW_INPROCESS", "ATS_SANDBOX_POLICY_DIR",
        "TESSDATA_PREFIX", "PGCONNECT_TIMEOUT",
    }  # fmt: skip
    assert in_manifest | dev_knobs >= UNTRUSTED_ENV_ALLOW - UNTRUSTED_ENV_PROCESS
    assert not any(word in name for name in UNTRUSTED_ENV_ALLOW for word in ("SECRET", "KEY", "TOKEN", "PASSWORD"))


@pytest.mark.django_db(transaction=True)
def test_the_worker_runs_with_only_that_environment(stack_env: dict[str, str], django_db_blocker: Any) -> None:
    from tests.conftest import Worker

    env = untrusted_env(stack_env)
    assert "ATS_SECRET_KEY" not in env and "ATS_CLAMD_PORT" not in env
    w = Worker("untrusted", env, "test-untrusted-allowlist", [])
    try:
        with django_db_blocker.unblock():
            w.wait_registered()
    finally:
        w.stop()


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.django_db(transaction=True)
def test_the_admin_password_is_written_0600(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        target = tmp_path / "admin-password"
        target.write_text("stale\n")
        target.chmod(0o644)  # a file an older `just up` left behind
        call_command("ensure_admin", "--username", "admin-n12", "--password-file", str(target), stdout=io.StringIO())
    finally:
        os.umask(old)
    assert _mode(target) == 0o600
    assert target.read_text().strip() and target.read_text() != "stale\n"


def test_up_makes_its_password_and_logs_owner_only(tmp_path: Path) -> None:
    (tmp_path / "pg").mkdir()
    files = [tmp_path / "admin-password", tmp_path / "clamd.log", tmp_path / "pg" / "server.log"]
    for f in files:
        f.write_text("x")
        f.chmod(0o644)
    other = tmp_path / "notes.txt"
    other.write_text("x")
    other.chmod(0o644)
    assert sorted(private_files(tmp_path)) == sorted(files)
    assert [_mode(f) for f in files] == [0o600] * 3
    assert _mode(other) == 0o644  # only what may carry the password or CV names
    assert private_files(tmp_path) == []
