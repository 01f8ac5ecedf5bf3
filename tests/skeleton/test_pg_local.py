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
    postmaster = int((owned[0] / "data" / "postmaster.pid").read_text().split()[0])
    # pg_ctl daemonised it: not the owner's child, so nothing ends it with its owner.
    assert Path(f"/proc/{postmaster}/stat").read_text().rsplit(")", 1)[1].split()[1] != str(proc.pid)
    proc.send_signal(signal.SIGKILL)  # no cleanup runs
    proc.wait(10)
    # From here any other run's ephemeral() (an xdist worker's, under `just test`) may reap
    # the orphan - the behaviour this test is about - so the state between the kill and this
    # run's own reap is not asserted (a clean-clone run failed on such a check when another
    # worker reaped it first, stop 45); either way it ends stopped and removed.
    pg_local._reap_orphans()
    assert not owned[0].exists()
    assert not pg_local._alive(postmaster)
