"""The zygote is re-executed after N documents and after a child dies of SIGSEGV/SIGSYS
(issue 9: every child of one zygote shares its address-space layout, canary and heap
shape - crash-and-retry brute force). The replacement warms up in the background; the
old zygote serves until it is ready, so no document waits for a zygote start."""

from __future__ import annotations

import dataclasses
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ats.sandbox.api import Failure, ForkServerSandbox, SandboxPolicy

from .conftest import probe_sandbox

pytestmark = pytest.mark.timeout(120)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in {"Z", "X"}


def _wait_for_new_zygote(sandbox: ForkServerSandbox, old: int, timeout_s: float = 30) -> int:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pids = sandbox.status()["zygote_pids"]
        if pids and old not in pids and not _alive(old):
            return int(pids[0])
        time.sleep(0.05)
    raise AssertionError(f"zygote {old} was not replaced: {sandbox.status()}")


def _zygote_of(result: Any) -> int:
    return int(json.loads(result.document["text"])["zygote_pid"])


def test_limits_toml_sets_the_recycle_count(policy: SandboxPolicy) -> None:
    assert policy.recycle_after_documents == 500


def test_recycled_after_n_documents_off_the_critical_path(short_policy: Any) -> None:
    policy = dataclasses.replace(short_policy, recycle_after_documents=3)
    with probe_sandbox(policy) as sandbox:
        first = int(sandbox.start()["pid"])
        served = [sandbox.run("probe:zygote", b"") for _ in range(3)]
        assert all(r.ok for r in served)
        # The recycling document did not wait for a zygote start: the old zygote answered
        # it, and only then was its replacement started (in the background). Who answered
        # is exact; the wall time it took (once asserted < 500 ms) is load-dependent.
        assert [_zygote_of(r) for r in served] == [first] * 3
        second = _wait_for_new_zygote(sandbox, first)
        after = sandbox.run("probe:zygote", b"")
        assert after.ok and _zygote_of(after) == second and sandbox.status()["zygote_pids"] == [second]
        assert sandbox.restarts == 0 and sandbox.recycles == 1 and after.zygote_restarts == 0


@pytest.mark.parametrize(("probe", "failure"), [("segfault", Failure.CRASHED), ("execve", Failure.SECCOMP_VIOLATION)])
def test_recycled_after_a_crash_or_seccomp_kill(short_policy: Any, probe: str, failure: Failure) -> None:
    with probe_sandbox(short_policy) as sandbox:
        first = int(sandbox.start()["pid"])
        result = sandbox.run(f"probe:{probe}", b"")
        assert result.failure == failure, (result.failure, result.detail)
        second = _wait_for_new_zygote(sandbox, first)
        assert second != first and sandbox.run("probe:identity", b"").ok
        assert sandbox.restarts == 0 and sandbox.recycles == 1


def test_an_ordinary_failure_does_not_recycle(short_policy: Any) -> None:
    with probe_sandbox(short_policy) as sandbox:
        first = int(sandbox.start()["pid"])
        assert sandbox.run("probe:memory_bomb", b"").failure == Failure.MEMORY
        # run() decides on recycling before it returns (a due zygote's replacement thread
        # is started by then), so no sleep is needed to see that none was started; the next
        # document, answered by the same zygote, shows that it also survived.
        assert not sandbox.replacing() and sandbox.recycles == 0
        after = sandbox.run("probe:zygote", b"")
        assert after.ok and _zygote_of(after) == first, (after.failure, after.detail)
        assert sandbox.status()["zygote_pids"] == [first] and sandbox.recycles == 0 and sandbox.restarts == 0


def test_recycling_under_concurrency_keeps_the_pool_size(short_policy: Any) -> None:
    import threading

    policy = dataclasses.replace(short_policy, recycle_after_documents=2)
    with probe_sandbox(policy, pool_size=2) as sandbox:
        sandbox.start()
        results: list[Any] = []
        threads = [threading.Thread(target=lambda: results.append(sandbox.run("probe:zygote", b""))) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert len(results) == 8 and all(r.ok for r in results), [(r.failure, r.detail) for r in results]
        # How the eight documents spread over the two slots is the scheduler's choice: one
        # zygote may serve seven of them while its replacement warms up (it keeps serving
        # until then), so a fixed "two recycles" only held when the timing was kind (it
        # failed under load with one). What must hold is exact: every zygote that served
        # the recycle count was replaced once, and the pool is back to two live zygotes.
        served = Counter(json.loads(r.document["text"])["zygote_pid"] for r in results)
        due = sum(1 for n in served.values() if n >= policy.recycle_after_documents)
        assert due >= 1, served
        deadline = time.monotonic() + 30
        while (sandbox.recycles < due or sandbox.replacing()) and time.monotonic() < deadline:
            time.sleep(0.05)
        status = sandbox.status()
        assert sandbox.recycles == due, (served, status)
        assert len(status["zygote_pids"]) + status["unstarted"] == 2, status
        assert all(_alive(pid) for pid in status["zygote_pids"])
        assert not set(status["zygote_pids"]) & {pid for pid, n in served.items() if n >= 2}, (served, status)
