"""A test run killed outright must not leave its throwaway Postgres running for good."""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from ats.devtools import pg_local

HOLD = """
import sys, time
from ats.devtools import pg_local
with pg_local.ephemeral() as url:
    print(url, flush=True)
    time.sleep(120)
"""


def test_orphaned_ephemeral_cluster_is_reaped_by_the_next_run() -> None:
    proc = subprocess.Popen([sys.executable, "-c", HOLD], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    assert url.startswith("postgresql://")
    owned = [
        p.parent
        for p in Path(tempfile.gettempdir()).glob("ats-pg-*/owner.pid")
        if p.read_text().strip() == str(proc.pid)
    ]
    assert len(owned) == 1 and pg_local.is_running(owned[0] / "data")
    proc.send_signal(signal.SIGKILL)  # no cleanup runs
    proc.wait(10)
    assert pg_local.is_running(owned[0] / "data")  # the postmaster outlived its owner
    pg_local._reap_orphans()
    assert not owned[0].exists()
