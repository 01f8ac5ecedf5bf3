"""Batch rescore fan-out: `ats.jobs.api.defer_many` (one INSERT for the batch) vs N calls
of `ats.jobs.api.defer` (a savepoint + INSERT each), both inside one transaction, same
database, one run. What the coordinator's transaction holds while it fans out.

    /opt/ats/venv/bin/python bench/fanout_bench.py [N] [ROUNDS]
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time

N = int(sys.argv[1]) if len(sys.argv) > 1 else 500
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7


def main() -> None:
    from ats.devtools import pg_local

    with pg_local.ephemeral() as url:
        os.environ.update({"DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "ats.config.settings"})
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import transaction

        from ats.jobs import api as jobs_api

        call_command("migrate", verbosity=0)
        task = "scoring.rescore_application"
        payloads = [{"run_id": 1, "requisition_version_id": 1, "application_id": i} for i in range(N)]

        def one_by_one() -> None:
            for p in payloads:
                jobs_api.defer(task, payload=p)

        def batch() -> None:
            jobs_api.defer_many(task, payloads=payloads)

        results = {}
        for name, fn in (("defer_one_by_one", one_by_one), ("defer_many", batch)):
            samples = []
            for _ in range(ROUNDS):
                with transaction.atomic():
                    t0 = time.perf_counter()
                    fn()
                    samples.append((time.perf_counter() - t0) * 1000)
                    transaction.set_rollback(True)  # measure the fan-out, not the table growing
            results[name] = {"median_ms": round(statistics.median(samples), 1), "min_ms": round(min(samples), 1)}
        ratio = results["defer_one_by_one"]["median_ms"] / results["defer_many"]["median_ms"]
        print(f"{'mode':<20}{'median ms':>10}{'min ms':>9}   (N={N} jobs in one transaction)")
        for name, r in results.items():
            print(f"{name:<20}{r['median_ms']:>10}{r['min_ms']:>9}")
        print(f"one-by-one / batch: {ratio:.1f}x")
        print(json.dumps({"n": N, **results, "ratio": round(ratio, 2)}))


if __name__ == "__main__":
    main()
