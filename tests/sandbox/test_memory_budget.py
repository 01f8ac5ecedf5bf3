"""Two greedy documents at once (concurrency 2 = two zygotes, two children): both end as
`memory` inside the sandbox, no zygote dies, and what the processes really used stays
within the allowances of policy/limits.toml [memory] that size the pod and compose
limits (tests/deploy). Measured with real memory bombs under the production budget."""

from __future__ import annotations

import threading
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest

from ats.sandbox.api import Failure, SandboxPolicy, load_policy, policy_dir

from .conftest import probe_sandbox

pytestmark = pytest.mark.timeout(180)
MIB = 1 << 20


def _rollup(pid: int) -> dict[str, int]:
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]
    except OSError:
        return {}
    return {k: int(v.split()[0]) * 1024 for k, _, v in (line.partition(":") for line in lines) if v.endswith("kB")}


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def test_two_greedy_documents_at_once_fit_the_budget() -> None:
    memory = tomllib.loads((policy_dir() / "limits.toml").read_text())["memory"]
    # Production memory budget; CPU/wall caps long enough for a loaded machine.
    policy: SandboxPolicy = load_policy(cpu_soft_s=30, cpu_hard_s=31, wall_s=60)
    budget_mb = policy.child.address_space_budget_mb
    with probe_sandbox(policy, pool_size=memory["concurrency"]) as sandbox:
        sandbox.start()
        zygotes = sandbox.status()["zygote_pids"]
        assert len(zygotes) == memory["concurrency"]
        for zygote in zygotes:
            with open(f"/proc/{zygote}/statm") as fh:
                mapped_mb = int(fh.read().split()[0]) * 4096 / MIB
            assert mapped_mb <= memory["zygote_mapped_mb"], mapped_mb
            assert _rollup(zygote)["Rss"] / MIB <= memory["zygote_rss_mb"]
        peaks: dict[str, float] = {"child_rss": 0.0, "sandbox_pss": 0.0}
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                total = 0
                for zygote in zygotes:
                    total += _rollup(zygote).get("Pss", 0)
                    for child in _children(zygote):
                        roll = _rollup(child)
                        total += roll.get("Pss", 0)
                        peaks["child_rss"] = max(peaks["child_rss"], roll.get("Rss", 0) / MIB)
                peaks["sandbox_pss"] = max(peaks["sandbox_pss"], total / MIB)
                time.sleep(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        results: list[Any] = []
        runs = [
            threading.Thread(target=lambda: results.append(sandbox.run("probe:memory_bomb", b"")))
            for _ in range(memory["concurrency"])
        ]
        for t in runs:
            t.start()
        for t in runs:
            t.join(120)
        done.set()
        sampler.join()
        assert [r.failure for r in results] == [Failure.MEMORY] * memory["concurrency"]
        # The result reports the child's real peak (not 0 when it exited before the look).
        assert all(r.max_rss_kb >= 0.8 * budget_mb * 1024 for r in results), [r.max_rss_kb for r in results]
        assert sandbox.restarts == 0 and sorted(sandbox.status()["zygote_pids"]) == sorted(zygotes)
    # Each child reached (nearly) its budget: the bombs really were greedy ...
    assert peaks["child_rss"] >= 0.8 * budget_mb, peaks
    # ... and stayed under RLIMIT_AS = zygote mapped + budget ...
    assert peaks["child_rss"] <= memory["zygote_mapped_mb"] + budget_mb, peaks
    # ... and zygotes + children together under the share the pod limit gives them.
    sandbox_share = memory["concurrency"] * (memory["zygote_rss_mb"] + memory["zygote_mapped_mb"] + budget_mb)
    assert peaks["sandbox_pss"] <= sandbox_share, (peaks, sandbox_share)
