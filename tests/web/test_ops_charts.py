"""The console's charts: server-side SVG from the per-minute rollup, swapped in place by
htmx (the fragment URL), never read from procrastinate's events on a page load."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from ats.jobs import ops_api as jobs_ops
from tests.jobs.test_rollup import finished_job

# Rolled back, not flushed, after each test (a flush of every table was ~0.45 CPU s a test):
# nothing here needs a commit - no other connection, thread or process reads the rows, and
# the code defers nothing to on_commit (ADR R1); deferred constraints are still checked.
pytestmark = pytest.mark.django_db


def _bars(page: str, chart: str) -> int:
    svg = re.search(rf'<svg[^>]*data-chart="{chart}".*?</svg>', page, re.S)
    assert svg, chart
    return svg.group(0).count("<rect ")


def test_charts_read_the_rollup_and_swap_in_place(login: Any) -> None:
    # Queue `builtin`, emptied first: procrastinate's tables are unmanaged, so the flush
    # between transactional tests leaves earlier tests' jobs (and their events) behind, and
    # the rollup's first run back-fills 7 days of them. Without this the counts below held
    # only when the file ran alone.
    with connection.cursor() as cur:
        cur.execute("DELETE FROM procrastinate_jobs WHERE queue_name = 'builtin'")  # events cascade
    now = timezone.now()
    for i in range(3):
        finished_job(queue="builtin", deferred=now - datetime.timedelta(hours=2, minutes=i * 20), wait_s=3, run_s=2)
    finished_job(queue="builtin", deferred=now - datetime.timedelta(hours=3), wait_s=1, run_s=1, outcome="failed")
    client = login("operator")
    # Not rolled up yet: the page reads only the rollup, so nothing shows.
    page = client.get("/ops/?chart=builtin&range=24h").content.decode()
    assert _bars(page, "throughput") == 0
    jobs_ops.rollup_minutes()
    page = client.get("/ops/?chart=builtin&range=24h").content.decode()
    assert "Charts: queue builtin, last 24 hours" in page
    assert _bars(page, "throughput") >= 2 and _bars(page, "failures") == 1
    assert 'aria-label="builtin, throughput (jobs finished), last 24 hours: 4 finished"' in page
    assert "<polyline" in page or "<circle" in page  # pickup/run p50 and p95 lines
    # The fragment htmx swaps in: the panel alone, its own refresh URL carrying the choice.
    frag = client.get("/ops/charts?queue=ingest&range=7d").content.decode()
    assert frag.lstrip().startswith('<section id="ops-charts"')
    assert 'hx-get="/ops/charts?queue=ingest&amp;range=7d"' in frag and "<html" not in frag
    assert "Charts: queue parse, last 1 hour" in client.get("/ops/charts?queue=parse&range=1h").content.decode()
    # Unknown choices fall back, never 500.
    assert "queue ingest, last 24 hours" in client.get("/ops/charts?queue=nope&range=9y").content.decode()
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM jobs_queue_minute WHERE queue = 'builtin' AND finished > 0")
        assert cur.fetchone()[0] >= 2


def test_recruiters_get_no_charts(login: Any) -> None:
    assert login("recruiter").get("/ops/charts?queue=ingest").status_code == 403
