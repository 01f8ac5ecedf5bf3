"""`just test -n 2`: each xdist worker gets a Postgres cluster of its own (migrations create
and ALTER the cluster-wide parse role, whose connection limit is per cluster, and the worker
fixtures find their processes in the cluster-wide pg_stat_activity), and the controller,
which runs no test, starts none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow  # three pytest processes and two initdb: ~10 s quiet, a minute loaded


def test_each_xdist_worker_starts_its_own_cluster(tmp_path: Path) -> None:
    # Not ours: this run's DATABASE_URL (from the plugin), nor, when this test itself runs in
    # an xdist worker, the PYTEST_XDIST_* variables that would make the child's controller
    # take itself for a worker.
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL" and not k.startswith("PYTEST_XDIST")}
    env["ATS_XDIST_PROBE_OUT"] = str(tmp_path)
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "2",
            "--dist",
            "each",
            "-p",
            "no:cacheprovider",
            "-q",
            str(REPO / "tests/skeleton/xdist_probe.py"),
        ],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    seen = {p.name: json.loads(p.read_text()) for p in tmp_path.iterdir()}
    assert set(seen) == {"gw0", "gw1"}, seen
    assert seen["gw0"]["cluster"] != seen["gw1"]["cluster"], seen
    # The controller's stderr is ours (the workers' is not forwarded): it started no cluster.
    assert "ephemeral Postgres" not in res.stderr, res.stderr[-3000:]
