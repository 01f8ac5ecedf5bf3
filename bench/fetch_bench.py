"""The capped fetch against a backlog: migration 0006's per-queue probes beside 0003's
single priority-order scan, same database, same rows, one run (issue 26 item 1).

    /opt/ats/venv/bin/python bench/fetch_bench.py [N ...]   (default: 300 3000 30000)

For each N: N waiting `ingest` jobs (two running: the queue at its cap) and N waiting
`parse` jobs, then the fetch of worker-default (every trusted queue; nothing to give) and
of worker-untrusted (`parse`), each function called enough times for PL/pgSQL to settle
on its plans first, as on a worker's long-lived connection. Each fetch runs in a
transaction that is rolled back, so every call sees the same rows.
"""

from __future__ import annotations

import importlib
import json
import os
import statistics
import sys
import time
from typing import Any

CALLS, WARM = 60, 10
# The backlog's queues: task and lock prefix of each (as the intake's jobs name them).
BACKLOG = {
    "ingest": ("intake.ingest_attachment", "attachment:"),
    "parse": ("intake.parse_attachment", "parse:attachment:"),
}


def install_previous_fetch(cur: Any) -> None:
    """0003's fetch as `pg_temp.previous_fetch` in this session: the reference the new
    function is measured (and, in tests/jobs/test_fetch_per_queue.py, checked) against."""
    previous = importlib.import_module("ats.jobs.migrations.0006_fetch_per_queue")._previous_fetch()
    cur.execute(previous.replace("FUNCTION ats_jobs_fetch_v1(", "FUNCTION pg_temp.previous_fetch("))


def fill_capped_backlog(cur: Any, n: int, worker_id: int, queues: tuple[str, ...] = ("ingest", "parse")) -> None:
    """No job but these: `n` waiting jobs in each of `queues`, and two running `ingest`
    jobs of `worker_id` (the queue at its cap of 2); statistics taken."""
    cur.execute("DELETE FROM procrastinate_jobs")
    for queue in queues:
        task, lock = BACKLOG[queue]
        cur.execute(
            "INSERT INTO procrastinate_jobs (queue_name, task_name, priority, lock, status)"
            " SELECT %s, %s, 20, %s || g, 'todo' FROM generate_series(1, %s) g",
            [queue, task, lock, n],
        )
    cur.execute(
        "INSERT INTO procrastinate_jobs (queue_name, task_name, priority, lock, status, worker_id)"
        " SELECT 'ingest', 'intake.ingest_attachment', 20, 'attachment:running' || g, 'doing', %s"
        " FROM generate_series(1, 2) g",
        [worker_id],
    )
    cur.execute("ANALYZE procrastinate_jobs")


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [300, 3000, 30000]
    from ats.devtools import pg_local

    with pg_local.ephemeral() as url:
        os.environ.update({"DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "ats.config.settings"})
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection

        from ats.jobs.concurrency import CAP_EXEMPT_TASKS, FETCH_V1_SQL, cap_of
        from ats.jobs.policy import DEFAULT_QUEUES, UNTRUSTED_QUEUES

        call_command("migrate", verbosity=0)
        with connection.cursor() as cur:
            install_previous_fetch(cur)
            cur.execute("INSERT INTO procrastinate_workers DEFAULT VALUES RETURNING id")
            worker_id = cur.fetchone()[0]

        def fetch_ms(function: str, queues: tuple[str, ...]) -> tuple[float, Any]:
            names = sorted(set(queues))
            args = {"queues": names, "caps": [cap_of(q) for q in names], "exempt": list(CAP_EXEMPT_TASKS)}
            with connection.cursor() as cur:
                cur.execute("BEGIN")
                t = time.perf_counter()
                sql = FETCH_V1_SQL.replace("ats_jobs_fetch_v1(", f"{function}(")
                cur.execute(sql, {**args, "worker_id": worker_id})
                found = cur.fetchone()[0]
                elapsed = (time.perf_counter() - t) * 1000
                cur.execute("ROLLBACK")
            return elapsed, found

        rows: list[dict[str, Any]] = []
        for n in sizes:
            with connection.cursor() as cur:
                fill_capped_backlog(cur, n, worker_id)
            for who, queues in (("worker-default", DEFAULT_QUEUES), ("worker-untrusted", UNTRUSTED_QUEUES)):
                row: dict[str, Any] = {"waiting": n, "fetch": who}
                for label, function in (("0003", "pg_temp.previous_fetch"), ("0006", "ats_jobs_fetch_v1")):
                    runs = [fetch_ms(function, queues) for _ in range(CALLS)]
                    row[label] = round(statistics.median(ms for ms, _ in runs[WARM:]), 3)
                    row[f"{label}_found"] = runs[-1][1]
                assert row["0003_found"] == row["0006_found"], row  # the same job (or none)
                rows.append(row)
        print(f"{'waiting (ingest + parse)':>26} | {'fetch':<17} | 0003 scan ms | 0006 probes ms | ratio")
        for r in rows:
            ratio = r["0006"] / r["0003"] if r["0003"] else float("nan")
            waiting = f"{r['waiting']:>12,} + {r['waiting']:<11,}"
            print(f"{waiting} | {r['fetch']:<17} | {r['0003']:>12} | {r['0006']:>14} | {ratio:.2f}x")
        print(json.dumps(rows))


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "shared"))
    main()
