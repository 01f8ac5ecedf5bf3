"""The sandbox's status for the health check, and zygote restarts reported with results
(how worker-untrusted's restarts reach Prometheus without it opening a port)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from ats.sandbox.api import ForkServerSandbox, SandboxPolicy, shipped_profile_hash, status_problems
from tests.corpus import text_pdf


def test_status_lists_live_zygotes_and_restarts_travel_with_the_next_result(policy: SandboxPolicy) -> None:
    with ForkServerSandbox(policy=policy) as sandbox:
        sandbox.start()
        status = sandbox.status()
        assert status["loaded_policy_hash"] == policy.policy_hash
        [pid] = status["zygote_pids"]
        assert status_problems(status) == []
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while not status_problems(status) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert status_problems(status) == [f"sandbox zygote {pid} is dead"]
        first = sandbox.run("pdf", text_pdf())  # the dead zygote is replaced for this one
        assert first.ok and first.zygote_restarts == 1 and first.to_dict()["zygote_restarts"] == 1
        assert sandbox.run("pdf", text_pdf()).zygote_restarts == 0  # reported once
        assert status_problems(sandbox.status()) == []


def test_changed_policy_files_are_a_problem(policy: SandboxPolicy) -> None:
    status = {
        "kind": "forkserver",
        "policy_dir": policy.policy_dir,
        "loaded_policy_hash": "0" * 64,
        "loaded_profile_hash": shipped_profile_hash(Path(policy.policy_dir)),
        "zygote_pids": [],
    }
    assert status_problems(status) == ["the zygotes' loaded sandbox policy differs from the shipped policy files"]
    assert status_problems({"kind": "inprocess"}) == []
