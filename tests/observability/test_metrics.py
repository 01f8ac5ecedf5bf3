"""Each deployable's metrics endpoint, scraped live: the documented metrics are there,
`promtool check metrics` accepts them, job attempts are counted per queue and task class,
and worker-untrusted listens on no port."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ats.devtools.pg_local import free_port
from tests.jobs.helpers import defer, token, wait_for, wait_status
from tests.observability.conftest import families, samples, scrape, wait_scrape
from tests.observability.docs import documented_metrics

pytestmark = pytest.mark.django_db(transaction=True)

PROMTOOL = shutil.which("promtool")


def promtool_check_metrics(text: str) -> None:
    if PROMTOOL is None:
        pytest.fail("promtool missing: scripts/bootstrap.sh installs Debian's prometheus package")
    res = subprocess.run([PROMTOOL, "check", "metrics"], input=text, text=True, capture_output=True)
    # promtool exits 3 for lint-only findings and prints them; anything printed is a defect.
    assert res.returncode == 0, res.stdout + res.stderr


def test_exporter_counts_attempts_per_queue_and_task_class(start_worker: Any, start_exporter: Any) -> None:
    from ats.intake import api as intake_api

    intake_api.verification_run_record()
    with connection.cursor() as cur:
        cur.execute("VACUUM procrastinate_jobs")
    exporter = start_exporter()
    first = samples(wait_scrape(exporter.url, exporter.proc))  # the event walk starts here
    assert first["ats_exporter_database_up"] == 1.0
    ok = [defer("tests.slow_marker", token=token(), seconds=0) for _ in range(3)]
    failing = defer("tests.overrun", token=token())  # 2 attempts, both over budget
    waiting = defer("tests.batch_item", token=token(), seconds=0)  # queue `score`: nobody listens
    worker_port = free_port()
    start_worker("default", extra=["--queues=test"], env={"ATS_METRICS_BIND": f"127.0.0.1:{worker_port}"})
    for job_id in ok:
        wait_status(job_id, {"succeeded"})
    wait_status(failing, {"failed"}, timeout=60)
    labels = 'queue="test",task_class="test"'

    # The exporter counts an event once it is older than the settle window (see
    # attempt_events_since): scrape until all five attempts are in, rather than sleeping
    # "long enough" (which under load is not); the equalities below are then checked.
    def all_attempts_counted() -> str | None:
        text = scrape(exporter.url)
        got = samples(text)
        # An attempt is counted at its start and its outcome at its end (separate events).
        ended = sum(v for k, v in got.items() if k.startswith("ats_job_attempt_outcomes_total{") and labels in k)
        return text if got.get(f"ats_job_attempts_total{{{labels}}}", 0) >= 5 and ended >= 5 else None

    text = wait_for(
        all_attempts_counted, 30, "the exporter to count the five attempts and their outcomes", interval=0.5
    )
    got = samples(text)
    assert got[f"ats_job_attempts_total{{{labels}}}"] == 5  # 3 ok + 2 overrun attempts
    assert got[f'ats_job_attempt_outcomes_total{{outcome="succeeded",{labels}}}'] == 3
    assert got[f'ats_job_attempt_outcomes_total{{outcome="retry",{labels}}}'] == 1
    assert got[f'ats_job_attempt_outcomes_total{{outcome="failed",{labels}}}'] == 1
    assert got[f"ats_job_duration_seconds_count{{{labels}}}"] == 5
    assert got[f'ats_job_duration_seconds_bucket{{le="0.005",{labels}}}'] < 5  # overrun ran > 1 s
    assert got[f"ats_job_time_to_start_seconds_count{{{labels}}}"] == 5
    assert got['ats_queue_depth{queue="score"}'] >= 1
    assert got['ats_queue_oldest_pending_age_seconds{queue="score"}'] > 0
    assert 'ats_queue_depth{queue="maintenance"}' in got  # every known queue is reported, empty or not
    assert got["ats_worker_processes"] >= 1
    assert 0 < got["ats_db_connections"] < got["ats_db_max_connections"]
    # The exporter reports its own scrape cost: a finite, positive figure, and no more than
    # the wall time of the request that carried it (its database work runs inside that
    # request). A fixed ceiling (once < 2 s) measured the machine's load, not the exporter;
    # the cost over many jobs is the next test's, by query plan.
    started = time.perf_counter()
    cost = samples(scrape(exporter.url))["ats_exporter_scrape_duration_seconds"]
    request_s = time.perf_counter() - started
    assert math.isfinite(cost) and 0 < cost <= request_s, (cost, request_s)
    promtool_check_metrics(text)
    missing = {m.name for m in documented_metrics("exporter") if not m.optional} - families(text)
    assert not missing, f"documented but not exported by the exporter: {sorted(missing)}"

    worker_text = scrape(f"http://127.0.0.1:{worker_port}/metrics")
    promtool_check_metrics(worker_text)
    missing = {m.name for m in documented_metrics("worker-default") if not m.optional} - families(worker_text)
    assert not missing, f"documented but not exported by worker-default: {sorted(missing)}"
    with connection.cursor() as cur:
        cur.execute("DELETE FROM procrastinate_jobs WHERE id = %s", [waiting])


def test_worker_untrusted_opens_no_port(start_worker: Any) -> None:
    port = free_port()
    w = start_worker("untrusted", env={"ATS_METRICS_BIND": f"127.0.0.1:{port}"})
    listening = subprocess.run(["ss", "-Hltnp"], capture_output=True, text=True).stdout
    own = [line for line in listening.splitlines() if f"pid={w.proc.pid}," in line]
    assert own == [], own
    with pytest.raises(OSError):
        scrape(f"http://127.0.0.1:{port}/metrics", timeout=2)


def test_bearer_token_guards_the_endpoint(start_exporter: Any) -> None:
    import urllib.error

    exporter = start_exporter({"ATS_METRICS_TOKEN": "s3cret-token"})
    with pytest.raises(urllib.error.HTTPError) as denied:
        wait_scrape(exporter.url, exporter.proc)
    assert denied.value.code == 401
    assert "ats_queue_depth" in scrape(exporter.url, token="s3cret-token")


def _seq_scans(plan: dict[str, Any]) -> Iterator[str]:
    if plan.get("Node Type") == "Seq Scan":
        yield plan["Relation Name"]
    for child in plan.get("Plans", []):
        yield from _seq_scans(child)


def test_scrape_cost_stays_small_with_many_jobs() -> None:
    """The scrape reads todo/doing through a partial index and walks new events by id:
    with 20k finished jobs no query of a scrape scans procrastinate_jobs. Proved by the
    plans of the queries a scrape runs (exact), not by a wall-time ceiling (once < 0.5 s,
    which a loaded machine can break and a missing index can pass on a fast one); the
    scrape's cost is printed for the record - the exporter's collector run in this process
    (the same statements and connection per scrape; an exporter process would add only
    its start, a Python + Django boot, to a test that asserts nothing on the figure)."""
    from ats.monitoring.collector import DatabaseCollector

    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO procrastinate_jobs (queue_name, task_name, args, status)"
            " SELECT 'score', 'tests.batch_item', '{}'::jsonb, 'succeeded' FROM generate_series(1, 20000)"
        )
        cur.execute("ANALYZE procrastinate_jobs")
    try:
        with CaptureQueriesContext(connection) as ctx:
            list(DatabaseCollector().collect())
        on_jobs = [q["sql"] for q in ctx.captured_queries if "procrastinate_jobs" in q["sql"]]
        assert on_jobs, "the scrape read no job figures at all"
        with connection.cursor() as cur:
            for sql in on_jobs:
                cur.execute(f"EXPLAIN (FORMAT JSON) {sql}")
                plan = cur.fetchone()[0]
                plan = json.loads(plan) if isinstance(plan, str) else plan
                assert "procrastinate_jobs" not in set(_seq_scans(plan[0]["Plan"])), sql
        collector = DatabaseCollector()
        costs = []
        for _ in range(5):
            cost = next(m for m in collector.collect() if m.name == "ats_exporter_scrape_duration_seconds")
            costs.append(cost.samples[0].value)
        print(f"scrape cost over 20k finished jobs: median {sorted(costs)[2] * 1000:.1f} ms")
    finally:
        with connection.cursor() as cur:
            cur.execute("DELETE FROM procrastinate_jobs WHERE task_name = 'tests.batch_item' AND status = 'succeeded'")


def test_web_serves_metrics_only_on_the_exporter_port(stack_env: dict[str, str], tmp_path: Any) -> None:
    """`ats web` (gunicorn) starts the exporter on ATS_METRICS_BIND; port 8000 has no /metrics."""
    import signal
    import sys
    import urllib.error

    from tests.observability.conftest import REPO

    web_port, metrics_port = free_port(), free_port()
    log = (tmp_path / "web.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ats.cli", "web"],
        env={**stack_env, "ATS_WEB_BIND": f"127.0.0.1:{web_port}", "ATS_METRICS_BIND": f"127.0.0.1:{metrics_port}"},
        cwd=REPO,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_scrape(f"http://127.0.0.1:{metrics_port}/metrics", proc, timeout=60)
        with pytest.raises(urllib.error.HTTPError) as missing:
            scrape(f"http://127.0.0.1:{web_port}/metrics")
        assert missing.value.code == 404
        for _ in range(6):  # spread over both gunicorn workers, summed by the exporter
            scrape(f"http://127.0.0.1:{web_port}/healthz")
        text = scrape(f"http://127.0.0.1:{metrics_port}/metrics")
        assert "ats_queue_oldest_pending_age_seconds" in text
        got = samples(text)
        assert got['ats_http_request_duration_seconds_count{method="GET",status="2xx"}'] == 6
        assert got['ats_http_request_duration_seconds_count{method="GET",status="4xx"}'] == 1
        assert "ats_clamd_scans_total" not in text  # worker-default's to report
        promtool_check_metrics(text)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(40)
        log.close()
    # gunicorn's on_exit stopped the exporter with it
    with pytest.raises(OSError):
        scrape(f"http://127.0.0.1:{metrics_port}/metrics", timeout=2)
