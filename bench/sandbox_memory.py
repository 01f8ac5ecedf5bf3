"""Memory of worker-untrusted at concurrency 2: worker + two zygotes (each with its idle
spare child) + two greedy children at once. Prints JSON (MiB, from smaps_rollup).

    PYTHONPATH=shared:. python bench/sandbox_memory.py [--budget-mb 1024]

The greedy documents are the self-check memory bomb: it touches every page until
RLIMIT_AS (zygote's mapped size + address_space_budget_mb) stops it - the worst a
document can do. Sampled every 20 ms; peaks are per process and for the sum.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

MIB = 1 << 20


def rollup(pid: int) -> dict[str, int]:
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return {}
    out = {}
    for line in text.splitlines()[1:]:
        key, _, rest = line.partition(":")
        fields = rest.split()
        if fields and fields[-1] == "kB":
            out[key] = int(fields[0]) * 1024
    return out


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def tree(root: int) -> list[int]:
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children(pid))
    return out


def worker_like() -> None:
    """Import what the real untrusted worker imports before it starts the sandbox."""
    os.environ.setdefault("ATS_DEPLOYABLE", "untrusted")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ats.config.settings")
    import django

    django.setup()
    import procrastinate  # noqa: F401


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget-mb", type=int, default=None)
    args = parser.parse_args()
    worker_like()
    from ats.sandbox.api import Failure, ForkServerSandbox, load_policy
    from ats.sandbox.zygote import PROBES_ENV

    os.environ[PROBES_ENV] = "1"
    overrides: dict[str, Any] = {"cpu_soft_s": 30, "cpu_hard_s": 31, "wall_s": 60}
    if args.budget_mb:
        overrides["address_space_budget_mb"] = args.budget_mb
    policy = load_policy(**overrides)
    me = os.getpid()
    report: dict[str, Any] = {"budget_mb": policy.child.address_space_budget_mb}
    with ForkServerSandbox(policy=policy, probes="ats.sandbox.selfcheck", pool_size=2) as sandbox:
        sandbox.start()
        time.sleep(1.0)  # spares forked and warmed
        zygotes = sandbox.status()["zygote_pids"]
        idle = {pid: rollup(pid) for pid in tree(me)}
        report["idle"] = {
            "worker_pss": idle[me]["Pss"] / MIB,
            "zygote_pss": [idle[z]["Pss"] / MIB for z in zygotes],
            "zygote_rss": [idle[z]["Rss"] / MIB for z in zygotes],
            "spare_pss": [idle[c]["Pss"] / MIB for z in zygotes for c in children(z)],
            "total_pss": sum(r.get("Pss", 0) for r in idle.values()) / MIB,
        }
        peak = {"total_pss": 0, "child_rss": 0, "child_pss": 0, "child_private": 0}
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                rolls = {pid: rollup(pid) for pid in tree(me)}
                peak["total_pss"] = max(peak["total_pss"], sum(r.get("Pss", 0) for r in rolls.values()))
                for pid, r in rolls.items():
                    if pid != me and pid not in zygotes and r:
                        peak["child_rss"] = max(peak["child_rss"], r.get("Rss", 0))
                        peak["child_pss"] = max(peak["child_pss"], r.get("Pss", 0))
                        private = r.get("Private_Clean", 0) + r.get("Private_Dirty", 0)
                        peak["child_private"] = max(peak["child_private"], private)
                time.sleep(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        results: list[Any] = []
        runs = [
            threading.Thread(target=lambda: results.append(sandbox.run("probe:memory_bomb", b""))) for _ in range(2)
        ]
        started = time.monotonic()
        for t in runs:
            t.start()
        for t in runs:
            t.join()
        done.set()
        sampler.join()
        report["greedy"] = {
            "failures": [r.failure for r in results],
            "all_memory": all(r.failure == Failure.MEMORY for r in results),
            "wall_s": round(time.monotonic() - started, 1),
            "child_maxrss_mb": [r.max_rss_kb / 1024 for r in results],
            "peak_total_pss_mb": peak["total_pss"] / MIB,
            "peak_child_rss_mb": peak["child_rss"] / MIB,
            "peak_child_pss_mb": peak["child_pss"] / MIB,
            "peak_child_private_mb": peak["child_private"] / MIB,
            "restarts": sandbox.restarts,
        }
    print(json.dumps(report, indent=2, default=str))


if __name__ == "__main__":
    main()
