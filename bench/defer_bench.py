"""Transactional defer (ats.jobs.api.defer) vs procrastinate's own defer, same database,
same task, one run: what convention 2 costs per enqueue.

    /opt/ats/venv/bin/python bench/defer_bench.py [N]
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1000


def main() -> None:
    from ats.devtools import pg_local

    with pg_local.ephemeral() as url:
        os.environ.update({"DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "ats.config.settings"})
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import transaction
        from procrastinate.contrib.django import app

        from ats.jobs import api as jobs_api

        call_command("migrate", verbosity=0)
        task = app.tasks["candidates.create_from_attachment"]

        def ours(i: int) -> None:
            with transaction.atomic():
                jobs_api.defer("candidates.create_from_attachment", payload={"attachment_id": i})

        def baseline(i: int) -> None:
            task.defer(attachment_id=i, v=1)  # autocommit, not tied to any domain write

        results = {}
        for name, fn in (("procrastinate_defer", baseline), ("ats_transactional_defer", ours)):
            for i in range(50):  # warm-up
                fn(-i)
            samples = []
            for i in range(N):
                t0 = time.perf_counter()
                fn(i)
                samples.append((time.perf_counter() - t0) * 1000)
            results[name] = {
                "median_ms": round(statistics.median(samples), 3),
                "p90_ms": round(statistics.quantiles(samples, n=10)[8], 3),
                "per_s": round(1000 / statistics.mean(samples)),
            }
        ratio = results["ats_transactional_defer"]["median_ms"] / results["procrastinate_defer"]["median_ms"]
        print(f"{'mode':<26}{'median ms':>10}{'p90 ms':>9}{'per s':>8}")
        for name, r in results.items():
            print(f"{name:<26}{r['median_ms']:>10}{r['p90_ms']:>9}{r['per_s']:>8}")
        print(f"transactional / plain defer: {ratio:.2f}x (N={N})")
        print(json.dumps({"n": N, **results, "ratio": round(ratio, 3)}))


if __name__ == "__main__":
    main()
