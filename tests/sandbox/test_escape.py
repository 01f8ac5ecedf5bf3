"""(b) Escape probes run INSIDE the real sandbox (root mode on this host when run as root).

Every probe first proves the child is confined (selfcheck.preflight: not root, limits
set, no_new_privs, seccomp, no capabilities), then tries one escape, which must end as
its typed failure or a refusal - and the same zygote must serve the next document.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ats.sandbox import forkserver
from ats.sandbox.api import Failure, ForkServerSandbox, Layer, SandboxResult

from .conftest import probe_sandbox

pytestmark = pytest.mark.timeout(60)

EPERM, EACCES = 1, 13


def _seen(result: SandboxResult) -> dict[str, Any]:
    assert result.ok, (result.failure, result.detail)
    assert result.document is not None
    return json.loads(result.document["text"])


def _still_serving(sandbox: ForkServerSandbox, zygote_pid: int) -> None:
    deadline = time.monotonic() + 30
    while sandbox.replacing() and time.monotonic() < deadline:
        time.sleep(0.05)  # a recycled zygote's replacement warms up: let it, CPU caps are short here
    after = sandbox.run("probe:identity", b"")
    assert after.ok, (after.failure, after.detail)
    # No unplanned zygote death. A child killed by SIGSYS/SIGSEGV makes the sandbox
    # recycle its zygote (test_recycle.py): planned, counted in `recycles`, not here.
    assert sandbox.restarts == 0, zygote_pid


@pytest.fixture
def zygote_pid(probes: ForkServerSandbox) -> int:
    return int(probes.last_hello["pid"])


def test_identity_reports_layers_and_policy(probes: ForkServerSandbox, zygote_pid: int) -> None:
    result = probes.run("probe:identity", b"")
    seen = _seen(result)
    assert result.policy_hash == probes.policy.policy_hash
    assert Layer.SECCOMP in result.layers and Layer.NO_NEW_PRIVS in result.layers
    assert seen["session_leader"] and seen["open_fds"] == [0, 1, 2, seen["result_fd"]]
    if os.geteuid() == 0:
        assert seen["preflight"]["uid"] == 65534 and Layer.SETUID in result.layers
        assert seen["interfaces"] == ["lo"]  # empty network namespace


@pytest.mark.parametrize("probe", ["socket_inet", "socket_unix", "connect"])
def test_network_is_refused(probes: ForkServerSandbox, zygote_pid: int, probe: str) -> None:
    seen = _seen(probes.run(f"probe:{probe}", b""))
    assert seen["refused"] and seen["errno"] == EPERM
    _still_serving(probes, zygote_pid)


@pytest.mark.parametrize(
    "probe",
    ["execve", "fork_bomb", "thread", "write_file", "ptrace_parent", "kill_parent", "regain_root", "exec_mapping"],
)
def test_forbidden_syscalls_kill_the_child(probes: ForkServerSandbox, zygote_pid: int, probe: str) -> None:
    result = probes.run(f"probe:{probe}", b"")
    assert (result.failure, result.detail) == (Failure.SECCOMP_VIOLATION, "SIGSYS")
    assert result.document is None
    _still_serving(probes, zygote_pid)


def test_write_left_no_file(probes: ForkServerSandbox) -> None:
    assert not list(Path("/tmp").glob("ats-sandbox-check-*"))


def test_parent_environ_is_closed(probes: ForkServerSandbox, zygote_pid: int) -> None:
    seen = _seen(probes.run("probe:environ", b""))
    for who in ("zygote_pid", "worker_pid"):
        assert seen[who] == {"refused": True, "errno": EACCES}, who


def test_files_outside_the_allowlist(probes: ForkServerSandbox, policy: Any) -> None:
    shadow = _seen(probes.run("probe:read_path", b"/etc/shadow"))
    assert shadow["refused"] and shadow["errno"] == EACCES
    world_readable = _seen(probes.run("probe:read_path", str(Path(__file__)).encode()))
    if Layer.LANDLOCK in probes.last_hello["layers"]:
        assert world_readable["refused"] and world_readable["errno"] == EACCES
        tessdata = Path(policy.child.read_only_paths[0]) / "eng.traineddata"
        if tessdata.exists():
            assert not _seen(probes.run("probe:read_path", str(tessdata).encode()))["refused"]


def test_cpu_spin_is_timeout_cpu(short_policy: Any) -> None:
    # Its own wall cap far above the CPU cap: on a loaded machine (load over 2 per core)
    # 2 s of CPU takes more than the short policy's 4 s of wall, and the wall kill would
    # come first - a correct outcome, but not the one this test is about.
    patient = dataclasses.replace(short_policy, child=dataclasses.replace(short_policy.child, wall_s=60.0))
    with probe_sandbox(patient) as sandbox:
        zygote_pid = sandbox.start()["pid"]
        result = sandbox.run("probe:cpu_spin", b"")
        assert result.failure == Failure.TIMEOUT_CPU, result
        assert 1500 <= result.cpu_ms <= 4000  # SIGXCPU at the 2 s test cap
        _still_serving(sandbox, zygote_pid)


def test_blocked_child_is_timeout_wall(probes: ForkServerSandbox, zygote_pid: int) -> None:
    result = probes.run("probe:block", b"")
    assert result.failure == Failure.TIMEOUT_WALL
    assert result.wall_ms < probes.policy.child.wall_s * 1000 + 1000
    _still_serving(probes, zygote_pid)


def test_memory_bomb_is_memory(probes: ForkServerSandbox, zygote_pid: int) -> None:
    result = probes.run("probe:memory_bomb", b"")
    assert result.failure == Failure.MEMORY
    assert result.max_rss_kb < (probes.policy.child.address_space_budget_mb + 300) * 1024
    _still_serving(probes, zygote_pid)


@pytest.mark.parametrize(
    ("probe", "failure"),
    [
        ("huge_output", Failure.OUTPUT_TOO_LARGE),  # the child's own check
        ("raw_flood", Failure.OUTPUT_TOO_LARGE),  # the zygote's cap on the pipe
        ("forged_answer", Failure.PROTOCOL_ERROR),  # well framed, wrong schema
        ("invented_code", Failure.PROTOCOL_ERROR),  # an error code outside the closed set
        ("bad_thumbnail", Failure.PROTOCOL_ERROR),  # PNG header claims 4000 x 4000
    ],
)
def test_hostile_answers_are_typed(probes: ForkServerSandbox, zygote_pid: int, probe: str, failure: Failure) -> None:
    result = probes.run(f"probe:{probe}", b"")
    assert result.failure == failure and result.document is None
    _still_serving(probes, zygote_pid)


@pytest.mark.parametrize("size", [200, 64_000, 600_000])
def test_no_earlier_document_survives_in_a_later_child(probes: ForkServerSandbox, size: int) -> None:
    """Each child is a fork of the zygote, which handled every earlier document: those
    bytes (and their answers) must be scrubbed, or child N+1 could read document N."""
    marker = secrets.token_bytes(32)
    earlier = secrets.token_bytes(size // 2) + marker + secrets.token_bytes(size // 2)
    assert probes.run("probe:identity", earlier).ok
    needle = marker[:16] + bytes(b ^ 0xFF for b in marker[16:])  # never the whole marker
    seen = _seen(probes.run("probe:find_remnant", needle))
    assert seen["scanned_mb"] > 50 and seen["hits"] == 0


# -- zygote lifecycle -----------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except FileNotFoundError:
        return []


def test_dead_zygote_is_restarted(short_policy: Any) -> None:
    with probe_sandbox(short_policy) as sandbox:
        first = sandbox.start()["pid"]
        os.kill(first, signal.SIGKILL)
        time.sleep(0.1)
        result = sandbox.run("probe:identity", b"")
        assert result.ok and sandbox.restarts == 1 and sandbox.last_hello["pid"] != first


def test_zygote_death_kills_the_child_pdeathsig(short_policy: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # The zygote forks its next child ahead (the spare), so a child exists before any
    # document does: kill only once the document is on its way, or the worker would
    # (rightly) start a fresh zygote and this would time out instead. Once the request
    # has begun, a dead zygote can only surface as EPIPE or EOF, never as a timeout.
    sending = threading.Event()
    original_request = forkserver._Zygote.request

    def request(self: Any, *args: Any, **kwargs: Any) -> Any:
        sending.set()
        return original_request(self, *args, **kwargs)

    monkeypatch.setattr(forkserver._Zygote, "request", request)
    with probe_sandbox(short_policy) as sandbox:
        zygote = sandbox.start()["pid"]
        results: list[SandboxResult] = []
        runner = threading.Thread(target=lambda: results.append(sandbox.run("probe:block", b"")))
        runner.start()
        assert sending.wait(10), "the document never left the worker"
        deadline = time.monotonic() + 3
        while not _children(zygote) and time.monotonic() < deadline:
            time.sleep(0.01)
        (child,) = _children(zygote)
        os.kill(zygote, signal.SIGKILL)
        runner.join(10)
        deadline = time.monotonic() + 2
        while Path(f"/proc/{child}").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not Path(f"/proc/{child}").exists(), "child outlived its zygote"
        assert results[0].failure == Failure.CRASHED  # the zygote, not the document, failed
        assert sandbox.run("probe:identity", b"").ok  # and a new one took over


def test_hung_zygote_is_replaced(short_policy: Any) -> None:
    quick = dataclasses.replace(
        short_policy, child=dataclasses.replace(short_policy.child, wall_s=1.0), reply_grace_s=0.5
    )
    with probe_sandbox(quick) as sandbox:
        zygote = sandbox.start()["pid"]
        os.kill(zygote, signal.SIGSTOP)
        started = time.monotonic()
        result = sandbox.run("probe:identity", b"")
        assert result.failure == Failure.TIMEOUT_WALL and time.monotonic() - started < 3
        assert sandbox.run("probe:identity", b"").ok and sandbox.last_hello["pid"] != zygote


def test_concurrent_documents_use_the_pool(short_policy: Any) -> None:
    with probe_sandbox(short_policy, pool_size=2) as sandbox:
        sandbox.start()
        results: list[SandboxResult] = []
        threads = [
            threading.Thread(target=lambda: results.append(sandbox.run("probe:identity", b""))) for _ in range(6)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        assert len(results) == 6 and all(r.ok for r in results)


def test_probes_are_test_only(short_policy: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATS_SANDBOX_TEST_PROBES", raising=False)
    with pytest.raises(RuntimeError, match="test-only"):
        ForkServerSandbox(policy=short_policy, probes="probes")
    with ForkServerSandbox(policy=short_policy) as production:  # no probes configured
        result = production.run("probe:identity", b"")
        assert result.failure == Failure.UNSUPPORTED
