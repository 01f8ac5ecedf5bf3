"""ATS_SANDBOX_ALLOW_INPROCESS=1 (development: parse unconfined in the worker) must be
refused by the untrusted deployable, whatever else is configured (issue 9)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ats.sandbox.api import ALLOW_ENV, InProcessSandbox, SandboxRefused, default_sandbox, harden_worker_process

pytestmark = pytest.mark.timeout(60)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["1", "true", "YES", " on "])
def untrusted(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    monkeypatch.setenv("ATS_DEPLOYABLE", "untrusted")
    monkeypatch.setenv(ALLOW_ENV, request.param)  # every spelling settings reads as true


def test_untrusted_worker_refuses_in_process_parsing(untrusted: None) -> None:
    with pytest.raises(SandboxRefused, match="untrusted"):
        harden_worker_process()
    with pytest.raises(SandboxRefused, match="untrusted"):
        default_sandbox(allow_inprocess=True)
    with pytest.raises(SandboxRefused, match="untrusted"):
        InProcessSandbox(allow=True)


def test_other_deployables_may_use_it_in_development(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATS_DEPLOYABLE", "cli")
    monkeypatch.setenv(ALLOW_ENV, "1")
    sandbox = InProcessSandbox(allow=True)
    assert sandbox.name == "inprocess"


def test_the_real_untrusted_worker_exits_at_start() -> None:
    """`ats worker --deployable untrusted` with the variable set stops before it connects."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": f"{ROOT / 'shared'}:{ROOT}",
        ALLOW_ENV: "1",
        # Nothing listens here: a worker that got past the check would fail differently.
        "DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none",
        "ATS_PARSE_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none",
    }
    proc = subprocess.run(
        [sys.executable, "-c", "from ats.cli import main; main()", "worker", "--deployable", "untrusted"],
        env=env,
        capture_output=True,
        text=True,
        timeout=50,
        cwd=ROOT,
    )
    assert proc.returncode != 0
    assert f"SandboxRefused: {ALLOW_ENV}=1 is refused in the untrusted deployable" in proc.stderr, proc.stderr[-2000:]
