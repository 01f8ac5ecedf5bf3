"""The reduced, seeded chaos run (`just chaos` is the full one): 40 documents through mail
and upload while workers are killed, one is SIGTERMed mid-parse, Postgres restarts
(immediate), clamd stops and Graph answers 429/503 bursts. Runs the driver as its own
process with its own stack (it restarts *its* Postgres, never the suite's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SEED = 1717

# The driver bounds its own settle wait; its stack start-up is about a minute.
pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.timeout(600)]


def test_reduced_chaos_run_loses_and_doubles_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'shared'}"}
    env.pop("DATABASE_URL", None)  # the driver starts its own Postgres (and restarts it)
    env.pop("ATS_DEV_PLAIN_HTTP", None)  # as `just chaos` from a shell: the driver sets what it needs
    cmd = [sys.executable, "-m", "tests.chaos.driver", "--seed", str(SEED), "--documents", "40"]
    res = subprocess.run(
        [*cmd, "--report-dir", str(tmp_path)], cwd=REPO, env=env, text=True, capture_output=True, timeout=600
    )
    print(res.stdout[-6000:], res.stderr[-3000:])
    report = json.loads((tmp_path / f"report-{SEED}.json").read_text())
    assert report["checks"] == {k: True for k in report["checks"]}, report["checks"]
    assert res.returncode == 0
    kinds = {f["kind"] for f in report["faults"]}
    assert kinds == {"sigkill", "sigterm_mid_parse", "pg_restart", "clamd_stop", "graph_burst"}
    assert report["counts"]["attachments"] >= report["counts"]["attachments_expected"] > 0
    assert report["settle_s"] is not None
