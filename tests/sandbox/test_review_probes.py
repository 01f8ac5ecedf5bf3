"""Probes from the security review (issue 9), run INSIDE real sandbox children.

Each must end typed - and an attempt on the zygote must leave it alive (no unplanned
restart). Same harness as test_escape.py: one zygote per module, short caps.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import subprocess
import sys
import time
from typing import Any

import pytest

from ats.sandbox.api import Failure, ForkServerSandbox, SandboxResult

# One list of raw-syscall probes for root and container mode (container_mode.py runs staged, standalone).
from tests.sandbox.container_mode import RAW_SYSCALLS

pytestmark = pytest.mark.timeout(120)

EPERM, EACCES = 1, 13


def _seen(result: SandboxResult) -> dict[str, Any]:
    assert result.ok, (result.failure, result.detail)
    assert result.document is not None
    return json.loads(result.document["text"])


def _still_serving(sandbox: ForkServerSandbox) -> None:
    """No unplanned zygote death (a recycle after a crash is planned, not a restart)."""
    deadline = time.monotonic() + 30
    while sandbox.replacing() and time.monotonic() < deadline:
        time.sleep(0.05)  # a recycled zygote's replacement warms up: let it, CPU caps are short here
    after = sandbox.run("probe:identity", b"")
    assert after.ok, (after.failure, after.detail)
    assert sandbox.restarts == 0


def test_glibc_abort_is_a_crash_not_an_attack(probes: ForkServerSandbox) -> None:
    result = probes.run("probe:abort", b"")
    assert result.failure == Failure.CRASHED, (result.failure, result.detail)
    _still_serving(probes)


def test_sigabrt_at_the_zygote_is_refused(probes: ForkServerSandbox) -> None:
    seen = _seen(probes.run("probe:tgkill_zygote_sigabrt", b""))
    assert (seen["rc"], seen["errno"]) == (-1, EPERM)
    _still_serving(probes)


def _marker_needle() -> tuple[bytes, bytes]:
    marker = secrets.token_bytes(32)
    return marker, marker[:16] + bytes(b ^ 0xFF for b in marker[16:])


@pytest.mark.parametrize(
    ("probe", "failure"),
    [("flood_data", Failure.OUTPUT_TOO_LARGE), ("partial_then_block", Failure.TIMEOUT_WALL)],
)
def test_no_answer_remnant_after_overflow_or_timeout(probes: ForkServerSandbox, probe: str, failure: Failure) -> None:
    """The zygote read (part of) this answer into its buffer before giving up on it: the
    next child, a fork of the zygote, must not find a byte of it."""
    marker, needle = _marker_needle()
    earlier = probes.run(f"probe:{probe}", secrets.token_bytes(100) + marker + secrets.token_bytes(100))
    assert earlier.failure == failure, (earlier.failure, earlier.detail)
    seen = _seen(probes.run("probe:find_remnant", needle))
    assert seen["scanned_mb"] > 50 and seen["hits"] == 0


def test_no_writable_executable_or_shared_writable_mapping(probes: ForkServerSandbox) -> None:
    seen = _seen(probes.run("probe:mappings", b""))
    assert seen["wx"] == [] and seen["shared_writable"] == []


@pytest.mark.parametrize("call", RAW_SYSCALLS)
def test_raw_syscall_sweep(probes: ForkServerSandbox, call: str) -> None:
    result = probes.run("probe:raw_syscall", call.encode())
    assert (result.failure, result.detail) == (Failure.SECCOMP_VIOLATION, "SIGSYS"), (result.failure, result.detail)
    _still_serving(probes)


def test_same_uid_proc_sweep_reads_nothing(probes: ForkServerSandbox) -> None:
    """Neighbours with a secret in their environment: the health-check process, a
    `kubectl exec` shell - here a same-uid process of the test (the worker's uid)."""
    secret = "ATS_TEST_SECRET=" + secrets.token_hex(8)
    neighbour = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        env={**os.environ, "ATS_TEST_SECRET": secret.split("=", 1)[1]},
        stdin=subprocess.PIPE,
    )
    try:
        seen = _seen(probes.run("probe:proc_sweep", json.dumps([neighbour.pid, os.getpid()]).encode()))
    finally:
        neighbour.kill()
        neighbour.wait()
    for pid, found in seen["pids"].items():
        assert found["environ"]["refused"] and found["environ"]["errno"] == EACCES, (pid, found)
        assert set(found) == {"environ"}, (pid, found)  # no fd of any neighbour opened
    _still_serving(probes)


def _fd_links(pid: int) -> dict[str, str]:
    """The process's open fds and what they point at. An fd closed between the listing and
    its readlink (the zygote forking its next spare child opens and closes a few) is gone,
    not the IPC channel: it is left out rather than failing the read (CI saw one)."""
    links = {}
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            links[fd] = os.readlink(f"/proc/{pid}/fd/{fd}")
        except FileNotFoundError:
            continue
    return links


def test_ipc_uses_sockets_not_pipes(probes: ForkServerSandbox) -> None:
    """A pipe can be reopened through /proc/<pid>/fd/N by anyone who may open that link
    (a same-uid process while a fresh zygote is still dumpable); a socket cannot (ENXIO)."""
    seen = _seen(probes.run("probe:ipc_kind", b""))
    assert seen["socket"] and not seen["fifo"]
    zygote = int(probes.status()["zygote_pids"][0])
    links = _fd_links(zygote)
    pipes = {fd: link for fd, link in links.items() if link.startswith("pipe:")}
    assert pipes == {}, links
    assert _reopen_errnos(zygote) == {errno.ENXIO}


def _reopen_errnos(pid: int) -> set[int]:
    """The errnos of reopening each of the process's socket fds through /proc (an open that
    succeeds fails the test). A socket the zygote closed between the listing and the open -
    the next spare child's channel, made and handed over meanwhile - is gone (ENOENT), not
    reopenable: it is skipped, and the listing read again until one socket was tried (a
    clean-clone run failed on such a one)."""
    for _ in range(20):
        errnos: set[int] = set()
        for fd, link in _fd_links(pid).items():
            if not link.startswith("socket:"):
                continue
            try:
                reopened = os.open(f"/proc/{pid}/fd/{fd}", os.O_RDWR)
            except OSError as refused:
                if refused.errno is not None and refused.errno != errno.ENOENT:
                    errnos.add(refused.errno)
                continue
            os.close(reopened)
            pytest.fail(f"socket fd {fd} of {pid} was reopened through /proc")
        if errnos:
            return errnos
    pytest.fail(f"no socket fd of {pid} stayed open long enough to be tried")
