"""Run by test_parallel.py in a child pytest (`-n 2 --dist each`), not by the suite itself
(not named test_*): each xdist worker records the Postgres it was given. No django_db: the
cluster is what is checked, not the migrations (which would cost half a minute a worker)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import psycopg


def test_record_the_cluster() -> None:
    with psycopg.connect(os.environ["DATABASE_URL"]) as conn:
        port = conn.info.port
        (system_identifier,) = conn.execute("SELECT system_identifier FROM pg_control_system()").fetchone() or (None,)
    out = Path(os.environ["ATS_XDIST_PROBE_OUT"]) / os.environ["PYTEST_XDIST_WORKER"]
    out.write_text(json.dumps({"port": port, "cluster": str(system_identifier)}))
