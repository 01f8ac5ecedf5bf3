"""(c) Container mode: the worker runs as uid 65534 with no capabilities, no_new_privs and
seccomp-container.json - like k8s with runAsNonRoot, drop ALL and a Localhost profile.

The uid change and the network namespace are then impossible; the remaining layers
must still hold. tests/sandbox/container_mode.py emulates the runtime and reports.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import HERE

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(os.geteuid() != 0, reason="emulating the container runtime needs root"),
]
EPERM, EACCES = 1, 13


@pytest.fixture(scope="module")
def staged() -> Iterator[Path]:
    """A world-readable copy of the code, the policies and the probe scripts, as an image
    would have them: the checkout may sit in a directory uid 65534 cannot enter. Not under
    pytest's base temp dir: other root pytest sessions on the machine reset that to 0700."""
    repo = HERE.parents[1]
    stage = Path(tempfile.mkdtemp(prefix="ats-container-image-"))
    try:
        yield _stage(repo, stage)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _stage(repo: Path, stage: Path) -> Path:
    shutil.copytree(repo / "shared" / "ats", stage / "code" / "ats", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(repo / "services" / "worker-untrusted" / "policy", stage / "policy")
    for name in ("container_mode.py", "probes.py"):
        shutil.copy(HERE / name, stage / name)
    for path in [stage, *stage.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return stage


def _run(staged: Path, **extra_env: str) -> dict[str, Any]:
    env = {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(staged / "code"),
        "ATS_SANDBOX_POLICY_DIR": str(staged / "policy"),
        **extra_env,
    }
    done = subprocess.run(
        [sys.executable, str(staged / "container_mode.py")],
        env=env,
        cwd="/",
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout))


@pytest.fixture(scope="module")
def report(staged: Path) -> dict[str, Any]:
    return _run(staged)


@pytest.fixture(scope="module")
def without_landlock(staged: Path) -> dict[str, Any]:
    """The same container on a kernel without Landlock (simulated: test-only switch,
    honoured only by a zygote started with test probes)."""
    return _run(staged, ATS_SANDBOX_TEST_NO_LANDLOCK="1")


def test_worker_runs_confined(report: dict[str, Any]) -> None:
    assert report["uid"] == 65534
    assert report["worker_seccomp"] == "2" and int(report["worker_cap_bnd"], 16) == 0


def test_container_profile_is_enough_for_the_worker(report: dict[str, Any]) -> None:
    # TCP (psycopg), asyncio, fork+exec of the zygote, prctl/seccomp/landlock in it.
    assert report["tcp_ok"] and report["asyncio_ok"]
    assert report["pdf"] == {"failure": None, "text": "Sandbox check: Jane Doe, engineer"}


def test_container_profile_blocks_userns_and_ptrace(report: dict[str, Any]) -> None:
    assert report["control_userns_errno"] == 0, "control: this host allows unprivileged user namespaces"
    assert report["userns_errno"] == EPERM  # only the profile's argument filter stops it now
    assert report["ptrace_errno"] == EPERM


def test_missing_layers_are_reported(report: dict[str, Any]) -> None:
    assert {"setuid", "netns", "securebits"} <= set(report["skipped"])
    assert {"seccomp", "no_new_privs", "rlimits", "nondumpable", "close_fds", "pdeathsig"} <= set(report["layers"])


def test_non_dumpable_closes_environ_even_without_landlock(report: dict[str, Any]) -> None:
    # A same-uid process outside the sandbox (no seccomp, no Landlock of its own).
    assert report["sibling_environ"] == {"zygote": EACCES, "worker": EACCES}


def test_remaining_layers_hold(report: dict[str, Any]) -> None:
    probes = report["probes"]
    preflight = probes["identity"]["seen"]["preflight"]
    assert preflight["uid"] == 65534 and preflight["nproc"] == [0, 0] and preflight["cpu"] == [2, 3]
    assert preflight["seccomp"] == "2" and preflight["no_new_privs"] == "1"
    for probe in ("socket_inet", "connect"):
        assert probes[probe]["seen"]["refused"] and probes[probe]["seen"]["errno"] == EPERM
    assert probes["environ"]["seen"]["zygote_pid"] == {"refused": True, "errno": EACCES}
    assert probes["environ"]["seen"]["worker_pid"] == {"refused": True, "errno": EACCES}
    for probe in ("write_file", "fork_bomb", "ptrace_parent", "execve"):
        assert probes[probe]["failure"] == "seccomp_violation", probe
    assert probes["cpu_spin"]["failure"] == "timeout_cpu"
    assert probes["memory_bomb"]["failure"] == "memory"
    assert probes["raw_flood"]["failure"] == "output_too_large"
    # No unplanned zygote death; the SIGSYS kills recycled it (planned, test_recycle.py).
    assert report["restarts"] == 0 and report["recycles"] >= 1


def test_same_uid_proc_sweep_is_stopped_by_landlock(report: dict[str, Any]) -> None:
    """The child keeps the worker's uid here; a dumpable same-uid neighbour with a secret
    in its environment: Landlock is what refuses /proc/<neighbour>/environ."""
    assert "landlock" in report["layers"]
    sweep = report["sweep"]
    assert sweep["failure"] is None, sweep
    for pid, found in sweep["seen"]["pids"].items():
        assert found == {"environ": {"refused": True, "errno": EACCES}}, (pid, found)


def test_without_landlock_the_sandbox_refuses_to_parse(without_landlock: dict[str, Any]) -> None:
    """No uid change and no Landlock: no file boundary at all. The zygote must not start
    (documents end as sandbox_unavailable, retried elsewhere) and `just sandbox-check`
    (python -m ats.sandbox.check) must fail, not report the layer as skipped."""
    assert "no file boundary" in without_landlock.get("start_error", ""), without_landlock.get("hello")
    assert without_landlock["document"] == "sandbox_unavailable"
    assert without_landlock["sweep"]["failure"] == "sandbox_unavailable", without_landlock["sweep"]
    check = without_landlock["check"]
    assert check["exit"] == 1 and check["report"] is not None
    assert "landlock" in check["report"]["required_missing"]
    assert check["report"]["ok"] is False


def test_review_probes_hold_with_the_workers_uid(report: dict[str, Any]) -> None:
    assert report["raw_syscalls"] and set(report["raw_syscalls"].values()) == {"seccomp_violation"}, report[
        "raw_syscalls"
    ]
    assert report["mappings"]["wx"] == [] and report["mappings"]["shared_writable"] == []
    assert report["abort"] == "crashed"
    remnant = report["remnant"]
    assert remnant["flood"] == "output_too_large" and remnant["seen"]["hits"] == 0, remnant
    assert remnant["seen"]["scanned_mb"] > 50
    assert report["restarts"] == 0  # the zygote survived tgkill/prlimit64 aimed at it
